"""``millstream``: run a job file, or show its graphs without running it.

    millstream run [--target embedded|cluster://HOST:PORT] [-p N] [-D key=value ...] [-s PATH [-n]]
                   [--web-ui] [--detached] [--progress|--no-progress] JOB.py [ARGS ...]
    millstream plan JOB.py [--format text|json|dot] [--level stream|job|execution] [ARGS ...]
    millstream list [-m HOST:PORT] [--all]
    millstream cancel [-m HOST:PORT] JOB_ID
    millstream savepoint [-m HOST:PORT] JOB_ID [DIR]
    millstream stop [-m HOST:PORT] [--savepoint-path DIR] [--drain] JOB_ID
    millstream jobmanager | taskmanager | cluster start|stop ...   (standalone cluster)

``list``, ``cancel``, ``savepoint`` and ``stop`` drive jobs through a JobManager's REST API
(``-m``: its address, default 127.0.0.1:8081), as Flink's ``flink list/cancel/savepoint/stop``.
``run`` executes the program as ``__main__`` with every environment it creates reading
the given settings (as Flink's ``flink run`` context environment). ``plan`` runs the
program up to its ``execute()`` call and prints the StreamGraph, JobGraph or
ExecutionGraph instead of running the job.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import runpy
import sys
from collections.abc import Sequence

from millstream import __version__
from millstream.cli.job_commands import add_job_commands, savepoint_over_rest
from millstream.cli.progress import ProgressListener, progress_wanted
from millstream.common import config_options as opts
from millstream.common import error_report, rest_options
from millstream.common.checkpointing_options import STATE_RECOVERY_IGNORE_UNCLAIMED, STATE_RECOVERY_PATH
from millstream.common.configuration import Configuration, exit_on_bad_setting, parse_defines_or_exit
from millstream.common.job_listeners import register_job_listener, unregister_job_listener
from millstream.datastream.stream_execution_environment import (
    PlanCaptured,
    set_context_configuration,
)
from millstream.graph import plan_printer
from millstream.runtime.executiongraph.execution_graph import ExecutionGraph, build_execution_graph

__all__ = ["PlainHelpFormatter", "build_parser", "main"]

_JOB_ID = re.compile(r"[0-9a-f]{32}")
_RST_LITERAL = re.compile(r"``(.+?)``")


class PlainHelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Help text as a terminal shows it: the descriptions are docstrings, whose
    reStructuredText literals (````millstream````) read as plain words (``millstream``)."""

    def format_help(self) -> str:
        """The help, without reStructuredText markup."""
        return _RST_LITERAL.sub(r"\1", super().format_help())


def _configuration(args: argparse.Namespace) -> Configuration:
    config = parse_defines_or_exit(args.define or [], "millstream")
    if getattr(args, "parallelism", None) is not None:
        if args.parallelism < 1:
            exit_on_bad_setting(f"millstream: -p/--parallelism must be at least 1, got {args.parallelism}")
        config.set_integer(opts.DEFAULT_PARALLELISM.key, args.parallelism)
    if getattr(args, "target", None):
        config.set_string(opts.EXECUTION_TARGET.key, args.target)
    if getattr(args, "spark_master", None):
        config.set_string("spark.master", args.spark_master)
    if getattr(args, "restore_path", None):
        config.set_string(STATE_RECOVERY_PATH.key, args.restore_path)
    if getattr(args, "ignore_unclaimed", False):
        config.set_boolean(STATE_RECOVERY_IGNORE_UNCLAIMED.key, True)
    if getattr(args, "web_ui", False):
        config.set_boolean(rest_options.REST_ENABLED.key, True)
    if getattr(args, "detached", False):
        config.set_boolean(opts.EXECUTION_ATTACHED.key, False)
    return config


def _run_script(path: str, script_args: Sequence[str]) -> None:
    """Run the job file ``path`` as ``__main__`` (as ``python path`` would: a directory runs
    its ``__main__.py``)."""
    if os.path.isdir(path) and not os.path.isfile(os.path.join(path, "__main__.py")):
        raise SystemExit(_not_a_job_file(path))
    if not os.path.exists(path):
        raise SystemExit(f"millstream: no such job file: {path}")
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [path, *script_args]
    sys.path.insert(
        0, os.path.abspath(path) if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    )
    try:
        runpy.run_path(path, run_name="__main__")
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path


