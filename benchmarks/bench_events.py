"""The event stream of ../shared/bench/events.py, for checkouts without ../shared.

Identical by construction: event i = (key, value, ts_ms), 100 keys, values 0..999,
timestamps 1 ms apart with up to 3 s of out-of-orderness, 10 s windows aligned to
BASE_MS. benchmarks/windows.py prefers the shared file when it exists.
"""

N_EVENTS = 1_000_000
N_KEYS = 100
BASE_MS = 1_700_000_000_000
WINDOW_MS = 10_000
MAX_LAG_MS = 3_000


def event(i: int) -> tuple[str, int, int]:
    """Event ``i``."""
    return (
        f"k{(i * 7919) % N_KEYS}",
        (i * 31) % 1000,
        BASE_MS + MAX_LAG_MS + i - ((i * 7717) % MAX_LAG_MS),
    )


def gen(start: int = 0, stop: int = N_EVENTS):  # type: ignore[no-untyped-def]
    """Events ``start`` .. ``stop - 1``."""
    for i in range(start, stop):
        yield event(i)
