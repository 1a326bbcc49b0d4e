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

#: the app layer: each scenario is a Qt app in a pytest process of its own
pytestmark = pytest.mark.app

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


def _xcb_loadable() -> bool:
    """Whether Qt's xcb platform plugin finds all its libraries (scripts/setup.sh installs them
    on Debian as root)."""
    import PySide6

    plugin = Path(PySide6.__file__).parent / "Qt" / "plugins" / "platforms" / "libqxcb.so"
    if not plugin.is_file():
        return False
    found = subprocess.run(["ldd", str(plugin)], capture_output=True, text=True, check=False)
    return found.returncode == 0 and "not found" not in found.stdout


@pytest.fixture
def x_display():
    """An Xvfb display of our own when Xvfb is installed (the app on the real xcb platform),
    else None (offscreen). Stopped after the test."""
    import shutil
    import time

    if shutil.which("Xvfb") is None or not _xcb_loadable():
        yield None
        return
    number = 100 + os.getpid() % 400
    server = subprocess.Popen(
        ["Xvfb", f":{number}", "-screen", "0", "1920x1200x24", "-nolisten", "tcp"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    socket = Path(f"/tmp/.X11-unix/X{number}")
    for _ in range(100):
        if socket.exists() or server.poll() is not None:
            break
        time.sleep(0.05)
    try:
        yield f":{number}" if server.poll() is None else None
    finally:
        server.terminate()
        server.wait(timeout=10)


@pytest.mark.skipif(find_browser().executable is None, reason="no Chromium for Playwright")
def test_the_designers_path_in_the_real_window(tmp_path, x_display) -> None:
    """Issue 19's GUI layer: scripts/gui_walkthrough.py drives the real window (under Xvfb on
    the xcb platform when Xvfb is installed) through generate → select → flag → refine →
    instruction → annotate → turn → undo → Page row → reopen → site folder, and every step's
    checks hold (what the designer would see: a notice or a job, the new version, the tree's new
    chart type, the Turns status after undo, the flags and device after reopening, …)."""
    import json

    env = os.environ | {"QTWEBENGINE_DISABLE_SANDBOX": "1", "XDG_CONFIG_HOME": str(tmp_path)}
    if x_display:
        env |= {"DISPLAY": x_display, "QT_QPA_PLATFORM": "xcb"}
    else:
        env.pop("DISPLAY", None)
        env["QT_QPA_PLATFORM"] = "offscreen"
    out = tmp_path / "walk"
    command = [sys.executable, "scripts/gui_walkthrough.py", str(out), "--work", str(tmp_path)]
    done = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False
    )
    tail = (done.stdout[-4000:] + "\n" + done.stderr[-3000:]).strip()
    assert done.returncode == 0, tail
    summary = json.loads((out / "steps.json").read_text())
    assert len(summary["steps"]) >= 10
    assert all(all(step["checks"].values()) for step in summary["steps"]), tail
    assert all((out / step["picture"]).stat().st_size > 10_000 for step in summary["steps"])
    index = (out / "README.md").read_text(encoding="utf-8")  # the folder's page, in step order
    places = [index.index(f"]({step['picture']})") for step in summary["steps"]]
    assert places == sorted(places) and "FAILED" not in index
