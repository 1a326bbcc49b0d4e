"""Pass and check: where the brief puts a quoted label relative to the page around it.

Two arrangements a rule can read from the render's boxes (kind ``layout``, ``checker``
``placement``, ``values`` = the label):

- ``on-picture`` — the label sits on a picture ("a sticker-like badge overlapping the bottom
  left corner of this illustration … “New for 2025: Storyboarding Lab”", "a label in the
  lower-left corner of the photo reads “Sample Trail: Cloudveil Ridge”"). It passes when the
  smallest block showing the label overlaps a picture (an ``img``, a CSS background picture, a
  video, or a chart or map) by at least :data:`OVERLAP` of its own area.
- ``headline`` — the brief calls the quote its headline ("The hero headline “Make Something
  Slowly”", "the main heading reads …"): it must be the biggest text of its section. It passes
  when its block is set at least :data:`HEADLINE_SHARE` of the largest font size there.
- ``above-heading`` — the label comes first in its block ("At the very top of this block … sits
  a label: “RESEARCH ARCHIVE”", "“…” above the headline"). It passes when the label's box
  ends above the top of its section's main heading (the largest heading set bigger than the
  label) or right above a bigger heading of its own block (a card's title, within
  :data:`NEXT_HEADING_PX` below it); ``unchecked`` when the section has no such heading.

Quotes the brief puts *inside* a picture's artwork ("a poster that says …") are copy of the
picture, not labels on it; :mod:`.copy` reads those. A label not on the page is ``unchecked``
here (the copy check reports it missing).
"""

from __future__ import annotations

import bisect
import re

from mmstudio.render.base import Box
from mmstudio.render.facts import PageFacts, TextBlock

from .model import Requirement, RequirementResult
from .text import fold, quotes, sentence_bounds, span, strip_label

OVERLAP = 0.25
HEADLINE_SHARE = 0.9
NEXT_HEADING_PX = 240  # a label's own heading starts at most this far below it
MAX_WORDS = 10
NEAR = 160  # characters between the arrangement's words and the quote, at most

_PICTURE = r"(?:illustration|photo|photograph|image|picture|portrait|artwork|poster|map|video)"
_ON_PICTURE = re.compile(
    r"\b(?:on|onto|over|overlapping|overlaps|overlaid\s+(?:on|over)|atop|on\s+top\s+of"
    r"|(?:(?:upper|lower|top|bottom)[- ](?:left|right)\s+)?corner\s+of|edge\s+of|pinned\s+to"
    r"|stuck\s+(?:on|to))\s+(?:the\s+|this\s+|that\s+|its\s+|each\s+|an?\s+)?"
    rf"(?:[a-z-]+\s+){{0,2}}?{_PICTURE}s?\b",
    re.I,
)
_ABOVE = re.compile(
    r"\babove\s+(?:the\s+|its\s+|this\s+)?(?:main\s+|large\s+|big\s+|hero\s+|bold\s+)?"
    r"(?:headline|heading|title)\b",
    re.I,
)
_AT_TOP = re.compile(
    r"^\W*(?:at|on)\s+the\s+(?:very\s+)?top(?:[- ]left)?(?:\s+of\s+(?:this|the|each)\s+"
    r"(?:block|section|panel|card|column|hero|band|area|text\s+column|content))?\b(?!\s+of)",
    re.I,
)
_HINT = re.compile(
    rf"{_PICTURE}|\babove\b|\btop\b|\bheadline|\b(?:main|hero|page)\s+(?:heading|title)"
    r"|\bsection\b",
    re.I,
)
#: "The section title “ROTATION TIERS” appears …", "the section heading in bold uppercase
#: sans-serif: “Pick Your Creative Track”", "a section titled “How Evergreen Guide Works”"
_SECTION_TITLE = re.compile(
    r"\bsection(?:'s|’s)?\s+(?:title|heading|header)\b(?=[^.;“”]{0,64}“?$)"
    r"|\bsection\s+(?:titled|headed|called)\W{0,3}“?$",
    re.I,
)
_HEADLINE = re.compile(
    r"\b(?:(?:(?:hero|main|page|big|large|primary)\s+)?headline|(?:main|hero|page)\s+"
    r"(?:heading|title))(?=[^.;“”]{0,64}“?$)",
    re.I,
)
_LABEL_ROLE = re.compile(
    r"\b(?:label|tag|badge|chip|capsule|eyebrow|kicker|sticker|pill)s?\b", re.I
)


