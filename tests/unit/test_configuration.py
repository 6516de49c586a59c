"""Deployment settings without touching the program: a conf directory and a variable."""

from __future__ import annotations

import pytest

from millstream.common.configuration import CONF_DIR_ENV, PROPERTIES_ENV, load_global_configuration
from millstream.datastream import StreamExecutionEnvironment


def test_conf_dir_then_properties_variable(tmp_path, monkeypatch):
    (tmp_path / "config.yaml").write_text("# cluster\nexecution.target: embedded\nparallelism.default: 3\n")
    monkeypatch.setenv(CONF_DIR_ENV, str(tmp_path))
    monkeypatch.setenv(PROPERTIES_ENV, "execution.target: spark\nspark.master: 'local[2]'  # two cores\n")
    config = load_global_configuration()
    assert config.get_string("execution.target", "") == "spark"  # the variable wins
    assert config.get_string("spark.master", "") == "local[2]"
    assert config.get_string("parallelism.default", "") == "3"


def test_the_environment_picks_up_the_target_from_the_variable(monkeypatch):
    monkeypatch.delenv(CONF_DIR_ENV, raising=False)
    monkeypatch.setenv(PROPERTIES_ENV, "execution.target: spark")
    env = StreamExecutionEnvironment.get_execution_environment()
    assert env._configuration.get_string("execution.target", "") == "spark"
    monkeypatch.delenv(PROPERTIES_ENV)
    assert (
        StreamExecutionEnvironment.get_execution_environment()._configuration.get_string(
            "execution.target", "embedded"
        )
        == "embedded"
    )


def test_a_malformed_line_names_its_origin(monkeypatch):
    monkeypatch.delenv(CONF_DIR_ENV, raising=False)
    monkeypatch.setenv(PROPERTIES_ENV, "execution.target: spark\nspark.master local[2]\n")
    with pytest.raises(ValueError, match=r"\$MILLSTREAM_PROPERTIES:2: expected 'key: value'"):
        load_global_configuration()
