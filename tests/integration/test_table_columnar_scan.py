# ruff: noqa: E501 - the queries and JSON lines read best on one line
"""The columnar scan (a filesystem table and the Calcs and watermark above it, on Arrow
batches) gives what the row path gives: the same rows, the same late rows dropped, the same
conversions of odd JSON values and the same errors. Each case runs with
``table.exec.columnar.enabled`` true and false and compares."""

from __future__ import annotations

import datetime
import json
import random
from collections import Counter
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.testing.tables import fold_changelog

pytestmark = pytest.mark.timeout(300)


def _environment(columnar: bool, batch: bool = False, parallelism: int = 1) -> TableEnvironment:
    settings = EnvironmentSettings.in_batch_mode() if batch else EnvironmentSettings.in_streaming_mode()
    t_env = TableEnvironment.create(settings)
    t_env.get_config().set("table.exec.columnar.enabled", str(columnar).lower())
    t_env.get_config().set("parallelism.default", str(parallelism))
    return t_env


def _changes(t_env: TableEnvironment, sql: str) -> list[tuple[str, tuple[object, ...]]]:
    with t_env.execute_sql(sql).collect() as rows:
        return [(str(r.get_row_kind()), tuple(r)) for r in rows]


def _events(path: Path, count: int, seed: int = 3, disorder_ms: int = 3000) -> None:
    """Out-of-order events (up to ``disorder_ms`` back), some with NULL fields, a nested ROW
    column."""
    rng = random.Random(seed)
    start = datetime.datetime(2024, 1, 1)
    with open(path, "w") as out:
        for i in range(count):
            moment = start + datetime.timedelta(milliseconds=i * 50 - rng.randint(0, disorder_ms))
            stamp = moment.strftime("%Y-%m-%d %H:%M:%S.") + f"{moment.microsecond // 1000:03d}"
            detail = (
                None if i % 11 == 0 else {"tag": rng.choice(["a", "b", None]), "weight": rng.randint(-5, 50)}
            )
            record = {"id": i, "key": f"k{rng.randint(0, 4)}", "amount": rng.randint(-100, 100), "detail": detail,
                      "ts": stamp}  # fmt: skip
            if i % 7 == 0:
                record.pop("amount")  # a missing field is NULL
            out.write(json.dumps(record) + "\n")


_DDL = """CREATE TABLE events (id BIGINT, key STRING, amount INT, detail ROW<tag STRING, weight INT>,
    ts TIMESTAMP(3), heavy AS detail.weight > 25, WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
    WITH ('connector' = 'filesystem', 'path' = '{path}', 'format' = 'json')"""

_QUERIES = {
    "calc": "SELECT id, key, amount * 2 + 1 AS a, MOD(amount, 7) AS m, detail.tag, heavy, ts "
    "FROM events WHERE amount > -50 OR detail.tag = 'a'",
    "late_rows_dropped": "SELECT key, window_start, COUNT(*) AS n, SUM(amount) AS s "
    "FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND)) GROUP BY key, window_start, window_end",
    "group": "SELECT detail.tag, COUNT(*) AS n, MAX(amount) AS mx FROM events WHERE heavy GROUP BY detail.tag",
    # the local phase on Arrow batches (arrow_window.py): keys computed and nullable, every
    # aggregate it takes, hopping and cumulating slices; a filter above the watermark (rows it
    # drops still raise the watermark: the scan once lost those watermarks, and let late rows in)
    "hop_arrow_local": "SELECT heavy, MOD(id, 3) AS m, window_start, window_end, COUNT(*) AS n, "
    "COUNT(amount) AS na, SUM(amount) AS s, MIN(key) AS lo, MAX(ts) AS hi, MIN(detail.weight) AS w "
    "FROM TABLE(HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)) "
    "GROUP BY heavy, MOD(id, 3), window_start, window_end",
    "cumulate_arrow_local": "SELECT key, window_start, window_end, SUM(amount) AS s, MAX(amount) AS mx "
    "FROM TABLE(CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)) "
    "WHERE amount IS NULL OR amount > 0 GROUP BY key, window_start, window_end",
}


