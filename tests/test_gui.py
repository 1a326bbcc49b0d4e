"""The desktop app, offscreen: preview served from the site folder only, plan tree with badges,
click-to-select both ways."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from PIL import Image

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
pytest.importorskip("PySide6.QtWebEngineWidgets")  # must be imported before the QApplication


from mmstudio.gui.plan_tree import SCORE_ROLE
from mmstudio.gui.site_scheme import register_scheme
from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.report import ElementScore, Issue, Report, Scores
from mmstudio.studio.jobs import Job

_HERE = Path(__file__).parent
register_scheme()  # before pytest-qt creates the QApplication
pytestmark = pytest.mark.usefixtures("own_settings")

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
    assert window.tree._items["hero"].data(1, SCORE_ROLE) == pytest.approx(0.6)  # its weakest
    assert window.badges.pills["overall"].text() == "overall 0.75"
    assert window.badges.pills["chart"].text() == "chart not judged"  # nothing measured it
    assert "not judged" in window.badges.pills["chart"].toolTip()


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


@pytest.mark.app_scenario
def test_refine_from_the_issues_dock_runs_jobs_and_updates_badges(qtbot, qt_loop, tmp_path):
    """The whole loop the designer sees, in-process on a qasync loop (as test_annotate does): a
    hidden chart shows a red badge, "Context" in the issues dock runs the job (listed in the
    jobs dock), the badge turns green and the preview reloads; Undo brings the hidden chart
    back, Export writes the site, Cancel in the jobs dock cancels a job. The scenario lives in
    gui_refine_run.py, which also runs it as a process of its own (as the app runs)."""
    import importlib.util

    from mmstudio.gui.main_window import MainWindow
    from mmstudio.render import find_browser

    if find_browser().executable is None:
        pytest.skip("no Chromium for Playwright")
    spec = importlib.util.spec_from_file_location("gui_refine_run", _HERE / "gui_refine_run.py")
    assert spec and spec.loader
    run = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(run)
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    asyncio.set_event_loop(qt_loop)
    try:
        seen = qt_loop.run_until_complete(run.scenario(window, tmp_path / "p"))
    finally:
        asyncio.set_event_loop(None)
    window.close()
    assert seen["before"] == 0 and "invisible" in seen["issue"].lower()
    assert seen["context_enabled"] and "refine-context" in seen["running_kinds"]
    assert seen["after"] == 1.0 and seen["chart_badge"] == "chart 1.00"
    assert any("Context refine of" in n and "change(s) kept" in n for n in seen["notices"])
    assert seen["preview_reloaded"]
    assert "refine-context" in seen["job_kinds"] and "undo" in seen["job_kinds"]
    assert seen["undo_enabled"] and seen["after_undo"] == 0  # the hidden chart is back
    assert seen["redo_enabled"]
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
    assert "Open a project" in names["Export"].statusTip()
    with qtbot.waitSignal(window.view.loadFinished, timeout=30_000):
        window.open_project(project.root)
    assert names["Export"].isEnabled() and names["History"].isEnabled()
    # one version: nothing to undo or redo, and the reason says so
    assert not names["Undo"].isEnabled() and "Nothing to undo" in names["Undo"].toolTip()
    assert not names["Redo"].isEnabled() and "Nothing to redo" in names["Redo"].statusTip()


def test_every_action_works_or_says_why_not(window, qtbot):
    """No project yet, then a project with nothing selected, then an element selected, then a
    job running: each action is enabled or disabled with a one-line reason."""
    from mmstudio.gui.actions import BUSY, NO_ELEMENT, NO_FLAGGED, NO_JOB

    def why(name: str) -> str | None:
        action = window.commands[name]
        return None if action.isEnabled() else action.statusTip()

    for action in window.commands.values():
        assert action.isEnabled() or action.statusTip(), action.text()
    assert why("refine-local") == NO_ELEMENT and why("flag") == NO_ELEMENT
    assert why("refine-flagged") == NO_FLAGGED and why("cancel-all") == NO_JOB
    assert why("refine-global") is None and why("evaluate") is None
    window.tree.select("hero_image")
    assert why("refine-local") is None and why("flag") is None
    window.commands["flag"].trigger()
    assert window.commands["flag"].text() == "Unflag" and why("refine-flagged") is None
    window.browser_problem = "no Chromium found"
    window.update_actions()
    assert "Needs Chromium" in window.commands["evaluate"].toolTip()
    assert "Needs Chromium" in window.issues.buttons["local"].toolTip()
    window.browser_problem = None
    window.studio._job_event(Job(id="job-1", kind="export", state="running"))
    assert why("cancel-all") is None and why("undo") in (BUSY, "Nothing to undo: first version")
    window.studio._job_event(Job(id="job-1", kind="export", state="done", result=Path("x")))
    assert why("cancel-all") == NO_JOB


def test_a_bad_project_folder_shows_a_non_modal_error_notice(qtbot, tmp_path):
    from PySide6.QtWidgets import QApplication

    from mmstudio.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    assert window.open_project(tmp_path) is False
    assert QApplication.activeModalWidget() is None
    [notice] = window.notifications.notices
    assert notice.severity == "error" and notice.timer is None  # errors stay
    assert "not an MM Studio project" in notice.message.text()
    assert window.notifications.isVisible()
    assert window.open_site(tmp_path / "missing") is False
    assert "does not exist" in window.notifications.notices[-1].message.text()


def test_a_failed_job_and_a_render_failure_show_notices_with_details(window):
    failed = Job(id="job-7", kind="export", state="failed", error="disk full")
    window.job_finished.emit(failed)
    notice = window.notifications.notices[-1]
    assert notice.message.text().endswith("Export failed: disk full")
    assert notice.toggle.isVisibleTo(window) and "job-7" in notice.details.toPlainText()
    assert not notice.details.isVisibleTo(window)
    notice.toggle.click()
    assert notice.details.isVisibleTo(window)
    report = Report(issues=[Issue(id="r", dimension="layout", level="global", code="render-failed",
                                  message="page load timed out")])  # fmt: skip
    assert report.failed
    window.job_finished.emit(Job(id="job-8", kind="evaluate", state="done", result=report))
    assert "could not be rendered" in window.notifications.notices[-1].message.text()
    assert window.badges.pills["overall"].text() == "overall 0.75"  # the last good scores


def test_unexpected_errors_go_to_the_log_and_a_notice(window):
    try:
        raise RuntimeError("boom")
    except RuntimeError as exc:
        notice = window.report_exception(exc)
    assert notice.message.text().endswith("Unexpected error: boom")
    assert "Traceback" in notice.details.toPlainText()
    assert "RuntimeError: boom" in window.jobs_panel.log.toPlainText()


def test_info_notices_hide_themselves_and_the_stack_is_capped(window, qtbot, monkeypatch):
    from mmstudio.gui import notify

    info = window.notify("info", "Saved", "")
    assert info.timer is not None and info.timer.isActive() and not info.toggle.isVisibleTo(window)
    info.timer.timeout.emit()
    assert info not in window.notifications.notices
    for n in range(notify.MAX_SHOWN + 2):
        window.notify("warning", f"warning {n}")
    assert len(window.notifications.notices) == notify.MAX_SHOWN
    window.notifications.clear()
    assert not window.notifications.isVisible()


def test_the_forms_load_from_ui_files(qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QWidget

    from mmstudio.gui.dialogs import NewProjectDialog, SettingsDialog
    from mmstudio.gui.forms import FormError, child, load_form
    from mmstudio.providers.settings import CAPABILITIES, ROLES, load_settings

    monkeypatch.setenv("MMSTUDIO_CONFIG", str(tmp_path / "config.toml"))
    dialog = NewProjectDialog(None)
    qtbot.addWidget(dialog)
    assert dialog.form.objectName() == "NewProjectForm"
    assert not dialog.generate.isEnabled() and "empty" in dialog.generate.toolTip()
    dialog.prompt.setPlainText("A page for a bakery")
    assert dialog.generate.isEnabled()
    dialog.rounds.setValue(1)
    assert dialog.values()[:2] == ("A page for a bakery", "offline")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    dialog.provider.setCurrentText("openai")
    assert not dialog.generate.isEnabled()
    assert "needs a model provider" in dialog.generate.toolTip()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    dialog.provider.setCurrentText("offline")
    dialog.provider.setCurrentText("openai")
    assert dialog.generate.isEnabled()
    settings = SettingsDialog(load_settings(), {"rounds": 2}, None)
    qtbot.addWidget(settings)
    assert settings.form.objectName() == "SettingsForm"
    assert set(settings.models) == set(ROLES) and set(settings.capabilities) == set(CAPABILITIES)
    assert settings.rounds.value() == 2
    with pytest.raises(FormError):
        child(settings.form, QWidget, "no-such-widget")
    with pytest.raises(FormError):
        load_form("missing.ui")


def test_icons_exist_for_every_action(qtbot):
    from mmstudio.gui.actions import SPECS
    from mmstudio.gui.icons import ICON_NAMES, app_icon, icon

    assert all(not icon(name).isNull() for name in ICON_NAMES)
    assert all(not icon(spec.icon).isNull() for spec in SPECS if spec.icon)
    assert not app_icon().isNull()


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


def test_a_project_locked_by_another_process_shows_who_holds_it(qtbot, project):
    import subprocess
    import sys

    from mmstudio.gui.main_window import MainWindow

    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, time; from pathlib import Path; "
            "from mmstudio.project.lock import writer_lock\n"
            "with writer_lock(Path(sys.argv[1]), 'mmstudio refine'):\n"
            "    print('held', flush=True); time.sleep(60)"
        ), str(project.root)],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        window = MainWindow()
        qtbot.addWidget(window)
        assert window.open_project(project.root) is False
        text = window.notifications.notices[-1].message.text()
        assert "being changed by another MM Studio process" in text and "mmstudio refine" in text
        assert not window.commands["export"].isEnabled()
    finally:
        holder.kill()
        holder.wait()


def test_a_running_job_spins_its_element_badge(window):
    from mmstudio.gui.plan_tree import RUNNING_ROLE
    from mmstudio.studio.jobs import Job

    item = window.tree._items["hero_image"]
    window.studio._job_event(
        Job(id="job-1", kind="refine-local", state="running", element="hero_image")
    )
    assert item.data(1, RUNNING_ROLE) and window.tree._spinner.isActive()
    assert not window.tree._items["hero"].data(1, RUNNING_ROLE)
    window.studio._job_event(
        Job(id="job-1", kind="refine-local", state="cancelled", element="hero_image")
    )
    assert not item.data(1, RUNNING_ROLE) and not window.tree._spinner.isActive()


# -- issue 19: the app tells the truth -------------------------------------------------------
def test_refine_with_no_issue_says_so_and_starts_nothing(window, caplog):
    """Finding 2: Refine Local / Context / Global and Refine Flagged on an element with no issue
    at that level give a notice and a log line with the way forward, never silence."""
    window.tree.select("hero_image")
    with caplog.at_level("INFO", logger="mmstudio.gui.commands"):
        for level in ("local", "context", "global"):
            assert window.refine(level) is None
            text = window.notifications.notices[-1].message.text()
            who = "the page" if level == "global" else "hero_image"
            assert f"No issues at the {level} level for {who}" in text and "instruction" in text
    assert sum("No issues at the" in r.getMessage() for r in caplog.records) == 3
    assert not window.session._tasks and not window.session.jobs.jobs
    tip = window.commands["refine-local"].toolTip()
    assert "No issues at the local level for hero_image" in tip
    window.commands["flag"].trigger()
    assert window.refine_flagged() is None
    assert "No local or context issues for hero_image" in (
        window.notifications.notices[-1].message.text()
    )


def test_refine_tooltip_says_what_it_will_fix(window, project):
    report = project.read_report()
    issue = Issue(id="i1", element="hero_image", dimension="image", level="context",
                  code="cover-crop", message="Cover crop")  # fmt: skip
    report.issues.append(issue)
    project.write_report(report)
    window.refresh()
    window.tree.select("hero_image")
    tip = window.commands["refine-context"].toolTip()
    assert "fix 1 context issue(s) of hero_image" in tip and "CSS" in tip
    assert "MM-WebAgent" not in window.commands["refine-local"].toolTip()


def test_the_instruction_box_runs_a_turn_on_the_element(window, qtbot, monkeypatch):
    """Finding 2's way forward: words in the Issues dock become a feedback job on the selected
    element, marked by its box in the preview (never widened to the page)."""
    from mmstudio.studio.feedback import FeedbackService

    sent = []
    monkeypatch.setattr(FeedbackService, "submit", lambda self, text, ann=None, png=None:
                        sent.append((text, ann)) or Job(id="job-9", kind="feedback"))  # fmt: skip
    window.tree.select("hero_image")
    assert not window.issues.change.isEnabled()
    window.issues.instruction.setText("make it darker")
    assert window.issues.change.isEnabled()
    window.issues.change.click()
    qtbot.waitUntil(lambda: bool(sent), timeout=10_000)
    text, annotation = sent[0]
    assert text == "make it darker" and window.instructed == {"job-9": "hero_image"}
    [shape] = annotation.shapes
    assert shape.kind == "rect" and shape.w > 8 and shape.h > 8  # the image's box, padded
    assert window.issues.instruction.text() == ""


def test_clicking_the_page_row_shows_the_page_issues(window, project):
    """Finding 4: after an element was selected, the Page row (or a palette row) shows the
    page's own issues again."""
    report = project.read_report()
    report.issues.append(Issue(id="p1", dimension="layout", level="global", code="overflow",
                               message="The page scrolls sideways"))  # fmt: skip
    project.write_report(report)
    window.refresh()
    window.tree.select("hero_image")
    assert window.issues.heading.text().startswith("hero_image")
    page = window.tree.topLevelItem(0)
    window.tree.setCurrentItem(page.child(0))  # the palette swatch
    assert window.selected is None and window.issues.heading.text().startswith("the page")
    assert "sideways" in window.issues.list.item(0).text()
    window.tree.select("hero_image")
    window.tree.setCurrentItem(page)
    assert window.selected is None and window.issues.heading.text().startswith("the page")
    detail = window.tree._items["hero_image"].child(0)  # "role: hero"
    window.tree.setCurrentItem(detail)
    assert window.selected == "hero_image"


