#!/usr/bin/env bash
# The whole test suite: set up, lint (ruff check and format, import layering), type check
# (mypy on every package), build the documentation strictly (scripts/docs.sh), then every
# test (pytest; per-test timeouts).
#
#   ./scripts/test.sh                 everything (what CI runs), on two pytest-xdist workers
#                                     (one on a single core; MILLSTREAM_TEST_WORKERS overrides)
#   ./scripts/test.sh --fast          the development loop: ruff, then the unit and property
#                                     tests (no processes, sockets or Spark; under a minute)
#   ./scripts/test.sh [PYTEST ARGS]   everything, with extra pytest arguments
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--fast" ]; then
  shift
  [ -x .venv/bin/pytest ] || ./scripts/setup.sh
  .venv/bin/ruff check src tests examples benchmarks
  .venv/bin/ruff format --check src tests examples benchmarks
  exec .venv/bin/python -m pytest tests/unit tests/property "$@"
fi
./scripts/setup.sh
.venv/bin/ruff check src tests examples benchmarks
.venv/bin/ruff format --check src tests examples benchmarks
.venv/bin/lint-imports
.venv/bin/mypy
./scripts/docs.sh
WORKERS="${MILLSTREAM_TEST_WORKERS:-$(( $(nproc) < 2 ? 1 : 2 ))}"
HYPOTHESIS_PROFILE="${HYPOTHESIS_PROFILE:-ci}" exec .venv/bin/python -m pytest -n "$WORKERS" "$@"
