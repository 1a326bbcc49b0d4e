"""Pass and check: how the brief sets a named piece of copy — bold, italic, underlined, upper
case, a size in px, centred / right- or left-aligned ("“Quick Actions” in bold charcoal", "a bold
centered title “NovaQuest Live Ops KPI Dashboard”", "“Download Abstract (PDF)” in 12px,
underlined").

The words are read from the clause around a run of quoted labels, as the element colours are
(:mod:`.element_colours`): after the quotes up to :data:`AFTER` characters, before them up to
:data:`BEFORE`, each cut at the sentence's end, at another quote and at words that bring in the
next element ("followed by", "with", "and a"). One requirement per property asked (kind
``font``, ``role`` = ``bold`` | ``italic`` | ``underline`` | ``upper`` | ``size`` | ``center``
| ``right`` | ``left``; ``values`` = the labels; ``numbers`` = ``[px]`` for a size).

On the page the element is the smallest block whose whole text is the label; the property passes
when one such block has it (computed style after CSS, so ``text-transform`` counts):

- bold: ``font-weight`` ≥ 600; italic: ``font-style`` italic or oblique;
- underline: ``text-decoration`` underline (its own or a link's inside it) or a bottom border;
- upper case: every letter of the rendered text is a capital;
- size: within ``max(1 px, 12 %)`` of the px asked;
- centred: ``text-align: center``, or the glyphs' box centred in the element's own box or on its
  section (± 6 % of the width);
  right: ``text-align`` right / end or the glyphs ending within 8 % of the section's right edge;
  left: ``text-align`` left / start / justify.

A label that is not on the page is ``unchecked`` here (the copy check reports it missing).
"""

from __future__ import annotations

import re

from mmstudio.render.facts import PageFacts, TextBlock

from .copy import _NAMED_PART, _role, _runs
from .model import Requirement, RequirementResult
from .text import fold, span, strip_label

BEFORE, AFTER = 55, 60
MAX_WORDS = 12

#: words that bring in the next element: the clause ends there
_NEXT = re.compile(
    r",?\s+(?:followed by|then|next to|beside|with an?|with the|while|whereas|alongside"
    r"|(?:below|beneath|above|under) (?:it|this|that))\s"
    # "bold and centered" is one element's; ", and beneath it", "and a line", "… and “" are not
    r"|,\s+and\s|\s+and\s+(?=(?:an?|the|its|their|then)\s|$)|\s+and\s*$",
    re.I,
)
_CUT = re.compile(r"[.;:!?\n]\s|[“”\"]|\n")

_BOLD = re.compile(
    r"\b(?:bold|bolder|semi-?bold|extra-?bold|heavy)\b"
    r"(?!\s+(?:colou?rs?|palette|accents?|look|style|graphics?|shapes?|illustrations?|pops?|hues?"
    r"|tones?|contrast|gradient|blocks? of colou?r))",
    re.I,
)
_ITALIC = re.compile(r"\bitali(?:c|cs|cized|cised)\b", re.I)
_UNDERLINE = re.compile(r"\bunderlin(?:e|ed)\b", re.I)
_UPPER = re.compile(r"\b(?:upper-?case|all[- ]caps|in caps|in capitals|capitali[sz]ed)\b", re.I)
_SIZE = re.compile(
    r"(?<![\w.-])(\d{1,2}(?:\.5)?)\s?px\b(?!\s*(?:[-,]?\s*)?(?:tall|high|wide|gap|gutter|border"
    r"|radius|padding|margin|line|stroke|spacing|apart|corners?|rounded|thick|outline|blur))",
    re.I,
)
_SIZE_BEFORE = re.compile(
    r"(?:radius|gap|border|padding|margin|spacing|line-height|tracking|stroke|of|every|by)\s*(?:of\s*)?$",
    re.I,
)
_CENTER = re.compile(
    r"\b(?:cent(?:ered|red)|cent(?:er|re)-aligned|aligned (?:in the )?cent(?:er|re))\b"
    r"(?!\s+(?:of|on|in|within|under|over|below|above)\b)",
    re.I,
)
_RIGHT = re.compile(r"\b(?:right[- ]aligned|aligned (?:to the )?right|flush right)\b", re.I)
_LEFT = re.compile(r"\b(?:left[- ]aligned|aligned (?:to the )?left|flush left)\b", re.I)
_NEGATION = re.compile(r"\b(?:not|never|no|without|rather than|instead of)\s+(?:\w+\s+)?$", re.I)

