"""Pass and check: how the brief arranges a section's parts, read from the render's boxes.

Requirements of kind ``layout`` with ``checker`` ``arrangement``:

- ``stack`` — items the brief stacks ("three vertically stacked cards", "a three-step process
  presented as stacked blocks rather than a horizontal row", "three full-width bands stacked
  vertically", "four stacked KPI tiles"); ``count`` = how many. It fails when the section lays
  ``count`` or more of its items side by side: a row (:class:`~mmstudio.render.facts.RowFact`)
  of at least two abreast, holding ``count`` or more, at least half the section's width.
- ``side`` — a picture the brief puts beside the text ("On the right side of the hero section
  … is a large, vertically oriented hero image"); ``values[0]`` = ``right`` | ``left``. It
  fails when the section's largest picture sits below or above its main heading instead of
  beside it, or on the other side; ``unchecked`` when the section shows no picture (the image
  check reports a missing one) or has no heading.

The section is the one the brief is describing there (:func:`.structure.section_at`), or the one
holding the quoted title the brief gives just before (a card "labeled “Realtime Snapshot”").
A directive whose section cannot be found on the page is ``unchecked``, never a pass.
"""

from __future__ import annotations

import re

from mmstudio.render.facts import PageFacts, RowFact, SectionFact

from .model import Requirement, RequirementResult
from .text import fold, quotes, sentence_bounds, span, without_quotes

_N = r"(two|three|four|five|six|2|3|4|5|6)"
_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
#: "three vertically stacked cards", "four stacked KPI tiles", "a three-step process presented
#: as stacked blocks", "three full-width bands stacked vertically"
_STACKED = re.compile(
    rf"\b{_N}(?:[- ][a-z]+)?\s+(?:[a-z-]+,?\s+){{0,4}}?(?:vertically\s+)?stacked\b"
    r"(?:\s+(?:[a-z-]+\s+)?(?:blocks|cards|tiles|rows|bands|panels|items|steps|boxes|quotes"
    r"|bullet\s+points)\b)?"
    rf"|\b{_N}\s+(?:[a-z-]+\s+){{0,3}}?[a-z]+s\s+stacked\s+(?:vertically|one\s+(?:above|on\s+top))",
    re.I,
)
_NOT = re.compile(r"\b(?:not|rather than|instead of|never|no)\s+(?:[a-z-]+\s+){0,2}$", re.I)
_PICTURE = r"(?:image|photo|photograph|picture|illustration|portrait|artwork)"
#: "On the right side of the hero section, … is a large, vertically oriented hero image"
_SIDE = re.compile(
    r"\b(?:on|to|at|along)\s+the\s+(right|left)(?:[- ]hand)?(?:\s+side)?"
    r"(?:\s+of\s+(?:the\s+|this\s+)?([a-z-]+)(?:\s+(?:section|area|band|block))?)?,?\s+"
    r"[^.;:]{0,90}?\b(?:is|sits|shows|there\s+is|features|displays|holds)\s+"
    rf"(?:an?\s+|the\s+)?(?:[a-z-]+,?\s+){{0,4}}?{_PICTURE}s?\b",
    re.I,
)
_NOT_A_SECTION = re.compile(rf"^(?:{_PICTURE}|card|panel|page|button|logo|text|screen)s?$", re.I)
_SECTIONS = {"hero", "header", "footer", "pricing", "about", "contact", "gallery", "features"}
#: "the left two-thirds of the page", "On the right one-third of the hero", "occupying
#: roughly two-thirds of the width and aligned to the left"
_THIRDS = re.compile(
    r"\b(left|right)\s+(two[- ]thirds|one[- ]third|third)\b"
    r"|\b(two[- ]thirds|one[- ]third)\s+of\s+the\s+(?:width|grid|page|row|section)\b"
    r"[^.;]{0,40}?\b(left|right)\b",
    re.I,
)
_LAYERED = re.compile(r"\b(?:float(?:s|ing)?|overlaid|overlay(?:s|ing)?|hover(?:s|ing)?)\b", re.I)
THIRDS_TOLERANCE = 0.06  # share of the row's width: 0.61–0.73 reads as two-thirds
SIDE_GAP_PX = 40  # the picture's top at most this far below the heading's bottom: beside it