def extract_placement(text: str, source: str = "prompt") -> list[Requirement]:
    """One requirement per quoted label the brief places on a picture or above a heading."""
    from .copy import _role

    found: list[Requirement] = []
    seen: set[tuple[str, str]] = set()
    hints = [m.start() for m in _HINT.finditer(text)]
    for quote, start, _end in quotes(text):
        label = strip_label(quote)
        if not label or len(label.split()) > MAX_WORDS:
            continue
        i = bisect.bisect_left(hints, start - 2 * NEAR)
        if i == len(hints) or hints[i] > start + 2 * NEAR:
            continue  # no arrangement word anywhere near: the common case, decided cheaply
        if not any(c.isupper() or c.isdigit() for c in label):
            continue  # a design idea in scare quotes ("objects" on the desk), not a label
        s0, s1 = _clause(text, start)
        sentence = text[s0:s1]
        at = start - s0
        role = ""
        on = [m for m in _ON_PICTURE.finditer(sentence) if _near(m, at)]
        if _HEADLINE.search(sentence[:at]) and (label, "headline") not in seen:
            seen.add((label, "headline"))
            found.append(_placed(label, "headline", "as the biggest text of its section",
                                 span(text, s0, s1, source)))  # fmt: skip
        elif _SECTION_TITLE.search(sentence[:at]) and (label, "section-title") not in seen:
            seen.add((label, "section-title"))
            found.append(_placed(label, "section-title", "as its section's heading",
                                 span(text, s0, s1, source)))  # fmt: skip
        if on and _role(text, start) != "in-image":
            role = "on-picture"
        elif any(_near(m, at) for m in _ABOVE.finditer(sentence)) or (
            _AT_TOP.search(sentence) and _LABEL_ROLE.search(sentence[:at])
        ):
            role = "above-heading"
        if not role or (label, role) in seen:
            continue
        seen.add((label, role))
        words = "on the picture" if role == "on-picture" else "above its heading"
        found.append(_placed(label, role, words, span(text, s0, s1, source)))
    return found


def _placed(label: str, role: str, words: str, where) -> Requirement:
    return Requirement(
        id="", kind="layout", key=label, role=role, values=[label], text=f"“{label}” {words}",
        span=where, severity="major" if role == "headline" else "minor", checker="placement",
    )  # fmt: skip


def _clause(text: str, at: int) -> tuple[int, int]:
    """The sentence around offset ``at``, cut at semicolons (each clause places its own) and
    at ``2 × NEAR`` characters either side."""
    lo = max(0, at - 2 * NEAR)  # a brief without full stops: a window, not the whole text
    window = text[lo : at + 2 * NEAR]
    s0, s1 = sentence_bounds(window, at - lo)
    s0, s1 = s0 + lo, s1 + lo
    left = text.rfind(";", s0, at)
    right = text.find(";", at, s1)
    return (left + 1 if left >= 0 else s0), (right if right >= 0 else s1)


def _near(m: re.Match[str], at: int) -> bool:
    return abs(m.start() - at) <= NEAR


def _overlap(a: Box, b: Box) -> float:
    w = min(a.x + a.w, b.x + b.w) - max(a.x, b.x)
    h = min(a.y + a.h, b.y + b.h) - max(a.y, b.y)
    return max(0.0, w) * max(0.0, h)


def check_placement(req: Requirement, facts: PageFacts) -> RequirementResult:
    from .typography import _blocks

    blocks = _blocks(req, facts)
    if not blocks:
        return RequirementResult.of(req, "unchecked", "the labelled element is not on the page")
    if req.role == "on-picture":
        return _on_picture(req, blocks, facts)
    if req.role == "headline":
        return _headline(req, blocks, facts)
    if req.role == "section-title":
        return _section_title(req, blocks, facts)
    return _above_heading(req, blocks, facts)