def _not_a_job_file(directory: str) -> str:
    """What to say about ``millstream run DIRECTORY`` (a directory without a ``__main__.py``)."""
    try:
        programs = sorted(name for name in os.listdir(directory) if name.endswith(".py"))
    except OSError:
        programs = []
    example = os.path.join(directory, programs[0] if programs else "JOB.py")
    return (
        f"millstream: {directory} is a directory, not a job file: give the job's Python file "
        f"(millstream run {example}), or a directory with a __main__.py"
    )


def _rest_port_taken(err: OSError, config: Configuration) -> bool:
    """Whether ``err`` says the embedded cluster's REST API could not listen on its port
    (``--web-ui`` while another process, another job's or a JobManager's, holds it)."""
    port = config.get(rest_options.REST_PORT)
    return (
        err.errno == errno.EADDRINUSE
        and config.get(rest_options.REST_ENABLED)
        and "REST API" in str(err.strerror)
        and f":{port}" in str(err.strerror)
    )


def _cmd_run(args: argparse.Namespace) -> int:
    config = _configuration(args)
    config.set_boolean(opts.CLIENT_PRINT_JOB_ID.key, True)  # as ``flink run`` prints it
    set_context_configuration(config)
    listener = ProgressListener() if progress_wanted(args.progress) else None
    if listener is not None:
        register_job_listener(listener)
    try:
        _run_script(args.job, args.args)
    except KeyboardInterrupt:
        # The job's client cancelled the job and released its cluster on the way out.
        print("millstream: interrupted; the job was cancelled", file=sys.stderr)
        return 130  # 128 + SIGINT, as a shell reports a program ended by Ctrl-C
    except OSError as err:
        if args.verbose or not _rest_port_taken(err, config):
            raise
        print(
            f"millstream: {err.strerror} (another process uses the port: stop it, or give the "
            "dashboard another port with -D rest.port=PORT, 0 for a free one)",
            file=sys.stderr,
        )
        return 1
    finally:
        set_context_configuration(None)
        if listener is not None:
            unregister_job_listener(listener)
            listener.stop_all()
    return 0


def execution_graph_dot(graph: ExecutionGraph) -> str:
    """Graphviz DOT of the ExecutionGraph: one node per subtask, one edge per subpartition read."""
    lines = [f'digraph "{graph.job_graph.job_name}" {{', "  rankdir=LR;", "  node [shape=box];"]
    ids: dict[int, str] = {}
    for n, ev in enumerate(graph.all_execution_vertices()):
        ids[id(ev)] = f"s{n}"
        label = ev.task_name_with_subtask.replace('"', '\\"')
        lines.append(f'  s{n} [label="{label}"];')
    for ev in graph.all_execution_vertices():
        for edges in ev.inputs:
            for e in edges:
                lines.append(
                    f'  {ids[id(e.source.producer)]} -> {ids[id(ev)]} [label="{e.subpartition_index}"];'
                )
    lines.append("}")
    return "\n".join(lines)


def _render_plan(captured: PlanCaptured, level: str, fmt: str) -> str:
    if level == "stream":
        return {
            "text": plan_printer.stream_graph_text,
            "json": plan_printer.stream_graph_json,
            "dot": plan_printer.stream_graph_dot,
        }[fmt](captured.stream_graph)
    if level == "job":
        return {
            "text": plan_printer.job_graph_text,
            "json": plan_printer.job_graph_json,
            "dot": plan_printer.job_graph_dot,
        }[fmt](captured.job_graph)
    graph = build_execution_graph(captured.job_graph)
    if fmt == "dot":
        return execution_graph_dot(graph)
    if fmt == "json":
        return json.dumps(
            {
                "vertices": [
                    {
                        "name": ejv.job_vertex.name,
                        "parallelism": ejv.parallelism,
                        "subtasks": [
                            {
                                "subtask": ev.subtask_index,
                                "reads": [
                                    {
                                        "producer": e.source.producer.task_name_with_subtask,
                                        "subpartition": e.subpartition_index,
                                    }
                                    for edges in ev.inputs
                                    for e in edges
                                ],
                            }
                            for ev in ejv.task_vertices
                        ],
                    }
                    for ejv in graph.job_vertices.values()
                ]
            },
            indent=2,
        )
    return graph.describe()


