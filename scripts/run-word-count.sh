#!/usr/bin/env bash
# The main job: set up, then run the word count example on 1,000,000 generated lines
# on the embedded runtime. Extra arguments go to the example (e.g. --parallelism 2).
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
exec .venv/bin/millstream run examples/word_count.py "$@"
