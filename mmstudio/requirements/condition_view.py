"""One rendered page of a site as the condition checks see it (:class:`PageView`): what a visitor
sees (:class:`~mmstudio.render.facts.PageFacts`, the full-page screenshot) and the page's markup
(:class:`~.condition_dom.PageDom`), with the boxes of the containers a condition names (page,
header, footer, hero, banner, sidebar, map, a named section) and the text blocks of the elements
inside them (buttons, nav links, headline, subheading, body text, a named control or title).

Subjects are written ``element@container`` ("headline@hero"); either side may be missing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from mmstudio.render.base import Box
from mmstudio.render.facts import PageFacts, TextBlock

from .checks import find_section
from .condition_dom import PageDom, overlap
from .model import Requirement, RequirementResult
from .text import loose


@dataclass
class PageView:
    """One rendered page: ``file`` (site-relative), its facts, markup, screenshot (a PIL RGB
    image or None) and viewport width (px)."""

    file: str
    facts: PageFacts | None
    dom: PageDom
    image: Any = None
    width: float = 1280

    def region(self, name: str) -> Box | None:
        """The box of a container subject (page, header, footer, hero, banner, section:<name>,
        sidebar, map) on this page, or None."""
        facts = self.facts
        if facts is None:
            return None
        if name == "page":
            return Box(
                x=0,
                y=0,
                w=self.width,
                h=max((s.rect.y + s.rect.h for s in facts.sections), default=800),
            )
        if name.startswith("section:"):
            return _named_box(name[8:], facts)
        if name in ("banner", "sidebar", "map"):
            words = {
                "banner": ("banner", "announcement"),
                "sidebar": ("sidebar", "aside"),
                "map": ("map",),
            }[name]
            for s in facts.sections:
                if any(w in f"{s.id} {s.classes} {s.tag}".lower() for w in words):
                    return s.rect
            pic = next(
                (
                    p
                    for p in facts.pictures
                    if any(w in p.selector.lower() or w in p.src.lower() for w in words)
                ),
                None,
            )
            return pic.rect if pic else None
        section = find_section(name, facts)
        if section is None and name == "hero":  # a hero inside the <header>: its picture
            pic = next((p for p in facts.pictures if "hero" in p.selector.lower()), None)
            return pic.rect if pic else None
        if section is None and name == "header" and facts.header is not None:
            h = facts.header
            return Box(x=0, y=h.top_before, w=h.w, h=h.h)
        bar = [b.rect for b in facts.blocks if b.header] if name == "header" else []
        if section is None and bar:  # a <header> whose only child is a fixed <nav>: its links
            top, bottom = min(r.y for r in bar), max(r.y + r.h for r in bar)
            return Box(x=0, y=top, w=self.width, h=bottom - top)
        return section.rect if section is not None else None

    def blocks(self, subject: str) -> list[TextBlock]:
        """The text blocks a subject ("headline@hero", "nav-links", "control:Read More") names."""
        if self.facts is None:
            return []
        element, _, container = subject.partition("@")
        if element in CONTAINERS or element.startswith("section:"):
            element, container = "", element
        if element == "nav-links" and container == "header":
            container = ""  # the nav may be a bar of its own beside the <header>
        box = self.region(container) if container else None
        if element.startswith(("control:", "title:")):  # named: the container only narrows
            every = _pick(element, self.facts.blocks, self.facts)
            return [b for b in every if box is not None and within(b.rect, box)] or every
        if container and box is None:
            return []
        inside = [b for b in self.facts.blocks if box is None or within(b.rect, box)]
        return _pick(element, inside, self.facts)


CONTAINERS = ("page", "header", "footer", "hero", "banner", "sidebar", "map")


def within(rect: Box, box: Box) -> bool:
    cx, cy = rect.x + rect.w / 2, rect.y + rect.h / 2
    return box.x - 2 <= cx <= box.x + box.w + 2 and box.y - 2 <= cy <= box.y + box.h + 2


def _named_box(name: str, facts: PageFacts) -> Box | None:
    """The content section a name calls (by heading, id or label); a page title in the
    header or a link in the nav is no section."""
    content = [s for s in facts.sections if s.tag not in ("header", "nav", "footer")]
    for s in content:
        if overlap(name, f"{s.heading} {s.id} {s.label}") >= 0.6:
            return s.rect
    heading = next((b for b in facts.blocks if b.heading and not b.header
                    and overlap(name, b.text) >= 0.6), None)  # fmt: skip
    if heading is None:
        return None
    holder = [s for s in content if within(heading.rect, s.rect)]
    return min(holder, key=lambda s: s.rect.w * s.rect.h).rect if holder else heading.rect


def _pick(element: str, blocks: list[TextBlock], facts: PageFacts) -> list[TextBlock]:
    if element.startswith(("control:", "title:")):
        want = loose(element.split(":", 1)[1])
        hits = [b for b in blocks if want and (loose(b.text) == want or want in loose(b.text))]
        inner = [
            b
            for b in hits
            if not any(
                o is not b and within(o.rect, b.rect) and o.rect.w * o.rect.h < b.rect.w * b.rect.h
                for o in hits
            )
        ]
        return inner[:3]
    if element == "button":
        return [b for b in blocks if b.button]
    if element == "nav-links":
        links = [b for b in blocks if b.link or b.button]
        return [b for b in links if b.header] or links
    if element == "search":  # an input has no box in the facts: the search button beside it
        return [b for b in blocks if (b.button or b.tag == "input") and "search" in b.text.lower()]
    if element == "map":
        return []
    if element == "headings":  # "category titles": every heading below the page's title
        heads = [b for b in blocks if b.heading]
        top = max((b.font_size for b in heads), default=0)
        return [b for b in heads if b.font_size < top - 0.5][:12] or heads[:12]
    if element == "headline":
        heads = [b for b in blocks if b.heading]
        top = max((b.font_size for b in heads), default=0)
        return [b for b in heads if b.font_size >= top - 0.5][:4]
    if element == "subheading":
        heads = [b for b in blocks if b.heading]
        top = max((b.font_size for b in heads), default=0)
        after = [b for b in blocks if b.font_size < top - 0.5 and not b.link and not b.button]
        return after[:2]
    if element == "text":
        return [
            b
            for b in blocks
            if not b.heading
            and not b.link
            and not b.button
            and b.tag in ("p", "span", "div", "li", "small", "address", "dd", "td")
        ][:20]
    return blocks[:40]


def result(req: Requirement, status: str, message: str, **evidence) -> RequirementResult:
    return RequirementResult.of(req, status, message, **evidence)  # type: ignore[arg-type]


def dominant(view: PageView, box: Box) -> list[float] | None:
    image = view.image
    if image is None or box.w < 2 or box.h < 2:
        return None
    right, bottom = min(image.width, box.x + box.w), min(image.height, box.y + box.h)
    if right <= box.x or bottom <= box.y:
        return None
    crop = image.crop((int(box.x), int(box.y), int(right), int(bottom))).resize((48, 48))
    colours = crop.getcolors(48 * 48) or []
    return list(max(colours)[1]) if colours else None


def background(view: PageView, subject: str) -> tuple[list[float] | None, str]:
    element, _, container = subject.partition("@")
    if element in CONTAINERS or element.startswith("section:"):
        element, container = "", element
    if element:
        blocks = view.blocks(subject)
        if not blocks:
            return None, f"no {element} found"
        b = blocks[0]
        if b.background and b.background[3] > 0.3:
            return b.background, f"“{b.text[:30]}”"
        return dominant(view, b.rect), f"around “{b.text[:30]}”"
    if container in ("page", ""):
        return view.facts.page_background or dominant(view, view.region("page")), "the page"
    box = view.region(container)
    return (dominant(view, box) if box else None), f"the {container}"
