"""Grouping a prompt's sentences into sections, in the order the prompt describes them
(offline planner helper).

Long prompts give a paragraph per section, so a new paragraph opens a section unless its first
sentence goes on about the current one ("The right column of the hero section …"); inside a
paragraph only a vertical cue naming a block ("Below the hero, a testimonials section …")
opens one. Dense prompts (a dashboard in one paragraph) also split on column and panel cues and
on titled cards. Page-level sentences ("Throughout the page …") stay global.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache

from mmstudio.providers.offline import planner_elements as element_rules
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab
from mmstudio.resources import resource

_GLOBAL_START = re.compile(
    r"^\W*(?:(?:there (?:are|is) )?(?:absolutely )?no (?:videos?|animations?|charts?|motion)\b|"
    r"throughout|overall|the (?:entire|whole|overall) (?:page|site|design|layout)|all titles|"
    r"across the (?:page|site)|globally|in general|the page (?:should|must) feel)\b",
    re.I,
)
_ASIDE = re.compile(r"^as (?:users|you|the user|visitors|one) scrolls?\b", re.I)
_REFERENCE = re.compile(
    r"\b(?:below|beneath|under|underneath|after|following|above|from|than|like|into|toward|"
    r"towards|returning to|(?:bottom|top|edge|end|part|side|corner|rest) of|"
    r"same\b[^,.;]{0,40}?\bas)\s+(?:the|this|that|its)\s+(?:[\w-]+\s+){0,2}?"
    r"(?:header|hero|footer|section|band|strip|panel|tiles?|title|nav(?:igation)?|schedule)\b",
    re.I,
)
_VERTICAL = (
    "at the very top",
    "at the top of the page",
    "at the top",
    "directly beneath",
    "directly below",
    "directly under",
    "right below",
    "just below",
    "below",
    "beneath",
    "underneath",
    "under",
    "next",
    "then",
    "following",
    "after",
    "further down",
    "further",
    "near the bottom",
    "at the bottom",
    "at the very bottom",
    "finally",
    "scrolling",
    "continue",
    "to close",
    "the next",
    "the following",
    "the final",
    "the last section",
    "approaching the bottom",
)
_LEAD_PLACE = re.compile(r"^\W*(?:" + "|".join(_VERTICAL) + r")\b[^,]{0,60},\s*", re.I)


@dataclass
class Draft:
    """A section under construction: its kind, prose units, slot contents and elements."""

    kind: str
    units: list[pt.Unit] = field(default_factory=list)
    slots: dict[str, list] = field(default_factory=dict)
    elements: list[element_rules.ElementDraft] = field(default_factory=list)
    table: pt.Table | None = None
    default_title: bool = False  # the title is the page title, given to the header by default
    name: str = ""  # the quoted name the prompt gives it (a “Library” section): planner_names
    order: list[str] = field(default_factory=list)  # slots in the order quotes were placed

    def first(self, slot: str) -> str:
        """The first string placed in ``slot`` ("" when empty)."""
        values = self.slots.get(slot) or [""]
        return values[0] if isinstance(values[0], str) else ""

    def add(self, slot: str, value: object) -> None:
        """Append ``value`` to ``slot`` (and note the slot in ``order``)."""
        self.slots.setdefault(slot, []).append(value)
        self.order.append(slot)

    def interleaved(self) -> bool:
        """True when the section's titles/headings and paragraphs alternate, heading first
        (“Study 01 …” its text, “Study 02 …” its text): headed blocks, not a titled section."""
        seq = ["h" if s in ("title", "headings") else "p" for s in self.order
               if s in ("title", "headings", "paragraphs")]  # fmt: skip
        return len(seq) >= 4 and seq == ["h", "p"] * (len(seq) // 2)

    @property
    def text(self) -> str:
        """The section's own sentences, joined."""
        return " ".join(u.text for u in self.units)


def _blank_quotes(text: str) -> str:
    return pt.blank_quotes(text)


def unit_kind(text: str) -> str | None:
    """The section kind a unit talks about (its earliest kind word), ignoring quoted text, a
    leading place clause ("Below the schedule, …") and references to other blocks."""
    clean = _blank_quotes(text)
    lead = _LEAD_PLACE.match(clean)
    clean = _REFERENCE.sub(" ", clean[lead.end() :] if lead else clean)
    hits = pt.keyword_hits(clean, vocab.SECTION_WORDS)
    return hits[0][1] if hits else None


def _cue(text: str, cues: tuple[str, ...]) -> bool:
    lowered = text.lower().lstrip('“"( ')
    if lowered.startswith(("next to", "under it", "below it")):
        return False
    return any(lowered.startswith(c) and not lowered[len(c) : len(c) + 1].isalpha() for c in cues)


_SAME_BLOCK = re.compile(
    r"\b(?:this|the same|its|that|the) "
    r"(?:band|section|panel|strip|block|area|card|tile|column|frame)",
    re.I,
)


