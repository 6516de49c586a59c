#!/usr/bin/env bash
# Creates .venv (Python 3.11+) and installs millstream with its development tools, the
# documentation tools, the database drivers and the Spark runner (PySpark; Java 17 from
# Debian when missing), and Debian's PostgreSQL for the database tests when missing.
# Everything the project needs comes from pyproject.toml; nothing is installed by hand.
#
# On a fresh machine this takes several minutes (PySpark alone is a download of some
# 450 MB): each step says what it installs, and apt-get and pip show their progress. Once
# .venv holds what pyproject.toml asks for, a run checks that and returns at once (the
# scripts that call it run it every time); delete .venv/.setup-done to install again.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
STAMP=.venv/.setup-done

step() { echo "setup: $*"; }

if ! "$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)'; then
  echo "millstream needs Python 3.11 or newer (found: $("$PYTHON" --version 2>&1))" >&2
  exit 1
fi
wanted="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ -x .venv/bin/millstream ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$wanted" ] \
  && command -v java >/dev/null 2>&1 && [ -x /usr/bin/chromium ] \
  && compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  exit 0  # set up already, for this pyproject.toml
fi
started=$SECONDS

# The Spark runner needs Java 17+ (PySpark 4); the dashboard's browser test drives Debian's
# Chromium headless (Playwright with executablePath /usr/bin/chromium).
debian_packages=()
if ! command -v java >/dev/null 2>&1; then
  debian_packages+=(openjdk-17-jre-headless)
  step "java not found: openjdk-17-jre-headless will be installed (for the Spark runner)"
fi
if [ ! -x /usr/bin/chromium ]; then
  debian_packages+=(chromium)
  step "chromium not found: Debian's chromium will be installed (for the dashboard's browser test)"
fi
# The JDBC and postgres-cdc tests start their own PostgreSQL server (initdb, pg_ctl in a
# temporary directory: millstream.testing.postgres_server); Debian's package provides them.
if ! compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  debian_packages+=(postgresql)
  step "PostgreSQL not found: Debian's postgresql will be installed (for the JDBC and CDC tests)"
fi
if [ ${#debian_packages[@]} -gt 0 ]; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  step "apt-get update"
  $SUDO apt-get update -q
  step "apt-get install ${debian_packages[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${debian_packages[@]}"
fi

if [ ! -x .venv/bin/python ]; then
  step "creating .venv with $("$PYTHON" --version 2>&1)"
  "$PYTHON" -m venv .venv
fi
step "installing millstream (editable) with its dev, spark, docs and database-driver extras into .venv (pip install -e '.[dev,spark,docs,postgres,mysql]')"
rm -f "$STAMP"
.venv/bin/python -m pip install --disable-pip-version-check -e '.[dev,spark,docs,postgres,mysql]'
echo "$wanted" > "$STAMP"
step "done in $(( (SECONDS - started) / 60 )) min $(( (SECONDS - started) % 60 )) s: .venv is ready"
