"""NOT NULL is part of a type as in Flink: a PRIMARY KEY's columns are NOT NULL, an expression of
NOT NULL operands and literals is NOT NULL, and DataType equality tells the two apart."""

from __future__ import annotations

from millstream.table import EnvironmentSettings, TableEnvironment
from millstream.table.common.printing import summary_string
from millstream.table.types import DataTypes


def test_a_primary_keys_columns_and_expressions_of_them_are_not_null() -> None:
    """PyFlink 2.3.0 prints, for a table ``(id INT, k STRING, v DOUBLE, PRIMARY KEY (id, k) NOT
    ENFORCED)``: ``id INT NOT NULL``, ``k STRING NOT NULL``, ``v DOUBLE``; and for ``SELECT id,
    id + 1, v + 1, 1, CAST(id AS BIGINT), k || 'x', id / 2``: INT NOT NULL, INT NOT NULL, DOUBLE,
    INT NOT NULL, BIGINT NOT NULL, STRING NOT NULL, INT NOT NULL."""
    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.execute_sql(
        "CREATE TABLE s (id INT, k STRING, v DOUBLE, PRIMARY KEY (id, k) NOT ENFORCED) "
        "WITH ('connector' = 'datagen', 'number-of-rows' = '3')"
    )
    declared = t_env.from_path("s").get_resolved_schema().get_column_data_types()
    assert [summary_string(t) for t in declared] == ["INT NOT NULL", "STRING NOT NULL", "DOUBLE"]
    query = t_env.sql_query("SELECT id, id + 1, v + 1, 1, CAST(id AS BIGINT), k || 'x', id / 2 FROM s")
    assert [summary_string(t) for t in query.get_resolved_schema().get_column_data_types()] == [
        "INT NOT NULL",
        "INT NOT NULL",
        "DOUBLE",
        "INT NOT NULL",
        "BIGINT NOT NULL",
        "STRING NOT NULL",
        "INT NOT NULL",
    ]


def test_data_types_differ_by_nullability() -> None:
    """PyFlink 2.3.0: ``DataTypes.INT() == DataTypes.INT(False)`` is False, their hashes equal."""
    assert DataTypes.INT() != DataTypes.INT(False)
    assert DataTypes.INT() == DataTypes.INT()
    assert hash(DataTypes.INT()) == hash(DataTypes.INT(False))
    assert DataTypes.ARRAY(DataTypes.INT(False)) != DataTypes.ARRAY(DataTypes.INT())