_TITLED_BLOCK = re.compile(
    r"\b(?:card|panel|widget|module|block|section|box|column|area)\b[^.;“\"]{0,30}?"
    r"\b(?:titled|labeled|labelled|headed|called)\b",
    re.I,
)


def _opens_midway(unit: pt.Unit, current: Draft, dense: bool) -> str | None:
    """The kind of the section a mid-paragraph unit opens, or None when it continues.

    Long prompts describe one section per paragraph, so only a vertical cue naming a block
    ("Below the hero, a testimonials section …") opens one midway. Dense prompts (a whole page
    in one paragraph) also split on column/panel cues, on a kind named early in the sentence
    and on a titled card or panel."""
    if current.kind not in ("header", "footer") and _item_opener().match(unit.text):
        return None  # "The third card, offset further, is titled …": the section's items go on
    kind = unit_kind(unit.text)
    blank = _blank_quotes(unit.text)
    if dense and _TITLED_BLOCK.search(blank) and kind != current.kind:
        return kind or "content"  # "a panel titled …" (another chart panel stays in charts)
    if kind == current.kind or _SAME_BLOCK.search(unit.text[:80]):
        return None
    if dense and (_early_kind(blank) not in (None, current.kind) or _TITLED_BLOCK.search(blank)):
        return kind or "content"
    vertical = _cue(unit.text, _VERTICAL)
    cued = vertical or (dense and _cue(unit.text, vocab.POSITION_CUES))
    if not cued or (not dense and not pt.has_word(blank, vocab.BLOCK_NOUNS)):
        return None
    if kind is not None:
        return kind
    block = pt.has_word(_REFERENCE.sub(" ", blank), ("section", "band", "panel", "strip", "area"))
    return "content" if block else None


def _early_kind(blank: str) -> str | None:
    """A kind named in the first 70 characters of a sentence (its subject), else None."""
    lead = _LEAD_PLACE.match(blank)
    head = _REFERENCE.sub(" ", blank[lead.end() if lead else 0 :][:70])
    hits = pt.keyword_hits(head, vocab.SECTION_WORDS)
    return hits[0][1] if hits else None


def _continues(unit: pt.Unit, current: Draft | None) -> bool:
    """True when a paragraph's first unit goes on with the current section ("The right column
    of the hero section …")."""
    if current is None:
        return False
    if current.kind not in ("header", "footer") and _item_opener().match(unit.text):
        return True  # "The third card, offset further, …": the section's items go on
    if _cue(unit.text, _VERTICAL):
        return _refers_inside(unit.text)
    early = pt.keyword_hits(_blank_quotes(unit.text)[:90], vocab.SECTION_WORDS)
    if early and early[0][1] == current.kind:
        return True
    kind = unit_kind(unit.text)
    return kind == current.kind or (kind is None and len(current.units) < 2)


@cache
def _item_opener() -> re.Pattern[str]:
    """ "The first card …", "The second project block …": an ordinal item noun opening a
    sentence (``resources/offline/item_openers.json``)."""
    data = json.loads(resource("offline", "item_openers.json").read_text(encoding="utf-8"))
    ordinals = "|".join(map(re.escape, data["ordinals"]))
    nouns = "|".join(re.escape(n) for n in sorted(data["nouns"], key=len, reverse=True))
    return re.compile(
        rf"^\W*(?:the|a|an)\s+(?:{ordinals})\s+(?:[\w-]+\s+){{0,2}}?(?:{nouns})(?:e?s)?\b", re.I
    )


def _refers_inside(text: str) -> bool:
    """True for "Just below these tags, …" / "Below the buttons, …": a place clause that points
    at something inside the current section, with no new section named after it."""
    blank = _blank_quotes(text)
    lead = _LEAD_PLACE.match(blank) or re.match(
        r"^\W*(?:just |right )?below these [\w-]+", blank, re.I
    )
    if not lead:
        return False
    if pt.has_word(lead.group(), vocab.BLOCK_NOUNS) or pt.keyword_hits(
        lead.group(), vocab.SECTION_WORDS
    ):
        return False
    rest = blank[lead.end() :]  # "Below location, place a subtle FAQ-like segment": a new one
    blocks = ("section", "segment", "band", "panel", "strip", "footer", "header")
    return not pt.has_word(rest, blocks)


_NAV_BAR = re.compile(r"\b(?:nav(?:igation)?|navbar|menu)\s+(?:bar|strip|row|band)\b", re.I)


def _second_header_row(kind: str | None, current: Draft | None, unit: pt.Unit) -> bool:
    """True for a nav bar described right after the header ("Directly below, the main
    navigation bar appears as a floating pill-shaped strip"): it is the header's second row."""
    after_header = current is not None and current.kind == "header"
    return kind == "header" and after_header and bool(_NAV_BAR.search(_blank_quotes(unit.text)))