@pytest.mark.parametrize("name", list(_QUERIES))
def test_columnar_scan_changelog_equals_the_row_paths(tmp_path: Path, name: str) -> None:
    """With the watermark interval 0 a watermark follows every row that raises it, on both
    paths: the columnar scan cuts its output at the same rows, so the same rows are late."""
    _events(tmp_path / "events.json", 3000)
    results = []
    for columnar in (True, False):
        t_env = _environment(columnar)
        t_env.get_config().set("pipeline.auto-watermark-interval", "0")
        t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))
        results.append(_changes(t_env, _QUERIES[name]))
    assert results[0] == results[1]
    assert results[0]
    if name == "late_rows_dropped":  # the case does exercise lateness: fewer rows than in batch
        counted = sum(row[2] for _, row in results[0])
        assert 2000 < counted < 3000


def test_one_file_is_shared_by_subtasks_and_every_line_read_once(tmp_path: Path) -> None:
    """JSON lines are read in byte ranges cut at line starts: at parallelism 3 the three
    subtasks share the file, and each row arrives exactly once."""
    _events(tmp_path / "events.json", 20000)
    t_env = _environment(True, parallelism=3)
    t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))
    ids = Counter(row[0] for _, row in _changes(t_env, "SELECT id FROM events"))
    assert set(ids.values()) == {1} and len(ids) == 20000


def test_odd_json_values_convert_as_on_the_row_path(tmp_path: Path) -> None:
    """A number written as a string ("7") is a value of another JSON type than Arrow's column:
    that chunk is read by the row path's parser, which converts it, so both paths agree."""
    path = tmp_path / "odd.json"
    path.write_text(
        '{"id": 1, "key": "a", "amount": "7", "ts": "2024-01-01 00:00:00.000"}\n'
        '{"id": 2, "key": "b", "amount": 3, "detail": {"tag": "x", "weight": 30}, "ts": "2024-01-01 00:00:01.000"}\n'
    )
    results = []
    for columnar in (True, False):
        t_env = _environment(columnar, batch=True)
        t_env.execute_sql(_DDL.format(path=path))
        results.append(_changes(t_env, "SELECT id, amount + 1 AS a, heavy FROM events"))
    assert results[0] == results[1] == [("+I", (1, 8, None)), ("+I", (2, 4, True))]


def test_a_line_longer_than_a_parsing_block_is_read(tmp_path: Path) -> None:
    """Arrow parses a chunk in blocks, one per core (1 MiB at least), and refuses a line longer
    than a block ("straddling object"): that chunk is parsed again as one block, and every
    row arrives, in order."""
    path = tmp_path / "long.json"
    lines = [
        f'{{"id": {i}, "key": "k{i}", "amount": {i}, "ts": "2024-01-01 00:00:0{i}.000"}}' for i in range(4)
    ]
    lines.insert(
        2, '{"id": 9, "key": "' + "x" * (3 << 20) + '", "amount": 9, "ts": "2024-01-01 00:00:09.000"}'
    )
    path.write_text("\n".join(lines) + "\n")
    results = []
    for columnar in (True, False):
        t_env = _environment(columnar, batch=True)
        t_env.execute_sql(_DDL.format(path=path))
        results.append(_changes(t_env, "SELECT id, CHAR_LENGTH(key) AS n FROM events"))
    assert (
        results[0]
        == results[1]
        == [("+I", (i, n)) for i, n in [(0, 2), (1, 2), (9, 3 << 20), (2, 2), (3, 2)]]
    )


def test_a_malformed_line_fails_naming_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text(
        '{"id": 1, "key": "a", "amount": 1, "ts": "2024-01-01 00:00:00.000"}\n{"id": 2, "key": \n'
    )
    for columnar in (True, False):
        t_env = _environment(columnar, batch=True)
        t_env.execute_sql(_DDL.format(path=path))
        with pytest.raises(Exception, match=r"bad\.json.*line 2"):
            _changes(t_env, "SELECT id FROM events")


def test_parquet_scan_reads_only_what_the_query_uses(tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = 5000
    table = pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "name": pa.array([None if i % 9 == 0 else f"n{i % 13}" for i in range(rows)]),
            "score": pa.array([i * 0.5 for i in range(rows)]),
        }
    )
    pq.write_table(table, tmp_path / "t.parquet", row_group_size=1000)
    results = []
    for columnar in (True, False):
        t_env = _environment(columnar, batch=True)
        t_env.execute_sql(
            f"CREATE TABLE t (id BIGINT, name STRING, score DOUBLE) WITH ('connector' = 'filesystem', "
            f"'path' = '{tmp_path / 't.parquet'}', 'format' = 'parquet')"
        )
        results.append(Counter(_changes(t_env, "SELECT UPPER(name) AS u, id FROM t WHERE score > 100")))
    assert results[0] == results[1] and sum(results[0].values()) == rows - 201


