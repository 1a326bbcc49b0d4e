"""Atomic, checkable requirements split from a turn's words and marks.

Offline (no model) the split is rule-based: one requirement per operation a clause names (text
change, colour, hide/show, move up/down, bigger/smaller, add a note, a style word), its target
taken from the clause's words (an element id, a section name, "the video", "the headline") or
from the marks the clause belongs to. A clause no rule understands becomes a free requirement
(``op`` "free") that only the judge can check. With a provider the split is a structured output
(:mod:`mmstudio.feedback.provider`).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field

from mmstudio.render.model import Box

from .elements import PageElement, by_id
from .resolve import Mark

Op = Literal["text", "colour", "hide", "show", "move", "resize", "add_text", "tone", "free"]
FAMILY = {"hide": "visibility", "show": "visibility", "add_text": "add", "free": "free"}
NEEDS_TARGET = ("text", "hide", "show", "move", "resize", "add_text")
TONES = ("warmer", "cooler", "darker", "brighter", "calmer", "bolder")
COLOURS = {
    "red": "#c0392b", "navy": "#1e3a5f", "blue": "#2563eb", "green": "#2f855a",
    "black": "#111111", "white": "#ffffff", "orange": "#dd6b20", "yellow": "#ecc94b",
    "purple": "#6b46c1", "pink": "#d53f8c", "grey": "#718096", "gray": "#718096",
    "brown": "#7b4a2d", "teal": "#2c7a7b", "gold": "#b7892b", "cream": "#f6efe0",
}  # fmt: skip
_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{1,300})[\"”'’]")
_LABEL = re.compile(r"^\s*(?:text|note|label|caption)\s*:\s*(.+)$", re.I | re.S)
_HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")
_CLAUSES = re.compile(r"(?:;|\n|\.\s+|,?\s+and then\s+|,?\s+then\s+|,\s+and\s+(?=[a-z]+\s))")
_NONE = PageElement("", "", Box())
_KIND_WORDS = {
    "video": "video", "chart": "chart", "graph": "chart", "image": "image", "photo": "image",
    "picture": "image", "headline": "heading", "heading": "heading", "title": "heading",
}  # fmt: skip


class Requirement(BaseModel):
    """One checkable requirement of one turn. ``id`` "t<turn>.r<n>"; ``op`` what applies and
    checks it offline; ``target`` an element id (None: the page); ``value`` the text, colour
    (#rrggbb), direction (up | down), size (bigger | smaller) or style word; ``anchor`` the
    target's text when it was split (finds a text block that has no id yet); ``baseline``
    measurements before the turn (size px, mean colour 0–255); ``superseded_by`` a later
    requirement on the same target and property, which retires this one."""

    id: str = ""
    turn: int = 0
    text: str
    op: Op = "free"
    target: str | None = None
    target_kind: str = ""
    value: str = ""
    anchor: str = ""
    section: str | None = None
    baseline: list[float] = Field(default_factory=list)
    other: str | None = None  # move: the sibling section it must end up above / below
    superseded_by: str | None = None

    @property
    def family(self) -> str:
        return FAMILY.get(self.op, self.op)

    @property
    def structural(self) -> bool:
        """Checked by measurement (True) or only by the judge (False)."""
        return self.op != "free"


def split_clauses(text: str) -> list[str]:
    """``text`` cut into clauses at ';', newlines, sentence ends and "and then"."""
    return [c.strip(" .,") for c in _CLAUSES.split(text or "") if c and c.strip(" .,")]


def _colour(clause: str) -> str | None:
    hexes = _HEX.findall(clause)
    if hexes:
        return hexes[0].lower()
    words = re.findall(r"[a-z]+", clause.lower())
    return next((COLOURS[w] for w in words if w in COLOURS), None)


def parse_op(clause: str) -> tuple[Op, str] | None:
    """(op, value) a clause asks for, or None when no offline rule understands it."""
    label = _LABEL.match(clause)
    if label:  # a sketched box labelled "text: …" asks for a new text block there
        return "add_text", label.group(1).strip(" '\"“”")
    low = _QUOTED.sub('""', clause.lower())  # words inside quotes are content, not commands
    quoted = _QUOTED.search(clause)
    if re.search(r"\b(add|insert)\b", low) and quoted:
        return "add_text", quoted.group(1).strip()
    if quoted and re.search(r"\b(change|replace|rename|say|says|read|reads|text|wording)\b", low):
        return "text", quoted.group(1).strip()
    if re.search(r"\b(hide|remove|delete|drop)\b", low):
        return "hide", ""
    if re.search(r"\b(show|unhide|bring back|restore)\b", low):
        return "show", ""
    move = re.search(r"\bmove\b.*\b(up|down|higher|lower|earlier|later)\b", low)
    if move:
        return "move", "up" if move.group(1) in ("up", "higher", "earlier") else "down"
    if re.search(r"\b(bigger|larger|enlarge|grow|wider)\b", low):
        return "resize", "bigger"
    if re.search(r"\b(smaller|shrink|narrower|reduce)\b", low):
        return "resize", "smaller"
    tone = next((t for t in TONES if re.search(rf"\b{t}\b", low)), None)
    colour = _colour(clause)
    if colour and re.search(r"\b(colou?r|recolou?r|make|paint|turn|background)\b", low):
        return "colour", colour
    if tone:
        return "tone", tone
    return None


def _named_targets(clause: str, elements: list[PageElement]) -> list[str]:
    """Element ids a clause names: an id in backticks or plain, a section, a kind word."""
    low = clause.lower()
    ids = [
        e.id for e in elements if re.search(rf"(?<![\w-]){re.escape(e.id.lower())}(?![\w-])", low)
    ]
    specific = [i for i in ids if by_id(elements, i).kind != "section"]
    if specific:
        return specific[:1]
    section = ids[0] if ids else None
    for word, kind in _KIND_WORDS.items():
        if re.search(rf"\b{word}s?\b", low):
            found = [
                e for e in elements
                if _is_kind(e, kind) and (section is None or e.section == section)
            ]  # fmt: skip
            if found:
                return [found[0].id]
    return [section] if section else []


def _is_kind(element: PageElement, kind: str) -> bool:
    if kind == "heading":
        return element.tag in ("h1", "h2", "h3")
    return element.kind == kind


def _requirement(op: Op, value: str, clause: str, target: str | None, elements) -> Requirement:
    element = by_id(elements, target) if target else None
    return Requirement(
        text=clause, op=op, target=target, value=value,
        target_kind=element.kind if element else ("page" if target is None else ""),
        anchor=element.text if element and element.kind == "text" else "",
        section=element.section if element else None,
    )  # fmt: skip


def split_offline(text: str, marks: list[Mark], elements: list[PageElement]) -> list[Requirement]:
    """One requirement per operation in ``text`` and in each mark's notes (see module doc)."""
    marked = [t for m in marks for t in m.targets]
    jobs = [(c, None) for c in split_clauses(text)]
    for mark in marks:
        jobs += [(c, mark) for note in mark.notes for c in split_clauses(note) or [note]]
    found: list[Requirement] = []
    for clause, mark in jobs:
        found += _clause_requirements(clause, mark, marked, elements)
    return found


def _clause_requirements(clause, mark, marked, elements) -> list[Requirement]:
    parsed = parse_op(clause)
    targets = list(mark.targets) if mark else []
    targets = targets or _named_targets(clause, elements) or marked
    if (
        parsed is None
        and mark is not None
        and targets
        and _is_plain_text(clause, targets, elements)
    ):
        parsed = ("text", clause.strip(" '\"“”"))  # a note on a text block: its new text
    if parsed is None:
        return [_requirement("free", "", clause, targets[0] if targets else None, elements)]
    op, value = parsed
    if op == "text":
        value, targets = _text_target(clause, value, targets, elements)
    if op in NEEDS_TARGET and not targets:  # never hide / move / rewrite the whole page
        return [_requirement("free", "", clause, None, elements)]
    return [_requirement(op, value, clause, t, elements) for t in (targets or [None])]


def _text_target(clause, value, targets, elements) -> tuple[str, list[str]]:
    """A text change names the block by a quote of its current text ("change 'Old' to 'New'")
    or by a section (its heading); the new text is the last quote."""
    quotes = [q.strip() for q in _QUOTED.findall(clause)]
    value = quotes[-1] if quotes else value
    section = next((t for t in targets if (by_id(elements, t) or _NONE).kind == "section"), None)
    texts = [e for e in elements if e.kind == "text" and (section is None or e.section == section)]
    if len(quotes) >= 2:
        old = " ".join(quotes[0].split()).lower()
        hit = next((e for e in texts if old in " ".join(e.text.split()).lower()), None)
        if hit is not None:
            return value, [hit.id]
    if section is not None:
        heading = next((e for e in texts if e.tag in ("h1", "h2", "h3")), None)
        return value, [heading.id] if heading else targets
    return value, targets


def _is_plain_text(clause: str, targets: list[str], elements: list[PageElement]) -> bool:
    element = by_id(elements, targets[0])
    return bool(element and element.kind == "text" and _QUOTED.fullmatch(clause.strip()))


def number(requirements: list[Requirement], turn: int) -> list[Requirement]:
    """Give each requirement its turn and id ("t3.r1", …)."""
    for n, req in enumerate(requirements, start=1):
        req.turn, req.id = turn, f"t{turn}.r{n}"
    return requirements


def supersede(earlier: list[Requirement], new: list[Requirement]) -> list[Requirement]:
    """Earlier active requirements that a new one replaces (same target, same property); their
    ``superseded_by`` is set. A later turn that explicitly changes a property is not forgetting."""
    retired = []
    for old in earlier:
        if old.superseded_by or not old.structural or old.op == "add_text":
            continue
        later = next((n for n in new if n.target == old.target and n.family == old.family), None)
        if later is not None:
            old.superseded_by = later.id
            retired.append(old)
    return retired
