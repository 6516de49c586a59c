#!/usr/bin/env bash
# Creates .venv (Python 3.11+) and installs millstream with its development tools, the
# documentation tools and the Spark runner (PySpark; Java 17 from Debian when missing).
# Everything the project needs comes from pyproject.toml; nothing is installed by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "millstream needs Python 3.11 or newer (found: $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
# The Spark runner needs Java 17+ (PySpark 4): install Debian's JRE when java is missing.
if ! command -v java >/dev/null 2>&1; then
  echo "java not found: installing openjdk-17-jre-headless (for the Spark runner)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq openjdk-17-jre-headless >/dev/null
fi
# The dashboard's browser test drives Debian's Chromium headless (Playwright with
# executablePath /usr/bin/chromium): install it when missing.
if [ ! -x /usr/bin/chromium ]; then
  echo "chromium not found: installing Debian's chromium (for the dashboard's browser test)" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
.venv/bin/python -m pip install --quiet --disable-pip-version-check -e '.[dev,spark,docs]'
