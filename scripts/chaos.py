"""Chaos trials of checkpoints and recovery (issue 15's acceptance).

A checkpointed keyed job (windows + keyed state + FileSink, parallelism 2, two TaskManager
processes; see ``millstream.testing.chaos``) runs once without failure, then ``--trials``
times with a failure at a random moment: a TaskManager process SIGKILLed (``kill``) or a
user function raising once (``raise``). Every trial's committed output must be
byte-identical to the failure-free run's, and no TaskManager process may be left behind.

    .venv/bin/python scripts/chaos.py [--trials 20] [--failure kill|raise|both] [--seed N] [--unaligned]
                                  [--state-backend hashmap|rocksdb] [--incremental] [--kafka]

``--kafka``: the numbers are read from a 4-partition Kafka topic (a Tansu broker started
for the run) by a KafkaSource, its offsets in the checkpoints.

Exit status 0 when every trial holds; each trial prints one line.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile

from millstream.testing.chaos import ChaosJob, run_trial


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--failure", choices=["kill", "raise", "both"], default="kill")
    parser.add_argument("--seed", type=int, default=None, help="random seed (default: a fresh one, printed)")
    parser.add_argument("--unaligned", action="store_true", help="unaligned checkpoints")
    parser.add_argument(
        "--state-backend", choices=["hashmap", "rocksdb"], default="hashmap", help="state.backend.type"
    )
    parser.add_argument(
        "--incremental",
        action="store_true",
        help="state.backend.incremental (RocksDB: incremental checkpoints)",
    )
    parser.add_argument("--kafka", action="store_true", help="read the input from a Kafka topic")
    args = parser.parse_args(argv)
    if args.kafka:
        from millstream.testing.kafka_broker import KafkaBroker

        with KafkaBroker() as broker:
            return _run(args, broker.bootstrap_servers)
    return _run(args, "")


def _run(args: argparse.Namespace, kafka_servers: str) -> int:
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 30)
    rng = random.Random(seed)
    job = ChaosJob(
        unaligned=args.unaligned,
        state_backend=args.state_backend,
        incremental=args.incremental,
        source="kafka" if kafka_servers else "generator",
        kafka_servers=kafka_servers,
    )
    if kafka_servers:
        job.write_kafka_input()
    print(f"seed {seed}; job: {job}")
    failed = 0
    with tempfile.TemporaryDirectory(prefix="millstream-chaos-") as work:
        reference = run_trial(job, f"{work}/reference", "none")
        print(f"reference: {reference.duration_s:.1f} s, {len(reference.output)} bytes committed")
        if not reference.output or reference.leftover:
            print("the failure-free run committed nothing or left processes behind")
            return 1
        for trial in range(args.trials):
            failure = args.failure if args.failure != "both" else ("kill", "raise")[trial % 2]
            # from the TaskManagers' spawn (execute_async returns at once) to the final checkpoints
            fail_after = rng.uniform(0.0, 0.85 * reference.duration_s)
            raise_at = rng.randrange(job.records)
            result = run_trial(job, f"{work}/trial-{trial}", failure, fail_after, raise_at, rng=rng)
            same = result.output == reference.output
            ok = same and not result.leftover and not result.leftover_shared
            failed += not ok
            when = (
                f"at {result.failed_after_s:.2f} s"
                if result.failed_after_s is not None
                else "(job ended first)"
            )
            where = f"record {raise_at}" if failure == "raise" else when
            print(
                f"trial {trial + 1:>2}: {failure} {where}: {result.restarts} restart(s), "
                f"{result.duration_s:.1f} s, output {'identical' if same else 'DIFFERENT'}"
                + (f", LEFTOVER processes {result.leftover}" if result.leftover else "")
                + (
                    f", {len(result.leftover_shared)} shared state files LEFT"
                    if result.leftover_shared
                    else ""
                )
            )
    print(f"{args.trials - failed}/{args.trials} trials held")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
