#!/usr/bin/env bash
# The whole test suite: set up, lint (ruff, import layering), type check (mypy on the
# graph and runtime packages), then every test (pytest; per-test timeouts).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
.venv/bin/ruff check src tests examples benchmarks
.venv/bin/lint-imports
.venv/bin/mypy
exec .venv/bin/python -m pytest "$@"
