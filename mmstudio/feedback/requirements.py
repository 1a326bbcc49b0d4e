"""Atomic, checkable requirements split from a turn's words and marks.

Offline (no model) the split is rule-based: one requirement per operation a clause names (text
change, colour, hide/show, move up/down, bigger/smaller, add a note, a style word, a chart type,
a new image / chart / video / text block from a labelled sketch box), its target taken from the
clause's words (an element id, a section name, "the video", "the headline") or from the marks the
clause belongs to. Compound clauses are cut at "and" before a new command ("make the title red and
hide the video"). A clause no rule understands is never dropped: it becomes a free requirement
(``op`` "free") that only the judge can check, and a turn without a judge lists it as not
understood. With a provider the split is a structured output (:mod:`mmstudio.feedback.provider`).
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, model_validator

from mmstudio.pipeline.charts import chart_kind
from mmstudio.render.model import Box

from .elements import PageElement, by_id
from .placement import locate
from .resolve import Mark

Aspect = Literal["design", "asset", "behaviour"]
Op = Literal[
    "text", "colour", "hide", "show", "move", "resize", "add_text", "tone", "chart_type",
    "insert", "feature", "free",
]  # fmt: skip
FAMILY = {
    "hide": "visibility", "show": "visibility", "add_text": "add", "insert": "add", "free": "free",
    "feature": "add",
}  # fmt: skip
NEEDS_TARGET = ("text", "hide", "show", "move", "resize", "add_text", "chart_type")
INSERT_KINDS = {
    "image": "image", "photo": "image", "picture": "image", "illustration": "image",
    "chart": "chart", "graph": "chart", "video": "video", "clip": "video", "film": "video",
    "text": "text", "note": "text", "label": "text", "caption": "text", "paragraph": "text",
}  # fmt: skip
_CHART_WORD = (
    r"(horizontal[ -]bar|stacked[ -](?:bar|column|area)|grouped[ -]bar|bar|column|line|area|pie"
    r"|donut|doughnut|scatter|bubble|radar|spider|gauge|funnel)s?"
)
_CHART_TYPE = re.compile(
    rf"\b(?:to|into|as|an?|instead of)\s+(?:an?\s+)?{_CHART_WORD}\b"
    rf"|\b{_CHART_WORD}\s+(?:chart|graph|plot)s?\s+instead\b|^\s*{_CHART_WORD}"
    r"(?:\s+(?:chart|graph|plot))?\s*$"
)
_COMMAND = re.compile(
    r"^(?:please\s+)?(?:make|hide|show|unhide|move|change|replace|rename|add|insert|remove|delete"
    r"|drop|colou?r|recolou?r|paint|turn|set|use|put|swap|enlarge|shrink|restore|bring|give"
    r"|switch|convert)\b"
    r"|^(?:please\s+)?[a-z]+\s+(?:the|a|an|this|that|these|those|it|its|all|every|our|my)\b"
)
TONES = ("warmer", "cooler", "darker", "brighter", "calmer", "bolder")
COLOURS = {
    "red": "#c0392b", "navy": "#1e3a5f", "blue": "#2563eb", "green": "#2f855a",
    "black": "#111111", "white": "#ffffff", "orange": "#dd6b20", "yellow": "#ecc94b",
    "purple": "#6b46c1", "pink": "#d53f8c", "grey": "#718096", "gray": "#718096",
    "brown": "#7b4a2d", "teal": "#2c7a7b", "gold": "#b7892b", "cream": "#f6efe0",
}  # fmt: skip
_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{1,300})[\"”'’]")
_LABEL = re.compile(rf"^\s*({'|'.join(INSERT_KINDS)})\s*:\s*(.+)$", re.I | re.S)
_HEX = re.compile(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b")
_CLAUSES = re.compile(r"(?:;|\n|\.\s+|,?\s+and then\s+|,?\s+then\s+|,\s+and\s+(?=[a-z]+\s))")
_END_IN_QUOTE = re.compile(r"([.!?])([\"”])(\s+)(?=[A-Z])")
_AND = re.compile(r",?\s+and\s+(?!then\b)")
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
    requirement on the same target and property, which retires this one. ``insert`` adds a new
    element (``value`` image | chart | video | text) to section ``target`` at ``place``;
    ``chart_type`` redraws chart ``target`` as ``value`` (a chart type word); ``feature`` builds
    the feature ``value`` names (a section with working kit components, controls, a menu link;
    ``content`` its :class:`~mmstudio.feedback.features.FeatureSpec` as JSON). ``aspect`` says
    what a requirement is about: how the page looks ("design"), the content of the target
    asset itself ("asset": what an image shows, a chart's data — a model applies it with a
    local refine) or what the page does ("behaviour": the judge proves it by driving the page).
    ``check_only`` marks a test condition (FronTalk): the critic checks it, nothing applies it.
    Ledger rows written before ``aspect`` existed marked behaviour with ``target_kind``
    "function"; they load as ``aspect`` "behaviour"."""

    id: str = ""
    turn: int = 0
    text: str
    op: Op = "free"
    target: str | None = None
    target_kind: str = ""
    aspect: Aspect = "design"
    check_only: bool = False
    value: str = ""
    anchor: str = ""
    section: str | None = None
    baseline: list[float] = Field(default_factory=list)
    other: str | None = None  # move: the sibling section it must end up above / below
    content: str = ""  # insert: the label text (the new asset's prompt, or the block's text)
    box: list[float] = Field(default_factory=list)  # insert: the sketch box x, y, w, h (page px)
    place: str = ""  # insert: "before:<id>" | "after:<id>" | "start" | "end" in its section
    superseded_by: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _legacy_behaviour(cls, data):
        """Rows written before ``aspect``: ``target_kind`` "function" meant behaviour."""
        if isinstance(data, dict) and data.get("target_kind") == "function":
            data = {**data, "target_kind": "page" if data.get("target") is None else ""}
            data.setdefault("aspect", "behaviour")
        return data

    @property
    def family(self) -> str:
        return FAMILY.get(self.op, self.op)

    @property
    def structural(self) -> bool:
        """Checked by measurement (True) or only by the judge (False)."""
        return self.op != "free"


