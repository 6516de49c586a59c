"""TaskMailbox and MailboxProcessor: the single-threaded execution model of a task.

Everything that touches a task's operators runs on the task thread: the default action
(process input) and mails (actions other threads submit, e.g. cancellation). When the
default action has nothing to do it names a deadline; the processor sleeps until then,
a mail arrives, or an input signals new data. ``run_step`` advances the loop by hand.
That sleep is the task's idle time (Flink's ``idleTimeMsPerSecond``), measured by the
``TimerGauge`` the task hands the processor.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from millstream.runtime.taskmanager.task_metrics import TimerGauge

__all__ = ["Mail", "MailboxProcessor", "TaskMailbox"]


@dataclass(frozen=True, slots=True)
class Mail:
    """An action to run on the task thread."""

    action: Callable[[], None]
    description: str


class TaskMailbox:
    """Mails plus an input-availability signal, behind one condition variable."""

    def __init__(self) -> None:
        self._cond = threading.Condition(threading.Lock())
        self._mails: deque[Mail] = deque()  # under _cond
        self._signaled = False  # under _cond: an input announced data

    def put(self, mail: Mail) -> None:
        """Submit a mail (any thread)."""
        with self._cond:
            self._mails.append(mail)
            self._cond.notify()

    def signal(self) -> None:
        """An input has data (any thread)."""
        with self._cond:
            self._signaled = True
            self._cond.notify()

    def try_take(self) -> Mail | None:
        """The oldest mail, if any (task thread)."""
        with self._cond:
            return self._mails.popleft() if self._mails else None

    def wait(self, deadline: float) -> None:
        """Sleep until ``deadline`` (monotonic), a mail, or a signal (task thread)."""
        with self._cond:
            while not self._signaled and not self._mails:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(min(remaining, 1.0))
            self._signaled = False


class MailboxProcessor:
    """Runs mails and the default action until stopped.

    The default action returns None when it did work (call again at once), or a
    monotonic deadline until which it has nothing to do. The waits that follow are marked on
    ``idle_time`` (None: not measured).
    """

    def __init__(
        self,
        mailbox: TaskMailbox,
        default_action: Callable[[], float | None],
        idle_time: TimerGauge | None = None,
    ) -> None:
        self.mailbox = mailbox
        self._default_action = default_action
        self._running = True  # owner: task thread
        self._idle_time = idle_time  # marked by the task thread, read by metric samplers

    def stop(self) -> None:
        """End the loop after the current step (task thread)."""
        self._running = False

    @property
    def is_running(self) -> bool:
        """Whether ``run`` keeps looping."""
        return self._running

    def run_step(self) -> bool:
        """Run one mail, or one default action (sleeping if it had nothing to do)."""
        mail = self.mailbox.try_take()
        if mail is not None:
            mail.action()
            return True
        wait_until = self._default_action()
        if wait_until is None:
            return True
        if self._running:
            idle_time = self._idle_time
            if idle_time is None:
                self.mailbox.wait(wait_until)
                return False
            idle_time.mark_start()
            try:
                self.mailbox.wait(wait_until)
            finally:
                idle_time.mark_end()
        return False

    def run(self) -> None:
        """Loop until stopped."""
        while self._running:
            self.run_step()
