"""Runs a command and kills it when the process that started this watchdog dies.

``python -m millstream.testing._orphan_watchdog <parent pid> <command...>``: a helper
process (the Kafka test broker's) must not outlive a test run killed by a signal, when no
fixture teardown runs. The watchdog starts the command as its child, then polls: once its
own parent is no longer ``<parent pid>`` (it was re-parented: the starter died), or the
command ended, it kills the command and exits with the command's code.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

POLL_S = 0.5


def main() -> int:
    parent = int(sys.argv[1])
    child = subprocess.Popen(sys.argv[2:])

    def stop(signum: int, frame: object) -> None:
        child.kill()

    signal.signal(signal.SIGTERM, stop)
    while child.poll() is None:
        if os.getppid() != parent:
            child.kill()
            break
        time.sleep(POLL_S)  # the parent's death is observed by polling (no event for it)
    return child.wait()


if __name__ == "__main__":
    sys.exit(main())