def test_streaming_changelog_folds_to_the_batch_result(tmp_path: Path) -> None:
    _events(tmp_path / "events.json", 2000)
    folded = []
    for batch in (True, False):
        t_env = _environment(True, batch=batch, parallelism=2)
        t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))
        folded.append(fold_changelog(_changes(t_env, _QUERIES["group"])))
    assert folded[0] == folded[1]


def test_the_scan_reads_only_the_columns_and_fields_the_query_uses(tmp_path: Path) -> None:
    """Nexmark's shape: a view picks ``bid.*`` fields of the events whose type is a bid; the
    scan parses ``event_type`` and the bid fields read (not the person and auction rows)."""
    from millstream.table.connectors.columnar_reader import ColumnarFormat
    from millstream.table.planner.columnar import fuse
    from millstream.table.runtime.columnar_fields import needed_columns
    from millstream.testing.nexmark import QUERIES, ddl

    t_env = _environment(True)
    for statement in ddl(str(tmp_path / "events.json")):
        t_env.execute_sql(statement)
    scan = fuse(t_env.sql_query(QUERIES["q2"].sql)._plan)
    assert scan is not None and scan.describe().endswith(
        "arrow: Calc, WatermarkAssigner, Filter, Calc, Filter, Calc)"
    )
    fmt = ColumnarFormat(scan.source, scan.steps, scan.names, scan.types, 200)
    assert needed_columns(fmt.steps, fmt.names) == {
        "event_type": None,
        "person": {"dateTime"},  # the computed event time reads each kind's dateTime
        "auction": {"dateTime"},
        "bid": {"auction", "price", "dateTime"},
    }
    # a query the scan cannot run on Arrow (a Python UDF in it) keeps the row path
    t_env.create_temporary_function("twice", _twice())
    assert fuse(t_env.sql_query("SELECT twice(price) FROM bid")._plan) is None


def _twice() -> object:
    from millstream.table import DataTypes
    from millstream.table.udf import udf

    return udf(lambda x: 2 * x, result_type=DataTypes.BIGINT())


@pytest.mark.parametrize("window", ["TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND)",
                                    "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '3' SECOND)",
                                    "CUMULATE(TABLE events, DESCRIPTOR(ts), INTERVAL '1' SECOND, INTERVAL '4' SECOND)"])  # fmt: skip
def test_two_phase_window_aggregation_equals_one_phase(tmp_path: Path, window: str) -> None:
    """Local-global window aggregation gives the changelog the one-phase aggregation gives,
    late rows included: a local batch never spans a watermark.

    Late rows are compared at parallelism 1 only. With two source subtasks the aggregate's
    watermark is the minimum over its input channels, so which rows are late depends on how
    the subtasks interleave (in Flink as here); at p2 the data is ordered within the
    watermark's 1 s delay, so no row is late in any interleaving and the result is exact."""
    sql = (
        f"SELECT key, window_start, window_end, COUNT(*) AS n, SUM(amount) AS s, MIN(detail.weight) AS lo, "
        f"MAX(amount) AS hi, COUNT(amount) AS c FROM TABLE({window}) GROUP BY key, window_start, window_end"
    )

    def run(strategy: str, parallelism: int, batch: bool = False) -> Counter[tuple[str, tuple[object, ...]]]:
        t_env = _environment(True, batch=batch, parallelism=parallelism)
        t_env.get_config().set("pipeline.auto-watermark-interval", "0")
        t_env.get_config().set("table.optimizer.agg-phase-strategy", strategy)
        t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))
        return Counter(_changes(t_env, sql))

    _events(tmp_path / "events.json", 3000)
    two, one = run("TWO_PHASE", 1), run("ONE_PHASE", 1)
    assert two == one
    counted = sum(row[3] * n for (_, row), n in run("AUTO", 1, batch=True).items())  # batch: no row is late
    assert sum(row[3] * n for (_, row), n in two.items()) < counted  # the case does drop late rows

    _events(tmp_path / "events.json", 3000, disorder_ms=900)
    auto, one = run("AUTO", 2), run("ONE_PHASE", 2)
    assert auto == one == run("AUTO", 1, batch=True)
    assert all(kind == "+I" for kind, _ in auto)


