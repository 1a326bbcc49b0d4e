"""Shape → element resolution: what each mark of an annotation points at (MM Studio issue 7).

Rules, on the renderer's element boxes (page px):
- rectangle / ellipse / freehand (its bounding box): the elements it ENCLOSES (≥ 60 % of an
  element's sample points inside the shape; an enclosed section stands for its own children),
  else the smallest element that MOSTLY OVERLAPS the shape (≥ 60 % of the shape's area), else the
  section holding most of it;
- arrow: the smallest element under its tip (else the section under it);
- text note: the shape it is ``attached_to``, else the nearest other shape (distance to its box);
  a note with no shape to attach to is a mark of its own, on the element under it.

An area mark that encloses no element and covers none by more than ``FREE_OVERLAP`` of its own
area is drawn in FREE space (``Mark.free``): a sketched box there asks for a new element.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from mmstudio.render.model import Box

from .annotation import Annotation, Shape
from .elements import PageElement, contains, overlap

ENCLOSED = 0.6  # share of an element's sample points inside the shape
MOSTLY = 0.6  # share of the shape's area covered by one element
_GRID = 6  # sample points per side of an element's box
FREE_OVERLAP = 0.2  # an area mark over free space covers no element by more than this share


@dataclass
class Mark:
    """One numbered mark (1-based ``number``): its shape, resolved element ids (most specific
    first), the notes attached to it and whether it lies in free space (see the module doc)."""

    number: int
    shape: Shape
    targets: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    free: bool = False


def _inside(shape: Shape, x: float, y: float) -> bool:
    sx, sy, sw, sh = shape.bounds()
    if shape.kind != "ellipse":
        return sx <= x <= sx + sw and sy <= y <= sy + sh
    rx, ry = sw / 2 or 1e-6, sh / 2 or 1e-6
    return ((x - sx - rx) / rx) ** 2 + ((y - sy - ry) / ry) ** 2 <= 1.0


def enclosed_share(shape: Shape, box: Box) -> float:
    """Share (0–1) of ``box``'s sample points that lie inside ``shape``."""
    if box.w <= 0 or box.h <= 0:
        return 0.0
    steps = [(i + 0.5) / _GRID for i in range(_GRID)]
    inside = sum(
        _inside(shape, box.x + fx * box.w, box.y + fy * box.h) for fx in steps for fy in steps
    )
    return inside / (_GRID * _GRID)


def _shape_box(shape: Shape) -> Box:
    x, y, w, h = shape.bounds()
    return Box(x=x, y=y, w=max(w, 1.0), h=max(h, 1.0))


def resolve_area(shape: Shape, elements: list[PageElement]) -> list[str]:
    """Targets of a rectangle, ellipse or freehand mark (see the module docstring)."""
    enclosed = [e for e in elements if enclosed_share(shape, e.box) >= ENCLOSED]
    sections = {e.id for e in enclosed if e.kind == "section"}
    chosen = [e for e in enclosed if e.kind == "section" or e.section not in sections]
    if chosen:
        return [e.id for e in sorted(chosen, key=lambda e: (e.kind == "section", e.box.y))]
    box = _shape_box(shape)
    covering = [e for e in elements if overlap(e.box, box) >= MOSTLY * box.area]
    if covering:
        return [min(covering, key=lambda e: e.box.area).id]
    sections_hit = [e for e in elements if e.kind == "section" and overlap(e.box, box) > 0]
    return [max(sections_hit, key=lambda e: overlap(e.box, box)).id] if sections_hit else []


def in_free_space(shape: Shape, elements: list[PageElement]) -> bool:
    """An area shape that encloses no element and covers each by at most ``FREE_OVERLAP``."""
    if shape.kind not in ("rect", "ellipse", "pen"):
        return False
    box = _shape_box(shape)
    for element in elements:
        if element.kind == "section":
            continue
        if enclosed_share(shape, element.box) >= ENCLOSED:
            return False
        if overlap(element.box, box) > FREE_OVERLAP * box.area:
            return False
    return not any(
        e.kind == "section" and enclosed_share(shape, e.box) >= ENCLOSED for e in elements
    )


def resolve_point(x: float, y: float, elements: list[PageElement]) -> list[str]:
    """The smallest element whose box holds the point (x, y px); [] when none does."""
    under = [e for e in elements if contains(e.box, x, y)]
    return [min(under, key=lambda e: (e.kind == "section", e.box.area)).id] if under else []


def resolve_shape(shape: Shape, elements: list[PageElement]) -> list[str]:
    """The element ids one (non-note) shape marks."""
    if shape.kind == "arrow":
        return resolve_point(*shape.tip(), elements)
    if shape.kind == "text":
        return resolve_point(*shape.centre(), elements)
    return resolve_area(shape, elements)


def _nearest(note: Shape, shapes: list[Shape]) -> Shape | None:
    if not shapes:
        return None
    cx, cy = note.centre()
    return min(shapes, key=lambda s: _box_distance(cx, cy, s))


def _box_distance(x: float, y: float, shape: Shape) -> float:
    """Distance (px) from (x, y) to the shape's bounding box (0 inside)."""
    sx, sy, sw, sh = shape.bounds()
    return math.hypot(max(sx - x, 0, x - sx - sw), max(sy - y, 0, y - sy - sh))


def resolve(annotation: Annotation, elements: list[PageElement]) -> list[Mark]:
    """Numbered marks of ``annotation`` with their targets and attached notes (in drawing
    order; a note is folded into the mark it belongs to)."""
    drawn = [s for s in annotation.shapes if s.kind != "text"]
    marks = [
        Mark(n, s, resolve_shape(s, elements), free=in_free_space(s, elements))
        for n, s in enumerate(drawn, start=1)
    ]
    by_shape = {m.shape.id: m for m in marks}
    for note in (s for s in annotation.shapes if s.kind == "text"):
        owner = by_shape.get(note.attached_to or "") or by_shape.get(
            getattr(_nearest(note, drawn), "id", "")
        )
        if owner is None:
            owner = Mark(len(marks) + 1, note, resolve_shape(note, elements))
            marks.append(owner)
            by_shape[note.id] = owner
        if note.text.strip():
            owner.notes.append(note.text.strip())
    return marks
