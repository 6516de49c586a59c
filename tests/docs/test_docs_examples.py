"""Every Python example in the README and the documentation runs, and prints what the page
says it prints.

A page's ```python block (inline, or a ``--8<-- "docs/examples/x.py"`` snippet the site
includes) runs as a program of its own in an empty directory. When the next block is
```text title="Output"``, the program's standard output must be that text, line for line
(``title="Output (any order)"``: the same lines in any order, for output of parallel
subtasks). An example that reads ``KAFKA_BOOTSTRAP_SERVERS`` gets a Kafka-protocol broker of
its own (Tansu, as the Kafka tests use); one that reads ``POSTGRES_PORT`` a PostgreSQL server
of its own (``POSTGRES_HOST``, ``_PORT``, ``_USER``, ``_PASSWORD``, ``_DB``; logical WAL).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.S | re.M)
_SNIPPET = re.compile(r'^--8<-- "([^"]+)"\s*$', re.M)

pytestmark = pytest.mark.timeout(600)


@dataclass(frozen=True)
class Example:
    page: str
    number: int
    code: str
    output: str | None
    any_order: bool


def _resolve(text: str) -> str:
    """A block's text with each ``--8<-- "path"`` line replaced by the file (as the site does)."""
    return _SNIPPET.sub(lambda m: (ROOT / m.group(1)).read_text(encoding="utf-8").rstrip("\n"), text)


def examples() -> list[Example]:
    found = []
    for page in PAGES:
        fences = list(_FENCE.finditer(page.read_text(encoding="utf-8")))
        number = 0
        for i, fence in enumerate(fences):
            if fence.group(1).split()[:1] != ["python"]:
                continue
            number += 1
            output, any_order = None, False
            if i + 1 < len(fences) and 'title="Output' in fences[i + 1].group(1):
                output = _resolve(fences[i + 1].group(2))
                any_order = "any order" in fences[i + 1].group(1)
            found.append(
                Example(str(page.relative_to(ROOT)), number, _resolve(fence.group(2)), output, any_order)
            )
    return found


EXAMPLES = examples()


def test_the_pages_have_examples_and_each_snippet_exists() -> None:
    assert len(EXAMPLES) >= 8
    for page in PAGES:
        for path in _SNIPPET.findall(page.read_text(encoding="utf-8")):
            assert (ROOT / path).is_file(), f"{page.name} includes {path}, which does not exist"


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.page}#{e.number}" for e in EXAMPLES])
def test_the_example_runs_and_prints_what_the_page_says(example: Example, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    broker = None
    if "KAFKA_BOOTSTRAP_SERVERS" in example.code:
        from millstream.testing.kafka_broker import KafkaBroker

        broker = KafkaBroker().start()
        env["KAFKA_BOOTSTRAP_SERVERS"] = broker.bootstrap_servers
    postgres = None
    if "POSTGRES_PORT" in example.code:
        from millstream.testing.postgres_server import PostgresServer

        postgres = PostgresServer().start()
        env.update(
            POSTGRES_HOST=postgres.host,
            POSTGRES_PORT=str(postgres.port),
            POSTGRES_USER=postgres.user,
            POSTGRES_PASSWORD=postgres.password,
            POSTGRES_DB=postgres.database,
        )
    try:
        done = subprocess.run(
            [sys.executable, "-c", example.code],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        if broker is not None:
            broker.stop()
        if postgres is not None:
            postgres.stop()
    assert done.returncode == 0, f"{example.page} example {example.number} failed:\n{done.stderr[-3000:]}"
    if example.output is not None:
        printed = [line.rstrip() for line in done.stdout.rstrip("\n").splitlines()]
        expected = [line.rstrip() for line in example.output.rstrip("\n").splitlines()]
        if example.any_order:
            printed, expected = sorted(printed), sorted(expected)
        assert printed == expected, f"{example.page} example {example.number} printed:\n{done.stdout}"


def _commands() -> list[tuple[str, list[str]]]:
    """Every ``millstream`` command line of the pages' shell blocks, as words."""
    import shlex

    found = []
    for page in PAGES:
        for fence in _FENCE.finditer(page.read_text(encoding="utf-8")):
            if fence.group(1).split()[:1] not in (["sh"], ["bash"]):
                continue
            for line in fence.group(2).replace("\\\n", " ").splitlines():
                words = shlex.split(line, comments=True)
                if words and words[0].endswith("millstream") and len(words) > 1:
                    found.append((page.name, words))
    return found


def test_the_scripts_the_pages_name_exist() -> None:
    for page in PAGES:
        for script in re.findall(r"(?<![\w/.])\./scripts/[\w.-]+", page.read_text(encoding="utf-8")):
            assert os.access(ROOT / script, os.X_OK), (
                f"{page.name} names {script}, which is not an executable file"
            )


@pytest.mark.parametrize(("page", "words"), _commands(), ids=[" ".join(w[1:3]) for _, w in _commands()])
def test_each_command_line_on_the_pages_uses_options_millstream_has(page: str, words: list[str]) -> None:
    subcommand = words[1:3] if words[1] == "cluster" else words[1:2]
    done = subprocess.run(
        [sys.executable, "-m", "millstream.cli.main", *subcommand, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, f"{page}: millstream {' '.join(subcommand)} --help failed: {done.stderr}"
    for word in words[1:]:
        if word.startswith("-"):
            flag = word.split("=")[0]
            assert re.search(rf"(?<![\w-]){re.escape(flag)}(?![\w-])", done.stdout), (
                f"{page}: 'millstream {' '.join(subcommand)}' has no option {flag}"
            )
