"""The offline planner: a deterministic, rule-based reader of long design prompts → DesignPlan.

MM-WebAgent §3 (hierarchical planning) without a model: the prompt's sentences are grouped into
sections in the order it describes them; every quoted string is placed in the slot its wording
names (nav item, button, headline, tag, KPI, caption, …); hex and named colours get palette roles;
every image, video and chart the prompt asks for becomes a sized element plan whose ``prompt`` is
the prompt's own sentences about it; dataset tables feed charts, KPI tiles and tables.

Public API: :func:`plan_from_prompt`. Pure and fast (≈ tens of ms for a 22k-character prompt).
"""

from __future__ import annotations

import bisect
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from mmstudio.plan import DesignPlan, SectionItem
from mmstudio.providers.offline import planner_assembly as assembly
from mmstudio.providers.offline import planner_elements as element_rules
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import planner_style as style
from mmstudio.providers.offline import vocabulary as vocab

log = logging.getLogger(__name__)

_GLOBAL_START = re.compile(
    r"^(?:throughout|overall|the (?:entire|whole|overall) (?:page|site|design|layout)|all titles|"
    r"across the (?:page|site)|globally|in general|the page (?:should|must) feel)\b",
    re.I,
)
_REFERENCE = re.compile(
    r"\b(?:below|beneath|under|underneath|after|following|above|from|than|as|like|of|to|into|"
    r"toward|towards|with|in)\s+(?:the|this|that|its)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:header|hero|footer|section|band|strip|panel|tiles?|title|nav(?:igation)?)\b",
    re.I,
)
_VERTICAL = (
    "at the very top", "at the top of the page", "at the top", "directly beneath", "directly below",
    "directly under", "right below", "just below", "below", "beneath", "underneath", "under",
    "next", "then", "following", "after", "further down", "further", "near the bottom",
    "at the bottom", "at the very bottom", "finally", "scrolling", "continue", "to close",
)  # fmt: skip
_LIST_GAP = re.compile(r"^[\s,;:.]*(?:(?:and|or|then|&|plus)\b)?[\s,]*$", re.I)


@dataclass
class Draft:
    """A section under construction: its kind, prose units, slot contents and elements."""

    kind: str
    units: list[pt.Unit] = field(default_factory=list)
    slots: dict[str, list] = field(default_factory=dict)
    elements: list[element_rules.ElementDraft] = field(default_factory=list)
    table: pt.Table | None = None

    def first(self, slot: str) -> str:
        """The first string placed in ``slot`` ("" when empty)."""
        values = self.slots.get(slot) or [""]
        return values[0] if isinstance(values[0], str) else ""

    def add(self, slot: str, value: object) -> None:
        """Append ``value`` to ``slot``."""
        self.slots.setdefault(slot, []).append(value)

    @property
    def text(self) -> str:
        """The section's own sentences, joined."""
        return " ".join(u.text for u in self.units)


def plan_from_prompt(prompt: str) -> DesignPlan:
    """Plan a page from a design prompt.

    Returns a validated :class:`DesignPlan`; raises ``ValueError`` for an empty prompt."""
    if not prompt or not prompt.strip():
        raise ValueError("the design prompt is empty")
    prose, dataset = pt.split_dataset(prompt)
    units = pt.split_units(prose)
    title = find_title(prose)
    drafts, global_units = segment(units, title)
    bans = element_rules.banned_modalities(units, global_units)
    for draft in drafts:
        draft.elements = element_rules.find_elements(draft.units, draft.kind, bans)
    place_quotes(prose, units, drafts, global_units)
    tables = pt.parse_tables(dataset)
    page_kind = find_page_kind(units[0].text if units else prose[:400], prose)
    layout = style.global_layout(prompt, prose, units, global_units, page_kind,
                                 _scope(units, drafts))  # fmt: skip
    return assemble(title, page_kind, layout, drafts, tables)


def _scope(units: list[pt.Unit], drafts: list[Draft]) -> Callable[[int], str]:
    """``scope(offset)`` → the kind of the section whose sentence holds ``offset`` ("" if none)."""
    kinds = {u.start: d.kind for d in drafts for u in d.units}
    starts = [u.start for u in units]

    def scope(offset: int) -> str:
        index = bisect.bisect_right(starts, offset) - 1
        return kinds.get(starts[index], "") if index >= 0 else ""

    return scope