PROPERTIES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("bold", _BOLD, "bold"),
    ("italic", _ITALIC, "italic"),
    ("underline", _UNDERLINE, "underlined"),
    ("upper", _UPPER, "in capitals"),
    ("center", _CENTER, "centred"),
    ("right", _RIGHT, "right-aligned"),
    ("left", _LEFT, "left-aligned"),
)


#: an element noun after the descriptor: the words introduce the next quote ("label “TOOLS”,
#: bold subheading “Only what you can carry…”")
_INTRO_NOUN = re.compile(
    r"\b(?:sub)?(?:heading|headline|title|button|text|line|label|caption|tagline|link|name)s?\b",
    re.I,
)


def _clause_after(text: str, end: int) -> str:
    tail = text[end + 1 : end + 1 + AFTER]
    m = _CUT.search(tail)
    if m and m.group().startswith("“") and _INTRO_NOUN.search(tail[: m.start()]):
        return ""  # the words up to the next quote are that quote's introduction
    tail = tail[: m.start()] if m else tail
    m = _NEXT.search(tail)
    return tail[: m.start()] if m else tail


def _clause_before(text: str, start: int) -> str:
    head = text[max(0, start - 1 - BEFORE) : start - 1]
    cut = max(head.rfind(m) for m in (". ", "\n", "; ", "”", '"'))
    head = head[cut + 1 :] if cut >= 0 else head
    hits = list(_NEXT.finditer(head))
    return head[hits[-1].end() :] if hits else head


def _asked(clause: str, pattern: re.Pattern[str]) -> bool:
    return any(not _NEGATION.search(clause[: m.start()]) for m in pattern.finditer(clause))


def _size(clause: str) -> float | None:
    for m in _SIZE.finditer(clause):
        if not _SIZE_BEFORE.search(clause[: m.start()]) and 8 <= float(m.group(1)) <= 96:
            return float(m.group(1))
    return None


def extract_typography(text: str, source: str = "prompt") -> list[Requirement]:
    """One requirement per property the brief gives a run of quoted labels (see the module)."""
    found: list[Requirement] = []
    for run in _runs(text):
        labels = [strip_label(q) for q, *_ in run]
        # a lower-case word in scare quotes is a design idea ("tags"), not a label on the page
        labels = [
            v for v in labels
            if v and len(v.split()) <= MAX_WORDS and any(c.isupper() or c.isdigit() for c in v)
        ]  # fmt: skip
        if not labels:
            continue
        start, end = run[0][1], run[-1][2]
        if _NAMED_PART.match(text[end : end + 40]):
            continue  # "a prominent “Tickets & Call to Action” section, centered": a name
        after, before = _clause_after(text, end), _clause_before(text, start)
        nav = _role(text, start) == "nav"
        logo = bool(_LOGO.search(before))
        where = span(text, max(0, start - 1 - len(before)), end + 1 + len(after), source)
        shown = f"“{labels[0]}”{' …' if len(labels) > 1 else ''}"
        for role, pattern, words in PROPERTIES:
            if not (_asked(after, pattern) or _asked(before, pattern)):
                continue
            if role == "upper" and all(v == v.upper() for v in labels):
                continue  # the quote is in capitals already: the copy check reads its case
            found.append(_requirement(role, f"{shown} {words}", labels, where, nav, logo))
        px = _size(after) or _size(before)
        if px is not None:
            req = _requirement("size", f"{shown} at {px:g} px", labels, where, nav, logo)
            req.numbers = [px]
            found.append(req)
    return found


#: the clause before the quote names the logo: its words are the header's brand link
_LOGO = re.compile(r"\b(?:logo(?:type)?|wordmark|brand(?:\s+name)?)\b", re.I)


def _requirement(
    role: str, label: str, labels: list[str], where, nav: bool, logo: bool = False
) -> Requirement:
    """``subject`` says which element the brief describes: "nav" for its menu's links, "logo"
    for the header's brand link, else "" (a heading or copy of that name: the menu's link of
    the same words is another element)."""
    subject = "nav" if nav else "logo" if logo else ""
    return Requirement(
        id="", kind="font", key=labels[0], role=role, label=role, values=labels, text=label,
        span=where, severity="minor", checker="typography", subject=subject,
    )  # fmt: skip


