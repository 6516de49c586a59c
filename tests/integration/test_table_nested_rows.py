"""Nested ROW columns, views, and Top-N keyed on qualified names, as Nexmark's SQL uses them.

The expected output of the first three tests is what PyFlink 2.3 printed for the same program
(batch mode, the same JSON file): ``ROW<...>`` in DDL, field access ``p.name`` and
``people.p.addr.city`` (NULL when the row is NULL), ``Expression.get`` named ``p$name``,
a ROW value printed as ``(ann, (Oslo, 10))``, and ``CREATE VIEW v (a, b) AS ...``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.expressions import col
from millstream.table.sql.statements import SqlError

pytestmark = pytest.mark.timeout(300)


@pytest.fixture
def people(tmp_path: Path) -> TableEnvironment:
    with open(tmp_path / "p.json", "w") as f:
        f.write(json.dumps({"id": 1, "p": {"name": "ann", "addr": {"city": "Oslo", "zip": 10}}}) + "\n")
        f.write(json.dumps({"id": 2, "p": None}) + "\n")
        f.write(json.dumps({"id": 3, "p": {"name": "bob", "addr": None}}) + "\n")
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        "CREATE TABLE people (id BIGINT, p ROW<name STRING, addr ROW<city STRING, zip INT>>) "
        f"WITH ('connector' = 'filesystem', 'path' = '{tmp_path / 'p.json'}', 'format' = 'json')"
    )
    return t_env


def _printed(capsys: pytest.CaptureFixture[str], result: object) -> list[str]:
    result.print()  # type: ignore[attr-defined]
    return [
        line.strip("|").split("|") for line in capsys.readouterr().out.splitlines() if line.startswith("|")
    ]


def test_fields_of_nested_rows_in_sql(people: TableEnvironment, capsys: pytest.CaptureFixture[str]) -> None:
    rows = _printed(
        capsys,
        people.execute_sql("SELECT id, p.name, people.p.addr.city AS city, p.addr.zip + 1 AS z FROM people"),
    )
    assert [[c.strip() for c in r] for r in rows] == [
        ["id", "name", "city", "z"],
        ["1", "ann", "Oslo", "11"],
        ["2", "<NULL>", "<NULL>", "<NULL>"],
        ["3", "bob", "<NULL>", "<NULL>"],
    ]
    rows = _printed(capsys, people.execute_sql("SELECT * FROM people"))
    assert [[c.strip() for c in r] for r in rows] == [
        ["id", "p"],
        ["1", "(ann, (Oslo, 10))"],
        ["2", "<NULL>"],
        ["3", "(bob, NULL)"],
    ]
    people.from_path("people").print_schema()
    assert capsys.readouterr().out.splitlines() == [
        "(",
        "  `id` BIGINT,",
        "  `p` ROW<`name` STRING, `addr` ROW<`city` STRING, `zip` INT>>",
        ")",
    ]


def test_get_names_fields_as_flinks_table_api(
    people: TableEnvironment, capsys: pytest.CaptureFixture[str]
) -> None:
    table = people.from_path("people").select(col("p").get("name"), col("p").get("addr").get("zip"))
    rows = _printed(capsys, table.execute())
    assert [[c.strip() for c in r] for r in rows] == [
        ["p$name", "p$addr$zip"],
        ["ann", "10"],
        ["<NULL>", "<NULL>"],
        ["bob", "<NULL>"],
    ]
    with pytest.raises(ValueError, match=r"Cannot resolve field \[nosuch\]"):
        people.sql_query("SELECT p.nosuch FROM people")
    with pytest.raises(ValueError, match="is not a ROW"):
        people.sql_query("SELECT id.x FROM people")


def test_create_and_drop_view(people: TableEnvironment, capsys: pytest.CaptureFixture[str]) -> None:
    people.execute_sql("CREATE VIEW v (a, b) AS SELECT id, p.name FROM people WHERE id > 1")
    rows = _printed(capsys, people.execute_sql("SELECT * FROM v"))
    assert [[c.strip() for c in r] for r in rows] == [["a", "b"], ["2", "<NULL>"], ["3", "bob"]]
    # as Flink: the name must be new (PyFlink: "Table (or view) default_database.v already exists")
    with pytest.raises(SqlError, match="already exists"):
        people.execute_sql("CREATE VIEW v AS SELECT id FROM people")
    people.execute_sql("CREATE VIEW IF NOT EXISTS v AS SELECT id FROM people")
    assert people.from_path("v").get_schema().get_field_names() == ["a", "b"]
    people.execute_sql("DROP VIEW v")
    people.execute_sql("DROP TEMPORARY VIEW IF EXISTS v")
    with pytest.raises(
        SqlError, match=r"View with identifier 'default_catalog\.default_database\.v' does not exist"
    ):
        people.execute_sql("DROP VIEW v")
    people.execute_sql("CREATE TEMPORARY VIEW v AS SELECT p.addr FROM people")
    addresses = [r[0] for r in people.execute_sql("SELECT * FROM v").collect()]
    assert addresses[0][0] == "Oslo" and addresses[1] is None


def test_top_n_partitioned_and_ordered_by_qualified_columns_of_a_join() -> None:
    """Nexmark q9's shape: ``SELECT A.*, B.x, ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY
    B.price DESC) ... FROM a A, b B WHERE A.id = B.auction``: the keys are the join's columns,
    named by their tables, and the implicit join's condition holds (it was lost, so every bid
    met every auction)."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.create_temporary_view("auction", t_env.from_elements([(1, "a"), (2, "b")], ["id", "item"]))
    t_env.create_temporary_view(
        "bid",
        t_env.from_elements(
            [(1, 10, "x"), (1, 30, "y"), (2, 5, "z"), (2, 7, "w")], ["auction", "price", "who"]
        ),
    )
    result = t_env.execute_sql(
        "SELECT id, item, who, price FROM (SELECT A.*, B.who, B.price, ROW_NUMBER() OVER "
        "(PARTITION BY A.id ORDER BY B.price DESC) AS rownum FROM auction A, bid B WHERE A.id = B.auction) "
        "WHERE rownum <= 1"
    )
    assert sorted(tuple(r) for r in result.collect()) == [(1, "a", "y", 30), (2, "b", "w", 7)]