def test_window_aggregation_runs_two_phase_unless_told_or_a_udaf() -> None:
    from millstream.table.planner.exec_nodes import two_phase

    def config(strategy: str | None) -> dict[str, str]:
        return {} if strategy is None else {"table.optimizer.agg-phase-strategy": strategy}

    builtins = [("COUNT", None, None), ("SUM", None, None)]
    assert two_phase(config(None), builtins) and two_phase(config("TWO_PHASE"), builtins)
    assert not two_phase(config("ONE_PHASE"), builtins)
    assert not two_phase(config(None), [*builtins, (object(), None, None)])  # a Python UDAF


def test_explain_marks_what_runs_columnar(tmp_path: Path) -> None:
    from millstream.testing.nexmark import QUERIES, ddl

    for columnar in (True, False):
        t_env = _environment(columnar)
        for statement in ddl(str(tmp_path / "events.json")):
            t_env.execute_sql(statement)
        execution = t_env.explain_sql(QUERIES["q2"].sql).split("== Optimized Execution Plan ==")[1]
        lines = execution.strip().splitlines()
        if columnar:
            assert all(line.endswith("columnar=[arrow])") for line in lines[:-1])
            assert lines[-1].endswith(
                "columnar=[arrow], read=[event_type, person.dateTime, auction.dateTime, bid.auction, bid.dateTime, bid.price])"
            )
        else:
            assert "columnar" not in execution
        t_env.execute_sql(
            "CREATE TABLE nothing (auction BIGINT, price BIGINT) WITH ('connector' = 'blackhole')"
        )
        inserted = t_env.explain_sql(f"INSERT INTO nothing {QUERIES['q2'].sql}").split("Execution Plan ==")[1]
        sink = inserted.strip().splitlines()[0]
        assert sink.startswith("Sink(table=[") and sink.endswith("columnar=[arrow])") == columnar


def test_a_null_rowtime_fails_on_both_paths(tmp_path: Path) -> None:
    path = tmp_path / "nulls.json"
    path.write_text(
        '{"id": 1, "key": "a", "amount": 1, "ts": "2024-01-01 00:00:00.000"}\n{"id": 2, "key": "b", "amount": 2}\n'
    )
    for columnar in (True, False):
        t_env = _environment(columnar)
        t_env.execute_sql(_DDL.format(path=path))
        with pytest.raises(Exception) as failure:  # the message is checked below
            _changes(t_env, "SELECT id FROM events")
        messages, cause = [], failure.value
        while cause is not None:
            messages.append(str(cause))
            cause = cause.__cause__  # type: ignore[assignment]
        assert any("RowTime field should not be null" in m for m in messages), messages


def _capture_factory(identifier: str) -> object:
    """A connector whose sink takes ``ChangeBatch`` elements: it writes each element's kind
    (``batch`` / ``row``) and its rows to a file per subtask under ``path``."""
    from millstream.datastream import SinkFunction
    from millstream.table.common.factories import DynamicTableFactory, TableSink

    class Capture(SinkFunction):
        def __init__(self, path: str, types: list[object]) -> None:
            self.path, self.types = path, types

        def invoke(self, value: object, context: object) -> None:
            from millstream.table.runtime.change_batch import ChangeBatch, to_changes

            if isinstance(value, ChangeBatch):
                kind, changes = "batch", to_changes(value, self.types)  # type: ignore[arg-type]
            else:
                kind, changes = "row", [value]
            with open(Path(self.path) / f"{id(self)}.jsonl", "a") as out:
                out.write(json.dumps([kind, [[k, list(r)] for k, r in changes]], default=str) + "\n")

    class CaptureSink(TableSink):
        takes_batches = True

        def __init__(self, path: str) -> None:
            self.path = path

        def consume(self, stream: object, names: list[str], types: list[object]) -> object:
            return stream.add_sink(Capture(self.path, types))  # type: ignore[attr-defined]

        consume_batches = consume

    class CaptureFactory(DynamicTableFactory):
        def create_sink(self, context: object) -> TableSink:
            return CaptureSink(context.options["path"])  # type: ignore[attr-defined]

    CaptureFactory.identifier = identifier
    return CaptureFactory()