def _mask(text: str) -> tuple[str, list[str]]:
    """``text`` with each quoted span replaced by a placeholder (quotes are content: never cut)."""
    quotes: list[str] = []

    def keep(match: re.Match) -> str:
        quotes.append(match.group(0))
        return f"\x00{len(quotes) - 1}\x00"

    return _QUOTED.sub(keep, text), quotes


def _unmask(text: str, quotes: list[str]) -> str:
    return re.sub("\x00(\\d+)\x00", lambda m: quotes[int(m.group(1))], text)


def clause_parts(text: str) -> list[tuple[str, bool]]:
    """``text`` cut into clauses at ';', newlines, sentence ends, "and then", and at "and" before
    a new command ("… and hide the video"); each with a flag that is True for a bare continuation
    ("make the title red and bigger" → "bigger", which takes the previous clause's target).
    An "and" before anything else stays inside its clause ("red and white")."""
    # a sentence ending inside a quote ('… and “Project Management Software.” Include …') ends
    # there too: its full stop goes after the quote, so the quote closes inside its clause
    text = _END_IN_QUOTE.sub(r"\2\1\3", text or "")
    masked, quotes = _mask(text)
    parts: list[tuple[str, bool]] = []
    for clause in _CLAUSES.split(masked):
        pieces = [p.strip(" .,") for p in _AND.split(clause or "")]
        current, continues = pieces[0], False
        for piece in pieces[1:]:
            if _COMMAND.match(piece.lower()) or _another_op(current, piece, quotes):
                parts.append((current, continues))
                current, continues = piece, not _COMMAND.match(piece.lower())
            else:
                current = f"{current} and {piece}"
        parts.append((current, continues))
    return [(_unmask(c, quotes), k) for c, k in parts if c.strip(" .,")]


def _another_op(clause: str, piece: str, quotes: list[str]) -> bool:
    """A short bare piece that asks for a different operation than its clause ("red and
    bigger": yes; "red and white": no, one colour)."""
    if len(piece.split()) > 3:
        return False
    op = parse_op(f"make it {_unmask(piece, quotes)}")
    before = parse_op(_unmask(clause, quotes))
    return op is not None and (before is None or before[0] != op[0])


def split_clauses(text: str) -> list[str]:
    """``text`` cut into clauses (see :func:`clause_parts`)."""
    return [clause for clause, _ in clause_parts(text)]


def _colour(clause: str) -> str | None:
    """The colour a clause names: a hex code, one of :data:`COLOURS`, else a designer's colour
    name ("terracotta", "forest green", "sage"; the evaluator's vocabulary of names)."""
    hexes = _HEX.findall(clause)
    if hexes:
        return hexes[0].lower()
    words = re.findall(r"[a-z]+", clause.lower())
    found = next((COLOURS[w] for w in words if w in COLOURS), None)
    text = " ".join(re.findall(r"[a-z]+(?:-[a-z]+)?", clause.lower()))
    for name, value in _named_colours():
        longer = found is None or " " in name or "-" in name  # "forest green" over "green"
        if longer and re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text):
            return value.lower()
    return found


