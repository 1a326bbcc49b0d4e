"""Where a new element from a sketched box goes (MM Studio issue 7, "insert from sketch").

On the render's boxes (page px), when the turn is split: the section holding the box's centre
(else the section nearest to it vertically), and in it the place — before the first element whose
centre lies below the box's centre, else after the lowest element, else at the section's start or
end. On the HTML, when the turn is applied: before or after the block that holds that anchor
element (its figure, and wrappers that hold nothing else), or at the start / end of the section's
content. A text anchor without an HTML id is found again by its text.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from mmstudio.refine import html_edit

from .elements import PageElement, by_id

if TYPE_CHECKING:
    from .requirements import Requirement

Box4 = tuple[float, float, float, float]


def locate(
    box: Box4 | None, elements: list[PageElement], targets=()
) -> tuple[str | None, str, str]:
    """(section id, place, anchor text) for a new element: ``place`` is "before:<id>",
    "after:<id>", "start" or "end"; the anchor text is set when the anchor is a text block
    without an HTML id. Without a box: the end of the named (else the last) section."""
    sections = [e for e in elements if e.kind == "section" and e.box.area > 0]
    if box is None:
        named = [by_id(elements, t) for t in targets]
        pick = next((e.id if e.kind == "section" else e.section for e in named if e), None)
        section = by_id(elements, pick or "") or (sections[-1] if sections else None)
        return (section.id if section else None), "end", ""
    section = _section_at(box, sections)
    if section is None:
        return None, "end", ""
    place, anchor = _place(box, section, elements)
    text = anchor.text if anchor is not None and not anchor.html_id else ""
    return section.id, place, text


def _section_at(box: Box4, sections: list[PageElement]) -> PageElement | None:
    """The section holding the box's centre, else the one nearest to it vertically."""
    cy = box[1] + box[3] / 2
    holding = [s for s in sections if s.box.y <= cy <= s.box.y + s.box.h]
    if holding:
        return min(holding, key=lambda s: s.box.area)
    return min(sections, key=lambda s: min(abs(cy - s.box.y), abs(cy - s.box.y - s.box.h)),
               default=None)  # fmt: skip


def _place(
    box: Box4, section: PageElement, elements: list[PageElement]
) -> tuple[str, PageElement | None]:
    """("before:<id>" | "after:<id>" | "start" | "end", the anchor element) in ``section``."""
    cy = box[1] + box[3] / 2
    if cy < section.box.y:
        return "start", None
    inside = [
        e for e in elements
        if e.section == section.id and e.kind != "section" and e.box.area > 0
    ]  # fmt: skip
    below = [e for e in inside if e.box.y + e.box.h / 2 > cy]
    if below:
        anchor = min(below, key=lambda e: (e.box.y, e.box.x))
        return f"before:{anchor.id}", anchor
    if inside and cy <= section.box.y + section.box.h:
        anchor = max(inside, key=lambda e: (e.box.y + e.box.h, e.box.x))
        return f"after:{anchor.id}", anchor
    return "end", None


def place(page: str, req: Requirement, markup: str) -> str:
    """``page`` with ``markup`` inserted at ``req.place`` in section ``req.target``: before or
    after the block holding the anchor element (climbing from it through a figure and through
    wrappers that hold nothing else), at the start or end of the section's content (its only
    child, else the section), or before ``</body>`` when the section is not on the page."""
    section = html_edit.find(page, "data-mm-section", req.target or "") if req.target else None
    if section is None:
        body = re.search(r"</body\s*>", page, re.I)
        at = body.start() if body else len(page)
        return page[:at] + "\n" + markup + "\n" + page[at:]
    how, _, ref = req.place.partition(":")
    anchor = _anchor(page, ref, req.anchor) if ref else None
    nodes = html_edit.parse(page)
    home = next(i for i, n in enumerate(nodes) if n.start == section.start)
    if anchor is not None:
        block = _block(nodes, next(i for i, n in enumerate(nodes) if n.start == anchor.start), home)
        at = nodes[block].start if how == "before" else nodes[block].end
    else:
        kids = nodes[home].children
        box = nodes[kids[0]] if len(kids) == 1 and nodes[kids[0]].tag not in ("img", "p") else None
        box = box or nodes[home]
        at = box.open_end if how == "start" else page.rfind("</", box.open_end, box.end)
    return page[:at] + "\n" + markup + "\n" + page[at:]


def _anchor(page: str, ref: str, text: str) -> html_edit.Node | None:
    from .operations import text_node
    from .requirements import Requirement

    node = html_edit.element_node(page, ref) or html_edit.find(page, "id", ref)
    if node is None and text:
        probe = Requirement(text="", op="text", target=ref, target_kind="text", anchor=text)
        node = text_node(page, probe)
    return node


def _block(nodes: list[html_edit.Node], index: int, section: int) -> int:
    """The block to insert next to: the anchor's figure (within 3 levels), then up through
    parents that hold only it, never up to the section itself."""
    at = index
    for _ in range(3):
        parent = nodes[at].parent
        if parent < 0 or parent == section:
            break
        at = parent
        if nodes[at].tag == "figure":
            index = at
            break
    while (parent := nodes[index].parent) >= 0 and parent != section:
        if len(nodes[parent].children) != 1:
            break
        index = parent
    return index
