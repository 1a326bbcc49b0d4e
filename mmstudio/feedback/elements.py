"""The page's markable elements, read from one render: sections, media and text blocks with
their boxes in page px (see :mod:`mmstudio.render.model`). A hidden medium is listed with an
empty box (w = h = 0): it can be named, not marked, and it counts as not visible.

Ids: a section is its ``data-mm-section``, a medium its ``data-mm-id`` (or the renderer's id for
a discovered one), a text block its HTML ``id`` when it has one, else ``<section>-<tag>-<n>``
(provisional: applying an operation to it writes that id onto the element, so later turns and
the critic find it again).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from mmstudio.render.model import Box, Render

MEDIA_KINDS = {"img": "image", "video": "video", "iframe": "chart", "canvas": "chart"}
_ID_IN_SELECTOR = re.compile(r"#([A-Za-z][\w-]*)$")


@dataclass
class PageElement:
    """One markable element: ``kind`` section | image | video | chart | text; ``box`` in page px;
    ``text`` the first 60 characters of its text (text blocks); ``colour`` RGBA of its text."""

    id: str
    kind: str
    box: Box
    section: str | None = None
    tag: str = ""
    text: str = ""
    colour: list[float] | None = None
    font_size: float = 0
    html_id: bool = False  # the id is the element's own HTML id
    children: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        """Words for the element: "the hero section", "the image", "the h1 text"."""
        if self.kind == "section":
            return f"the {self.id} section"
        if self.kind == "text":
            return f"the {self.tag} text “{self.text[:40]}”"
        return f"the {self.kind}"


def page_elements(render: Render) -> list[PageElement]:
    """Sections, media and text blocks of ``render`` (empty when it has no probe)."""
    probe = render.probe
    if probe is None:
        return []
    found = [
        PageElement(s.id, "section", s.rect, s.id, "section", children=list(s.ids))
        for s in probe.sections
    ]
    for m in probe.media:
        if m.id:  # a hidden medium stays nameable ("show the chart"), with an empty box
            box = m.rect if m.hidden is None else Box(x=m.rect.x, y=m.rect.y)
            found.append(PageElement(m.id, MEDIA_KINDS.get(m.tag, "image"), box, m.section, m.tag))
    counts: dict[str, int] = {}
    for t in probe.texts:
        if t.owner:  # text inside a medium (a caption of an iframe…) belongs to the medium
            continue
        match = _ID_IN_SELECTOR.search(t.selector.split(" ")[-1])
        key = f"{t.section or 'page'}-{t.tag}"
        counts[key] = counts.get(key, 0) + 1
        text_id = match.group(1) if match else f"{key}-{counts[key]}"
        found.append(
            PageElement(
                text_id, "text", t.box, t.section, t.tag, t.snippet, t.color, t.font_size,
                html_id=bool(match),
            )
        )  # fmt: skip
    return found


def by_id(elements: list[PageElement], element_id: str) -> PageElement | None:
    return next((e for e in elements if e.id == element_id), None)


def overlap(a: Box, b: Box) -> float:
    """Area (px²) of the intersection of two boxes."""
    w = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    h = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    return max(0.0, w) * max(0.0, h)


def contains(box: Box, x: float, y: float) -> bool:
    return box.x <= x <= box.x + box.w and box.y <= y <= box.y + box.h