def _headline(req: Requirement, blocks: list[TextBlock], facts: PageFacts) -> RequirementResult:
    block = max(blocks, key=lambda b: b.font_size)
    rivals = [
        b for b in facts.blocks
        if b.section == block.section and b is not block and fold(b.text) != fold(block.text)
        and not b.header
    ]  # fmt: skip
    biggest = max(rivals, key=lambda b: b.font_size, default=None)
    if biggest is None or block.font_size >= HEADLINE_SHARE * biggest.font_size:
        return RequirementResult.of(req, "pass", "the biggest text here", element=_where(block))
    msg = (
        f"“{block.text[:40]}” is set at {block.font_size:g} px; “{biggest.text[:40]}” "
        f"({biggest.font_size:g} px) is the biggest text of its section"
    )
    return RequirementResult.of(req, "fail", msg, element=_where(block))


def _section_title(
    req: Requirement, blocks: list[TextBlock], facts: PageFacts
) -> RequirementResult:
    """The title the brief gives a section heads it: no heading of its section is set bigger
    (a card's title or a lede promoted over it is what a visitor reads as the section's name)."""
    block = max(blocks, key=lambda b: b.font_size)
    if block.header or not block.section:
        return RequirementResult.of(req, "unchecked", "the title is not in a page section")
    rivals = [
        b for b in facts.blocks
        if b.heading and b.section == block.section and not b.header
        and fold(b.text) != fold(block.text) and fold(block.text) not in fold(b.text)
    ]  # fmt: skip
    biggest = max(rivals, key=lambda b: b.font_size, default=None)
    if biggest is None or block.font_size >= HEADLINE_SHARE * biggest.font_size:
        return RequirementResult.of(req, "pass", "heads its section", element=_where(block))
    msg = (
        f"“{block.text[:40]}” is set at {block.font_size:g} px under the bigger heading "
        f"“{biggest.text[:40]}” ({biggest.font_size:g} px): it does not head its section"
    )
    return RequirementResult.of(req, "fail", msg, element=block.section)


def _on_picture(req: Requirement, blocks: list[TextBlock], facts: PageFacts) -> RequirementResult:
    boxes = [p.rect for p in facts.pictures] + [v.rect for v in facts.videos]
    boxes += [c.rect for c in facts.charts]  # a map or chart the label overlays
    boxes = [b for b in boxes if b.area >= 2500]
    for block in blocks:
        area = block.rect.area or 1
        if any(_overlap(block.rect, b) >= OVERLAP * area for b in boxes):
            return RequirementResult.of(req, "pass", "on the picture", element=_where(block))
    block = blocks[0]
    if not boxes:
        msg = f"“{block.text[:40]}” has no picture to sit on"
    else:
        gap = min(_gap(block.rect, b) for b in boxes)
        msg = f"“{block.text[:40]}” sits beside the pictures, not on one ({gap:.0f} px away)"
    return RequirementResult.of(req, "fail", msg, element=_where(block))


def _gap(a: Box, b: Box) -> float:
    dx = max(b.x - (a.x + a.w), a.x - (b.x + b.w), 0.0)
    dy = max(b.y - (a.y + a.h), a.y - (b.y + b.h), 0.0)
    return (dx * dx + dy * dy) ** 0.5


def _above_heading(
    req: Requirement, blocks: list[TextBlock], facts: PageFacts
) -> RequirementResult:
    verdicts = []
    for block in blocks:
        headings = [
            b for b in facts.blocks
            if b.heading and b.section == block.section and b is not block
            and b.font_size > block.font_size * 1.2
        ]  # fmt: skip
        if not headings:
            continue
        main = max(headings, key=lambda b: (b.font_size, -b.rect.y))
        bottom = block.rect.y + block.rect.h
        # the heading of the label's own block (a card's title) or its section's main one
        own = [
            h for h in headings
            if bottom - 4 <= h.rect.y <= bottom + NEXT_HEADING_PX
            and _overlaps_x(h.rect, block.rect)
        ]  # fmt: skip
        above = bool(own) or bottom <= main.rect.y + 4
        verdicts.append((above, block, main))
        if above:
            return RequirementResult.of(req, "pass", "above its heading", element=_where(block))
    if not verdicts:
        return RequirementResult.of(req, "unchecked", "no heading in the label's section")
    _, block, main = verdicts[0]
    msg = f"“{block.text[:40]}” sits below the heading “{main.text[:40]}”, not above it"
    return RequirementResult.of(req, "fail", msg, element=_where(block))


def _overlaps_x(a: Box, b: Box) -> bool:
    return min(a.x + a.w, b.x + b.w) > max(a.x, b.x)


def _where(block: TextBlock) -> str | None:
    return block.owner or block.section
