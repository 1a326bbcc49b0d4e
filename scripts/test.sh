#!/usr/bin/env bash
# Run the whole test suite: set up if needed, then ruff check, ruff format --check, the layer
# contracts of pyproject.toml (import-linter) and pytest.
# Extra arguments go to pytest (e.g. scripts/test.sh -k planner).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-demo
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/lint-imports --no-cache
.venv/bin/python -m pytest -q "$@"
