"""The whole-app scenarios, each in a pytest process of its own (see ``app_scenario`` in
conftest.py): refine from the issues dock → job, badge, preview reload, undo, export, cancel
(tests/test_gui.py); draw a rectangle, add a note, send the turn → job, badge, requirement listed
(tests/test_annotate.py). Each is a pytest-qt test driving the real MainWindow on a qasync loop."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import APP_SCENARIO_ENV

from mmstudio.render import find_browser

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = [
    "tests/test_gui.py::test_refine_from_the_issues_dock_runs_jobs_and_updates_badges",
    "tests/test_annotate.py::test_annotate_from_the_app_sends_a_turn",
]


@pytest.mark.skipif(find_browser().executable is None, reason="no Chromium for Playwright")
@pytest.mark.parametrize("node", SCENARIOS, ids=[n.rsplit("::", 1)[-1] for n in SCENARIOS])
def test_app_scenario_in_its_own_process(node: str) -> None:
    env = os.environ | {
        APP_SCENARIO_ENV: "1",
        "QT_QPA_PLATFORM": "offscreen",
        "QTWEBENGINE_DISABLE_SANDBOX": "1",
    }
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", node]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    tail = (done.stdout[-6000:] + "\n" + done.stderr[-3000:]).strip()
    assert done.returncode == 0, tail
    assert "1 passed" in done.stdout, tail