def _cmd_savepoint(args: argparse.Namespace) -> int:
    stop = args.command == "stop"
    drain = stop and args.drain
    if not stop and args.directory is None and args.job_id and not _JOB_ID.fullmatch(args.job_id):
        args.job_id, args.directory = None, args.job_id  # ``savepoint DIR``: the one running job
    directory = args.savepoint_path if stop else args.directory
    if not (args.jobmanager or "").startswith("cluster://"):
        return savepoint_over_rest(args, stop, directory)
    # the runtime's cluster_client (~60 ms of the CLI's start-up): imported for cluster:// targets
    from millstream.runtime.cluster_client import call_job_manager

    config = _configuration(args)
    secret_file = config.get(opts.SECRET_FILE) or None
    try:
        job_id = args.job_id or _the_running_job(args.jobmanager, secret_file)
        path = call_job_manager(
            args.jobmanager,
            secret_file,
            "trigger_savepoint",
            job_id,
            None if directory is None else os.path.abspath(directory),
            stop,
            drain,
        )
    except Exception as err:
        if args.verbose:
            raise
        print(f"millstream {args.command}: {err}", file=sys.stderr)
        return 1
    print(f"Savepoint completed. Path: {path}")
    if stop:
        print(f"Job {job_id} stopped; resume it with: millstream run -s {path} ...")
    return 0


def _the_running_job(target: str, secret_file: str | None) -> str:
    """The id of the one job running on the cluster (no JOB_ID given)."""
    # the runtime's cluster_client (~60 ms of the CLI's start-up): imported for cluster:// targets
    from millstream.runtime.cluster_client import call_job_manager

    jobs = call_job_manager(target, secret_file, "list_jobs", timeout=30)
    if len(jobs) == 1:
        return str(jobs[0][0])
    if not jobs:
        raise LookupError(f"no job is running on {target}")
    listed = "; ".join(f"{job_id} '{name}' ({status})" for job_id, name, status in jobs)
    raise LookupError(f"{len(jobs)} jobs run on {target}: name one of them: {listed}")


