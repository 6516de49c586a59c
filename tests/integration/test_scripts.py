"""The README's scripts as a new user runs them (issue 46, point 23).

Before, ``scripts/setup.sh`` ran for minutes on a fresh machine without printing anything
(``pip --quiet``, ``apt-get -qq``), and every ``scripts/run-word-count.sh`` left its
generated input and its output, about 155 MB, in a new pair of /tmp directories.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.timeout(600)

ROOT = Path(__file__).resolve().parents[2]


def test_setup_says_what_it_installs_then_returns_at_once_when_done(tmp_path: Path) -> None:
    """On a stand-in project (a module and a ``millstream`` command): the real script."""
    if not (shutil.which("java") and os.access("/usr/bin/chromium", os.X_OK)):
        pytest.skip("the script would install Java or Chromium from Debian first")
    project = tmp_path / "project"
    (project / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", project / "scripts" / "setup.sh")
    (project / "stand_in.py").write_text("def main():\n    print('stand-in')\n")
    (project / "pyproject.toml").write_text(
        textwrap.dedent(
            """
            [build-system]
            requires = ["setuptools>=68", "wheel"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "stand-in"
            version = "0"

            [project.optional-dependencies]
            dev = []
            spark = []
            docs = []

            [project.scripts]
            millstream = "stand_in:main"

            [tool.setuptools]
            py-modules = ["stand_in"]
            """
        )
    )
    env = {**os.environ, "PYTHON": sys.executable}
    first = subprocess.run(
        ["bash", "scripts/setup.sh"], cwd=project, capture_output=True, text=True, timeout=540, env=env
    )
    assert first.returncode == 0, first.stderr
    steps = [line for line in first.stdout.splitlines() if line.startswith("setup: ")]
    assert steps[0].startswith("setup: creating .venv with Python 3.")
    assert steps[1].startswith(
        "setup: installing millstream (editable) with its dev, spark, docs and database-driver extras"
    )
    assert "Successfully installed stand-in-0" in first.stdout  # pip's own lines
    assert steps[-1].startswith("setup: done in ") and steps[-1].endswith(": .venv is ready")
    again = subprocess.run(
        ["bash", "scripts/setup.sh"], cwd=project, capture_output=True, text=True, timeout=60, env=env
    )
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")  # .venv holds it all already


def test_run_word_count_writes_into_one_directory_it_empties_and_leaves_nothing_in_tmp(
    tmp_path: Path,
) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    work = tmp_path / "word-count"
    env = {**os.environ, "TMPDIR": str(tmp), "MILLSTREAM_WORD_COUNT_DIR": str(work)}
    env.pop("MILLSTREAM_LOG_LEVEL", None)
    for _ in range(2):
        result = subprocess.run(
            [str(ROOT / "scripts" / "run-word-count.sh"), "--lines", "2000", "--parallelism", "1"],
            capture_output=True,
            text=True,
            timeout=240,
            env=env,
        )
        assert result.returncode == 0, result.stderr
        assert f"run-word-count: input and output in {work} (emptied by the next run)" in result.stderr
        assert f"output written to {work}/output" in result.stdout
    inputs = [p for p in work.iterdir() if p.name.startswith("millstream-wc-in-")]
    assert len(inputs) == 1  # the first run's input went with it
    assert any((work / "output").rglob("prefix*"))  # the FileSink's part files
    assert list(tmp.iterdir()) == []  # nothing in the temporary directory of the caller
