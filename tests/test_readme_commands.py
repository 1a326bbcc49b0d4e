"""The README's set-up command works on a fresh clone (slow: it builds its own .venv).

Runs only the set-up half (``scripts/setup.sh``): it installs into a clone of the committed tree
and runs the main job on the demo prompt, then checks the site it reports. The pip download cache
makes a rerun take a few minutes rather than many.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

#: the slow layer: the CLI end to end in subprocesses (see tests/conftest.py)
pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_setup_command_from_a_fresh_clone(tmp_path):
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("needs a git checkout to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIRTUAL_ENV")}
    result = subprocess.run(
        ["bash", "scripts/setup.sh"],
        cwd=clone,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert (clone / ".venv" / "bin" / "mmstudio").exists()
    assert "site:" in result.stdout and "demo-project" in result.stdout
    index = clone / "demo-project" / "site" / "index.html"
    assert index.is_file() and "data-mm-id" in index.read_text(encoding="utf-8")
    tests = subprocess.run(
        [str(clone / ".venv" / "bin" / "mmstudio"), "doctor", "--json"],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert '"name": "echarts"' in tests.stdout
