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

from PySide6.QtCore import QEvent, QPointF, Qt
from PySide6.QtGui import QColor, QImage, QMouseEvent
from PySide6.QtWidgets import QApplication
from test_feedback import ELEMENTS
from test_feedback_turns import project  # noqa: F401

from mmstudio.feedback import Annotation, load
from mmstudio.gui.site_scheme import lock_down_chromium, register_scheme
from mmstudio.render import find_browser, get_renderer

register_scheme()  # before pytest-qt creates the QApplication
lock_down_chromium()


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


@pytest.mark.skipif(find_browser().executable is None, reason="no Chromium for Playwright")
def test_annotate_from_the_app_sends_a_turn(qtbot, project):  # noqa: F811
    import qasync

    from mmstudio.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.view.loadFinished, timeout=30_000):
        window.open_project(project.root)
    assert window.badges.pills["overall"].text() == "overall –"
    loop = qasync.QEventLoop(QApplication.instance())
    asyncio.set_event_loop(loop)
    try:
        loop.run_until_complete(_annotate_and_send(window))
    finally:
        loop.close()  # stops its worker threads (asyncio.to_thread runs there)
        asyncio.set_event_loop(None)
    dialog = window.annotator
    assert dialog.requirements.item(0).text().startswith("pass  t1.r1: hide")
    assert window.badges.pills["overall"].text() != "overall –"
    turns = json.loads((project.root / "annotations").glob("*.json").__next__().read_text())
    assert turns["shapes"][0]["kind"] == "rect"
    window.close()


async def _annotate_and_send(window) -> None:
    try:
        await _scenario(window)
    finally:
        await get_renderer().close()  # the browser is bound to this loop


async def _scenario(window) -> None:
    capture = window.annotate()
    await window.session.jobs.wait(capture.id)
    await asyncio.sleep(0.05)
    dialog = window.annotator
    elements = {e.id: e for e in dialog.canvas.elements}
    story = elements["story"].box
    drag(dialog.canvas, (story.x - 4, story.y - 4), (story.x + story.w + 4, story.y + story.h + 4))
    assert dialog.canvas.marks[0].targets == ["story"]
    dialog.canvas.add_note(story.x + 20, story.y + story.h + 10, "hide")
    dialog.send()
    jobs = [j for j in window.session.jobs.jobs.values() if j.kind == "feedback"]
    assert jobs and jobs[0].state in ("queued", "running")
    await window.session.jobs.wait(jobs[0].id)
    for _ in range(20):
        await asyncio.sleep(0.05)
        if dialog.requirements.count():
            break