def find_title(prose: str) -> str:
    """The page title: in the opening sentence, the quote after "called/titled/named", else its
    first quote; else the same over the opening paragraph; else the opening words. Trailing
    punctuation is trimmed."""
    first_line = prose.strip().split("\n", 1)[0]
    first_sentence = pt.split_units(first_line[:3000])[:1]
    for opening in ([first_sentence[0].text] if first_sentence else []) + [first_line[:3000]]:
        named = re.search(r"\b(?:called|titled|named|entitled)\s+[“\"]([^”\"\n]{2,80})[”\"]", opening)
        quotes = pt.find_quotes(opening)
        if named or quotes:
            title = named.group(1) if named else quotes[0].text
            return title.strip().rstrip(",.;:").strip()[:300] or "Untitled page"
    words = re.sub(r"^(?:design|create|build|make)\s+(?:a|an)\s+", "", prose.strip(), flags=re.I)
    return " ".join(words.split()[:6])[:300] or "Untitled page"


def find_page_kind(opening: str, prose: str) -> str:
    """One of plan.PAGE_KINDS from the opening sentence (quoted names count), else from the
    opening of the prose outside quotes (default landing)."""
    found = pt.first_key(opening, vocab.PAGE_KINDS)
    return found or pt.first_key(_blank_quotes(prose[:3000]), vocab.PAGE_KINDS) or "landing"


def _blank_quotes(text: str) -> str:
    return pt.blank_quotes(text)


def unit_kind(text: str) -> str | None:
    """The section kind a unit talks about (its earliest kind word), ignoring quoted text, a
    leading place clause ("Below the schedule, …") and references to other blocks."""
    clean = _blank_quotes(text)
    lead = re.match(r"^\W*(?:%s)\b[^,]{0,60},\s*" % "|".join(_VERTICAL), clean, re.I)
    clean = _REFERENCE.sub(" ", clean[lead.end() :] if lead else clean)
    hits = pt.keyword_hits(clean, vocab.SECTION_WORDS)
    return hits[0][1] if hits else None


def _cue(text: str, cues: tuple[str, ...]) -> bool:
    lowered = text.lower().lstrip("“\"( ")
    return any(lowered.startswith(c) and not lowered[len(c) : len(c) + 1].isalpha() for c in cues)


_SAME_BLOCK = re.compile(
    r"\b(?:this|the same|its|that) (?:band|section|panel|strip|block|area|card|tile|column|frame)",
    re.I,
)


def _opens_midway(unit: pt.Unit, current: Draft, dense: bool) -> str | None:
    """The kind of the section a mid-paragraph unit opens, or None when it continues.

    Long prompts describe one section per paragraph, so only a vertical cue ("Below …") opens
    one midway; dense prompts (a dashboard in one paragraph) also split on column/panel cues."""
    kind = unit_kind(unit.text)
    vertical = _cue(unit.text, _VERTICAL)
    cued = vertical or (dense and _cue(unit.text, vocab.POSITION_CUES))
    if not cued or kind == current.kind or _SAME_BLOCK.search(unit.text[:80]):
        return None
    if kind is not None:
        return kind
    block = pt.has_word(_REFERENCE.sub(" ", _blank_quotes(unit.text)), ("section", "band", "panel", "strip"))
    return "content" if block else None


def _continues(unit: pt.Unit, current: Draft | None) -> bool:
    """True when a paragraph's first unit goes on with the current section ("The right column
    of the hero section …")."""
    if current is None or _cue(unit.text, _VERTICAL):
        return False
    early = pt.keyword_hits(_blank_quotes(unit.text)[:90], vocab.SECTION_WORDS)
    if early and early[0][1] == current.kind:
        return True
    kind = unit_kind(unit.text)
    return kind == current.kind or (kind is None and len(current.units) < 2)


def segment(units: list[pt.Unit], title: str) -> tuple[list[Draft], list[pt.Unit]]:
    """Group units into section drafts in prompt order; units about the whole page are global.

    Returns ``(drafts, global_units)``; there is always at least one draft (a header)."""
    drafts: list[Draft] = []
    global_units: list[pt.Unit] = []
    current: Draft | None = None
    paragraph = -1
    dense = len({u.paragraph for u in units}) <= 3
    for unit in units:
        new_paragraph, paragraph = unit.paragraph != paragraph, unit.paragraph
        if _GLOBAL_START.match(unit.text) or (current is None and not drafts and unit.paragraph == 0
                                               and not _first_block(unit)):  # fmt: skip
            global_units.append(unit)
            continue
        kind = _first_block(unit) if current is None else None
        if kind is None and current is not None:
            kind = (unit_kind(unit.text) or "content") if new_paragraph else None
            if new_paragraph and _continues(unit, current):
                kind = None
            kind = kind or _opens_midway(unit, current, dense)
        if kind is not None:
            current = Draft(kind)
            drafts.append(current)
        current.units.append(unit)  # type: ignore[union-attr]
    if not any(d.kind == "header" for d in drafts):
        drafts.insert(0, Draft("header"))
    drafts[0].slots.setdefault("title", [title]) if drafts[0].kind == "header" else None
    return drafts, global_units


