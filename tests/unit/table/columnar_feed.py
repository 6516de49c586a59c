"""Feeding columnar keyed operators and their row functions the same random script."""

from __future__ import annotations

import pickle
from collections import Counter
from collections.abc import Callable
from typing import Any

from millstream.runtime.state.key_groups import assign_key_to_parallel_operator
from millstream.testing import OperatorHarness


def feed(
    harnesses: list[OperatorHarness],
    script: list[Any],
    watermark: list[int],
    element_of: Callable[[Any], Any],
    key_of: Callable[[Any], Any],
    key_type: Any,
) -> None:
    """Each element step (``element_of(step)``) to the subtask owning its key, as a batch
    between two steps that are not elements; ``("w", t)``: a watermark that advances, to every
    subtask; ``("c",)``: only ends the batch."""
    batches: list[list[Any]] = [[] for _ in harnesses]

    def flush() -> None:
        for h, batch in zip(harnesses, batches, strict=True):
            if batch:
                h.process_elements([(element, None) for element in batch])
                batch.clear()

    for step in script:
        if step[0] not in ("w", "c"):
            element = element_of(step)
            owner = assign_key_to_parallel_operator(key_of(element), 128, len(harnesses), key_type)
            batches[owner].append(element)
        else:
            flush()
            if step[0] == "w" and step[1] > watermark[0]:
                watermark[0] = step[1]
                for h in harnesses:
                    h.process_watermark(step[1])
    flush()


def check_restore(
    make: Callable[..., OperatorHarness],
    run: Callable[[list[OperatorHarness], list[Any], list[int]], None],
    script: list[Any],
    cut: int,
    paths: tuple[bool, bool],
    parallelism: tuple[int, int],
) -> None:
    """The operator ``make(columnar, **harness options)`` snapshotted after ``script[:cut]``
    (``paths[0]``: columnar or the row function, at ``parallelism[0]``), restored (``paths[1]``,
    at ``parallelism[1]``) and fed the rest emits what the uninterrupted operator emits after
    the cut."""
    first, rest = script[:cut], script[cut:]
    uninterrupted = make(True)
    watermark = [-(2**63)]
    run([uninterrupted], first, watermark)
    emitted_before = len(uninterrupted.output)
    run([uninterrupted], rest, list(watermark))
    uninterrupted.end_input()
    expected = Counter(o for o in uninterrupted.output[emitted_before:] if o[0] == "record")

    old = [make(paths[0], parallelism=parallelism[0], subtask_index=i) for i in range(parallelism[0])]
    saved = [-(2**63)]
    run(old, first, saved)
    snapshots = [pickle.loads(pickle.dumps(h.snapshot())) for h in old]  # as a checkpoint stores them
    merged = snapshots[0]._replace(
        keyed=[s.keyed for s in snapshots], event_timers=[t for s in snapshots for t in s.event_timers]
    )
    restored = [
        make(paths[1], parallelism=parallelism[1], subtask_index=i, restored_state=merged)
        for i in range(parallelism[1])
    ]
    if saved[0] > -(2**63):  # the watermark is not in a snapshot: the sources send it again
        for h in restored:
            h.process_watermark(saved[0])
    run(restored, rest, saved)
    outputs: Counter[Any] = Counter()
    for h in restored:
        h.end_input()
        outputs.update(o for o in h.output if o[0] == "record")
    assert outputs == expected
