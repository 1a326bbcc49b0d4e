"""The annotation editor offscreen: drawing, live target resolution, notes, select / move /
delete, undo / redo, zoom, import, save as vector JSON + PNG; and from the main window: Annotate
captures the page, a rectangle and a note become a feedback turn whose job runs, whose
requirement is listed and whose new report updates the badges."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
pytest.importorskip("PySide6.QtWebEngineWidgets")  # must be imported before the QApplication

from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent
from PySide6.QtWidgets import QApplication
from test_feedback import ELEMENTS
from test_feedback_turns import project  # noqa: F401

from mmstudio.feedback import Annotation, load
from mmstudio.gui.site_scheme import register_scheme
from mmstudio.render import find_browser, get_renderer

register_scheme()  # before pytest-qt creates the QApplication
pytestmark = pytest.mark.usefixtures("own_settings")


def _mouse(widget, kind, x, y) -> None:
    event = QMouseEvent(kind, QPointF(x, y), QPointF(x, y), Qt.MouseButton.LeftButton,
                        Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)  # fmt: skip
    QApplication.sendEvent(widget, event)


def drag(widget, start, end, steps=4) -> None:
    """Press at ``start``, move in ``steps`` to ``end``, release (widget px)."""
    _mouse(widget, QEvent.Type.MouseButtonPress, *start)
    for i in range(1, steps + 1):
        x = start[0] + (end[0] - start[0]) * i / steps
        y = start[1] + (end[1] - start[1]) * i / steps
        _mouse(widget, QEvent.Type.MouseMove, x, y)
    _mouse(widget, QEvent.Type.MouseButtonRelease, *end)


@pytest.fixture
def dialog(qtbot, tmp_path):
    from mmstudio.gui.annotate import AnnotateDialog

    background = QImage(1280, 1400, QImage.Format.Format_ARGB32)
    background.fill(QColor("#f4efe6"))
    dialog = AnnotateDialog(background, ELEMENTS, Annotation(), tmp_path / "annotations")
    qtbot.addWidget(dialog)
    return dialog


def test_draw_resolve_edit_and_save(dialog, tmp_path):
    canvas = dialog.canvas
    drag(canvas, (690, 90), (1190, 430))  # a rectangle around the hero image
    assert [m.targets for m in canvas.marks] == [["hero_image"]]
    assert "rectangle over the image `hero_image`" in dialog.marks_list.item(0).text()
    canvas.tool = "text"
    dialog.note.setText("warmer, less busy")
    _mouse(canvas, QEvent.Type.MouseButtonPress, 700, 450)
    _mouse(canvas, QEvent.Type.MouseButtonRelease, 700, 450)
    assert canvas.marks[0].notes == ["warmer, less busy"]
    dialog.choose_operation("s1", "move up")  # the offline menu of a targeted mark
    assert canvas.marks[0].notes == ["warmer, less busy", "move up"]
    canvas.undo()
    assert canvas.annotation.shapes[-1].attached_to == "s1"
    canvas.tool = "arrow"
    drag(canvas, (300, 900), (400, 800))  # tip on the video
    canvas.tool = "ellipse"
    drag(canvas, (60, 90), (640, 230))
    canvas.tool = "pen"
    drag(canvas, (10, 1300), (200, 1350), steps=6)
    assert [m.targets for m in canvas.marks][:3] == [["hero_image"], ["content_video"],
                                                     ["hero--title"]]  # fmt: skip
    assert len(canvas.annotation.shapes[-1].points) == 7
    canvas.undo()
    assert len(canvas.annotation.shapes) == 4
    canvas.redo()
    assert len(canvas.annotation.shapes) == 5
    canvas.tool = "select"
    drag(canvas, (300, 900), (300, 300))  # move the arrow's tip from the video to the hero
    assert canvas.marks[1].targets != ["content_video"]
    canvas.delete_selected()
    assert len(canvas.annotation.shapes) == 4
    canvas.set_zoom(0.5)
    assert canvas.width() == 641
    canvas.tool = "rect"
    drag(canvas, (345, 45), (595, 215))  # at zoom 0.5: page (690, 90) → (1190, 430)
    assert canvas.marks[-1].targets == ["hero_image"]
    json_path, png = dialog.save()
    saved = load(json_path)
    assert saved.png == png.name and len(saved.shapes) == 5
    assert QImage(str(png)).size() == canvas.background.size()
    mockup = tmp_path / "mockup.png"
    QImage(400, 300, QImage.Format.Format_ARGB32).save(str(mockup))
    dialog.import_image(str(mockup))
    assert canvas.background.width() == 400 and canvas.annotation.images == [str(mockup)]


def test_wireframe_sketch_canvas():
    from mmstudio.gui.annotate import wireframe

    image = wireframe(768, ELEMENTS)
    assert image.width() == 768 and image.height() == 1400


def test_menu_operations_for_charts_and_free_space(dialog):
    canvas = dialog.canvas
    drag(canvas, (40, 1420), (600, 1560))  # below every section: free space
    assert canvas.marks[0].free and canvas.marks[0].targets == []
    dialog.note.setText("a lighthouse at dusk")
    dialog.choose_operation("s1", "insert image")
    assert canvas.marks[0].notes == ["image: a lighthouse at dusk"]
    drag(canvas, (690, 90), (1190, 430))
    dialog.choose_operation("s3", "line chart")
    assert canvas.marks[1].notes == ["line chart"] and not canvas.marks[1].free


def test_turns_panel_lists_requirements_with_their_status(qtbot):
    from mmstudio.gui.turns_panel import TurnsPanel

    view = {
        "turns": [{"turn": 1, "text": "make the title red and xyzzy", "version": "v2",
                   "summary": "2 requirement(s)", "requirements": [
                       {"id": "t1.r1", "text": "make the title red", "op": "colour",
                        "target": "hero--title", "status": "pass", "detail": "measured #c0392b"},
                       {"id": "t1.r2", "text": "xyzzy", "op": "free", "target": None,
                        "status": "unchecked", "detail": ""}]}],
        "forgetting": [{"requirement": "t1.r1", "turn": 2, "detail": "x", "repaired": True}],
        "pass_rate": 1.0, "forgetting_rate": 0.0,
    }  # fmt: skip
    panel = TurnsPanel()
    qtbot.addWidget(panel)
    panel.show_view(view)
    assert panel.requirement_lines() == [
        "pass  t1.r1: make the title red (forgotten once)", "—  t1.r2: xyzzy",
    ]  # fmt: skip
    assert panel.summary.text() == (
        "1 turn(s) · pass rate 100% · forgetting rate 0% · 1 forgetting event(s)"
    )
    panel.show_view({"turns": [], "error": "database is locked"})
    assert panel.summary.text() == "Cannot read the turns: database is locked"
    stale = {"turns": [{"turn": 1, "text": "red", "version": "v2", "requirements": [
        {"id": "t1.r1", "text": "red", "status": "stale", "detail": "not checked"}]}],
        "head": "v3"}  # fmt: skip
    panel.show_view(stale, checking=True)
    assert panel.requirement_lines() == ["not checked at this version (checking…)  t1.r1: red"]
    assert "1 not checked at this version" in panel.summary.text()


@pytest.mark.app_scenario
@pytest.mark.skipif(find_browser().executable is None, reason="no Chromium for Playwright")
def test_annotate_from_the_app_sends_a_turn(qtbot, qt_loop, project):  # noqa: F811
    from mmstudio.gui.main_window import MainWindow
    from mmstudio.gui.plan_tree import SCORE_ROLE

    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.view.loadFinished, timeout=30_000):
        window.open_project(project.root)
    assert window.badges.pills["overall"].text() == "overall –"
    assert window.tree._items["sales_chart"].data(1, SCORE_ROLE) is None  # not evaluated yet
    asyncio.set_event_loop(qt_loop)
    try:
        qt_loop.run_until_complete(_annotate_and_send(window, qtbot))
    finally:
        asyncio.set_event_loop(None)
    dialog = window.annotator
    assert dialog.requirements.item(0).text() == "pass  t1.r1: pie chart"
    assert "every checked requirement passes" in dialog.state.text()
    assert window.badges.pills["overall"].text() != "overall –"
    assert window.tree._items["sales_chart"].data(1, SCORE_ROLE) is not None  # its badge
    assert window.turns_panel.requirement_lines() == ["pass  t1.r1: pie chart"]
    assert project.read_plan().charts[0].attributes.chart_type == "pie"
    turns = json.loads((project.root / "annotations").glob("*.json").__next__().read_text())
    assert turns["shapes"][0]["kind"] == "rect"
    window.close()


async def _annotate_and_send(window, qtbot) -> None:
    try:
        await _scenario(window, qtbot)
    finally:
        await get_renderer().close()  # the browser is bound to this loop


async def _scenario(window, qtbot) -> None:
    capture = window.annotate()
    await window.session.jobs.wait(capture.id)
    await asyncio.sleep(0.05)
    dialog = window.annotator
    canvas = dialog.canvas
    chart = {e.id: e for e in canvas.elements}["sales_chart"].box
    start = QPoint(int(chart.x - 6), int(chart.y - 6))
    end = QPoint(int(chart.x + chart.w + 6), int(chart.y + chart.h + 6))
    qtbot.mousePress(canvas, Qt.MouseButton.LeftButton, pos=start)
    for i in range(1, 5):  # QTest moves carry no buttons; the canvas follows its own drag state
        qtbot.mouseMove(canvas, start + (end - start) * (i / 4))
    qtbot.mouseRelease(canvas, Qt.MouseButton.LeftButton, pos=end)
    assert canvas.marks[0].targets == ["sales_chart"], canvas.annotation.shapes
    assert "rectangle over the chart `sales_chart`" in dialog.marks_list.item(0).text()
    canvas.tool = "text"
    dialog.note.setText("pie chart")
    qtbot.mouseClick(canvas, Qt.MouseButton.LeftButton, pos=QPoint(end.x() + 12, start.y()))
    assert canvas.marks[0].notes == ["pie chart"]
    qtbot.mouseClick(dialog.send_button, Qt.MouseButton.LeftButton)
    assert not dialog.send_button.isEnabled()  # the marks are saved off the GUI thread first
    for _ in range(100):
        jobs = [j for j in window.session.jobs.jobs.values() if j.kind == "feedback"]
        if jobs:
            break
        await asyncio.sleep(0.05)
    assert jobs and jobs[0].state in ("queued", "running")
    await window.session.jobs.wait(jobs[0].id)
    for _ in range(200):  # the state reads the turn's version off the GUI thread
        await asyncio.sleep(0.05)
        if dialog.requirements.count() and window.turns_panel.requirement_lines():
            break
