"""DDL statements replayed against what PyFlink 2.3.0 did with them: each transcript under
``pyflink_transcripts/`` holds statements run in order on one TableEnvironment and, for each,
what PyFlink printed or the message of its error's deepest cause. Millstream must print the
same text, or fail in one line ending with that message.

* ``like.txt``: ``CREATE TABLE ... LIKE source (INCLUDING | EXCLUDING | OVERWRITING ...)`` with
  Flink's merging rules (physical columns first, generated and metadata columns, watermarks,
  constraints, partitions and options each by its strategy), then ``SHOW CREATE TABLE``;
* ``alter.txt``: ``ALTER TABLE ... ADD | MODIFY | DROP | RENAME | SET | RESET`` and ``ALTER VIEW``,
  with the errors Flink gives (a column a computed column reads, the primary key, the partition
  keys, a temporary table ...);
* ``functions.txt``: ``CREATE | ALTER | DROP [TEMPORARY [SYSTEM]] FUNCTION ... LANGUAGE PYTHON``
  (the functions of ``ddl_udfs.py``), calls of them, ``SHOW [USER] FUNCTIONS`` and ``DESCRIBE
  FUNCTION``: a temporary function shadows a catalog function of its name, a temporary system
  function any other;
* ``unnest.txt`` / ``unnest_batch.txt``: ``UNNEST(array | map) [WITH ORDINALITY] [AS] t[(columns)]``
  joined, left joined ``ON TRUE`` and alone in FROM, its columns named as Flink names them
  (``EXPR$0``, ``KEY`` / ``VALUE``, ``ORDINALITY``, the alias), in streaming and batch mode;
* ``over_proctime.txt``: OVER windows ordered by a processing-time attribute (a ``PROCTIME()``
  computed column, or a select item), ROWS and RANGE UNBOUNDED and ROWS n PRECEDING frames,
  rows aggregated in their arrival order.

Before, ``LIKE`` failed with "SQL parse failed: Expecting )", ALTER was "unsupported statement",
CREATE FUNCTION made every function a temporary one and SHOW / DESCRIBE FUNCTION(S) failed;
``WITH ORDINALITY`` gave no ordinality column ("Cannot resolve field [n]"), ``FROM UNNEST(...)``
was "unsupported FROM", the columns of an UNNEST without a column list were ``f0``, ``f1``,
and an OVER window ordered by a processing-time attribute was refused ("... is not the
event-time attribute").
"""

from __future__ import annotations

from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

TRANSCRIPTS = Path(__file__).parent / "pyflink_transcripts"


def _steps(name: str) -> list[tuple[str, str]]:
    """(statement, what PyFlink printed or '!! message') of a transcript, in order."""
    text = "\n".join(
        line for line in (TRANSCRIPTS / name).read_text().splitlines() if not line.startswith("# ")
    )
    blocks = text.split(">>> ")[1:]
    return [(b.split("\n", 1)[0], b.split("\n", 1)[1].rstrip("\n") + "\n") for b in blocks]


@pytest.mark.parametrize(
    "name", ["like.txt", "alter.txt", "functions.txt", "statements.txt", "unnest.txt", "unnest_batch.txt"]
)
def test_ddl_does_what_pyflink_did(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    _replay(name, {}, capsys)


def test_over_windows_ordered_by_processing_time_do_what_pyflink_did(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "part-0.csv").write_text("a,1\nb,2\na,3\na,4\nb,5\nc,6\n")
    _replay("over_proctime.txt", {"$DATA": str(tmp_path)}, capsys)


def _replay(name: str, replacements: dict[str, str], capsys: pytest.CaptureFixture[str]) -> None:
    """Run a transcript's statements (its placeholders replaced) and compare with PyFlink's."""
    batch = name.endswith("_batch.txt")  # a transcript of a batch TableEnvironment
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    t_env.get_config().set("parallelism.default", "1")
    for statement, expected in _steps(name):
        for placeholder, value in replacements.items():
            statement = statement.replace(placeholder, value)
        capsys.readouterr()
        if expected.startswith("!! "):
            with pytest.raises(ValueError) as caught:
                t_env.execute_sql(statement)
            # the transcript joins the lines of a message (Flink's schema mismatch spans several)
            message = " ".join(line.strip() for line in str(caught.value).splitlines() if line.strip())
            # a parse error names the token and its position, not Calcite's list of what it expected
            cause = expected[3:].rstrip("\n").split(" Was expecting")[0]
            assert message.endswith(cause), f"{statement}: {message!r}"
            continue
        result = t_env.execute_sql(statement)
        result.print()
        if result.get_job_client() is not None:
            result.wait()  # an INSERT's job (PyFlink's print() of it shows -1 and returns)
        # the transcript keeps no empty line at the end of what was printed
        assert capsys.readouterr().out.rstrip("\n") == expected.rstrip("\n"), statement