def _captured(path: Path) -> tuple[Counter[str], list[tuple[object, ...]]]:
    kinds: Counter[str] = Counter()
    rows = []
    for file in path.iterdir():
        for line in file.read_text().splitlines():
            kind, changes = json.loads(line)
            kinds[kind] += 1
            rows.extend((k, *r) for k, r in changes)
    return kinds, sorted(rows, key=repr)


@pytest.mark.parametrize("parallelism", [1, 3])
def test_a_sink_that_takes_batches_gets_the_scans_arrow_batches(tmp_path: Path, parallelism: int) -> None:
    """``INSERT INTO`` a sink that takes Arrow batches straight from a columnar scan: it gets
    a few ``ChangeBatch`` elements (no row became a tuple on the way) holding exactly the rows
    the row path gives it one by one, every line of the shared file once."""
    from millstream.table.common.factories import register_table_factory

    register_table_factory(_capture_factory("capture-test"))  # type: ignore[arg-type]
    _events(tmp_path / "events.json", 20000)
    results = {}
    for columnar in (True, False):
        out = tmp_path / f"out-{columnar}"
        out.mkdir()
        t_env = _environment(columnar, parallelism=parallelism)
        # a batch ends where a watermark is cut in (Flink's assigner emits one inline when it
        # advanced more than the interval): a long interval leaves whole chunks
        t_env.get_config().set("pipeline.auto-watermark-interval", "1 h")
        t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))
        t_env.execute_sql(
            f"CREATE TABLE captured (id BIGINT, a INT, tag STRING, heavy BOOLEAN, ts TIMESTAMP(3)) "
            f"WITH ('connector' = 'capture-test', 'path' = '{out}')"
        )
        t_env.execute_sql(
            "INSERT INTO captured SELECT id, amount * 2 + 1, detail.tag, heavy, ts FROM events "
            "WHERE amount > -50 OR detail.tag = 'a'"
        ).wait()
        results[columnar] = _captured(out)
    (batch_kinds, batch_rows), (row_kinds, row_rows) = results[True], results[False]
    assert set(batch_kinds) == {"batch"} and set(row_kinds) == {"row"}
    assert batch_rows == row_rows and 10000 < len(batch_rows) < 20000
    assert batch_kinds["batch"] < len(batch_rows) / 100  # whole chunks, not rows, per element
    assert len({r[1] for r in batch_rows}) == len(batch_rows)  # each id once


def test_a_restored_batch_reader_skips_rows_not_elements(tmp_path: Path) -> None:
    """The scan hands out batches, and its position in a split is counted in rows: a reader
    restored from a snapshot taken after some batches returns exactly the rows not yet
    returned, with their timestamps (a count of elements would re-read or lose rows)."""
    from millstream.connectors.file.readers import FileSourceSplit
    from millstream.table.connectors.columnar_reader import ColumnarFormat, ColumnarReader
    from millstream.table.planner.columnar import fuse
    from millstream.table.runtime.change_batch import to_changes

    path = tmp_path / "events.json"
    _events(path, 5000)
    t_env = _environment(True)
    t_env.get_config().set("pipeline.auto-watermark-interval", "0")  # many cuts: many small batches
    t_env.execute_sql(_DDL.format(path=path))
    scan = fuse(t_env.sql_query("SELECT id, key FROM events WHERE amount > 0")._plan)
    assert scan is not None
    fmt = ColumnarFormat(scan.source, scan.steps, scan.names, scan.types, 0)
    split = FileSourceSplit(str(path), 0, path.stat().st_size, path.stat().st_size)

    def drain(reader: ColumnarReader, limit: int | None = None) -> list[object]:
        rows: list[object] = []
        while limit is None or limit > 0:
            polled = reader.poll_timestamped(1024)
            if polled is None:
                break
            for element in polled[0]:
                stamps = element.stamps.tolist()
                assert len(stamps) == len(element) and polled[1] == ([stamps[-1]] if stamps else None)
                rows.extend(zip(to_changes(element, scan.types), stamps, strict=True))
            limit = None if limit is None else limit - 1
        return rows

    everything = drain(ColumnarReader([split], fmt))
    first = ColumnarReader([split], fmt)
    head = drain(first, limit=7)
    restored = ColumnarReader([], fmt)
    restored.restore_state(first.snapshot_state())
    assert 0 < len(head) < len(everything)
    assert head + drain(restored) == everything
    assert len(everything) == len({change[1][0] for change, _ in everything}) > 2000


