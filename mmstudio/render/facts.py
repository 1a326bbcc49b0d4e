"""What a visitor of a page sees, as facts for requirement checks (mirrors ``facts.js``).

Coordinates are CSS px in page space; colours are RGBA lists (0–255, alpha 0–1). Text counts as
visible only when its element is rendered with some opacity and an opaque-enough colour; ``alt``
and ``title`` text never count.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from .base import Box, _Probe


class TextBlock(_Probe):
    """An element whose whole visible text is short (≤ 160 characters): a label, a link, a
    button, a heading, a cell."""

    tag: str
    text: str
    selector: str = ""
    rect: Box = Field(default_factory=Box)
    link: bool = False
    href: str | None = None
    button: bool = False
    heading: bool = False
    header: bool = False
    owner: str | None = None
    section: str | None = None
    background: list[float] | None = None
    #: the colour behind the text: its own fill or the nearest opaque ancestor's (rgba)
    backdrop: list[float] | None = None
    color: list[float] | None = None
    font: str = ""
    font_size: float = 16
    font_weight: int = 400
    italic: bool = False
    #: a line under the text (text-decoration, a link inside it, or a bottom border)
    underline: bool = False
    align: str = "start"  # computed text-align
    ink: Box | None = None  # the glyphs' own box (the block's box spans its container)


class SectionFact(_Probe):
    """A planned section (``data-mm-section``) or a landmark (header, section, footer)."""

    id: str = ""
    tag: str = ""
    classes: str = ""
    label: str = ""
    heading: str = ""
    rect: Box = Field(default_factory=Box)
    text: str = ""
    media: int = 0


class HeaderFact(_Probe):
    """The page header's viewport top (px) before and after scrolling ``scrolled`` px."""

    selector: str = ""
    section: str | None = None
    position: str = "static"
    top_before: float = 0
    top_after: float = 0
    bottom_after: float = 0
    scrolled: float = 0
    h: float = 0
    w: float = 0
    background: list[float] | None = None


class FontFact(_Probe):
    where: str
    family: str


class Styles(_Probe):
    """Visible elements with a gradient background, a box shadow or a text shadow (≤ 40 each)."""

    gradients: list[dict[str, Any]] = Field(default_factory=list)
    box_shadows: list[dict[str, Any]] = Field(default_factory=list)
    text_shadows: list[dict[str, Any]] = Field(default_factory=list)


class ColourUse(_Probe):
    """A colour used as ``bg``, ``text`` or ``border``; ``weight`` is its share of the page's
    area (bg) or of its text (text)."""

    role: str
    rgb: list[float]
    weight: float = 0


class Picture(_Probe):
    """A visible picture: an ``<img>`` or a CSS background image (``kind`` img | background)."""

    kind: str
    src: str = ""
    rect: Box = Field(default_factory=Box)
    alt: str = ""
    owner: str | None = None
    section: str | None = None
    selector: str = ""


class VideoFact(_Probe):
    src: str = ""
    rect: Box = Field(default_factory=Box)
    owner: str | None = None
    section: str | None = None
    autoplay: bool = False
    loop: bool = False
    muted: bool = False


class Axis(_Probe):
    type: str = ""
    name: str = ""
    data: list[Any] = Field(default_factory=list)


class Series(_Probe):
    type: str = ""
    name: Any = ""
    stack: Any = None
    data: list[Any] = Field(default_factory=list)
    radius: Any = None
    area_style: bool = False


class ChartFact(_Probe):
    """A live ECharts instance (in the page or a same-origin frame) and its option."""

    owner: str | None = None
    section: str | None = None
    rect: Box = Field(default_factory=Box)
    shown: bool = True
    readable: bool = False
    series: list[Series] = Field(default_factory=list)
    x_axis: list[Axis] = Field(default_factory=list)
    y_axis: list[Axis] = Field(default_factory=list)
    legend: int = 0
    title: str = ""
    dataset: list[Any] = Field(default_factory=list)
    labels: list[str] = Field(default_factory=list)  # radar indicators, legend entries, axis names

    def texts(self) -> list[str]:
        """The words the chart draws: title, series and legend names, category labels."""
        out = [self.title] if self.title else []
        out += self.labels
        out += [str(s.name) for s in self.series if s.name]
        for axis in (*self.x_axis, *self.y_axis):
            out += [str(d) for d in axis.data if isinstance(d, str | int | float)]
        for s in self.series:
            out += [str(d["name"]) for d in s.data if isinstance(d, dict) and d.get("name")]
        return out


class RowFact(_Probe):
    """A container whose first ``per_row`` children sit side by side (widths in px)."""

    selector: str = ""
    section: str | None = None
    owner: str | None = None
    per_row: int = 0
    total: int = 0
    widths: list[float] = Field(default_factory=list)
    width: float = 0
    y: float = 0


class EmptyFact(_Probe):
    selector: str = ""
    section: str | None = None
    owner: str | None = None
    kind: str = "card"
    rect: Box = Field(default_factory=Box)


class PairFact(_Probe):
    """Where two texts of one item sit: ``found`` for each, the smallest element holding both
    (``landmark`` when that is a whole section or the page), how many other items' first
    texts it also holds, and the distance (px) between the two texts' centres."""

    a: str
    b: str
    found: list[bool] = Field(default_factory=list)
    selector: str = ""
    landmark: bool = False
    others: int = 0
    distance: float = 0
    section: str | None = None


class PageFacts(_Probe):
    """Everything one ``page.evaluate`` of ``facts.js`` returns."""

    pairs: list[PairFact] = Field(default_factory=list)
    text: str = ""
    blocks: list[TextBlock] = Field(default_factory=list)
    sections: list[SectionFact] = Field(default_factory=list)
    header: HeaderFact | None = None
    fonts: list[FontFact] = Field(default_factory=list)
    faces: list[str] = Field(default_factory=list)
    available: dict[str, bool] = Field(default_factory=dict)  # family → drawable here
    anchors: list[str] = Field(default_factory=list)  # ids a link can point at
    styles: Styles = Field(default_factory=Styles)
    colours: list[ColourUse] = Field(default_factory=list)
    page_background: list[float] | None = None
    widgets: dict[str, Any] = Field(default_factory=dict)
    pictures: list[Picture] = Field(default_factory=list)
    #: small marks (inline svg, small img or background picture, 8–200 px a side)
    icons: list[Picture] = Field(default_factory=list)
    videos: list[VideoFact] = Field(default_factory=list)
    charts: list[ChartFact] = Field(default_factory=list)
    rows: list[RowFact] = Field(default_factory=list)
    empties: list[EmptyFact] = Field(default_factory=list)
