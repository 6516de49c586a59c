"""Exception history entries and the restart line a client prints (issue 30, point 2)."""

from __future__ import annotations

from millstream.runtime.jobmanager.exception_history import history_entry, restart_line, root_cause
from millstream.runtime.jobmanager.job_master import TaskManagerLostError
from millstream.runtime.location import TaskLocation, UserFunctionError


def _raised(error: BaseException, cause: BaseException | None = None) -> BaseException:
    try:
        raise error from cause
    except BaseException as caught:
        return caught


def test_a_user_function_failure_names_the_operator_and_the_users_exception():
    location = TaskLocation("job", "Source: s -> parse", 1, 4)
    user = _raised(ValueError("bad amount 'x1'\nsecond line"))
    error = _raised(UserFunctionError("parse", location, 7, "x1"), user)
    entry = history_entry(error, 1_000, "Source: s -> parse (2/4)", "tm-1", 3, 2300)
    assert root_cause(error) is user
    assert (entry.exception_name, entry.message, entry.operator_name) == (
        "ValueError",
        "bad amount 'x1'",
        "parse",
    )
    assert "ValueError: bad amount 'x1'" in entry.stacktrace and "UserFunctionError" in entry.stacktrace
    assert restart_line("orders", entry) == (
        "Job 'orders': operator 'parse' in Source: s -> parse (2/4) failed: ValueError: bad amount 'x1'; "
        "restart 3 in 2.3 s"
    )


def test_a_lost_task_manager_is_said_once_not_with_its_task_twice():
    error = _raised(TaskManagerLostError("TaskManager tm-1 running Map (1/2) is no longer reachable: gone"))
    entry = history_entry(error, 1_000, "Map (1/2)", "tm-1", 1, 100)
    assert restart_line("job", entry) == (
        "Job 'job': TaskManager tm-1 running Map (1/2) is no longer reachable: gone; restart 1 in 0.1 s"
    )


def test_a_long_message_is_cut_to_one_line_of_300_characters():
    entry = history_entry(_raised(RuntimeError("x" * 1000)), 0, None, None, None, None)
    assert (
        len(entry.message) == 300
        and entry.message.endswith("...")
        and entry.summary.startswith("RuntimeError")
    )
