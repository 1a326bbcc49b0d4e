#!/usr/bin/env bash
# Run the test suite: set up if needed, then ruff check, ruff format --check, the layer contracts
# of pyproject.toml (import-linter), mypy (the packages [tool.mypy] names) and pytest.
#
#   scripts/test.sh            every layer: unit, browser, app and slow (CI runs this)
#   scripts/test.sh --fast     the unit layer only (no Chromium, no Qt, no end-to-end runs)
#
# Other arguments go to pytest (e.g. scripts/test.sh -k planner). The layers are described in
# tests/conftest.py.
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
if [ "${1:-}" = "--fast" ]; then fast=1; shift; fi
scripts/setup.sh --no-demo
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports --no-cache
.venv/bin/mypy
if [ "$fast" = 1 ]; then
  MMSTUDIO_TEST_LAYER=unit exec .venv/bin/python -m pytest -q -m "not app and not browser and not slow" "$@"
fi
exec .venv/bin/python -m pytest -q "$@"
