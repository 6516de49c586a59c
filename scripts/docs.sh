#!/usr/bin/env bash
# The documentation site: draws the benchmark plots from docs/benchmarks/*.json, then builds
# docs/ with MkDocs (Material theme, API pages from docstrings) into site/, strictly: a
# broken link, a missing page or a missing snippet fails the build.
#
#   ./scripts/docs.sh          build site/
#   ./scripts/docs.sh serve    build and serve it at http://127.0.0.1:8000 while you edit
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/mkdocs ] || ./scripts/setup.sh
export NO_MKDOCS_2_WARNING=1  # Material's notice about its successor, printed on every build
.venv/bin/python benchmarks/plot.py > /dev/null
if [ "${1:-}" = "serve" ]; then
  exec .venv/bin/mkdocs serve --strict --dev-addr 127.0.0.1:8000
fi
exec .venv/bin/mkdocs build --strict --quiet
