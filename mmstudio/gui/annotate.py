"""The annotation editor: draw over a full-page screenshot of the current preview (or a blank
wireframe "Sketch" canvas) with pen, rectangle, ellipse, arrow and text notes; select / move /
delete, colour, undo / redo, zoom, import an image. The resolved target of every mark is shown
live (outline + element id), so the designer sees what the app understood. Shapes live in an
:class:`~mmstudio.feedback.Annotation` in PAGE px; the canvas only scales them by the zoom.

Sending saves the vector JSON and the flattened PNG under ``<project>/annotations/`` and runs
the turn as a ``feedback`` job through :class:`~mmstudio.studio.feedback.FeedbackService`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QImage
from PySide6.QtWidgets import (
    QColorDialog,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QMenu,
    QPushButton,
    QScrollArea,
    QToolBar,
    QVBoxLayout,
)

from mmstudio.feedback import Annotation, save
from mmstudio.feedback.compose import mark_line
from mmstudio.feedback.requirements import TONES
from mmstudio.gui import bridge
from mmstudio.gui.annotate_canvas import TOOLS, Canvas, wireframe

log = logging.getLogger(__name__)

OPERATIONS = (
    *TONES, "recolour", "bigger", "smaller", "hide", "move up", "move down",
    "replace text with the note",
)  # fmt: skip
CHART_TYPES = ("bar", "line", "area", "pie", "donut", "scatter")  # "change chart type" menu
INSERT_KINDS = ("image", "chart", "video", "text")  # "insert here" menu (a box in free space)
_MOVES = ("bigger", "smaller", "hide", "move up", "move down")
#: the operations the offline rules apply to each kind of marked element
VALID = {
    "section": (*TONES, "recolour", *_MOVES),
    "text": (*TONES, "recolour", *_MOVES, "replace text with the note"),
    "image": (*TONES, *_MOVES),
    "video": (*TONES, *_MOVES),
    "chart": (*TONES, "recolour", *_MOVES),
}


def operations_for(kinds: set[str], free: bool) -> tuple[list[str], bool, bool]:
    """What the mark menu offers for a mark on elements of ``kinds`` (``free``: a box in free
    space): (operations valid for every marked kind, offer "change chart type", offer "insert
    here")."""
    if free or not kinds:
        return [], False, free
    ops = [op for op in OPERATIONS if all(op in VALID.get(kind, ()) for kind in kinds)]
    return ops, kinds == {"chart"}, False


__all__ = ["AnnotateDialog", "Canvas", "open_annotator", "wireframe"]


class AnnotateDialog(QDialog):
    """The editor window: tools, the canvas in a scroll area, the live list of marks, the
    instruction and Send; after Send it shows the job's progress and the turn's requirements.
    ``send_requested(text, annotation, png_path)`` fires on Send (the PNG is already saved)."""

    send_requested = Signal(str, object, object)

    def __init__(self, background: QImage, elements, annotation: Annotation, folder: Path,
                 parent=None) -> None:  # fmt: skip
        super().__init__(parent)
        self.setWindowTitle("Sketch" if annotation.sketch else "Annotate")
        self.folder = folder
        self.canvas = Canvas(background, elements, annotation)
        self.note = QLineEdit("note", self)
        self.canvas.note_text = self.note.text
        self.instruction = QLineEdit(self)
        self.instruction.setPlaceholderText("What should change? (the marks say where)")
        self.marks_list, self.requirements = QListWidget(self), QListWidget(self)
        for listing in (self.marks_list, self.requirements):
            listing.setWordWrap(True)
        self.state = QLabel("Draw on the page; each mark shows what it points at.", self)
        self.send_button = QPushButton("Send", self)
        self.send_button.clicked.connect(self.send)
        self.canvas.changed.connect(self._show_marks)
        self.canvas.menu_requested.connect(self._operation_menu)
        self._layout(self._toolbar())
        self.resize(1400, 900)

    def _toolbar(self) -> QToolBar:
        bar, group = QToolBar(self), QActionGroup(self)
        for tool in TOOLS:
            action = QAction(tool.capitalize(), self, checkable=True, checked=tool == "rect")
            action.setObjectName(f"tool-{tool}")
            action.triggered.connect(lambda _=False, t=tool: setattr(self.canvas, "tool", t))
            group.addAction(action)
            bar.addAction(action)
        bar.addSeparator()
        for label, slot, key in (
            ("Delete", self.canvas.delete_selected, "Del"),
            ("Undo", self.canvas.undo, "Ctrl+Z"),
            ("Redo", self.canvas.redo, "Ctrl+Shift+Z"),
            ("Zoom In", lambda: self.canvas.set_zoom(self.canvas.zoom * 1.25), "Ctrl+="),
            ("Zoom Out", lambda: self.canvas.set_zoom(self.canvas.zoom / 1.25), "Ctrl+-"),
            ("Colour…", self.choose_colour, None),
            ("Import Image…", self.import_image, None),
        ):
            action = QAction(label, self, triggered=slot)
            if key:
                action.setShortcut(key)
            bar.addAction(action)
        bar.addWidget(QLabel(" note: ", self))
        bar.addWidget(self.note)
        return bar

    def _layout(self, toolbar: QToolBar) -> None:
        scroll = QScrollArea(self)
        scroll.setWidget(self.canvas)
        self.scroll = scroll
        side = QVBoxLayout()
        side.addWidget(QLabel("Marks → targets", self))
        side.addWidget(self.marks_list)
        side.addWidget(QLabel("Requirements", self))
        side.addWidget(self.requirements)
        row = QHBoxLayout()
        row.addWidget(scroll, stretch=3)
        row.addLayout(side, stretch=1)
        bottom = QHBoxLayout()
        bottom.addWidget(self.instruction, stretch=1)
        bottom.addWidget(self.send_button)
        column = QVBoxLayout(self)
        for item in (toolbar, row, bottom, self.state):
            column.addLayout(item) if isinstance(item, QHBoxLayout) else column.addWidget(item)

    def _show_marks(self) -> None:
        self.marks_list.clear()
        for mark in self.canvas.marks:
            self.marks_list.addItem(mark_line(mark, self.canvas.elements))

    def mark_kinds(self, shape_id: str) -> tuple[set[str], bool]:
        """(kinds of the elements the mark of ``shape_id`` points at, whether it is a box in
        free space)."""
        from mmstudio.feedback.elements import by_id

        shape = self.canvas.annotation.shape(shape_id)
        owner = shape.attached_to if shape is not None and shape.attached_to else shape_id
        mark = next((m for m in self.canvas.marks if m.shape.id == owner), None)
        if mark is None:
            return set(), False
        kinds = {by_id(self.canvas.elements, t).kind for t in mark.targets}
        return {k for k in kinds if k}, bool(mark.free)

    def operation_menu(self, shape_id: str) -> QMenu:
        """The menu of operations valid for what the mark points at (see :data:`VALID`)."""
        menu = QMenu(self)
        kinds, free = self.mark_kinds(shape_id)
        ops, charts, inserts = operations_for(kinds, free)
        for label in ops:
            menu.addAction(label, lambda w=label: self.choose_operation(shape_id, w))
        if charts:
            sub = menu.addMenu("Change chart type")
            for kind in CHART_TYPES:
                sub.addAction(kind, lambda k=kind: self.choose_operation(shape_id, f"{k} chart"))
        if inserts:
            sub = menu.addMenu("Insert here (box in free space)")
            for kind in INSERT_KINDS:
                sub.addAction(kind, lambda k=kind: self.choose_operation(shape_id, f"insert {k}"))
        if menu.isEmpty():
            none = menu.addAction("This mark points at no element: write a note instead")
            none.setEnabled(False)
        return menu

    def _operation_menu(self, shape_id: str, where) -> None:
        self.operation_menu(shape_id).popup(where)

    def choose_operation(self, shape_id: str, word: str) -> None:
        """The offline menu (no model needed): attach the operation as a note to the mark, so it
        travels through the same turn, ledger and critic. "replace text with the note" uses the
        note field; "recolour" the current mark colour; "<type> chart" redraws a marked chart;
        "insert <kind>" labels a box in free space with the note field ("image: …")."""
        shape = self.canvas.annotation.shape(shape_id)
        if shape is None:
            return
        if word == "replace text with the note":
            word = f"'{self.note.text()}'"
        elif word == "recolour":
            word = f"colour {self.canvas.colour}"
        elif word.startswith("insert "):
            word = f"{word.removeprefix('insert ')}: {self.note.text()}"
        self.canvas.selected = shape_id
        x, y, w, _ = shape.bounds()
        self.canvas.add_note(x + w + 8, y, word)

    def choose_colour(self) -> None:
        colour = QColorDialog.getColor(QColor(self.canvas.colour), self, "Mark colour")
        if colour.isValid():
            self.canvas.colour = colour.name()

    def import_image(self, path: str | None = None) -> None:
        """Use an image made elsewhere (a sketch, a mockup) as the canvas; it is kept with the
        turn's annotation."""
        if not path:
            path = QFileDialog.getOpenFileName(self, "Import an image", "", "Images (*.png *.jpg "
                                               "*.jpeg *.webp)")[0]  # fmt: skip
        image = QImage(path) if path else QImage()
        if not image.isNull():
            self.canvas.annotation.images.append(str(path))
            self.canvas.set_background(image)

    def save(self) -> tuple[Path, Path]:
        """Write the vector JSON and the flattened PNG into the folder; (json, png) paths."""
        stem = f"turn-{time.strftime('%Y%m%d-%H%M%S')}-{int(time.time() * 1000) % 1000:03d}"
        self.folder.mkdir(parents=True, exist_ok=True)
        png = self.folder / f"{stem}.png"
        self.canvas.flatten().save(str(png))
        self.canvas.annotation.png = png.name
        return save(self.canvas.annotation, self.folder / f"{stem}.json"), png

    def send(self) -> None:
        """Save the marks (the PNG is encoded in a worker thread: a full-page picture takes
        100–200 ms) and then emit ``send_requested(text, annotation, png)``."""
        self.send_button.setEnabled(False)
        self.state.setText("Sending the turn…")
        stem = f"turn-{time.strftime('%Y%m%d-%H%M%S')}-{int(time.time() * 1000) % 1000:03d}"
        png = self.folder / f"{stem}.png"
        picture = self.canvas.flatten()  # painted here; a QImage may be saved in any thread
        annotation, text = self.canvas.annotation, self.instruction.text()
        annotation.png = png.name
        bridge.install()

        def write() -> None:
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
                picture.save(str(png))
                save(annotation, self.folder / f"{stem}.json")
            except OSError as exc:
                error = exc
                bridge.call_soon(self, lambda d: d._not_sent(error))
                return
            bridge.call_soon(self, lambda d: d.send_requested.emit(text, annotation, png))

        threading.Thread(target=write, name="annotation-save", daemon=True).start()

    def _not_sent(self, exc: OSError) -> None:
        self.send_button.setEnabled(True)
        self.state.setText(f"Not sent: the marks could not be saved ({exc})")

    def show_job(self, job) -> None:
        """Progress of the turn's job; when done, its requirements with their verdicts."""
        self.state.setText(f"{job.state}: {job.message or job.error or ''}")
        if job.state == "done" and job.result is not None:
            self._show_result(job.result)
        if job.state in ("done", "failed", "cancelled"):
            self.send_button.setEnabled(True)

    def show_page(self, background: QImage, elements) -> None:
        """Start over on a new capture of the page (after a turn committed): the new screenshot
        (or wireframe), its elements, no marks; the instruction is cleared, the requirement
        list of the turn just sent stays."""
        sketch = self.canvas.annotation.sketch
        width = self.canvas.annotation.device_width
        annotation = Annotation(device_width=width, viewport=(width, 800), sketch=sketch)
        picture = wireframe(width, elements) if sketch else background
        self.canvas.start_over(picture, elements, annotation)
        self.instruction.clear()
        self._show_marks()

    def _show_result(self, result) -> None:
        """The turn's requirements with their verdicts, then what still fails, what was not
        understood and the forgetting events; the state line says whether all passed."""
        verdicts = {v.requirement: v for v in result.verdicts}
        self.requirements.clear()
        for req in result.requirements:
            verdict = verdicts.get(req.id)
            status = {True: "pass", False: "FAIL", None: "—"}[getattr(verdict, "passed", None)]
            self.requirements.addItem(f"{status}  {req.id}: {req.text}")
        for verdict in result.failing:
            if verdict.requirement not in {r.id for r in result.requirements}:
                self.requirements.addItem(f"FAIL  {verdict.requirement}: {verdict.detail}")
        for line in result.not_understood:
            self.requirements.addItem(f"not understood (unchecked)  {line}")
        for event in result.forgetting:
            self.requirements.addItem(f"forgot {event['requirement']} — repaired: "
                                      f"{event['repaired']}")  # fmt: skip
        if result.failing:
            ids = ", ".join(v.requirement for v in result.failing)
            self.state.setText(f"Committed version {result.version}; still failing: {ids}")
        else:
            self.state.setText(f"Committed version {result.version}; every checked requirement "
                               "passes")  # fmt: skip


def open_annotator(window, sketch: bool = False):
    """Capture the open project's page at the preview's device width as a job, then open the
    editor over it (``window`` is the MainWindow). Returns the capture job (None: no project)."""
    from mmstudio.feedback.turn import default_render

    project = window.session.project
    if project is None:
        return None
    width = window.preview.view.width() or 1280

    async def capture(ctx):
        ctx.progress(0.2, "taking a screenshot of the page")
        out = project.renders_dir / "annotate"
        render = await default_render(project.site_dir, width, out)
        pictures[render.screenshot] = await asyncio.to_thread(QImage, render.screenshot)
        return render

    pictures: dict[str, QImage] = {}  # decoded off the GUI thread (a full page: 50–150 ms)

    def opened(job) -> None:
        if job.id != capture_job.id:
            return
        window.job_finished.disconnect(opened)
        if job.state == "done":
            _open_editor(window, job.result, width, sketch, pictures.pop(job.result.screenshot))

    capture_job = window.session.jobs.submit("annotate-capture", capture, slot="annotate")
    window.job_finished.connect(opened)
    return capture_job


def _open_editor(
    window, render, width: int, sketch: bool, picture: QImage | None = None
) -> AnnotateDialog:
    from mmstudio.feedback import page_elements

    elements = page_elements(render)
    if sketch:
        background = wireframe(width, elements)
    else:
        background = picture if picture is not None else QImage(render.screenshot)
    annotation = Annotation(device_width=width, viewport=(width, 800), sketch=sketch)
    folder = window.session.project.root / "annotations"
    window.annotator = AnnotateDialog(background, elements, annotation, folder, window)
    window.annotator.send_requested.connect(lambda t, a, p: _send(window, t, a, p))
    window.annotator.show()
    return window.annotator


def _send(window, text: str, annotation: Annotation, png: Path):
    """Run the turn as a ``feedback`` job; the editor follows it and the window refreshes."""
    service = window.session.feedback()  # with the project's model bundle, if it has one
    job = service.submit(text, annotation, png)
    dialog = window.annotator

    def follow(update) -> None:
        if update.id != job.id:
            return
        dialog.show_job(update)
        if update.state in ("done", "failed", "cancelled"):
            window.job_finished.disconnect(follow)
            unsubscribe()
        if update.state == "done":  # the window's state reads the new head itself
            _recapture(window, dialog)

    def progress(update) -> None:
        if update.id == job.id and update.state == "running":
            dialog.show_job(update)

    unsubscribe = window.session.jobs.subscribe(progress)
    window.job_finished.connect(follow)
    return job


def _recapture(window, dialog: AnnotateDialog):
    """Capture the page again after a committed turn and show it in the open editor, so the
    next marks are drawn on the page as it now is. Returns the capture job (None: no project)."""
    from mmstudio.feedback import page_elements
    from mmstudio.feedback.turn import default_render

    project = window.session.project
    if project is None:
        return None
    width = dialog.canvas.annotation.device_width
    dialog.state.setText(dialog.state.text() + " · taking a new screenshot…")

    async def capture(ctx):
        ctx.progress(0.2, "taking a screenshot of the page")
        render = await default_render(project.site_dir, width, project.renders_dir / "annotate")
        return render, await asyncio.to_thread(QImage, render.screenshot)

    def captured(job) -> None:
        if job.id != capture_job.id:
            return
        window.job_finished.disconnect(captured)
        if job.state == "done" and window.annotator is dialog:
            render, picture = job.result
            dialog.show_page(picture, page_elements(render))
            dialog.state.setText(dialog.state.text().replace(" · taking a new screenshot…", "")
                                 + " · the page as it now is")  # fmt: skip
            dialog.recaptured = True

    capture_job = window.session.jobs.submit("annotate-capture", capture, slot="annotate")
    window.job_finished.connect(captured)
    return capture_job
