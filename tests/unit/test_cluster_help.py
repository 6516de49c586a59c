"""``millstream cluster start --help`` describes every option (issue 46, point 21), in plain
text: no reStructuredText double backticks."""

from __future__ import annotations

import argparse
from types import ModuleType

import pytest

from millstream.cluster import jobmanager, standalone, taskmanager


def _undescribed(parser: argparse.ArgumentParser) -> list[str]:
    return [", ".join(a.option_strings) for a in parser._actions if a.option_strings and not a.help]


@pytest.mark.parametrize("action", ["start", "stop"])
def test_cluster_start_and_stop_describe_themselves_and_every_option(
    action: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        standalone.main([action, "--help"])
    text = capsys.readouterr().out
    assert "``" not in text
    [actions] = [a for a in standalone.build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    parser = actions.choices[action]
    assert parser.description and " ".join(parser.description.split()[:4]) in text
    assert _undescribed(parser) == []


@pytest.mark.parametrize(
    "module", [standalone, jobmanager, taskmanager], ids=["cluster", "jobmanager", "taskmanager"]
)
def test_the_process_commands_help_is_plain_text_and_describes_every_option(module: ModuleType) -> None:
    parser = module.build_parser()
    assert "``" not in parser.format_help()
    assert _undescribed(parser) == []
