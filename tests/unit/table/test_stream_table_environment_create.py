"""``StreamTableEnvironment.create`` with either argument, as PyFlink 2.3.0's: both are optional,
one is required; made from EnvironmentSettings alone, it runs table jobs
(``tests/integration/test_table_environment_create.py``) but has no DataStream to convert.
Nothing here runs a job."""

from __future__ import annotations

import inspect

import pytest

from millstream.datastream import StreamExecutionEnvironment
from millstream.table import EnvironmentSettings, StreamTableEnvironment


def test_create_takes_pyflinks_optional_parameters() -> None:
    # PyFlink 2.3.0: create(stream_execution_environment=None, environment_settings=None)
    parameters = inspect.signature(StreamTableEnvironment.create).parameters
    assert [(p.name, p.default) for p in parameters.values()] == [
        ("stream_execution_environment", None),
        ("environment_settings", None),
    ]


def test_create_from_environment_settings_alone() -> None:
    t_env = StreamTableEnvironment.create(environment_settings=EnvironmentSettings.in_streaming_mode())
    assert type(t_env) is StreamTableEnvironment
    batch = StreamTableEnvironment.create(environment_settings=EnvironmentSettings.in_batch_mode())
    assert not batch._settings.is_streaming_mode()


def test_create_without_arguments_fails_as_pyflink_does() -> None:
    # PyFlink 2.3.0: ValueError: No argument found, the param 'stream_execution_environment' or
    # 'environment_settings' is required.
    with pytest.raises(ValueError, match=r"^No argument found, the param 'stream_execution_environment' or "):
        StreamTableEnvironment.create()


def test_data_stream_conversions_need_a_stream_environment() -> None:
    # PyFlink 2.3.0 fails too (Py4JError: Method fromDataStream(...) does not exist): the Java
    # environment behind it is a plain TableEnvironment
    t_env = StreamTableEnvironment.create(environment_settings=EnvironmentSettings.in_streaming_mode())
    stream = StreamExecutionEnvironment.get_execution_environment().from_collection([1, 2])
    with pytest.raises(
        ValueError, match=r"^from_data_stream needs a StreamTableEnvironment created on a Stream"
    ):
        t_env.from_data_stream(stream)
    table = t_env.from_elements([(1, "a")], ["a", "b"])
    with pytest.raises(
        ValueError, match=r"^to_data_stream needs a StreamTableEnvironment created on a Stream"
    ):
        t_env.to_data_stream(table)