def extract_arrangement(text: str, source: str = "prompt") -> list[Requirement]:
    """One requirement per stacked group and per picture placed beside the text."""
    from .structure import section_at

    plain = without_quotes(text)
    found: list[Requirement] = []
    for m in _STACKED.finditer(plain):
        if _NOT.search(plain[max(0, m.start() - 30) : m.start()]):
            continue
        word = (m.group(1) or m.group(2)).lower()
        n = int(word) if word.isdigit() else _NUMBERS[word]
        if n < 3:
            continue  # two stacked halves may be one card's: boxes cannot tell
        where, titles = section_at(text, m.start())
        titles = _titles_before(text, m.start()) + titles
        if not where and not titles:
            continue
        phrase = " ".join(m.group(0).split())
        found.append(
            Requirement(
                id="", kind="layout", key=phrase, text=f"{n} items stacked, not side by side",
                span=span(text, m.start(), m.end(), source), severity="minor",
                checker="arrangement", role="stack", count=n, label=where, values=titles,
            )
        )  # fmt: skip
    for m in _SIDE.finditer(plain):
        side, named = m.group(1).lower(), (m.group(2) or "").lower()
        if named and _NOT_A_SECTION.match(named):
            continue  # "on the right side of the illustration": inside a picture
        where, titles = section_at(text, m.start())
        if named in _SECTIONS:
            where = named
        titles = _titles_before(text, m.start()) + titles
        if not where and not titles:
            continue
        found.append(
            Requirement(
                id="", kind="layout", key=f"picture on the {side} side",
                text=f"The picture on the {side} of the text" + _in(where),
                span=span(text, m.start(), m.end(), source), severity="minor",
                checker="arrangement", role="side", label=where, values=[side, *titles],
            )
        )  # fmt: skip
    found += _thirds(text, plain, source)
    return found


def _thirds(text: str, plain: str, source: str) -> list[Requirement]:
    """Two columns split in thirds, one requirement per section (``ratio`` left to right)."""
    from .structure import section_at

    found: list[Requirement] = []
    seen: set[str] = set()
    for m in _THIRDS.finditer(plain):
        side = (m.group(1) or m.group(4)).lower()
        share = (m.group(2) or m.group(3)).lower()
        wide = share.startswith("two")
        ratio = [2 / 3, 1 / 3] if wide == (side == "left") else [1 / 3, 2 / 3]
        s0, s1 = sentence_bounds(plain, m.start())
        if _LAYERED.search(plain[s0:s1]):
            continue  # a panel floating over a video takes a share of it: no columns
        where, titles = section_at(text, m.start())
        titles = _titles_before(text, m.start()) + titles
        if where in ("header", "footer", "nav") or (not where and not titles):
            continue  # "In the left third of this header is the logo": no two columns
        slot = where or str(text.rfind("\n", 0, m.start()))  # one split per paragraph
        if slot in seen:
            continue
        seen.add(slot)
        found.append(
            Requirement(
                id="", kind="layout", key=f"{side} {share}",
                text="Two columns at " + " / ".join("⅔" if r > 0.5 else "⅓" for r in ratio)
                + _in(where),
                span=span(text, m.start(), m.end(), source), severity="minor",
                checker="arrangement", role="thirds", ratio=ratio, label=where, values=titles,
            )
        )  # fmt: skip
    return found


def _in(where: str) -> str:
    return f" in the {where}" if where else ""


def _titles_before(text: str, at: int) -> list[str]:
    """The quoted titles of the sentence before ``at`` and of its own sentence, nearest first
    (a section "titled “How Evergreen Guide Works”", a card "labeled “Realtime Snapshot”")."""
    s0, _ = sentence_bounds(text, at)
    p0, _ = sentence_bounds(text, max(0, s0 - 2))
    near = [q for q, start, _ in quotes(text) if p0 <= start < at and 2 < len(q) <= 60]
    return [q.strip().rstrip(",;.").strip() for q in reversed(near)][:3]


def scope_of(req: Requirement, facts: PageFacts, titles: list[str]) -> SectionFact | None:
    """The section ``req`` is about: the one showing one of the brief's ``titles`` for it
    (a heading first, never a nav link), else the one its section name (``label``) finds."""
    from .checks import find_section

    folded = {fold(t).rstrip(".") for t in titles}
    lo, hi = min(map(len, folded), default=0) - 3, max(map(len, folded), default=0) + 3
    # the section of the title the brief gives this part: a heading first, never a nav link
    hits = [
        b for b in facts.blocks
        if b.section and not b.header and lo <= len(b.text) <= hi  # cheap before folding
        and fold(b.text).rstrip(".") in folded
    ]  # fmt: skip
    for block in sorted(hits, key=lambda b: not b.heading):
        hit = next((s for s in facts.sections if s.id == block.section), None)
        if hit is not None and hit.tag not in ("header", "nav"):
            return hit
    return find_section(req.label, facts, titles) if req.label else None


