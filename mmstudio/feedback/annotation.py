"""Annotations a designer draws over a screenshot of the page (or on a blank sketch canvas).

An annotation is saved as VECTOR shapes in PAGE coordinates — CSS px from the page's top-left at
the device width it was drawn at (device scale 1, so screenshot px equal CSS px) — together with
the viewport, the device width, the scroll offset at capture time and the path of the flattened
PNG. Never only as pixels: the shapes are what target resolution reads (FronTalk's visual
interpretation gap: a small note in a dense drawing must not be lost).

Shapes (``kind``):
- ``pen``: freehand stroke, ``points`` [[x, y], …];
- ``rect`` / ``ellipse``: the box ``x, y, w, h`` (an ellipse is the one inscribed in it);
- ``arrow``: ``points`` [[tail_x, tail_y], [tip_x, tip_y]]; the tip is what it marks;
- ``text``: a note at ``x, y`` (top-left, box ``w, h``) with ``text``; ``attached_to`` names the
  shape it belongs to (None: the nearest shape is taken).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from mmstudio.project.errors import InputError, UserError, one_line, read_input

ShapeKind = Literal["pen", "rect", "ellipse", "arrow", "text"]
SHAPE_WORDS = {
    "pen": "freehand mark",
    "rect": "rectangle",
    "ellipse": "ellipse",
    "arrow": "arrow",
    "text": "text note",
}


class Shape(BaseModel):
    """One vector shape in page px (see the module docstring for each kind's fields)."""

    id: str
    kind: ShapeKind
    x: float = 0
    y: float = 0
    w: float = 0
    h: float = 0
    points: list[tuple[float, float]] = Field(default_factory=list)
    text: str = ""
    colour: str = "#e5484d"
    width: float = 3  # stroke width, px
    attached_to: str | None = None

    def bounds(self) -> tuple[float, float, float, float]:
        """(x, y, w, h) in page px: the box, or the points' bounding box."""
        if self.points and self.kind in ("pen", "arrow"):
            xs, ys = [p[0] for p in self.points], [p[1] for p in self.points]
            return min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)
        return self.x, self.y, self.w, self.h

    def centre(self) -> tuple[float, float]:
        x, y, w, h = self.bounds()
        return x + w / 2, y + h / 2

    def tip(self) -> tuple[float, float]:
        """An arrow's tip (its last point); other shapes: the centre."""
        return tuple(self.points[-1]) if self.kind == "arrow" and self.points else self.centre()

    def moved(self, dx: float, dy: float) -> Shape:
        """A copy shifted by (dx, dy) px."""
        points = [(px + dx, py + dy) for px, py in self.points]
        return self.model_copy(update={"x": self.x + dx, "y": self.y + dy, "points": points})


class Annotation(BaseModel):
    """One annotated screenshot or sketch: shapes in page px over a capture of ``page`` at
    ``device_width`` px, the viewport (w, h px) and scroll (x, y px) at capture, the flattened
    PNG (``png``, relative to the JSON file or absolute) and imported images (paths)."""

    format_version: int = 1
    page: str = "index.html"
    device_width: int = 1280
    viewport: tuple[int, int] = (1280, 800)
    scroll: tuple[float, float] = (0, 0)
    full_page: bool = True
    sketch: bool = False  # drawn on a blank canvas, not over the page
    png: str = ""
    images: list[str] = Field(default_factory=list)
    shapes: list[Shape] = Field(default_factory=list)

    def shape(self, shape_id: str) -> Shape | None:
        return next((s for s in self.shapes if s.id == shape_id), None)

    def next_id(self) -> str:
        """A fresh shape id (``s1``, ``s2`` …)."""
        taken = {s.id for s in self.shapes}
        n = len(self.shapes) + 1
        while f"s{n}" in taken:
            n += 1
        return f"s{n}"


def save(annotation: Annotation, path: Path) -> Path:
    """Write ``annotation`` as JSON at ``path`` (the PNG is written by whoever flattened it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(annotation.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return path


def load(path: Path) -> Annotation:
    """Read an annotation JSON file. Raises InputError (a ValueError, one line) when it is not
    one, MissingInput (a FileNotFoundError) when it does not exist; a bare list of shapes is
    accepted too."""
    try:
        data = json.loads(read_input(Path(path), "the annotation file"))
        if isinstance(data, list):
            data = {"shapes": data}
        return Annotation.model_validate(data)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "the file"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise InputError(
            f"{path} is not an annotation file: {where}: {error['msg']}{more}"
        ) from None
    except UserError:
        raise
    except ValueError as exc:  # not JSON
        raise InputError(f"{path} is not an annotation file: {one_line(exc)}") from None


def png_path(annotation: Annotation, json_path: Path) -> Path | None:
    """The flattened PNG as an absolute path (None when the annotation names none)."""
    if not annotation.png:
        return None
    png = Path(annotation.png)
    return png if png.is_absolute() else Path(json_path).parent / png