def _blocks(req: Requirement, facts: PageFacts) -> list[TextBlock]:
    """Per label, the smallest blocks whose whole text is the label (the element itself)."""
    from .checks import folded_blocks

    wanted = {fold(v) for v in req.values}
    rows = folded_blocks(facts)
    best: dict[str, float] = {}
    hits = [(b, row[1]) for b, row in zip(facts.blocks, rows, strict=True) if row[1] in wanted]
    if req.kind == "font" and req.subject not in ("nav", "logo"):  # a heading's is not its link's
        hits = [(b, key) for b, key in hits if not (b.header and b.link)]
    if req.subject == "logo" and any(b.header for b, _ in hits):
        hits = [(b, key) for b, key in hits if b.header]  # the logo: the header's brand
    for block, key in hits:
        best[key] = min(best.get(key, float("inf")), block.rect.area)
    return [b for b, key in hits if b.rect.area <= best[key] * 1.05]


def _section_box(block: TextBlock, facts: PageFacts):
    for section in facts.sections:
        if block.section and section.id == block.section:
            return section.rect
    return None


HUG_PX = 8  # an element at most this much wider than its glyphs hugs them


def _widest_same(block: TextBlock, facts: PageFacts):
    """The box of the widest element whose whole text is ``block``'s and that holds it, when
    it is wider than the glyphs (the heading or bar around a hugging link); else None."""
    ink = block.ink or block.rect
    key = fold(block.text)
    boxes = [
        b.rect for b in facts.blocks
        if b.section == block.section and b.rect.w > ink.w + HUG_PX and fold(b.text) == key
        and b.rect.x <= ink.x + 1 and b.rect.x + b.rect.w >= ink.x + ink.w - 1
    ]  # fmt: skip
    return max(boxes, key=lambda r: r.w, default=None)


def _has(role: str, block: TextBlock, facts: PageFacts, px: float | None) -> bool:
    if role == "bold":
        return block.font_weight >= 600
    if role == "italic":
        return block.italic
    if role == "underline":
        return block.underline
    if role == "upper":
        letters = [c for c in block.text if c.isalpha()]
        return bool(letters) and all(c == c.upper() for c in letters)
    if role == "size":
        return px is not None and abs(block.font_size - px) <= max(1.0, 0.12 * px)
    ink = block.ink or block.rect
    box = _section_box(block, facts)
    if role == "center":  # in its own box (a button hugging its label) or on its section
        own = block.rect
        if block.align == "center":
            return True
        if not block.button and own.w <= ink.w + HUG_PX:
            # a link or span hugging its text is centred in itself whatever the page does:
            # judge it in the widest element showing just this text (the h1 around the link)
            own = _widest_same(block, facts) or box or own
        if abs(ink.x + ink.w / 2 - (own.x + own.w / 2)) <= 0.06 * own.w:
            return True
        return box is not None and abs(ink.x + ink.w / 2 - (box.x + box.w / 2)) <= 0.06 * box.w
    if role == "right":
        if block.align in ("right", "end"):
            return True
        return box is not None and box.x + box.w - (ink.x + ink.w) <= 0.08 * box.w
    if role == "left":
        return block.align in ("left", "start", "justify")
    return False


def _seen(role: str, block: TextBlock) -> str:
    """What the page does instead, in a designer's words."""
    if role == "bold":
        return f"weight {block.font_weight}"
    if role == "size":
        return f"{block.font_size:g} px"
    if role in ("center", "right", "left"):
        return f"aligned {block.align}"
    if role == "upper":
        return f"set as “{block.text[:40]}”"
    return {"italic": "upright", "underline": "no underline"}.get(role, "")


def check_typography(req: Requirement, facts: PageFacts) -> RequirementResult:
    blocks = _blocks(req, facts)
    if not blocks:
        return RequirementResult.of(req, "unchecked", "the labelled element is not on the page")
    px = req.numbers[0] if req.numbers else None
    good = [b for b in blocks if _has(req.role, b, facts, px)]
    if good:
        where = good[0].owner or good[0].section
        return RequirementResult.of(req, "pass", "set as asked", element=where)
    first = blocks[0]
    asked = req.text.split("” ", 1)[-1].removeprefix("… ")
    msg = f"“{first.text[:40]}” is not {asked}: {_seen(req.role, first)}"
    return RequirementResult.of(
        req, "fail", msg, element=first.owner or first.section, labels=req.values[:8],
        css=_css(req.role, px),
    )  # fmt: skip


def _css(role: str, px: float | None) -> dict[str, str]:
    """The CSS declarations that set a label as asked (what the refine rule applies)."""
    return {
        "bold": {"font-weight": "700"},
        "italic": {"font-style": "italic"},
        "underline": {"text-decoration": "underline"},
        "upper": {"text-transform": "uppercase"},
        "size": {"font-size": f"{px:g}px"} if px else {},
        "center": {"text-align": "center"},
        "right": {"text-align": "right"},
        "left": {"text-align": "left"},
    }.get(role, {})
