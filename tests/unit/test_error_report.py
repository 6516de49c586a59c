"""The one line a failed program ends with (issue 46, points 18 and 21).

One-line errors end with the hint to ``--verbose`` only when the whole traceback would show
more: an exception under the error that the line does not already say. A failed job's line
says its failure's message once: a connector error that says it all is not followed by the
raw library exception under it (before: ``... KafkaError{...str="Failed to get metadata..."}:
KafkaException: KafkaError{...}``, the Kafka error twice).
"""

from __future__ import annotations

from confluent_kafka import KafkaError, KafkaException

from millstream.common.error_report import VERBOSE_HINT, _one_line, render
from millstream.common.job_execution_result import JobExecutionException
from millstream.connectors.kafka.client import KafkaConnectorError
from millstream.runtime.jobmanager.restart_backoff import JobException

KAFKA = "KafkaSource Source: words (enumerator): cannot list the partitions of topic words at 127.0.0.1:1"


def _chained(error: BaseException, cause: BaseException) -> BaseException:
    error.__cause__ = cause
    return error


def _job_failure(cause: BaseException) -> JobExecutionException:
    return _chained(JobExecutionException("0" * 32, f"Job execution failed: {cause}"), cause)  # type: ignore[return-value]


def test_a_line_that_says_it_all_has_no_hint() -> None:
    assert _one_line("millstream: bad key 'x'", ValueError("bad key 'x'")) == "millstream: bad key 'x'"


def test_an_os_error_under_it_is_said_by_its_reason() -> None:
    missing = FileNotFoundError(2, "No such file or directory", "/s")  # "[Errno 2] No such file ...: '/s'"
    error = _chained(ValueError("cannot read the secret file /s: No such file or directory"), missing)
    line = "millstream: cannot read the secret file /s: No such file or directory"
    assert _one_line(line, error) == line


def test_a_cause_the_line_does_not_say_brings_the_hint() -> None:
    error = _chained(ValueError("no JobManager at h:1"), ConnectionRefusedError(111, "Connection refused"))
    assert _one_line("millstream: no JobManager at h:1", error).endswith(f"  {VERBOSE_HINT}")
    context = ValueError("outer")
    context.__context__ = KeyError("inner")  # raised while handling another
    assert _one_line("millstream: outer", context).endswith(VERBOSE_HINT)


def test_a_connector_error_ends_a_failed_jobs_line_once() -> None:
    library = KafkaException(KafkaError(KafkaError._TRANSPORT, "Failed to get metadata"))
    line = render(_job_failure(_chained(KafkaConnectorError(KAFKA), library)), verbose=False)
    assert line == f"millstream: Job execution failed: {KAFKA}  {VERBOSE_HINT}"  # the library's, on request
    assert line.count("127.0.0.1:1") == 1


def test_what_the_job_said_between_its_end_and_the_connector_error_stays() -> None:
    suppressed = _chained(
        JobException("Recovery is suppressed by FixedDelay(...)"), KafkaConnectorError(KAFKA)
    )
    assert render(_job_failure(suppressed), verbose=False) == (
        f"millstream: Job execution failed: Recovery is suppressed by FixedDelay(...): {KAFKA}"
    )


def test_the_innermost_cause_of_an_engine_failure_is_named_unless_said() -> None:
    wrapper = _chained(RuntimeError("Task 'map (1/1)' failed"), OSError("disk full"))
    assert render(_job_failure(wrapper), verbose=False) == (
        "millstream: Job execution failed: Task 'map (1/1)' failed: OSError: disk full"
    )
    said = _chained(RuntimeError("Task 'map (1/1)' failed: disk full"), OSError("disk full"))
    assert render(_job_failure(said), verbose=False) == (
        "millstream: Job execution failed: Task 'map (1/1)' failed: disk full"
    )