def test_the_arrow_local_phase_is_taken_only_where_it_computes_as_the_row_path(tmp_path: Path) -> None:
    """COUNT, SUM of integers and MIN / MAX of ordered values fold on Arrow; an AVG, a SUM of
    DOUBLE (Arrow adds in another order: other last digits) or a Python UDAF keep the row
    path's local phase."""
    from millstream.table.planner.windows import WindowAggregate
    from millstream.table.runtime.arrow_window import arrow_local_phase

    t_env = _environment(True)
    t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))

    def window_node(select: str) -> object:
        sql = (f"SELECT key, window_start, window_end, {select} FROM TABLE(TUMBLE(TABLE events, "
               "DESCRIPTOR(ts), INTERVAL '1' SECOND)) GROUP BY key, window_start, window_end")  # fmt: skip
        node = t_env.sql_query(sql)._plan
        while not isinstance(node, WindowAggregate):
            node = node.input
        return node

    assert arrow_local_phase(window_node("COUNT(*), SUM(amount), MIN(key), MAX(ts)")) is not None
    assert arrow_local_phase(window_node("AVG(amount)")) is None
    assert arrow_local_phase(window_node("SUM(CAST(amount AS DOUBLE))")) is None


def test_rows_from_a_columnar_scan_carry_their_own_rowtime(tmp_path: Path) -> None:
    """Batches become rows again for operators that take rows, each with its rowtime as its
    record timestamp (the row path's), not the batch's."""
    from millstream.datastream import ProcessFunction, StreamExecutionEnvironment
    from millstream.table import StreamTableEnvironment

    _events(tmp_path / "events.json", 2000)
    stamps = {}
    for columnar in (True, False):
        env = StreamExecutionEnvironment.get_execution_environment()
        env.set_parallelism(1)
        t_env = StreamTableEnvironment.create(env)
        t_env.get_config().set("table.exec.columnar.enabled", str(columnar).lower())
        t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))
        stream = t_env.to_data_stream(t_env.sql_query("SELECT id, ts FROM events WHERE amount > 0"))

        class Stamp(ProcessFunction):
            def process_element(self, value: object, ctx: object) -> object:
                yield value[0], ctx.timestamp()  # type: ignore[index,attr-defined]

        with stream.process(Stamp()).execute_and_collect() as results:
            stamps[columnar] = sorted(results)
    assert stamps[True] == stamps[False] and len(stamps[True]) > 500
    assert len({stamp for _, stamp in stamps[True]}) > 500


def test_explain_prints_a_window_aggregation_in_its_phases(tmp_path: Path) -> None:
    """As PyFlink 2.3 printed the same HOP query (AUTO strategy):
    ``GlobalWindowAggregate(groupBy=[k], window=[HOP(slice_end=[$slice_end], size=[10 s],
    slide=[2 s])], ...)`` over ``Exchange(distribution=[hash[k]])`` over
    ``LocalWindowAggregate(groupBy=[k], window=[HOP(time_col=[ts], size=[10 s], slide=[2 s])],
    select=[k, COUNT(*) AS count1$0, SUM(v) AS sum$1, slice_end('w$) AS $slice_end])``; with
    ONE_PHASE one ``WindowAggregate(groupBy=[k], window=[TUMBLE(time_col=[ts], size=[2 s])]``.
    The local phase here folds the scan's Arrow batches and the global phase merges them on
    Arrow (``arrow_slicing.py``): both say ``columnar=[arrow]``."""
    sql = (
        "SELECT key, window_start, window_end, COUNT(*) AS n, SUM(amount) AS s FROM TABLE({window}) "
        "GROUP BY key, window_start, window_end"
    )
    hop = "HOP(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND, INTERVAL '10' SECOND)"
    t_env = _environment(True)
    t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))
    plan = t_env.explain_sql(sql.format(window=hop)).split("== Optimized Execution Plan ==")[1]
    names = [line.strip(" :+-").split("(")[0] for line in plan.strip().splitlines()]
    assert names[1:4] == ["GlobalWindowAggregate", "Exchange", "LocalWindowAggregate"]
    lines = plan.strip().splitlines()
    assert "groupBy=[key], window=[HOP(slice_end=[$slice_end], size=[10 s], slide=[2 s])]" in lines[1]
    assert "distribution=[hash[key]]" in lines[2]
    assert (
        "LocalWindowAggregate(groupBy=[key], window=[HOP(time_col=[ts], size=[10 s], slide=[2 s])], "
        "select=[key, COUNT(*) AS count0$0, SUM(amount) AS sum1$0, slice_end('w$) AS $slice_end], columnar=[arrow])"
    ) in lines[3]
    assert lines[1].endswith("columnar=[arrow])")  # the global phase fires every key at once
    t_env.get_config().set("table.exec.columnar.enabled", "false")
    rows = t_env.explain_sql(sql.format(window=hop)).split("== Optimized Execution Plan ==")[1]
    assert "GlobalWindowAggregate" in rows and "columnar" not in rows
    t_env.get_config().set("table.exec.columnar.enabled", "true")
    t_env.get_config().set("table.optimizer.agg-phase-strategy", "ONE_PHASE")
    tumble = "TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND)"
    one = t_env.explain_sql(sql.format(window=tumble)).split("== Optimized Execution Plan ==")[1]
    assert "WindowAggregate(groupBy=[key], window=[TUMBLE(time_col=[ts], size=[2 s])]" in one
    assert "LocalWindowAggregate" not in one