def _cmd_plan(args: argparse.Namespace) -> int:
    set_context_configuration(_configuration(args), capture_plan=True)
    try:
        _run_script(args.job, args.args)
    except PlanCaptured as captured:
        print(_render_plan(captured, args.level, args.format))
        return 0
    finally:
        set_context_configuration(None)
    print("millstream: the program did not call execute(); no plan to show", file=sys.stderr)
    return 1


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``millstream`` command."""
    parser = argparse.ArgumentParser(
        prog="millstream", description=__doc__, formatter_class=PlainHelpFormatter
    )
    parser.add_argument("--version", action="version", version=f"millstream {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    run = sub.add_parser("run", help="run a job file")
    run.add_argument("--target", help="execution target: embedded (default), spark, cluster://HOST:PORT")
    run.add_argument("--spark-master", help="with --target spark: the Spark master (default local[*])")
    run.add_argument("-p", "--parallelism", type=int, help="default parallelism")
    run.add_argument("-v", "--verbose", action="store_true", help="show whole tracebacks of errors")
    run.add_argument("-D", dest="define", action="append", metavar="KEY=VALUE", help="configuration")
    run.add_argument(
        "-s",
        "--fromSavepoint",
        dest="restore_path",
        metavar="PATH",
        help="start from this savepoint or retained checkpoint (its directory, or a job's "
        "checkpoint directory: its latest checkpoint)",
    )
    run.add_argument(
        "-n",
        "--allowNonRestoredState",
        "--allow-non-restored-state",
        dest="ignore_unclaimed",
        action="store_true",
        help="with -s: drop state that belongs to no operator of the job",
    )
    run.add_argument(
        "--web-ui",
        action="store_true",
        help="serve the REST API and web dashboard while the job runs (rest.enabled; rest.port, "
        "default 8081; the address is printed)",
    )
    run.add_argument(
        "-d",
        "--detached",
        action="store_true",
        help="with --target cluster://HOST:PORT: submit the job, print its id and return",
    )
    run.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="draw the job's live progress on stderr (default: when stdout and stderr are terminals)",
    )
    run.add_argument("job", help="the job's Python file")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the job")
    run.set_defaults(func=_cmd_run)

    plan = sub.add_parser("plan", help="show a job's graphs without running it")
    plan.add_argument("--format", choices=["text", "json", "dot"], default="text")
    plan.add_argument("--level", choices=["stream", "job", "execution"], default="job")
    plan.add_argument("-p", "--parallelism", type=int, help="default parallelism")
    plan.add_argument("-v", "--verbose", action="store_true", help="show whole tracebacks of errors")
    plan.add_argument("-D", dest="define", action="append", metavar="KEY=VALUE", help="configuration")
    plan.add_argument("job", help="the job's Python file")
    plan.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the job")
    plan.set_defaults(func=_cmd_plan)

    add_job_commands(sub, _cmd_savepoint)

    for name, text in (
        ("jobmanager", "run a standalone JobManager (see: millstream jobmanager --help)"),
        ("taskmanager", "run a TaskManager (see: millstream taskmanager --help)"),
        ("cluster", "start or stop a standalone cluster on this machine"),
    ):
        process = sub.add_parser(name, help=text, add_help=False)
        process.add_argument("args", nargs=argparse.REMAINDER)
        process.set_defaults(func=_process_command(name))
    for command in sub.choices.values():
        command.formatter_class = PlainHelpFormatter
    return parser


def _process_command(name: str):  # type: ignore[no-untyped-def]
    def run(args: argparse.Namespace) -> int:
        if name == "jobmanager":
            # the cluster processes' modules (~40 ms of start-up): imported only by their subcommand
            from millstream.cluster.jobmanager import main as entry
        elif name == "taskmanager":
            # the cluster processes' modules (~40 ms of start-up): imported only by their subcommand
            from millstream.cluster.taskmanager import main as entry
        else:
            # the cluster processes' modules (~40 ms of start-up): imported only by their subcommand
            from millstream.cluster.standalone import main as entry
        return entry(args.args)

    return run


PROCESS_COMMANDS = ("jobmanager", "taskmanager", "cluster")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``millstream`` command."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in PROCESS_COMMANDS:
        # These commands parse their own options (``millstream taskmanager --jobmanager H:P``):
        # argparse's REMAINDER does not take arguments that start with a dash.
        return int(_process_command(argv[0])(argparse.Namespace(args=argv[1:])))
    args = build_parser().parse_args(argv)
    if getattr(args, "verbose", False):
        os.environ["MILLSTREAM_VERBOSE"] = "1"  # the job's own processes show whole tracebacks too
    try:
        result: int = args.func(args)
        sys.stdout.flush()
    except BrokenPipeError:
        # the reader of our output went away (``millstream plan job.py | head``): not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, as a shell reports a writer whose reader left
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as err:
        print(error_report.render(_without_launcher_frames(err)), file=sys.stderr)
        return 1
    return result


def _without_launcher_frames(err: BaseException) -> BaseException:
    """``err`` with its traceback starting at the program's first frame, as ``python job.py``
    would show it (the command line's and runpy's frames above it are noise)."""
    tb = err.__traceback__
    launcher = (os.path.abspath(__file__), os.path.abspath(runpy.__file__), "<frozen runpy>")
    while tb is not None and tb.tb_next is not None and tb.tb_frame.f_code.co_filename in launcher:
        tb = tb.tb_next
    return err.with_traceback(tb)


if __name__ == "__main__":
    sys.exit(main())
