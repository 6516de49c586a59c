"""The catalog a TableEnvironment shows, as PyFlink 2.3.0 showed it (2026-11-27, the same
program without ``t2`` and the USE statement, imports swapped; every line was equal): one
``default_catalog`` with one ``default_database``; ``CREATE TABLE`` makes a permanent table
(not among the temporary ones), a view is temporary; SHOW statements print with columns as
wide as their content. The errors' text equals Flink's (PyFlink prefixes its Java exception
class)."""

from __future__ import annotations

import pytest

from millstream.table import EnvironmentSettings, TableEnvironment

EXPECTED = """\
default_catalog default_database
['default_catalog'] ['default_database']
['t1', 't2', 'v1'] ['v1'] ['t2', 'v1'] ['v1']
+-----------------+
|    catalog name |
+-----------------+
| default_catalog |
+-----------------+
1 row in set
+-----------------------+
| current database name |
+-----------------------+
|      default_database |
+-----------------------+
1 row in set
+------------+
| table name |
+------------+
|         t1 |
|         t2 |
|         v1 |
+------------+
3 rows in set
OK
"""


def test_the_catalog_methods_and_show_statements_print_what_pyflink_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    t_env = TableEnvironment.create(EnvironmentSettings.in_streaming_mode())
    print(t_env.get_current_catalog(), t_env.get_current_database())
    print(t_env.list_catalogs(), t_env.list_databases())
    t_env.create_temporary_view("v1", t_env.from_elements([(1,)], ["a"]))
    t_env.execute_sql("CREATE TABLE t1 (a INT) WITH ('connector' = 'datagen')")
    t_env.execute_sql("CREATE TEMPORARY TABLE t2 (a INT) WITH ('connector' = 'datagen')")
    print(
        t_env.list_tables(), t_env.list_views(), t_env.list_temporary_tables(), t_env.list_temporary_views()
    )
    t_env.use_catalog("default_catalog")
    t_env.use_database("default_database")
    t_env.execute_sql("SHOW CATALOGS").print()
    t_env.execute_sql("SHOW CURRENT DATABASE").print()
    t_env.execute_sql("SHOW TABLES").print()
    t_env.execute_sql("USE default_catalog.default_database").print()
    assert capsys.readouterr().out == EXPECTED

    with pytest.raises(ValueError, match=r"^A catalog with name \[nope\] does not exist\.$"):
        t_env.use_catalog("nope")
    with pytest.raises(
        ValueError, match=r"A database with name \[nope\] does not exist in the catalog: \[default_"
    ):
        t_env.execute_sql("USE nope")
    t_env.execute_sql("DROP TABLE t1")
    assert t_env.list_tables() == ["t2", "v1"]
