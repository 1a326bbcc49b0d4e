"""The annotation editor: draw over a full-page screenshot of the current preview (or a blank
wireframe "Sketch" canvas) with pen, rectangle, ellipse, arrow and text notes; select / move /
delete, colour, undo / redo, zoom, import an image. The resolved target of every mark is shown
live (outline + element id), so the designer sees what the app understood. Shapes live in an
:class:`~mmstudio.feedback.Annotation` in PAGE px; the canvas only scales them by the zoom.

Sending saves the vector JSON and the flattened PNG under ``<project>/annotations/`` and runs
the turn as a ``feedback`` job through :class:`~mmstudio.studio.feedback.FeedbackService`.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QColor, QImage, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import (
    QColorDialog,
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QPushButton,
    QScrollArea,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from mmstudio.feedback import Annotation, PageElement, Shape, resolve, save
from mmstudio.feedback.compose import mark_line
from mmstudio.feedback.elements import by_id

log = logging.getLogger(__name__)

TOOLS = ("select", "pen", "rect", "ellipse", "arrow", "text")
TARGET_COLOUR = QColor("#2563eb")
MIN_DRAG_PX = 4  # a drag shorter than this (page px) draws nothing


class Canvas(QWidget):
    """The drawing surface over one background image; ``changed`` fires after every edit."""

    changed = Signal()

    def __init__(self, background: QImage, elements: list[PageElement], annotation: Annotation):
        super().__init__()
        self.background, self.elements, self.annotation = background, elements, annotation
        self.zoom, self.tool, self.colour = 1.0, "rect", "#e5484d"
        self.note_text = lambda: "note"
        self.selected: str | None = None
        self._undo: list[list[Shape]] = []
        self._redo: list[list[Shape]] = []
        self._draft: Shape | None = None
        self._drag_from: QPointF | None = None
        self.marks = resolve(annotation, elements)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(False)
        self._fit()

    # -- model -------------------------------------------------------------------------------
    def _snapshot(self) -> None:
        self._undo.append([s.model_copy() for s in self.annotation.shapes])
        self._redo.clear()

    def _set_shapes(self, shapes: list[Shape]) -> None:
        self.annotation.shapes = shapes
        self._after_change()

    def _after_change(self) -> None:
        self.marks = resolve(self.annotation, self.elements)
        self.update()
        self.changed.emit()

    def add_shape(self, shape: Shape) -> Shape:
        """Add ``shape`` (page px) as one undoable step."""
        self._snapshot()
        self._set_shapes([*self.annotation.shapes, shape])
        return shape

    def add_note(self, x: float, y: float, text: str) -> Shape:
        """A text note at (x, y) page px, attached to the selected shape if one is selected."""
        attached = self.selected if self.annotation.shape(self.selected or "") else None
        note = Shape(id=self.annotation.next_id(), kind="text", x=x, y=y, w=8 * len(text) + 8,
                     h=20, text=text, colour=self.colour, attached_to=attached)  # fmt: skip
        return self.add_shape(note)

    def delete_selected(self) -> None:
        if self.selected and self.annotation.shape(self.selected):
            self._snapshot()
            self._set_shapes([s for s in self.annotation.shapes if s.id != self.selected])
            self.selected = None

    def undo(self) -> None:
        if self._undo:
            self._redo.append(self.annotation.shapes)
            self._set_shapes(self._undo.pop())

    def redo(self) -> None:
        if self._redo:
            self._undo.append(self.annotation.shapes)
            self._set_shapes(self._redo.pop())

    def set_zoom(self, zoom: float) -> None:
        """Zoom factor (0.25–4) of page px to screen px."""
        self.zoom = max(0.25, min(4.0, zoom))
        self._fit()
        self.update()

    def set_background(self, image: QImage) -> None:
        self.background = image
        self._fit()
        self.update()

    def _fit(self) -> None:
        self.setFixedSize(int(self.background.width() * self.zoom) + 1,
                          int(self.background.height() * self.zoom) + 1)  # fmt: skip

    # -- mouse -------------------------------------------------------------------------------
    def page_point(self, pos: QPointF) -> QPointF:
        """A widget position as page px."""
        return QPointF(pos.x() / self.zoom, pos.y() / self.zoom)

    def mousePressEvent(self, event) -> None:
        p = self.page_point(event.position())
        self._drag_from = p
        if self.tool == "select":
            self.selected = self._hit(p)
            if self.selected:
                self._snapshot()
        elif self.tool == "text":
            self.add_note(p.x(), p.y(), self.note_text())
            self._drag_from = None
        else:
            new_id = self.annotation.next_id()
            points = [(p.x(), p.y())] * (2 if self.tool == "arrow" else 1)
            self._draft = Shape(id=new_id, kind=self.tool, x=p.x(), y=p.y(), points=points,
                                colour=self.colour)  # fmt: skip
        self.update()

    def mouseMoveEvent(self, event) -> None:
        if self._drag_from is None:
            return
        p = self.page_point(event.position())
        if self.tool == "select" and self.selected:
            dx, dy = p.x() - self._drag_from.x(), p.y() - self._drag_from.y()
            self.annotation.shapes = [s.moved(dx, dy) if s.id == self.selected else s
                                      for s in self.annotation.shapes]  # fmt: skip
            self._drag_from = p
            self.update()
        elif self._draft is not None:
            self._draft = _dragged(self._draft, self._drag_from, p)
            self.update()

    def mouseReleaseEvent(self, event) -> None:
        draft, self._draft, self._drag_from = self._draft, None, None
        if self.tool == "select" and self.selected:
            self._after_change()
        elif draft is not None and max(draft.bounds()[2:]) >= MIN_DRAG_PX:
            self.add_shape(draft)
            self.selected = draft.id
        self.update()

    def keyPressEvent(self, event) -> None:
        if event.key() in (Qt.Key.Key_Delete, Qt.Key.Key_Backspace):
            self.delete_selected()
        else:
            super().keyPressEvent(event)

    def wheelEvent(self, event) -> None:
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.set_zoom(self.zoom * (1.1 if event.angleDelta().y() > 0 else 1 / 1.1))
        else:
            super().wheelEvent(event)

    def _hit(self, p: QPointF) -> str | None:
        for shape in reversed(self.annotation.shapes):
            x, y, w, h = shape.bounds()
            if QRectF(x - 6, y - 6, w + 12, h + 12).contains(p):
                return shape.id
        return None

    # -- painting ----------------------------------------------------------------------------
    def paintEvent(self, event) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.scale(self.zoom, self.zoom)
        self.paint_page(painter, targets=True)
        if self._draft is not None:
            _paint_shape(painter, self._draft)
        painter.end()

    def paint_page(self, painter: QPainter, targets: bool) -> None:
        """Background, resolved targets (outline + id) and every shape, in page px."""
        painter.drawImage(0, 0, self.background)
        if targets:
            self._paint_targets(painter)
        for shape in self.annotation.shapes:
            _paint_shape(painter, shape, selected=shape.id == self.selected)

    def _paint_targets(self, painter: QPainter) -> None:
        pen = QPen(TARGET_COLOUR, 2, Qt.PenStyle.DashLine)
        for mark in self.marks:
            for target in mark.targets:
                element = by_id(self.elements, target)
                if element is None:
                    continue
                box = QRectF(element.box.x, element.box.y, element.box.w, element.box.h)
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(box)
                painter.fillRect(QRectF(box.x(), box.y() - 18, 10 + 7 * len(target), 18),
                                 TARGET_COLOUR)  # fmt: skip
                painter.setPen(QColor("white"))
                painter.drawText(QPointF(box.x() + 4, box.y() - 5), f"{mark.number} {target}")

    def flatten(self) -> QImage:
        """The screenshot with the shapes drawn on it, at page px (no target outlines)."""
        image = QImage(self.background.size(), QImage.Format.Format_ARGB32)
        image.fill(QColor("white"))
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        selected, self.selected = self.selected, None
        self.paint_page(painter, targets=False)
        self.selected = selected
        painter.end()
        return image


def _dragged(draft: Shape, start: QPointF, p: QPointF) -> Shape:
    """The draft shape after the pointer moved from ``start`` to ``p`` (page px)."""
    if draft.kind == "pen":
        return draft.model_copy(update={"points": [*draft.points, (p.x(), p.y())]})
    if draft.kind == "arrow":
        return draft.model_copy(update={"points": [(start.x(), start.y()), (p.x(), p.y())]})
    x, y = min(start.x(), p.x()), min(start.y(), p.y())
    w, h = abs(p.x() - start.x()), abs(p.y() - start.y())
    return draft.model_copy(update={"x": x, "y": y, "w": w, "h": h, "points": []})


def _paint_shape(painter: QPainter, shape: Shape, selected: bool = False) -> None:
    pen = QPen(QColor(shape.colour), shape.width)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    painter.setPen(pen)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    x, y, w, h = shape.bounds()
    if shape.kind == "rect":
        painter.drawRect(QRectF(x, y, w, h))
    elif shape.kind == "ellipse":
        painter.drawEllipse(QRectF(x, y, w, h))
    elif shape.kind in ("pen", "arrow") and len(shape.points) > 1:
        painter.drawPolyline(QPolygonF([QPointF(*pt) for pt in shape.points]))
        if shape.kind == "arrow":
            _arrow_head(painter, shape)
    elif shape.kind == "text":
        painter.fillRect(QRectF(x, y, w, h), QColor(255, 255, 210, 230))
        painter.drawText(QRectF(x + 4, y, w, h), Qt.AlignmentFlag.AlignVCenter, shape.text)
    if selected:
        painter.setPen(QPen(QColor("#111"), 1, Qt.PenStyle.DotLine))
        painter.drawRect(QRectF(x - 4, y - 4, w + 8, h + 8))


def _arrow_head(painter: QPainter, shape: Shape) -> None:
    import math

    (x0, y0), (x1, y1) = shape.points[-2], shape.points[-1]
    angle = math.atan2(y1 - y0, x1 - x0)
    for side in (-0.45, 0.45):
        end = QPointF(x1 - 14 * math.cos(angle + side), y1 - 14 * math.sin(angle + side))
        painter.drawLine(QPointF(x1, y1), end)


def wireframe(width: int, elements: list[PageElement], height: int = 1200) -> QImage:
    """A blank sketch canvas (page px) with the page's sections as light outlines."""
    bottom = max([height] + [int(e.box.y + e.box.h) for e in elements if e.kind == "section"])
    image = QImage(width, bottom, QImage.Format.Format_ARGB32)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setPen(QPen(QColor("#c9ced6"), 1, Qt.PenStyle.DashLine))
    for e in (e for e in elements if e.kind == "section"):
        painter.drawRect(QRectF(e.box.x + 2, e.box.y + 2, e.box.w - 4, e.box.h - 4))
        painter.drawText(QPointF(e.box.x + 10, e.box.y + 20), e.id)
    painter.end()
    return image


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
        self.state = QLabel("Draw on the page; each mark shows what it points at.", self)
        self.send_button = QPushButton("Send", self)
        self.send_button.clicked.connect(self.send)
        self.canvas.changed.connect(self._show_marks)
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
        _, png = self.save()
        self.send_button.setEnabled(False)
        self.state.setText("Sending the turn…")
        self.send_requested.emit(self.instruction.text(), self.canvas.annotation, png)

    def show_job(self, job) -> None:
        """Progress of the turn's job; when done, its requirements with their verdicts."""
        self.state.setText(f"{job.state}: {job.message or job.error or ''}")
        if job.state == "done" and job.result is not None:
            verdicts = {v.requirement: v for v in job.result.verdicts}
            self.requirements.clear()
            for req in job.result.requirements:
                verdict = verdicts.get(req.id)
                status = {True: "pass", False: "FAIL", None: "—"}[getattr(verdict, "passed", None)]
                self.requirements.addItem(f"{status}  {req.id}: {req.text}")
            for event in job.result.forgetting:
                self.requirements.addItem(f"forgot {event['requirement']} — repaired: "
                                          f"{event['repaired']}")  # fmt: skip
        if job.state in ("done", "failed", "cancelled"):
            self.send_button.setEnabled(True)


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
        return await default_render(project.site_dir, width, out)

    def opened(job) -> None:
        if job.id != capture_job.id:
            return
        window.job_finished.disconnect(opened)
        if job.state == "done":
            _open_editor(window, job.result, width, sketch)

    capture_job = window.session.jobs.submit("annotate-capture", capture, slot="annotate")
    window.job_finished.connect(opened)
    return capture_job


