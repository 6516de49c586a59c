#!/usr/bin/env bash
# The main job: set up, then run the word count example on 1,000,000 generated lines
# on the embedded runtime. Extra arguments go to the example (e.g. --parallelism 2).
#
# The generated input and the output (about 155 MB) go to out/word-count/ in the project
# (MILLSTREAM_WORD_COUNT_DIR overrides), which each run empties first: runs do not pile up
# in /tmp, and the last run's output stays there to look at.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
work_dir="${MILLSTREAM_WORD_COUNT_DIR:-$PWD/out/word-count}"
rm -rf "$work_dir"
mkdir -p "$work_dir"
echo "run-word-count: input and output in $work_dir (emptied by the next run)" >&2
# the example writes its generated input into a temporary directory: this one
TMPDIR="$work_dir" exec .venv/bin/millstream run examples/word_count.py --output "$work_dir/output" "$@"