def _named_colours() -> list[tuple[str, str]]:
    """(name, hex) of the colour names the brief reader knows, longest names first."""
    from mmstudio.requirements.text import vocabulary

    names = vocabulary().get("colour_names", {})
    return sorted(names.items(), key=lambda item: -len(item[0]))


def parse_op(clause: str) -> tuple[Op, str] | None:
    """(op, value) a clause asks for, or None when no offline rule understands it."""
    label = _LABEL.match(clause)
    if label:  # "image: a lighthouse at dusk" asks for a new element (text: a note block)
        kind = INSERT_KINDS[label.group(1).lower()]
        content = label.group(2).strip(" '\"“”")
        return ("add_text", content) if kind == "text" else ("insert", kind)
    low = _QUOTED.sub('""', clause.lower())  # words inside quotes are content, not commands
    quoted = _QUOTED.search(clause)
    if re.search(r"\b(add|insert)\b", low) and quoted:
        return "add_text", quoted.group(1).strip()
    if quoted and re.search(r"\b(change|replace|rename|say|says|read|reads|text|wording)\b", low):
        return "text", quoted.group(1).strip()
    chart = _CHART_TYPE.search(low)
    if chart and not re.search(r"\b(hide|remove|delete|drop|move)\b", low):
        return "chart_type", chart_kind(next(g for g in chart.groups() if g))
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
    """One requirement per operation in ``text`` and in each mark's notes (see module doc). A
    note on a box in free space that is a label ("chart: sales by month") or that no rule
    understands is kept whole: it asks for a new element there."""
    marked = [t for m in marks for t in m.targets]
    jobs = [(c, None, k) for c, k in clause_parts(text)]
    for mark in marks:
        for note in mark.notes:
            if _LABEL.match(note) or (_sketch_box(mark) and not _understood(note)):
                jobs.append((note.strip(), mark, False))
            else:
                jobs += [(c, mark, k) for c, k in clause_parts(note) or [(note, False)]]
    found: list[Requirement] = []
    previous: list[str] = []
    feature = ""  # the turn's feature so far: a later clause's button or search joins it
    last = ""
    for clause, mark, continues in jobs:
        # "…, each with a title, a brief description, and a “Learn More” button": the button
        # belongs to each entry, as the clause before says
        each = _EACH_WITH.search(last) and not _VERB_FIRST.match(clause)
        last = clause
        built = (
            _feature_requirement(f"each with {clause}" if each else clause, mark, feature)
            if not continues
            else None
        )
        if built is not None:
            built.text = clause
            feature = built.value or feature
            found.append(built)
            continue
        reqs = _clause_requirements(clause, mark, marked, elements, previous if continues else [])
        previous = [r.target for r in reqs if r.target] or previous
        found += reqs
    return found


_EACH_WITH = re.compile(
    r"\beach\s+(?:with|has|having|includ\w*|featur\w*|show\w*|display\w*)\b", re.I
)
_VERB_FIRST = re.compile(
    r"^\W*(?:[A-Z]\w+\s+)?(?:introduc|add|implement|integrat|creat|includ|incorporat|build"
    r"|provid|develop|ensur|use|make|enhanc|refin)\w*\b",
    re.I,
)


def _feature_requirement(clause: str, mark: Mark | None, previous: str) -> Requirement | None:
    """A ``feature`` requirement when the clause asks for a feature to be built (a named
    section, a control, a kit component: :func:`mmstudio.feedback.features.read_clause`) and no
    operation of its own (a colour, hide, move …) reads it better; None otherwise."""
    from .features import read_clause, read_page_drop

    if mark is not None and _sketch_box(mark):
        return None
    dropped = read_page_drop(clause)
    if dropped is not None:  # "remove the Pricing page": the page goes, and every link to it
        return Requirement(
            text=clause, op="feature", value=dropped.name, content=dropped.dumps(),
            target=None, target_kind="page", aspect="design",
        )  # fmt: skip
    op = parse_op(clause)
    if op is not None and op[0] not in ("add_text", "show", "tone"):
        return None
    spec = read_clause(clause, previous)
    if spec is None:
        return None
    if not spec.name and previous and not spec.region:
        spec.name = previous  # "Incorporate a “Random Comic” button": into the turn's feature
    return Requirement(
        text=clause, op="feature", value=spec.name, content=spec.dumps(),
        target=None, target_kind="page", aspect="behaviour" if spec.kits else "design",
    )  # fmt: skip


