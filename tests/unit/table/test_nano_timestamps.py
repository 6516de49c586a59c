"""TIMESTAMP(9) values keep their nanoseconds (``common/timestamps.NanoTimestamp``).

PyFlink 2.3.0 prints FALSE for ``TIMESTAMP '2024-01-01 00:00:00.000000001' = TIMESTAMP
'2024-01-01 00:00:00.000000002'`` and TRUE for ``... < ...`` of the same two (the conformance
corpus's comparison cases): two timestamps one nanosecond apart are different values.
"""

from __future__ import annotations

import datetime
import pickle

import cloudpickle

from millstream.table.common.printing import format_value
from millstream.table.common.timestamps import (
    NanoTimestamp,
    from_epoch_nanos,
    nano_of_second,
    to_epoch_nanos,
    with_nano_of_second,
)
from millstream.table.common.types import DataTypes

MIDNIGHT = datetime.datetime(2024, 1, 1)
ONE = with_nano_of_second(MIDNIGHT, 1)
TWO = with_nano_of_second(MIDNIGHT, 2)


def test_one_nanosecond_apart_compare_unequal_and_ordered() -> None:
    assert isinstance(ONE, NanoTimestamp)
    assert ONE != TWO and not ONE == TWO  # noqa: SIM201 - both operators
    assert ONE < TWO and TWO > ONE and ONE <= TWO and TWO >= ONE
    assert sorted([TWO, ONE]) == [ONE, TWO]
    assert len({ONE, TWO}) == 2
    assert ONE != MIDNIGHT and MIDNIGHT < ONE


def test_whole_microseconds_are_a_plain_datetime_equal_to_it() -> None:
    value = with_nano_of_second(MIDNIGHT, 5000)
    assert type(value) is datetime.datetime
    assert value == datetime.datetime(2024, 1, 1, 0, 0, 0, 5)


def test_nanoseconds_survive_arithmetic_replace_zones_and_pickling() -> None:
    value = with_nano_of_second(datetime.datetime(2024, 3, 5, 7, 8, 9), 123_456_789)
    assert nano_of_second(value + datetime.timedelta(days=1)) == 123_456_789
    assert nano_of_second(value - datetime.timedelta(hours=1)) == 123_456_789
    assert nano_of_second(value.replace(year=2000)) == 123_456_789
    assert nano_of_second(value.astimezone(datetime.UTC)) == 123_456_789
    assert pickle.loads(pickle.dumps(value)) == value
    assert cloudpickle.loads(cloudpickle.dumps(value)) == value
    assert str(value) == "2024-03-05 07:08:09.123456789"


def test_epoch_nanoseconds() -> None:
    value = with_nano_of_second(datetime.datetime(2024, 1, 2, 3, 4, 5), 123_456_789)
    assert to_epoch_nanos(value) == 1_704_164_645_123_456_789
    assert from_epoch_nanos(1_704_164_645_123_456_789) == value
    assert from_epoch_nanos(-1) == with_nano_of_second(
        datetime.datetime(1969, 12, 31, 23, 59, 59), 999_999_999
    )


def test_a_timestamp_of_precision_9_prints_its_nanoseconds() -> None:
    """PyFlink 2.3.0 prints ``2023-11-14 22:13:20.123456789`` for TO_TIMESTAMP_LTZ(CAST(
    1700000000123456789 AS BIGINT), 9) (a TIMESTAMP_LTZ(9), UTC) and ``...20.1234567`` for the
    same value as a TIMESTAMP(7)."""
    value = with_nano_of_second(datetime.datetime(2023, 11, 14, 22, 13, 20), 123_456_789)
    assert format_value(DataTypes.TIMESTAMP_LTZ(9), value) == "2023-11-14 22:13:20.123456789"
    assert format_value(DataTypes.TIMESTAMP(7), value) == "2023-11-14 22:13:20.1234567"
    assert format_value(DataTypes.TIMESTAMP(3), value) == "2023-11-14 22:13:20.123"


def test_timestamp_literals_keep_their_nanoseconds() -> None:
    """PyFlink 2.3.0 prints FALSE for ``TIMESTAMP '2024-01-01 00:00:00.000000001' = TIMESTAMP
    '2024-01-01 00:00:00.000000002'``, TRUE for ``<``, 123456789 for ``EXTRACT(NANOSECOND FROM
    TIMESTAMP '1999-12-31 23:59:59.123456789')``, 2000-01-01 00:00:00.123456789 for
    ``TIMESTAMPADD(SECOND, 1, TIMESTAMP '1999-12-31 23:59:59.123456789')`` and 000000001 for
    ``DATE_FORMAT(TIMESTAMP '2024-03-05 07:08:09.000000001', 'SSSSSSSSS')``."""
    from millstream.table import EnvironmentSettings, TableEnvironment

    t_env = TableEnvironment.create(EnvironmentSettings.in_batch_mode())
    t_env.get_config().set("minicluster.mode", "threads")  # a unit test starts no processes
    table = t_env.sql_query(
        "SELECT TIMESTAMP '2024-01-01 00:00:00.000000001' = TIMESTAMP '2024-01-01 00:00:00.000000002', "
        "TIMESTAMP '2024-01-01 00:00:00.000000001' < TIMESTAMP '2024-01-01 00:00:00.000000002', "
        "EXTRACT(NANOSECOND FROM TIMESTAMP '1999-12-31 23:59:59.123456789'), "
        "TIMESTAMPADD(SECOND, 1, TIMESTAMP '1999-12-31 23:59:59.123456789'), "
        "DATE_FORMAT(TIMESTAMP '2024-03-05 07:08:09.000000001', 'SSSSSSSSS')"
    )
    types = table.get_schema().get_field_data_types()
    (row,) = list(table.execute().collect())
    assert [format_value(t, v) for t, v in zip(types, row, strict=True)] == [
        "FALSE",
        "TRUE",
        "123456789",
        "2000-01-01 00:00:00.123456789",
        "000000001",
    ]
