#!/usr/bin/env bash
# The tools .ci/run needs besides Python and Java: make, git (dbt deps from git, and the
# packaging tests clone this repository) and Python's venv module. On CI (CI=true, root,
# Debian/Ubuntu) a missing one is installed; elsewhere it says what to install.
PYTHON="${PYTHON:-python3}"
missing=()
command -v make >/dev/null 2>&1 || missing+=(make)
command -v git >/dev/null 2>&1 || missing+=(git)
if ! "$PYTHON" -c 'import sys; assert sys.version_info >= (3, 9)' 2>/dev/null; then
  echo "$PYTHON is missing or older than 3.9; set PYTHON=/path/to/python3.9+" >&2
  exit 1
fi
"$PYTHON" -c 'import ensurepip, venv' 2>/dev/null || missing+=("python3-venv")
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "${CI:-}" = "true" ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing for CI: ${missing[*]}" >&2
  (apt-get update -qq && apt-get install -y -qq "${missing[@]}") >&2 || exit 1
else
  echo "Missing: ${missing[*]}. Install them, e.g.: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