def _sketch_box(mark: Mark | None) -> bool:
    """A rectangle drawn in free space (it marks no element): a place for a new element."""
    return bool(mark and mark.free and mark.shape.kind == "rect")


def _understood(note: str) -> bool:
    return any(parse_op(c) for c in split_clauses(note))


def _clause_requirements(clause, mark, marked, elements, inherited=()) -> list[Requirement]:
    parsed = parse_op(clause) or (parse_op(f"make it {clause}") if inherited else None)
    targets = list(mark.targets) if mark else []
    targets = targets or _named_targets(clause, elements) or list(inherited) or marked
    label = _LABEL.match(clause)
    if _sketch_box(mark) and (label or parsed is None):
        kind = INSERT_KINDS[label.group(1).lower()] if label else "text"
        content = (label.group(2) if label else clause).strip(" '\"“”")
        return [insert_requirement(kind, content, clause, mark.shape.bounds(), elements)]
    if label and parsed and parsed[0] == "insert":  # a label with no box: at the section's end
        return [insert_requirement(parsed[1], label.group(2).strip(" '\"“”"), clause, None,
                                   elements, targets)]  # fmt: skip
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
    if op == "chart_type":
        targets = _chart_targets(clause, targets, elements)
    if op in NEEDS_TARGET and not targets:  # never hide / move / rewrite the whole page
        return [_requirement("free", "", clause, None, elements)]
    return [_requirement(op, value, clause, t, elements) for t in (targets or [None])]


def _chart_targets(clause: str, targets: list[str], elements: list[PageElement]) -> list[str]:
    """The charts a chart-type clause is about: marked or named charts, else the charts of the
    marked section, else the page's only chart."""
    charts = [e for e in elements if e.kind == "chart"]
    chosen = [t for t in targets if (by_id(elements, t) or _NONE).kind == "chart"]
    sections = {t for t in targets if (by_id(elements, t) or _NONE).kind == "section"}
    chosen = chosen or [e.id for e in charts if e.section in sections]
    chosen = chosen or [t for t in _named_targets(clause, elements) if t in {e.id for e in charts}]
    return chosen or ([charts[0].id] if len(charts) == 1 else [])


def insert_requirement(
    kind: str,
    content: str,
    clause: str,
    box: tuple[float, float, float, float] | None,
    elements: list[PageElement],
    targets: list[str] = (),
) -> Requirement:
    """A new ``kind`` element (image | chart | video | text) with ``content``, placed where the
    sketch ``box`` (x, y, w, h page px) is (see :func:`mmstudio.feedback.placement.locate`);
    without a box at the end of the named section (or of the last section)."""
    section, place, anchor = locate(box, elements, targets)
    return Requirement(
        text=clause, op="insert", value=kind, content=content, target=section,
        target_kind="section" if section else "page", section=section,
        box=list(box or ()), place=place, anchor=anchor,
    )  # fmt: skip


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


def _dropped_pages(earlier: list[Requirement], new: list[Requirement]) -> list[Requirement]:
    """Earlier feature requirements of a page a new one removes ("remove the Wholesale page"
    after "add a Wholesale page"): superseded by the removal, never repaired back."""
    from .features import FeatureSpec, overlap

    retired = []
    for drop in new:
        if drop.op != "feature" or '"drop": true' not in drop.content:
            continue
        name = FeatureSpec.loads(drop.content).name
        for old in earlier:
            if (
                old.op == "feature"
                and not old.superseded_by
                and old.value
                and (overlap(name, old.value) >= 0.6 or overlap(old.value, name) >= 0.6)
            ):
                old.superseded_by = drop.id
                retired.append(old)
    return retired


def supersede(earlier: list[Requirement], new: list[Requirement]) -> list[Requirement]:
    """Earlier active requirements that a new one replaces (same target, same property); their
    ``superseded_by`` is set. A later turn that explicitly changes a property is not forgetting."""
    retired = _dropped_pages(earlier, new)
    for old in earlier:
        if old.superseded_by or not old.structural or old.family == "add":
            continue
        later = next((n for n in new if n.target == old.target and n.family == old.family), None)
        if later is not None:
            old.superseded_by = later.id
            retired.append(old)
    return retired