def in_scope(rows: list[RowFact], scope: SectionFact) -> list[RowFact]:
    """The rows of ``scope``: by their section id, or, unowned, by where they start."""
    top, bottom = scope.rect.y, scope.rect.y + scope.rect.h
    return [r for r in rows if r.section == scope.id or (not r.section and top <= r.y < bottom)]


def check_arrangement(req: Requirement, facts: PageFacts) -> RequirementResult:
    if req.role == "stack":
        return _stack(req, facts)
    if req.role == "thirds":
        return _thirds_check(req, facts)
    return _side(req, facts)


def _thirds_check(req: Requirement, facts: PageFacts) -> RequirementResult:
    scope = scope_of(req, facts, req.values)
    if scope is None:
        return RequirementResult.of(req, "unchecked", "the section is not on the page")
    rows = [
        r for r in in_scope(facts.rows, scope) if r.per_row == 2 and r.width >= 0.6 * scope.rect.w
    ]
    where = scope.heading[:40] or scope.id
    if not rows:
        msg = f"“{where}” is not split in thirds: no two columns across it"
        return RequirementResult.of(req, "fail", msg, element=scope.id or None)
    shares = [[w / (sum(r.widths) or 1) for w in r.widths] for r in rows]
    error, best = min(
        (max(abs(a - b) for a, b in zip(s, req.ratio, strict=True)), s) for s in shares
    )
    shown = " / ".join(f"{s:.0%}" for s in best)
    if error <= THIRDS_TOLERANCE:
        return RequirementResult.of(req, "pass", f"columns {shown}", element=scope.id or None)
    msg = f"the columns of “{where}” are {shown}, not split in thirds"
    return RequirementResult.of(
        req, "fail", msg, element=scope.id or None, shares=[round(s, 2) for s in best]
    )


def _stack(req: Requirement, facts: PageFacts) -> RequirementResult:
    scope = scope_of(req, facts, req.values)
    if scope is None:
        return RequirementResult.of(req, "unchecked", "the section is not on the page")
    n = req.count or 0
    rows = [
        r for r in in_scope(facts.rows, scope)
        if r.per_row >= 2 and r.total >= n and r.width >= 0.5 * scope.rect.w
    ]  # fmt: skip
    where = scope.heading[:40] or scope.id
    if not rows:
        return RequirementResult.of(req, "pass", f"nothing laid side by side in “{where}”",
                                    element=scope.id or None)  # fmt: skip
    row = max(rows, key=lambda r: r.per_row)
    msg = (
        f"the items of “{where}” sit {row.per_row} abreast ({row.total} in a row-wise grid), "
        f"not stacked as the brief asks"
    )
    return RequirementResult.of(
        req, "fail", msg, element=scope.id or None, per_row=row.per_row, total=row.total
    )


def _side(req: Requirement, facts: PageFacts) -> RequirementResult:
    side, titles = req.values[0], req.values[1:]
    scope = scope_of(req, facts, titles)
    if scope is None:
        return RequirementResult.of(req, "unchecked", "the section is not on the page")
    pictures = [p for p in facts.pictures if p.section == scope.id and p.rect.area >= 20_000]
    headings = [
        b for b in facts.blocks
        if b.section == scope.id and b.heading and not b.header and b.rect.area > 0
    ]  # fmt: skip
    if not pictures or not headings:
        return RequirementResult.of(req, "unchecked", "no picture and heading to compare here")
    picture = max(pictures, key=lambda p: p.rect.area)
    heading = max(headings, key=lambda b: (b.font_size, -b.rect.y))
    pic, head = picture.rect, heading.ink or heading.rect
    where = scope.heading[:40] or scope.id
    if pic.y >= head.y + head.h + SIDE_GAP_PX or pic.y + pic.h <= head.y:
        msg = (
            f"the picture of “{where}” sits {'below' if pic.y > head.y else 'above'} its "
            f"heading, not on the {side} of the text"
        )
        return RequirementResult.of(req, "fail", msg, element=picture.owner or scope.id)
    centre, text_centre = pic.x + pic.w / 2, head.x + head.w / 2
    if (centre > text_centre) != (side == "right"):
        other = "left" if side == "right" else "right"
        msg = f"the picture of “{where}” is on the {other} of the text, not the {side}"
        return RequirementResult.of(req, "fail", msg, element=picture.owner or scope.id)
    return RequirementResult.of(req, "pass", f"on the {side} of the text",
                                element=picture.owner or scope.id)  # fmt: skip
