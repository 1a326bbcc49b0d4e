"""The annotation canvas: a full-page screenshot (or a sketch canvas) with vector shapes drawn in
PAGE px and scaled by the zoom; tools pen, rectangle, ellipse, arrow, text note and select
(move, delete), undo / redo, and the live outline + id of each mark's resolved target (a box in
free space shows where a new element would go instead)."""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPolygonF
from PySide6.QtWidgets import QWidget

from mmstudio.feedback import Annotation, PageElement, Shape, resolve
from mmstudio.feedback.elements import by_id

TOOLS = ("select", "pen", "rect", "ellipse", "arrow", "text")
TARGET_COLOUR = QColor("#2563eb")
PLACE_COLOUR = QColor("#2f855a")  # a box in free space: where a new element goes
MIN_DRAG_PX = 4  # a drag shorter than this (page px) draws nothing


class Canvas(QWidget):
    """The drawing surface over one background image; ``changed`` fires after every edit."""

    changed = Signal()
    menu_requested = Signal(str, object)  # shape id, global position (QPoint)

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

    def start_over(self, background: QImage, elements: list[PageElement], annotation) -> None:
        """A new page under the canvas: its picture and elements, ``annotation`` (no marks),
        nothing selected and nothing to undo (old marks do not belong on the new page)."""
        self.elements, self.annotation, self.selected = elements, annotation, None
        self._undo.clear()
        self._redo.clear()
        self.set_background(background)
        self._after_change()

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

    def contextMenuEvent(self, event) -> None:
        hit = self._hit(self.page_point(QPointF(event.pos())))
        if hit:
            self.selected = hit
            self.menu_requested.emit(hit, event.globalPos())

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
            if mark.free:  # a place, not a target: say where a new element would go
                self._paint_place(painter, mark)
                continue
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

    def _paint_place(self, painter: QPainter, mark) -> None:
        x, y, _, _ = mark.shape.bounds()
        label = f"{mark.number} free space" + (f" → {mark.targets[0]}" if mark.targets else "")
        painter.fillRect(QRectF(x, y - 18, 10 + 7 * len(label), 18), PLACE_COLOUR)
        painter.setPen(QColor("white"))
        painter.drawText(QPointF(x + 4, y - 5), label)

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