def _first_block(unit: pt.Unit) -> str | None:
    """The kind of the first section, opened by a cue sentence or any header mention."""
    kind = unit_kind(unit.text)
    if kind == "header" or (kind and (_cue(unit.text, _VERTICAL) or unit.paragraph > 0)):
        return kind
    return ("content" if unit.paragraph > 0 else None) if kind is None else None


def place_quotes(prose: str, units: list[pt.Unit], drafts: list[Draft],
                 global_units: list[pt.Unit]) -> None:  # fmt: skip
    """Put every quoted string of the prose into the slot of the section (or element) that the
    prompt places it in. Quotes of global sentences land in the first body section."""
    owner = {u.start: d for d in drafts for u in d.units}
    starts = [u.start for u in units]
    body = next((d for d in drafts if d.kind not in ("header", "footer")), drafts[-1])
    placed: set[str] = {_key(d.first("title")) for d in drafts[:1]}
    previous: tuple[int, tuple[str, bool] | None] = (-1, None)
    for quote in pt.find_quotes(prose):
        index = bisect.bisect_right(starts, quote.start) - 1
        unit = units[max(index, 0)]
        draft = owner.get(unit.start, body)
        prefix = _blank_quotes(prose[unit.start : quote.start])
        run = previous[1] if _LIST_GAP.match(prose[previous[0] : quote.start]) else None
        slot, explicit = run or _slot(prefix, draft.kind, quote.text)
        previous = (quote.end, (slot, explicit))
        if _key(quote.text) in placed:
            continue
        placed.add(_key(quote.text))
        _put(draft, slot, explicit, quote, unit, prose)


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _slot(prefix: str, kind: str, text: str) -> tuple[str, bool]:
    """``(slot, explicit)`` for a quote: the nearest slot word before it in its sentence
    (explicit), else the section kind's default or a guess by length (not explicit)."""
    tail = prefix[-90:]
    if re.search(r"\b(?:titled|called|named|headed|heading|headline)(?:\s+(?:that\s+)?(?:reads?|"
                 r"says|is))?\s*:?\s*$", tail, re.I):  # fmt: skip
        return "title", True
    hits = pt.keyword_hits(tail, vocab.SLOT_WORDS)
    if hits and hits[-1][1] != "item":
        return hits[-1][1], True
    if hits and kind not in ("testimonials", "header", "footer", "sidebar", "stats"):
        return "item", False
    return _by_kind(kind, text), False


def _by_kind(kind: str, text: str) -> str:
    words = len(text.split())
    if kind in ("header", "footer", "sidebar") and words <= 4:
        return "nav"
    defaults = {"stats": "kpi", "pricing": "item", "team": "item", "timeline": "item",
                "features": "item", "gallery": "item", "form": "field", "table": "item"}  # fmt: skip
    if words > 9 or (words > 5 and text.rstrip()[-1:] in ".!?"):
        return "quote" if kind == "testimonials" else "paragraph"
    return defaults.get(kind, "heading")


def _put(draft: Draft, slot: str, explicit: bool, quote: pt.Quote, unit: pt.Unit, prose: str) -> None:
    """Place one quote into ``draft`` (or its element) according to ``slot``."""
    text = quote.text
    if draft.kind == "stats" and slot in ("tag", "item", "heading", "paragraph"):
        slot = "kpi"
    element = element_rules.element_at(draft.elements, unit, quote.start)
    if element is not None and element_rules.claims(element, slot, explicit, quote):
        return
    if slot in ("nav", "button"):
        target = "nav_items" if slot == "nav" and draft.kind in ("header", "footer", "sidebar") else "buttons"
        draft.add(target, text)
    elif slot in ("title", "subtitle"):
        draft.add(slot if not draft.first(slot) else ("headings" if slot == "title" else "paragraphs"), text)
    elif slot == "tag":
        draft.add("tags", text)
    elif slot == "kpi":
        draft.add("items", SectionItem(label=text, value=_value_after(prose, quote.end)))
    elif slot == "field":
        draft.add("items", SectionItem(label=text, meta="field"))
    elif slot == "item":
        draft.add("items", SectionItem(title=text) if len(text) <= 60 else SectionItem(text=text))
    elif slot in ("paragraph", "quote", "caption"):
        draft.add("paragraphs", text)
    else:
        draft.add("headings", text)


def _value_after(prose: str, end: int) -> str:
    """A KPI value written right after its label: “Daily Active Players” (show 2,000,000)."""
    match = re.match(r"\s*\((?:show(?:ing)?|e\.g\.,?|value:?)?\s*([^)]{1,24})\)", prose[end : end + 40])
    return match.group(1).strip() if match else ""


def assemble(title: str, page_kind: str, layout: dict, drafts: list[Draft],
             tables: list[pt.Table]) -> DesignPlan:  # fmt: skip
    """Build and validate the DesignPlan from section drafts, element drafts and dataset tables."""
    return assembly.build_plan(title, page_kind, layout, drafts, tables)