def test_open_site_folder_after_a_project_shows_its_results(window, project, tmp_path):
    """Finding 6: the tree's deleted rows are never touched again (RuntimeError: QTreeWidgetItem
    already deleted) and the site's evaluation reaches the panels."""
    site = tmp_path / "other-site"
    site.mkdir()
    (site / "index.html").write_text("<html><body><h1>Other</h1></body></html>")
    window.tree.clear()
    assert window.tree._items == {}
    window.studio._job_event(
        Job(id="job-3", kind="refine-local", state="running", element="hero_image")
    )
    window.studio._job_event(
        Job(id="job-3", kind="refine-local", state="cancelled", element="hero_image")
    )
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(window.session.jobs, "submit", lambda *a, **k: Job(id="j", kind="evaluate"))
        assert window.open_site(site)
    report = Report(scores=Scores(image=0.4, layout=1.0).with_overall(),
                    elements=[ElementScore(id="pic", kind="image", score=0.4)])  # fmt: skip
    window.studio._job_event(Job(id="job-4", kind="evaluate", state="running", element=None))
    window.studio._job_event(Job(id="job-4", kind="evaluate", state="done", result=report))
    assert window.tree._items["pic"].data(1, SCORE_ROLE) == pytest.approx(0.4)
    assert window.badges.pills["overall"].text() == "overall 0.70"