def _open_editor(window, render, width: int, sketch: bool) -> AnnotateDialog:
    from mmstudio.feedback import page_elements

    elements = page_elements(render)
    background = wireframe(width, elements) if sketch else QImage(render.screenshot)
    annotation = Annotation(device_width=width, viewport=(width, 800), sketch=sketch)
    folder = window.session.project.root / "annotations"
    window.annotator = AnnotateDialog(background, elements, annotation, folder, window)
    window.annotator.send_requested.connect(lambda t, a, p: _send(window, t, a, p))
    window.annotator.show()
    return window.annotator


def _send(window, text: str, annotation: Annotation, png: Path):
    """Run the turn as a ``feedback`` job; the editor follows it and the window refreshes."""
    from mmstudio.studio.feedback import FeedbackService

    service = FeedbackService(window.session.project, window.session.jobs)
    job = service.submit(text, annotation, png)
    dialog = window.annotator

    def follow(update) -> None:
        if update.id != job.id:
            return
        dialog.show_job(update)
        if update.state in ("done", "failed", "cancelled"):
            window.job_finished.disconnect(follow)
            unsubscribe()
        if update.state == "done":
            window.refresh()
            window.preview.reload()

    def progress(update) -> None:
        if update.id == job.id and update.state == "running":
            dialog.show_job(update)

    unsubscribe = window.session.jobs.subscribe(progress)
    window.job_finished.connect(follow)
    return job
