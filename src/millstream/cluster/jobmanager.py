"""millstream jobmanager: run a standalone JobManager process.

    millstream jobmanager [--bind-host 127.0.0.1] [--port 6123] [--secret-file FILE] [-D key=value ...]

TaskManagers register with it (millstream taskmanager --jobmanager HOST:PORT) and
clients submit jobs to it (millstream run --target cluster://HOST:PORT JOB.py), all
authenticated with the same shared secret (--secret-file or MILLSTREAM_SECRET).
Its settings come from $MILLSTREAM_CONF_DIR/config.yaml, then -D key=value (which wins),
as Flink's config.yaml and -D. It serves the REST API and web dashboard on rest.port
(8081; rest.enabled=false: not at all), as Flink's JobManager does. It runs until SIGTERM
or Ctrl-C; its TaskManagers then stop as well.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
import threading
from collections.abc import Sequence

from millstream.common.configuration import load_process_configuration
from millstream.common.rest_options import REST_ENABLED
from millstream.runtime.jobmanager.collect import CollectChannels
from millstream.runtime.jobmanager.job_manager_services import JobManagerServices
from millstream.runtime.rpc.wire import load_secret

__all__ = ["DEFAULT_PORT", "main"]

log = logging.getLogger("millstream.cluster.jobmanager")

DEFAULT_PORT = 6123  # Flink's jobmanager.rpc.port


def build_parser() -> argparse.ArgumentParser:
    """Arguments of ``millstream jobmanager``."""
    parser = argparse.ArgumentParser(
        prog="millstream jobmanager",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--bind-host", default="127.0.0.1", help="interface to listen on (default: loopback)")
    parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help=f"RPC port TaskManagers and clients connect to (default {DEFAULT_PORT})",
    )
    parser.add_argument(
        "--secret-file", help="file holding the cluster's shared secret (default: $MILLSTREAM_SECRET)"
    )
    parser.add_argument(
        "-D",
        dest="define",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="a setting; wins over config.yaml",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the JobManager until it is stopped."""
    args = build_parser().parse_args(argv)
    config = load_process_configuration(args.define, "millstream jobmanager")
    if not config.contains_key(REST_ENABLED.key):
        config.set_boolean(REST_ENABLED.key, True)  # a standalone JobManager serves it, as Flink's
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # A JobManager's output is its log (the cluster's jobmanager.log): INFO, unless told otherwise.
    logging.getLogger("millstream").setLevel(os.environ.get("MILLSTREAM_LOG_LEVEL", "INFO").upper())
    try:
        secret = load_secret(None, args.secret_file)
    except ValueError as err:
        print(f"millstream jobmanager: {err}", file=sys.stderr)
        return 2
    services = JobManagerServices(config, secret, CollectChannels())
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    try:
        host, port = services.start(args.bind_host, args.port)
        print(f"JobManager listening on {host}:{port}", flush=True)
        log.info("JobManager listening on %s:%d", host, port)
        rest = services.wait_for_plugins().get("rest")
        if rest is not None:  # the token stays out of the log: it is in the token file
            print(f"REST API and web dashboard at {rest.url}", flush=True)
        while not stopped.wait(1.0):
            pass
    except KeyboardInterrupt:
        pass
    except OSError as err:
        print(f"millstream jobmanager: {err}", file=sys.stderr)
        return 1
    finally:
        services.registry.shutdown_all()
        services.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