def test_turns_show_the_status_at_the_current_version():
    """Finding 5: a verdict recorded at another version is not shown as today's pass."""
    from mmstudio.studio.head_check import statuses_at_head as at_head

    view = {"turns": [
        {"turn": 1, "text": "darker hero", "version": "v2", "requirements": [
            {"id": "t1.r1", "text": "darker hero", "status": "pass", "detail": "L 40"}]},
        {"turn": 2, "text": "bigger title", "version": "v3", "requirements": [
            {"id": "t2.r1", "text": "bigger title", "status": "pass", "detail": ""}]},
    ]}  # fmt: skip
    parents = {"v1": None, "v2": "v1", "v3": "v2", "v4": "v2"}
    finals = [
        {"requirement": req, "turn": turn, "version": version, "passed": True, "detail": ""}
        for req, turn, version in (("t1.r1", 1, "v2"), ("t1.r1", 2, "v3"), ("t2.r1", 2, "v3"))
    ]
    at_v3 = at_head(view, "v3", parents, finals)
    assert [r["status"] for t in at_v3["turns"] for r in t["requirements"]] == ["pass", "pass"]
    at_v2 = at_head(view, "v2", parents, finals)  # turn 2 undone
    assert [r["status"] for t in at_v2["turns"] for r in t["requirements"]] == ["pass", "undone"]
    at_v4 = at_head(view, "v4", parents, finals)  # a refine after turn 1, never checked
    assert [r["status"] for t in at_v4["turns"] for r in t["requirements"]] == ["stale", "undone"]
    assert "not checked at this version (v4)" in at_v4["turns"][0]["requirements"][0]["detail"]


def test_turns_panel_marks_statuses_after_undo(window, qtbot):
    from mmstudio.feedback import Ledger
    from mmstudio.feedback.ledger import TurnRecord, Verdict
    from mmstudio.feedback.requirements import Requirement

    project = window.session.project
    first = project.manifest.head
    (project.site_dir / "index.html").write_text(PAGE.replace("Hello", "Hello there"))
    project.commit("turn 1")
    second = project.manifest.head
    ledger = Ledger(project.root / "history.sqlite")
    record = TurnRecord(1, "say hello there", "", None, None, first, second, "offline", "")
    ledger.add_turn(record, [Requirement(id="t1.r1", turn=1, text="say hello there", op="text")])
    ledger.add_verdicts([Verdict("t1.r1", True, "found")], 1, second, "final")
    window.refresh()
    assert window.turns_panel.requirement_lines() == ["pass  t1.r1: say hello there"]
    project.undo()
    window.refresh()
    assert window.turns_panel.requirement_lines() == ["undone  t1.r1: say hello there"]