def segment(units: list[pt.Unit], title: str) -> tuple[list[Draft], list[pt.Unit]]:
    """Group units into section drafts in prompt order; units about the whole page are global.

    Returns ``(drafts, global_units)``; there is always at least one draft (a header)."""
    drafts: list[Draft] = []
    global_units: list[pt.Unit] = []
    current: Draft | None = None
    paragraph = -1
    dense = len({u.paragraph for u in units}) <= 3
    global_paragraph = -1
    for index, unit in enumerate(units):
        if (
            unit.paragraph == global_paragraph
            or _GLOBAL_START.match(unit.text)
            or _ASIDE.match(unit.text)
            or (
                current is None
                and not drafts
                and unit.paragraph == 0
                and not _first_block(unit, dense)
            )
        ):
            if unit.paragraph != paragraph and drafts and _GLOBAL_START.match(unit.text):
                global_paragraph = unit.paragraph  # a page-level paragraph stays page-level
            global_units.append(unit)
            continue
        new_paragraph, paragraph = unit.paragraph != paragraph, unit.paragraph
        kind = _first_block(unit, dense) if current is None else None
        if kind is None and current is not None:
            if new_paragraph and not _continues(unit, current):
                kind = _paragraph_kind(units, index)
            kind = kind or _opens_midway(unit, current, dense)
        if _second_header_row(kind, current, unit):
            kind = None  # "Directly below, the main navigation bar …": the header's 2nd row
        if kind is not None:
            unique = kind in ("header", "hero", "footer") and any(d.kind == kind for d in drafts)
            current = Draft("content" if unique else kind)  # one header, hero and footer a page
            drafts.append(current)
        current.units.append(unit)  # type: ignore[union-attr]
    if not drafts and global_units:  # a short prompt that never names a block: one hero
        drafts.append(Draft("hero", units=list(global_units)))
    if not any(d.kind == "header" for d in drafts):
        drafts.insert(0, Draft("header"))
    if drafts[0].kind == "header" and "title" not in drafts[0].slots:
        drafts[0].slots["title"] = [title]
        drafts[0].default_title = True
    return drafts, global_units


def _paragraph_kind(units: list[pt.Unit], index: int) -> str:
    """The kind of a section opened by a paragraph: the first kind word of its first three
    sentences (a paragraph may open "The next major section starts …" and name it later)."""
    for unit in units[index : index + 3]:
        if unit.paragraph != units[index].paragraph:
            break
        kind = unit_kind(unit.text)
        if kind:
            return kind
    return "content"


def _first_block(unit: pt.Unit, dense: bool) -> str | None:
    """The kind of the first section, opened by a cue sentence (in a dense prompt also a
    column/panel cue: "On the upper-left, create …") or any header mention."""
    kind = unit_kind(unit.text)
    cued = _cue(unit.text, _VERTICAL) or (dense and _cue(unit.text, vocab.POSITION_CUES))
    if kind == "header" or (kind and (cued or unit.paragraph > 0)):
        return kind
    if kind is None and cued:
        return "header" if _cue(unit.text, ("at the very top", "at the top")) else "content"
    return ("content" if unit.paragraph > 0 else None) if kind is None else None


_INFERRED = ("header", "hero", "footer", "sidebar")  # kinds only a sentence's wording may open


def _named_kind(draft: Draft) -> str | None:
    """The one kind a titled section's first two sentences name (“a “Stories from the Trail”
    section … This section showcases three testimonial/story cards”), else None."""
    if not draft.first("title"):
        return None
    head = " ".join(u.text for u in draft.units[:2])
    hits = pt.keyword_hits(_REFERENCE.sub(" ", _blank_quotes(head)), vocab.SECTION_WORDS)
    named = {k for _, k in hits if k not in _INFERRED}
    return named.pop() if len(named) == 1 else None


def refine_kinds(drafts: list[Draft]) -> None:
    """Name the kind of a ``content`` section from its quoted name and title ("Meet the Team"
    → team), else from kind words its sentences repeat (two or more); prices in its copy make
    it pricing."""
    for draft in drafts:
        if draft.kind != "content":
            continue
        title = " ".join([draft.name, draft.first("title"), *draft.slots.get("headings", [])[:1]])
        kind = pt.first_key(title, vocab.SECTION_WORDS)
        if kind is None:
            hits = [k for _, k in pt.keyword_hits(_REFERENCE.sub(" ", _blank_quotes(draft.text)),
                                                  vocab.SECTION_WORDS)]  # fmt: skip
            common = max(set(hits), key=lambda k: (hits.count(k), -hits.index(k)), default=None)
            kind = common if common and hits.count(common) >= 2 else None
            kind = kind or _named_kind(draft)
        copy = " ".join(
            str(v) for v in draft.slots.get("items", []) + draft.slots.get("headings", [])
        )
        if kind is None and len(re.findall(r"[$€£]\s?\d", copy)) >= 2:
            kind = "pricing"
        if kind and kind not in _INFERRED:
            draft.kind = kind
