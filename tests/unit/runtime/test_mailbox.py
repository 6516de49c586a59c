"""Mailbox: mails before the default action; run_step advances by hand."""

from __future__ import annotations

import threading
import time

import pytest

from millstream.runtime.execution_state import (
    ExecutionState,
    IllegalStateTransitionError,
    check_transition,
)
from millstream.runtime.taskmanager.mailbox import Mail, MailboxProcessor, TaskMailbox


def test_mails_run_before_the_default_action_and_stop_ends_the_loop():
    mailbox = TaskMailbox()
    log = []
    processor = MailboxProcessor(mailbox, lambda: log.append("default"))
    mailbox.put(Mail(lambda: log.append("mail"), "test"))
    assert processor.run_step() and processor.run_step()
    assert log == ["mail", "default"]
    mailbox.put(Mail(processor.stop, "stop"))
    processor.run()
    assert not processor.is_running


def test_idle_default_action_sleeps_until_signalled():
    mailbox = TaskMailbox()
    calls = []

    def default_action():
        calls.append(time.monotonic())
        return time.monotonic() + 30  # nothing to do for a long time

    processor = MailboxProcessor(mailbox, default_action)
    threading.Timer(0.05, mailbox.signal).start()
    started = time.monotonic()
    assert processor.run_step() is False
    assert time.monotonic() - started < 10  # woken by the signal, not the 30 s deadline


def test_execution_state_transitions_follow_the_table():
    check_transition(ExecutionState.CREATED, ExecutionState.DEPLOYING)
    check_transition(ExecutionState.RUNNING, ExecutionState.CANCELING)
    for illegal in [
        (ExecutionState.FINISHED, ExecutionState.RUNNING),
        (ExecutionState.CREATED, ExecutionState.FINISHED),
    ]:
        with pytest.raises(IllegalStateTransitionError):
            check_transition(*illegal)