def test_jobs_table_ticks_never_goes_back_and_ends_with_the_outcome(window, qtbot):
    """Finding 7: elapsed time while running (it ticks with no job event: the "0.0 s" of a job
    that reports no progress), progress monotonic, no stale "rendering"."""
    import time as clock

    table = window.jobs_panel.table
    job = Job(id="job-5", kind="generate", state="running", started_at=clock.time() - 3,
              progress=0.75, message="assets: hero", stage="assets")  # fmt: skip
    table.update_job(job)
    row = table._rows["job-5"]

    def elapsed() -> float:
        return float(table.item(row, 5).text().split()[0])

    first = elapsed()
    assert first >= 3.0 and table._ticker.isActive()
    qtbot.waitUntil(lambda: elapsed() >= first + 0.4, timeout=10_000)  # no event: the ticker
    table.update_job(Job(**{**job.__dict__, "progress": 0.0, "message": "evaluate: rendering"}))
    assert table.cellWidget(row, 6).value() == 75
    report = Report(scores=Scores(layout=0.9).with_overall())
    table.update_job(Job(**{**job.__dict__, "state": "done", "progress": 1.0,
                            "message": "rendering", "result": report}))  # fmt: skip
    assert table.item(row, 8).text() == "done: overall 0.90" and not table._started
    assert table.cellWidget(row, 6).value() == 100
    table.clear_finished()
    assert table.rowCount() == 0


def test_flags_and_device_come_back_with_the_project(qtbot, project, tmp_path):
    """Finding 7: flags, the device width and the docks are kept per project."""
    from mmstudio.gui.main_window import MainWindow

    first = MainWindow()
    qtbot.addWidget(first)
    first.open_project(project.root)
    first.tree.select("hero_image")
    first.commands["flag"].trigger()
    first.device_actions[390].trigger()
    first.save_project_state()  # what closing the window does
    first.session.close()  # lets go of the project's lock
    again = MainWindow()
    qtbot.addWidget(again)
    again.open_project(project.root)
    assert again.session.flagged == {"hero_image"} and again.device_width == 390
    assert again.tree._items["hero_image"].text(0).startswith("⚑ ")
    assert again.device_actions[390].isChecked()


def test_a_failed_open_keeps_the_project_in_recent_unless_it_is_gone(qtbot, project, tmp_path):
    from mmstudio.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.open_project(project.root)
    window._remember(tmp_path / "gone")
    (project.root / "plan.json").write_text("{broken")  # opening fails, the folder is there
    assert window.open_project(project.root) is False
    assert str(project.root) in window.recent_projects()
    assert window.open_project(tmp_path / "gone") is False
    assert str(tmp_path / "gone") not in window.recent_projects()


def test_new_from_prompt_proposes_a_fresh_folder_each_time(window, tmp_path, monkeypatch):
    from mmstudio.gui.dialogs import free_folder

    monkeypatch.setattr(Path, "home", lambda: tmp_path)
    first = window.new_from_prompt("A bakery")
    first.reject()
    second = window.new_from_prompt("A bakery")
    second.reject()
    assert first.folder.text() != second.folder.text()
    parent = tmp_path / "projects"
    parent.mkdir()
    (parent / ".new-page.building-1-x").mkdir()  # a generation still building new-page
    assert free_folder(parent).name == "new-page-2"


