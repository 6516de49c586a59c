"""CloseableIterator: what ``execute_and_collect`` returns, as PyFlink's."""

from __future__ import annotations

from typing import Any

__all__ = ["CloseableIterator"]


class CloseableIterator:
    """Iterator over collected results; close it (or use ``with``) to release the job."""

    def __init__(self, source: Any, on_close: Any) -> None:
        self._source = source
        self._on_close = on_close
        self._closed = False

    def __iter__(self) -> CloseableIterator:
        return self

    def __next__(self) -> Any:
        return next(self._source)

    def next(self) -> Any:
        """The next element."""
        return next(self._source)

    def close(self) -> None:
        """Stop the job if still running and release resources."""
        if not self._closed:
            self._closed = True
            self._on_close()

    def __enter__(self) -> CloseableIterator:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is KeyboardInterrupt and not self._closed:
            self._closed = True
            self._on_close(interrupted=True)  # Ctrl-C: cancel, then release by force if need be
        self.close()
