"""millstream taskmanager: run one TaskManager process.

    millstream taskmanager --jobmanager HOST:PORT [--slots N] [--bind-host 127.0.0.1]
                           [--secret-file FILE] [--resource-id ID] [-D key=value ...]

The shared secret comes from --secret-file or the MILLSTREAM_SECRET environment variable.
Its settings come from $MILLSTREAM_CONF_DIR/config.yaml, then -D key=value (which wins),
as Flink's config.yaml and -D; --slots defaults to taskmanager.numberOfTaskSlots.
As Flink's TaskManager it keeps trying to register with its JobManager, at start and
whenever it loses it (JobManager killed or restarted, or this process paused past
heartbeat.timeout: its tasks are cancelled then), and exits only when no JobManager took
it within taskmanager.registration.timeout (5 min). --managed is set by a MiniCluster
for its child processes: they ignore Ctrl-C and exit when they lose their JobManager
(their parent).
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import sys
from collections.abc import Sequence

from millstream.common import config_options as opts
from millstream.common import configuration
from millstream.runtime.ids import ResourceID, new_id
from millstream.runtime.rpc.wire import load_secret
from millstream.runtime.taskmanager.task_manager_runner import RegistrationTimeoutError, TaskManagerRunner

__all__ = ["main", "parse_address"]


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` -> (host, port)."""
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise SystemExit(f"millstream: expected HOST:PORT, got {text!r}")
    return host or "127.0.0.1", int(port)


def build_parser() -> argparse.ArgumentParser:
    """Arguments of ``millstream taskmanager``."""
    parser = argparse.ArgumentParser(
        prog="millstream taskmanager",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--jobmanager", required=True, help="the JobManager's RPC address HOST:PORT")
    parser.add_argument("--slots", type=int, help=f"task slots (default: {opts.TASK_SLOTS.key}, 1)")
    parser.add_argument("--bind-host", default="127.0.0.1", help="interface of the data-plane listener")
    parser.add_argument("--secret-file", help="file holding the cluster's shared secret")
    parser.add_argument("--resource-id", help="this TaskManager's id (default: a random one)")
    parser.add_argument("--managed", action="store_true", help=argparse.SUPPRESS)
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
    """Run a TaskManager until it is stopped (or, a MiniCluster's, its JobManager is lost)."""
    args = build_parser().parse_args(argv)
    if args.slots is not None and args.slots < 1:
        configuration.exit_on_bad_setting(
            f"millstream taskmanager: --slots must be at least 1, got {args.slots}"
        )
    config = configuration.load_process_configuration(args.define, "millstream taskmanager")
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if not args.managed:  # a cluster's TaskManager: its output is its log (taskmanager-<n>.log), at INFO
        logging.getLogger("millstream").setLevel(os.environ.get("MILLSTREAM_LOG_LEVEL", "INFO").upper())
    if args.managed:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        secret = load_secret(None, args.secret_file)
    except ValueError as err:
        print(f"millstream taskmanager: {err}", file=sys.stderr)
        return 2
    runner = TaskManagerRunner(
        config,
        parse_address(args.jobmanager),
        secret,
        ResourceID(args.resource_id or f"tm-{new_id()[:8]}"),
        args.slots if args.slots is not None else config.get(opts.TASK_SLOTS),
        bind_host=args.bind_host,
        reconnect=not args.managed,
    )
    if not args.managed:
        signal.signal(signal.SIGTERM, lambda *_: runner.shutdown())
    try:
        runner.start()
        runner.run()
    except KeyboardInterrupt:
        pass
    except RegistrationTimeoutError as err:
        print(f"millstream taskmanager: {err}; exiting", file=sys.stderr)
        return 1
    except ConnectionError as err:  # a MiniCluster's JobManager went away (its process ended or was killed)
        reason = err.strerror or type(err).__name__
        print(
            f"millstream taskmanager: lost the JobManager at {args.jobmanager} ({reason}); exiting",
            file=sys.stderr,
        )
        return 1
    except Exception as err:
        print(f"millstream taskmanager: {err}", file=sys.stderr)
        return 1
    finally:
        runner.close()
    return 0


def exit_now(code: int) -> None:
    """End the process once ``main`` returned, without the interpreter's teardown.

    Everything the TaskManager holds was released by ``runner.close()`` (sockets, state
    backends, spill files, its tasks' sinks). What remains is the heap: a job's keyed state
    can be millions of Python objects, and freeing them one by one at exit took the last
    0.5-1 s of a job whose client waits for its TaskManagers to end (Nexmark q4: 920,000
    rows held by its join). Logs and output are flushed first."""
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    exit_now(main())
