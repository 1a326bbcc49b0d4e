"""The desktop app, offscreen: preview served from the site folder only, plan tree with badges,
click-to-select both ways."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
pytest.importorskip("PySide6.QtWebEngineWidgets")  # must be imported before the QApplication


from mmstudio.gui.plan_tree import SCORE_ROLE
from mmstudio.gui.site_scheme import lock_down_chromium, register_scheme
from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.report import ElementScore, Issue, Report, Scores

register_scheme()  # before pytest-qt creates the QApplication
lock_down_chromium()

PAGE = """<!doctype html><html><body>
<section data-mm-section="hero"><h1>Hello</h1>
<img data-mm-id="hero_image" src="assets/hero.png" width="200" height="100" alt="hero"></section>
<img src="https://example.invalid/tracker.png"><img src="../../secret.png">
</body></html>"""


@pytest.fixture
def project(tmp_path):
    plan = DesignPlan.model_validate(
        {
            "title": "Hello page",
            "layout": {
                "palette": [{"role": "background", "hex": "#FFFFFF"}],
                "typography": {"heading": "serif", "body": "sans-serif"},
            },
            "sections": [{"id": "hero", "kind": "hero", "element_ids": ["hero_image"]}],
            "images": [
                {
                    "id": "hero_image",
                    "save_path": "assets/hero.png",
                    "context": {"section": "hero", "role": "hero"},
                    "prompt": "a hero",
                    "display_width_px": 200,
                    "display_height_px": 100,
                }
            ],
        }
    )
    project = Project.create(tmp_path / "p", prompt="hello", provider="offline", title="Hello")
    site = project.staging_dir() / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text(PAGE)
    (site / "assets" / "hero.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (tmp_path / "secret.png").write_bytes(b"secret")
    project.install_site(site)
    project.write_plan(plan)
    project.write_report(
        Report(
            scores=Scores(image=0.6, layout=0.9).with_overall(),
            elements=[ElementScore(id="hero_image", kind="image", score=0.6, issues=["i1"])],
        )
    )
    project.commit("first")
    return project


@pytest.fixture
def window(qtbot, project):
    from mmstudio.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.view.loadFinished, timeout=30_000):
        window.open_project(project.root)
    return window


def test_scheme_serves_only_the_site_folder(window, project):
    handler = window.preview.handler
    assert handler.resolve("/index.html") == (project.site_dir / "index.html").resolve()
    assert handler.resolve("/../../secret.png") is None
    assert handler.resolve("/assets/missing.png") is None


def test_network_requests_are_blocked(window, qtbot):
    qtbot.waitUntil(
        lambda: any("example.invalid" in u for u in window.preview.blocker.blocked), timeout=10_000
    )


def test_plan_tree_shows_sections_elements_and_badges(window):
    from mmstudio.gui.plan_tree import ISSUES_ROLE

    item = window.tree._items["hero_image"]
    assert item.data(1, SCORE_ROLE) == pytest.approx(0.6)
    assert item.data(1, ISSUES_ROLE) == 1
    assert "hero" in window.tree._items
    assert window.badges.pills["overall"].text() == "overall 0.75"
    assert window.badges.pills["chart"].text() == "chart –"


def test_selecting_shows_the_element_issues(window, project):
    report = project.read_report()
    report.issues.append(
        Issue(
            id="i1",
            element="hero_image",
            dimension="image",
            level="context",
            message="Cover crop cuts away 60 % of the image",
        )
    )
    project.write_report(report)
    window.refresh()
    window.tree.select("hero_image")
    assert "1 issue" in window.issues.heading.text()
    assert "Cover crop" in window.issues.list.item(0).text()
    assert "CONTEXT" in window.issues.list.item(0).text()


def test_click_in_preview_selects_tree_row(window, qtbot):
    window.page.runJavaScript("document.querySelector('[data-mm-id=hero_image]').click()")
    qtbot.waitUntil(
        lambda: [i.data(0, 0x0100) for i in window.tree.selectedItems()] == ["hero_image"],
        timeout=10_000,
    )


def test_selecting_in_tree_outlines_in_preview(window, qtbot):
    window.tree.select("hero_image")
    results = []
    qtbot.waitUntil(
        lambda: (
            window.page.runJavaScript(
                "document.querySelector('[data-mm-outline]')?.dataset.mmId || ''", 0, results.append
            )
            or "hero_image" in results
        ),
        timeout=10_000,
    )


def test_flag_button_marks_the_tree_row(window):
    window.tree.select("hero_image")
    window.issues.buttons["flag"].click()
    assert window.tree._items["hero_image"].text(0).startswith("⚑ ")
    assert window.issues.buttons["flag"].text() == "Unflag"
    window.issues.buttons["flag"].click()
    assert not window.tree._items["hero_image"].text(0).startswith("⚑")


def test_refine_from_the_issues_dock_runs_jobs_and_updates_badges(tmp_path):
    """The whole loop the designer sees, in the real app process (qasync loop, offscreen): a
    hidden chart shows a red badge, "Refine context" in the issues dock runs the job, the badge
    turns green and the jobs table lists the job."""
    from mmstudio.render import find_browser

    if find_browser().executable is None:
        pytest.skip("no Chromium for Playwright")
    script = Path(__file__).with_name("gui_refine_run.py")
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path / "p")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["before"] == 0 and "invisible" in seen["issue"].lower()
    assert seen["after"] == 1.0 and seen["chart_badge"] == "chart 1.00"
    assert "refine-context" in seen["job_kinds"] and "undo" in seen["job_kinds"]
    assert seen["after_undo"] == 0  # undo brings back the version with the hidden chart
    assert seen["exported"] and seen["cancelled"] == "cancelled"


def test_settings_dialog_saves_endpoint_but_never_the_key(qtbot, tmp_path, monkeypatch):
    from mmstudio.gui.dialogs import SettingsDialog
    from mmstudio.providers.settings import load_settings, save_config

    monkeypatch.setenv("MMSTUDIO_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-never-stored")
    dialog = SettingsDialog(load_settings(), {"provider": "openai", "rounds": 1}, None)
    qtbot.addWidget(dialog)
    dialog.base_url.setText("http://127.0.0.1:8000/v1")
    dialog.models["planner"].setText("qwen3")
    dialog.capabilities["videos"].setChecked(False)
    settings, prefs = dialog.values()
    assert prefs == {"provider": "openai", "rounds": 1, "concurrency": 2}
    path = save_config(settings)
    text = path.read_text()
    assert "sk-test" not in text and "api_key" not in text
    again = load_settings()
    assert again.base_url == "http://127.0.0.1:8000/v1" and again.models.planner == "qwen3"
    assert again.capabilities.videos is False


def test_project_actions_are_disabled_with_a_reason_until_a_project_opens(qtbot, project):
    from mmstudio.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    names = {a.text().rstrip("…"): a for a in window.project_actions}
    assert {"Export", "Undo", "History", "Annotate"} <= set(names)
    assert not any(a.isEnabled() for a in names.values())
    assert "Open a project" in names["Export"].toolTip()
    with qtbot.waitSignal(window.view.loadFinished, timeout=30_000):
        window.open_project(project.root)
    assert all(a.isEnabled() for a in names.values())


def test_the_preview_reads_no_file_and_reaches_no_socket(qtbot, tmp_path):
    """The issue-9 exfiltration page (fetch file://, ../../, 127.0.0.1 by fetch, beacon,
    WebSocket, EventSource, worker, iframe, and WebRTC over UDP) reaches nothing from the app."""
    import shutil
    import socket
    import threading
    import time

    from mmstudio.gui.preview import Preview

    tcp = socket.socket()
    tcp.bind(("127.0.0.1", 0))
    tcp.listen(64)
    udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    udp.bind(("127.0.0.1", 0))
    udp.setblocking(False)
    hits: list[str] = []

    def accept() -> None:
        while True:
            try:
                conn, _ = tcp.accept()
            except OSError:
                return
            hits.append("tcp")
            conn.close()

    threading.Thread(target=accept, daemon=True).start()
    site = tmp_path / "site"
    shutil.copytree(Path(__file__).parent / "hardening" / "pages" / "exfiltrate", site)
    page = (site / "index.html").read_text().replace("UDP_PORT", str(udp.getsockname()[1]))
    (site / "index.html").write_text(page.replace("PORT", str(tcp.getsockname()[1])))
    preview = Preview()
    qtbot.addWidget(preview)
    try:
        with qtbot.waitSignal(preview.view.loadFinished, timeout=30_000):
            preview.show_site(site)
        blocked = preview.blocker.blocked
        qtbot.waitUntil(lambda: any("/worker" in u for u in blocked), timeout=10_000)
        qtbot.wait(1500)  # WebRTC gathers its candidates after the load
        time.sleep(0.2)
        datagrams = 0
        while True:
            try:
                udp.recvfrom(4096)
                datagrams += 1
            except BlockingIOError:
                break
        assert hits == [] and datagrams == 0
        assert not preview.view.title().startswith("LEAKED")
        blocked = " ".join(preview.blocker.blocked)
        assert "file:///etc/passwd" in blocked and "ws://127.0.0.1" in blocked
    finally:
        preview.release()
        tcp.close()
        udp.close()