def test_export_asks_for_a_folder(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    asked, exported = [], []
    monkeypatch.setattr(QFileDialog, "getExistingDirectory",
                        staticmethod(lambda *a, **k: asked.append(a) or str(tmp_path)))  # fmt: skip
    monkeypatch.setattr(QFileDialog, "getSaveFileName", staticmethod(lambda *a, **k: 1 / 0))
    monkeypatch.setattr(window.session, "export", lambda dest, **k: exported.append(dest))
    window.commands["export"].trigger()
    assert asked and exported == [tmp_path / "p-site"]  # tmp_path holds the project: a subfolder
    empty = tmp_path / "empty"
    empty.mkdir()
    window.export(empty)
    assert exported[-1] == empty


def test_badges_reflect_failed_requirements(window, project):
    """Finding 3: an element (or a section) whose requirement of the brief failed never reads
    1.00, and the issue shows on its row (a section's finding is kept on the page with its
    target)."""
    from mmstudio.gui.plan_tree import ISSUES_ROLE
    from mmstudio.report import RequirementResult

    report = Report(
        scores=Scores(image=1.0, layout=0.9).with_overall(),
        elements=[ElementScore(id="hero_image", kind="image", score=1.0)],
        requirements=[
            RequirementResult(id="p.r1", kind="image", key="k", text="a photo of beans",
                              status="fail", element="hero_image", message="abstract art"),
            RequirementResult(id="p.r2", kind="copy", key="k2", text="“Hello”",
                              status="pass", element="hero_image"),
            RequirementResult(id="p.r3", kind="copy", key="k3", text="“Welcome”",
                              status="fail", element="hero", message="not visible"),
        ],
        issues=[Issue(id="q3", dimension="layout", level="global", code="req-copy",
                      source="requirement", message="“Welcome”: not visible",
                      evidence={"target": "hero"})],
    )  # fmt: skip
    project.write_report(report)
    window.refresh()
    image = window.tree._items["hero_image"]
    assert image.data(1, SCORE_ROLE) == pytest.approx(0.8)  # one failed requirement uncounted
    assert "a photo of beans" in image.toolTip(1) and "1 of 2" in image.toolTip(1)
    hero = window.tree._items["hero"]
    assert hero.data(1, SCORE_ROLE) < 1.0 and hero.data(1, ISSUES_ROLE) == 1
    window.tree.select("hero")
    assert "not visible" in window.issues.list.item(0).text()


def test_annotate_offers_only_operations_valid_for_the_mark(qtbot, tmp_path):
    """Finding 7: no "change chart type" on an image mark; text replacement only on text."""
    from PySide6.QtGui import QImage

    from mmstudio.feedback import Annotation
    from mmstudio.feedback.annotation import Shape
    from mmstudio.feedback.elements import Box, PageElement
    from mmstudio.gui.annotate import AnnotateDialog, operations_for

    elements = [
        PageElement("hero", "section", Box(x=0, y=0, w=800, h=400)),
        PageElement("hero_image", "image", Box(x=400, y=50, w=300, h=200), section="hero"),
        PageElement("sales", "chart", Box(x=50, y=50, w=300, h=200), section="hero"),
    ]
    image = QImage(800, 400, QImage.Format.Format_RGB32)
    dialog = AnnotateDialog(image, elements, Annotation(device_width=800), tmp_path)
    qtbot.addWidget(dialog)
    dialog.canvas.add_shape(Shape(id="s1", kind="rect", x=395, y=45, w=310, h=210))
    dialog.canvas.add_shape(Shape(id="s2", kind="rect", x=45, y=45, w=310, h=210))

    def labels(shape_id):
        return [a.text() for a in dialog.operation_menu(shape_id).actions()]

    assert "Change chart type" not in labels("s1") and "hide" in labels("s1")
    assert "replace text with the note" not in labels("s1")
    assert "Change chart type" in labels("s2")
    assert operations_for(set(), True) == ([], False, True)


def test_a_requirement_the_score_counted_is_not_counted_twice():
    from mmstudio.gui.plan_tree import row_badge
    from mmstudio.report import RequirementResult

    counted = Issue(
        id="q1",
        element="chart",
        dimension="chart",
        level="local",
        code="req-chart",
        source="requirement",
        message="a bar chart",
        evidence={"requirement": "p.r1"},
    )
    report = Report(
        scores=Scores(chart=0.8).with_overall(),
        elements=[ElementScore(id="chart", kind="chart", score=0.8, issues=["q1"])],
        requirements=[
            RequirementResult(
                id="p.r1", kind="chart", key="k", text="a bar chart", status="fail", element="chart"
            )
        ],
        issues=[counted],
    )
    score, issues, tip = row_badge(report, "chart", 0.8)
    assert score == pytest.approx(0.8) and issues == 1 and "0 of 1" in tip
    assert row_badge(report, "nothing", None)[0] is None  # nothing judged it: no 1.00


def _chart_plan() -> DesignPlan:
    return DesignPlan.model_validate(
        {
            "title": "Sales",
            "layout": {
                "palette": [{"role": "primary", "hex": "#2F6FED"}],
                "typography": {"heading": "serif", "body": "sans-serif"},
            },
            "sections": [
                {
                    "id": "numbers",
                    "kind": "charts",
                    "title": "Numbers",
                    "element_ids": ["sales", "pic"],
                },
            ],
            "images": [
                {
                    "id": "pic",
                    "save_path": "assets/pic.webp",
                    "prompt": "a cup",
                    "context": {"section": "numbers", "role": "photo"},
                    "display_width_px": 200,
                    "display_height_px": 100,
                },
            ],
            "charts": [
                {
                    "id": "sales",
                    "save_path": "assets/sales.html",
                    "prompt": "sales",
                    "title": "Q",
                    "context": {"section": "numbers", "role": "data"},
                    "display_width_px": 400,
                    "display_height_px": 300,
                    "source_data": {"columns": ["m", "v"], "rows": [["a", 1]]},
                },
            ],
        }
    )


def test_the_plan_tree_offers_the_edits_each_row_takes(qtbot, monkeypatch):
    """The plan is the designer's to edit: a context menu per kind (an image's subject, a
    chart's title and type, a section's title, a palette colour), double-click edits, and a
    cancelled or unchanged answer requests nothing."""
    from mmstudio.gui.plan_tree import PlanTree

    tree = PlanTree()
    qtbot.addWidget(tree)
    tree.show_plan(_chart_plan(), None)
    asked = []
    tree.edit_requested.connect(lambda *args: asked.append(args))
    items = tree._items
    labels = lambda item: [label for label, _ in tree.edit_actions(item)]  # noqa: E731
    assert labels(items["pic"]) == ["Edit subject…"]
    assert labels(items["sales"]) == ["Edit title…", "Chart type"]
    assert labels(items["numbers"]) == ["Edit title…"]  # the only section: nowhere to move
    swatch = tree.topLevelItem(0).child(0)
    assert labels(swatch) == ["Change the primary colour…"]
    assert tree.edit_actions(items["pic"].child(0)) == []  # "role: photo" edits nothing
    menu = tree.context_menu(tree.edit_actions(items["sales"]))
    [_, types] = [a for a in menu.actions()]
    chart_types = {a.text(): a for a in types.menu().actions()}
    assert "✓ bar" in chart_types and "line" in chart_types
    chart_types["line"].trigger()
    assert asked.pop() == ("element", "sales", {"chart_type": "line"})
    chart_types["✓ bar"].trigger()  # the current type: nothing to do
    assert asked == []

    answers = iter(["a red bicycle", None, "Revenue", "  Numbers  "])
    monkeypatch.setattr(tree, "ask_text", lambda *a: next(answers))
    prompt_row = next(items["pic"].child(i) for i in range(items["pic"].childCount())
                      if items["pic"].child(i).text(0).startswith("prompt:"))  # fmt: skip
    tree.itemDoubleClicked.emit(prompt_row, 0)
    assert asked.pop() == ("element", "pic", {"prompt": "a red bicycle", "alt": "a red bicycle"})
    assert not tree.edit_item(items["pic"])  # cancelled
    assert tree.edit_item(items["sales"].child(0))  # "title: Q"
    assert asked.pop() == ("element", "sales", {"title": "Revenue"})
    assert not tree.edit_item(items["numbers"])  # unchanged once trimmed
    monkeypatch.setattr(tree, "ask_colour", lambda hex_colour, role: "#7a3e1d")
    tree.itemDoubleClicked.emit(swatch, 0)
    assert asked == [("palette", "primary", {"primary": "#7a3e1d"})]


def test_editing_an_image_subject_in_the_tree_regenerates_it_and_the_preview_shows_it(
    window, qtbot, monkeypatch
):
    """Done-when of the plan edit: the subject edited in the tree is a job in the Jobs dock,
    that image alone is made again (the page changes only its alt text), the tree and a notice
    say what was done, and the preview shows the new picture (the fixture's was broken)."""
    import mmstudio.refine.apply as apply

    async def fast(page, plan, out_dir):
        return Report(scores=Scores(image=0.9, layout=0.9).with_overall())

    monkeypatch.setattr(apply, "render_and_score", fast)
    project = window.session.project
    small = project.site_dir / "assets" / "small.png"  # a real 37 px picture first, shown
    Image.new("RGB", (37, 20), "#336699").save(small)
    small.replace(project.site_dir / "assets" / "hero.png")  # a new file: never into a blob
    project.commit("a real picture")
    window.preview.reload()
    qtbot.waitUntil(lambda: shown_width(window) == 37, timeout=15_000)
    before = {p.name: p.read_bytes() for p in project.site_dir.rglob("*") if p.is_file()}
    monkeypatch.setattr(window.tree, "ask_text", lambda *a: "a lighthouse at dusk")
    item = window.tree._items["hero_image"]

    async def drive():
        assert window.tree.edit_item(item)
        [job] = [j for j in window.session.jobs.jobs.values() if j.kind == "edit-image"]
        assert job.element == "hero_image"
        done = await window.session.jobs.wait(job.id)
        assert done.state == "done", done.error
        if window.studio._reading is not None:  # the refresh the job's end started
            await window.studio._reading
        return done

    done = asyncio.run(drive())
    after = {p.name: p.read_bytes() for p in project.site_dir.rglob("*") if p.is_file()}
    assert after["hero.png"] != before["hero.png"]
    assert after["index.html"] == before["index.html"].replace(
        b'alt="hero"', b'alt="a lighthouse at dusk"'
    )
    assert project.read_plan().element("hero_image").prompt == "a lighthouse at dusk"
    row = window.jobs_panel.table._rows[done.id]
    assert window.jobs_panel.table.item(row, 1).text() == "edit-image"
    assert any("prompt: a lighthouse at dusk" in window.tree._items["hero_image"].child(i).text(0)
               for i in range(window.tree._items["hero_image"].childCount()))  # fmt: skip
    assert any("Edited subject" in n.message.text() for n in window.notifications.notices)
    # the preview shows the new picture (same URL: a reload that kept the cached one fails)
    qtbot.waitUntil(lambda: shown_width(window) == 1536, timeout=15_000)


def shown_width(window) -> int | None:
    """The natural width of the hero image as the preview shows it now (the last answer)."""
    widths = window.__dict__.setdefault("_shown_widths", [])
    window.page.runJavaScript(
        "document.querySelector('[data-mm-id=hero_image]').naturalWidth", 0, widths.append
    )
    return widths[-1] if widths else None


def test_a_section_moves_up_or_down_from_its_menu(qtbot):
    from mmstudio.gui.plan_tree import PlanTree

    data = _chart_plan().model_dump(mode="json")
    data["sections"].insert(0, {"id": "intro", "kind": "hero", "title": "Hi"})
    tree = PlanTree()
    qtbot.addWidget(tree)
    tree.show_plan(DesignPlan.model_validate(data), None)
    asked = []
    tree.edit_requested.connect(lambda *args: asked.append(args))
    first = dict(tree.edit_actions(tree._items["intro"]))
    second = dict(tree.edit_actions(tree._items["numbers"]))
    assert list(first) == ["Edit title…", "Move down"]
    assert list(second) == ["Edit title…", "Move up"]
    second["Move up"]()
    assert asked == [("order", "numbers", {"order": ["numbers", "intro"]})]


# -- issue 19: one evented state, statuses and evidence at the head ---------------------------
def test_every_panel_shows_the_head_the_state_read(window, project):
    """One read per refresh: after the head moves, the status line, the badges, the plan tree,
    the plot's versions and the Turns dock all describe the new version."""
    project.write_report(
        Report(scores=Scores(image=0.3, layout=0.9).with_overall(),
               elements=[ElementScore(id="hero_image", kind="image", score=0.3)])
    )  # fmt: skip
    version = project.commit("a worse picture")
    seen: list = []
    window.studio.subscribe(lambda state, change: seen.append(change.topics))
    window.refresh()
    assert len(seen) == 1 and {"head", "report", "versions"} <= seen[0]
    assert window.status.text().endswith(f"version {version.id}")
    assert window.snapshot.head == version.id and window.report.scores.image == 0.3
    assert window.badges.pills["image"].text() == "image 0.30"
    assert window.tree._items["hero_image"].data(1, SCORE_ROLE) == pytest.approx(0.3)
    assert window.issues.plot._count == 2
    window.refresh()  # nothing changed: nothing is redrawn
    assert seen[-1] == frozenset()


def test_a_failing_requirement_shows_its_brief_words_and_evidence_crop(window, project):
    """Finding 7 and the prompt-grounded evaluation: the issue of a failed requirement quotes
    the brief and shows the crop the head check cut around its element (never the full-page
    screenshot decoded on the GUI thread)."""
    import json

    from mmstudio.report import RequirementResult, Span
    from mmstudio.studio.head_check import HeadCheck, check_dir

    words = "a hero photo of roasted beans"
    report = Report(
        scores=Scores(image=0.6, layout=0.9).with_overall(),
        elements=[ElementScore(id="hero_image", kind="image", score=0.6, issues=["q1"])],
        requirements=[RequirementResult(id="p.r1", kind="image", key="k", text=words,
                                        span=Span(excerpt=words), status="fail",
                                        element="hero_image")],
        issues=[Issue(id="q1", element="hero_image", dimension="image", level="local",
                      source="requirement", message="the picture shows no beans",
                      evidence={"requirement": "p.r1", "span": words})],
        requirement_share=0.0,
    )  # fmt: skip
    project.write_report(report)
    head = project.commit("the brief checked").id
    folder = check_dir(project, head)
    folder.mkdir(parents=True)
    crop = folder / "crop-hero_image.png"
    Image.new("RGB", (120, 60), "#884422").save(crop)
    check = HeadCheck(head, crops={"hero_image": str(crop)}, boxes={"hero_image": [0, 0, 200, 100]})
    (folder / "check.json").write_text(json.dumps(check.to_json()))
    window.refresh()
    window.tree.select("hero_image")
    from PySide6.QtCore import Qt

    item = window.issues.list.item(0)
    assert f"The brief: “{words}”" in item.text()
    assert item.data(Qt.ItemDataRole.UserRole + 1) == str(crop) and not item.icon().isNull()
    assert window.badges.pills["brief"].text() == "brief 0.00"


def test_the_turns_dock_rechecks_when_the_head_moves(window, qtbot):
    """Finding 5: after a change that is not a turn (a refine, a plan edit) the turn's
    requirement reads "not checked at this version" (and a check job starts when the loop
    runs); once the head check has read the version, its verdict shows, marked re-checked."""
    import json

    from mmstudio.feedback import Ledger
    from mmstudio.feedback.ledger import TurnRecord, Verdict
    from mmstudio.feedback.requirements import Requirement
    from mmstudio.studio.head_check import HeadCheck, check_dir

    project = window.session.project
    first = project.manifest.head
    (project.site_dir / "index.html").write_text(PAGE.replace("Hello", "Hello there"))
    turn = project.commit("turn 1").id
    ledger = Ledger(project.root / "history.sqlite")
    record = TurnRecord(1, "say hello there", "", None, None, first, turn, "offline", "")
    ledger.add_turn(record, [Requirement(id="t1.r1", turn=1, text="say hello there", op="text")])
    ledger.add_verdicts([Verdict("t1.r1", True, "found")], 1, turn, "final")
    (project.site_dir / "index.html").write_text(PAGE.replace("Hello", "Hi"))
    refined = project.commit("a refine").id
    window.refresh()
    assert window.turns_panel.requirement_lines() == [
        "not checked at this version  t1.r1: say hello there"
    ]
    assert "1 not checked at this version" in window.turns_panel.summary.text()
    assert window.studio.view.wants_check
    folder = check_dir(project, refined)
    folder.mkdir(parents=True)
    check = HeadCheck(refined, verdicts={"t1.r1": {"passed": False, "detail": "no 'hello there'"}})
    (folder / "check.json").write_text(json.dumps(check.to_json()))
    window.refresh()
    assert window.turns_panel.requirement_lines() == ["FAIL (re-checked)  t1.r1: say hello there"]
    row = window.turns_panel.tree.topLevelItem(0).child(0)
    assert row.toolTip(1).startswith("re-checked at this version")


def test_none_survives_qt_calls_that_return_none():
    """PySide6 6.12 on Python 3.11 drops a reference to None per Qt call returning None (the
    plan tree's delegate reads unset roles on every paint): without the guard in
    mmstudio.gui, 20 000 such calls abort the interpreter ("none_dealloc")."""
    import subprocess
    import sys

    code = (
        "import os, sys\n"
        "os.environ['QT_QPA_PLATFORM'] = 'offscreen'\n"
        "import mmstudio.gui\n"
        "from PySide6.QtWidgets import QApplication, QTreeWidget, QTreeWidgetItem\n"
        "app = QApplication([])\n"
        "tree = QTreeWidget()\n"
        "item = QTreeWidgetItem(tree, ['row'])\n"
        "for _ in range(20000):\n"
        "    item.data(1, 256)\n"
        "    tree.itemAt(5000, 5000)\n"
        "print('alive')\n"
    )
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0 and "alive" in done.stdout, done.stderr[-800:]


# -- issue 19, finding 7: what was still covered only by the walkthrough ----------------------
def test_a_feedback_turn_shows_in_the_plan_tree_when_its_job_ends(window):
    """Finding 7: the plan tree went stale after a feedback turn. Once a turn's job that changed
    the chart's type and title ends, the tree shows them (the section title too) with no manual
    refresh: the state reads the head on the job's end and the tree redraws from it."""
    project = window.session.project
    data = _chart_plan().model_dump(mode="json")
    project.write_plan(DesignPlan.model_validate(data))
    project.commit("a chart")
    window.refresh()
    assert window.tree._items["sales"].text(0) == "chart (bar) · sales"
    data["charts"][0]["title"] = "Revenue"
    data["charts"][0]["attributes"]["chart_type"] = "line"
    data["sections"][0]["title"] = "Figures"

    async def turn():
        async def run(ctx):  # what a committed turn does to the project
            project.write_plan(DesignPlan.model_validate(data))
            return project.commit("turn 1: a line chart titled Revenue").id

        job = window.session.jobs.submit("feedback", run)
        done = await window.session.jobs.wait(job.id)
        assert done.state == "done", done.error
        assert window.studio._reading is not None  # the job's end started the read
        await window.studio._reading
        return done.result

    version = asyncio.run(turn())
    assert window.snapshot.head == version
    chart = window.tree._items["sales"]
    assert chart.text(0) == "chart (line) · sales"
    assert chart.child(0).text(0) == "title: Revenue"
    assert window.tree._items["numbers"].text(0) == "charts · Figures"


def test_the_docks_sizes_come_back_with_the_project(qtbot, project):
    """Finding 7: the docks' sizes were lost on reopen; they are kept per project (the window's
    dock layout, saved when the project is left). The Jobs dock's height here: offscreen, the
    side docks sit at their minimum widths beside the 1280 px preview."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QDockWidget

    from mmstudio.gui.main_window import MainWindow

    def jobs_dock(window) -> QDockWidget:
        return window.findChild(QDockWidget, "jobs-dock")

    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.open_project(project.root)
    first.resizeDocks([jobs_dock(first)], [260], Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: abs(jobs_dock(first).height() - 260) <= 8, timeout=5_000)
    first.close()  # saves the project's state, lets go of its lock
    again = MainWindow()
    qtbot.addWidget(again)
    again.show()
    again.restoreState(first.saveState())  # the window's own layout: the project's must win
    again.resizeDocks([jobs_dock(again)], [150], Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: abs(jobs_dock(again).height() - 150) <= 8, timeout=5_000)
    again.open_project(project.root)
    qtbot.waitUntil(lambda: abs(jobs_dock(again).height() - 260) <= 8, timeout=5_000)


def test_a_project_locked_by_another_process_stays_in_recent_projects(qtbot, project):
    """Finding 7: a failed open because another process holds the lock kept the notice but
    dropped the project from Recent Projects; it stays (its folder is there)."""
    import subprocess
    import sys

    from mmstudio.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    assert window.open_project(project.root)
    window.session.close()
    holder = subprocess.Popen(
        [sys.executable, "-c", (
            "import sys, time; from pathlib import Path; "
            "from mmstudio.project.lock import writer_lock\n"
            "with writer_lock(Path(sys.argv[1]), 'mmstudio refine'):\n"
            "    print('held', flush=True); time.sleep(60)"
        ), str(project.root)],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert window.open_project(project.root) is False
        assert "another MM Studio process" in window.notifications.notices[-1].message.text()
        assert window.recent_projects()[0] == str(project.root)
        assert window.recent_menu.actions()[0].text() == str(project.root)
    finally:
        holder.kill()
        holder.wait()


def test_the_annotate_editor_shows_the_new_page_after_send(window, qtbot, monkeypatch):
    """Finding 7: after Send, the editor stayed on the screenshot taken before the turn. Once
    the turn's job is done, the page is captured again and the editor starts over on it (no old
    marks); a turn that failed keeps the editor as it was."""
    from types import SimpleNamespace

    from PySide6.QtGui import QImage

    import mmstudio.feedback.turn as turn_module
    from mmstudio.feedback import Annotation
    from mmstudio.feedback.annotation import Shape
    from mmstudio.gui import annotate

    project = window.session.project
    renders = project.root / "fake-renders"
    renders.mkdir()

    async def render(site, width, out_dir):  # the page as the turn left it: 640 × 900
        shot = renders / "after.png"
        Image.new("RGB", (640, 900), "#aa3311").save(shot)
        return SimpleNamespace(screenshot=str(shot), probe=None)

    monkeypatch.setattr(turn_module, "default_render", render)
    outcome = {"fail": True}

    class Service:
        def submit(self, text, annotation, png):
            async def run(ctx):
                if outcome["fail"]:
                    raise RuntimeError("the critic could not render the page")
                return SimpleNamespace(requirements=[], verdicts=[], failing=[],
                                       not_understood=[], forgetting=[], version="v2")  # fmt: skip

            return window.session.jobs.submit("feedback", run)

    monkeypatch.setattr(window.session, "feedback", lambda: Service())
    old = QImage(300, 200, QImage.Format.Format_RGB32)
    window.annotator = dialog = annotate.AnnotateDialog(
        old, [], Annotation(device_width=300), project.root / "annotations", window
    )
    qtbot.addWidget(dialog)
    dialog.canvas.add_shape(Shape(id="s1", kind="rect", x=10, y=10, w=50, h=50))

    async def send_and_wait() -> None:
        job = annotate._send(window, "make it darker", dialog.canvas.annotation, None)
        await window.session.jobs.wait(job.id)
        for _ in range(200):
            captures = [j for j in window.session.jobs.jobs.values()
                        if j.kind == "annotate-capture"]  # fmt: skip
            if all(j.state not in ("queued", "running") for j in captures):
                await asyncio.sleep(0.01)
                break
            await asyncio.sleep(0.02)
        if window.studio._reading is not None:
            await window.studio._reading

    asyncio.run(send_and_wait())
    assert dialog.canvas.background.size().toTuple() == (300, 200)  # failed: nothing to show
    assert len(dialog.canvas.annotation.shapes) == 1 and dialog.send_button.isEnabled()
    outcome["fail"] = False
    asyncio.run(send_and_wait())
    assert dialog.canvas.background.size().toTuple() == (640, 900)
    assert dialog.canvas.annotation.shapes == [] and dialog.canvas.annotation.device_width == 300
    assert dialog.recaptured and "the page as it now is" in dialog.state.text()


# -- budget 5: the score plot takes no GIL from the GUI loop -----------------------------------
def _plot_versions(count: int):
    from types import SimpleNamespace

    return [SimpleNamespace(scores={"overall": 0.5 + i / 20, "layout": 0.8}) for i in range(count)]


def test_the_score_plot_is_drawn_in_a_process_of_its_own(qtbot):
    """Drawing the plot holds the GIL for 70–80 ms; in a thread of the app the GUI loop waited
    for it. It is drawn in the app's plot process and shown when its PNG comes back."""
    from mmstudio.gui.score_plot import ScorePlot
    from mmstudio.gui.score_render import PLOTS

    plot = ScorePlot()
    qtbot.addWidget(plot)
    plot.resize(330, 210)
    plot.show_versions(_plot_versions(4))
    qtbot.waitUntil(lambda: plot.pixmap().width() == 330, timeout=60_000)
    assert plot.pixmap().height() == 210
    assert PLOTS.get().submit(os.getpid).result(timeout=60) != os.getpid()


def test_without_its_process_the_score_plot_is_drawn_in_a_thread(qtbot, monkeypatch, caplog):
    from mmstudio.gui import score_plot, score_render

    def no_process():
        raise RuntimeError("cannot start a process here")

    monkeypatch.setattr(score_render.PLOTS, "get", no_process)
    plot = score_plot.ScorePlot()
    qtbot.addWidget(plot)
    plot.resize(310, 190)
    plot.show_versions(_plot_versions(3))
    qtbot.waitUntil(lambda: plot.pixmap().width() == 310, timeout=60_000)
    assert "cannot start a process here" in caplog.text