def test_explain_says_a_group_by_over_the_window_rows_carry_runs_on_arrow(tmp_path: Path) -> None:
    """Nexmark q5's MAX per window: a GROUP BY window_start, window_end over a window
    aggregation's rows runs as a window aggregation on Arrow (``arrow_attached.py``), and
    explain says so; with the columnar path off it runs on rows and explain says nothing."""
    sql = (
        "SELECT MAX(n) AS top, window_start, window_end FROM (SELECT key, window_start, window_end, "
        "COUNT(*) AS n FROM TABLE(TUMBLE(TABLE events, DESCRIPTOR(ts), INTERVAL '2' SECOND)) "
        "GROUP BY key, window_start, window_end) GROUP BY window_start, window_end"
    )
    for columnar in (True, False):
        t_env = _environment(columnar)
        t_env.execute_sql(_DDL.format(path=tmp_path / "events.json"))
        plan = t_env.explain_sql(sql).split("== Optimized Execution Plan ==")[1]
        [line] = [x for x in plan.splitlines() if x.strip(" :+-").startswith("WindowAggregate(")]
        assert "window=[win_start=[window_start], win_end=[window_end]]" in line
        assert line.endswith("columnar=[arrow])") is columnar


def test_explain_prints_a_processing_time_window_in_one_phase_as_it_runs() -> None:
    """A processing-time window runs in one phase (its windows are the operator's clock), and
    explain asks the aggregation the same question the translation does."""
    t_env = _environment(True)
    t_env.execute_sql(
        "CREATE TABLE clicks (k STRING, pt AS PROCTIME()) WITH ('connector' = 'datagen', 'number-of-rows' = '5')"
    )
    plan = t_env.explain_sql(
        "SELECT k, window_start, COUNT(*) AS n FROM TABLE(TUMBLE(TABLE clicks, DESCRIPTOR(pt), "
        "INTERVAL '1' SECOND)) GROUP BY k, window_start, window_end"
    ).split("== Optimized Execution Plan ==")[1]
    assert "WindowAggregate(groupBy=[k], window=[TUMBLE(time_col=[pt], size=[1 s])]" in plan
    assert "LocalWindowAggregate" not in plan and "GlobalWindowAggregate" not in plan


def test_a_scan_with_a_watermark_and_no_projection_reads_its_rows(tmp_path: Path) -> None:
    """A table read as declared (``from_path``: the watermark above the scan, no projection)
    gives its rows. The scan's columns stayed pyarrow ChunkedArrays there, and the job failed:
    "Cannot convert pyarrow.lib.ChunkedArray to pyarrow.lib.Array"."""
    (tmp_path / "a.json").write_text(
        "".join(f'{{"k": {i}, "ts": "2024-01-01 00:00:0{i}.000"}}\n' for i in range(4))
    )
    t_env = _environment(columnar=True)
    t_env.execute_sql(
        "CREATE TABLE a (k INT, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'a.json'}', 'format' = 'json')"
    )
    assert "columnar=[arrow]" in t_env.from_path("a").explain()
    with t_env.from_path("a").execute().collect() as rows:
        got = sorted(tuple(r) for r in rows)
    assert got == [(i, datetime.datetime(2024, 1, 1, 0, 0, i)) for i in range(4)]
