"""Finding the images, videos and charts a design prompt asks for (offline planner helper).

An element is opened by an *introducing* mention ("a large, flat illustration", "a donut chart
titled …", "Thumbnail: a street scene"), never by a reference ("the illustration is framed …").
The sentences after it that keep describing it (up to :data:`_MAX_UNITS`) become its prompt.
Negations are honoured: "no video, animation or charts … anywhere" bans a modality page-wide; "No
image, just text" only stops that sentence from opening one.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cache

from mmstudio.plan import DataTable
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab
from mmstudio.resources import resource

_MAX_UNITS = {"image": 14, "video": 10, "chart": 16}  # sentences that may describe one element
_NOUNS = {"image": vocab.IMAGE_NOUNS, "video": vocab.VIDEO_NOUNS, "chart": vocab.CHART_NOUNS}
_COMPOUND = r"(?![\s-]+(?:tutorials?|lessons?|courses?|platform|streaming|subscription|calls?|chats?|games?|editing|editors?|production|creators?|style|studio|tutor|camp|paper))"  # noqa: E501
_INTRO = r"\b(?:a|an|another|one|two|three|four|five|six|second|third|single|large|small)\b"


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_MENTION = {
    kind: re.compile(
        rf"{_INTRO}(?:[\s,]+[\w’'()/“”\"-]+(?::\d+)?){{0,6}}?[\s,-]+(?:{_alternation(nouns)})s?(?![\w-]){_COMPOUND}"
        rf"|(?<!the )(?<!this )(?<!that )\b(?:{_alternation(nouns)})s?\s*:"
        rf"|(?<=[,;:] )(?:{_alternation(nouns)})s?\s+(?:of|showing|depicting)\b",
        re.I,
    )
    for kind, nouns in _NOUNS.items()
}
_NEGATED_NOUNS = {**_NOUNS, "chart": (*vocab.CHART_NOUNS, "data visualization", "visualization")}
_NEGATION = {
    kind: re.compile(
        rf"\b(?:no|without|never|nor)\b(?:[\s,]+[\w-]+){{0,6}}?[\s,]+(?:{_alternation(nouns)})s?\b",
        re.I,
    )
    for kind, nouns in _NEGATED_NOUNS.items()
}
_REFERS = {
    kind: re.compile(
        rf"^\W*(?:this|that|the|its|these)\s+(?!(?:first|second|third|fourth|fifth|next|last|"
        rf"final|other)\b)(?:[\w-]+\s+){{0,2}}(?:{_alternation(nouns)})s?\b",
        re.I,
    )
    for kind, nouns in _NOUNS.items()
}
_MOVING = re.compile(r"\b(?:video|footage|loop|looping|shows|showing|film|filmed|scene)\b", re.I)
_EXCEPT = re.compile(r"\b(?:beyond|except|other than|apart from|besides|aside from)\b", re.I)
_GENERIC = re.compile(r"^\W*(?:each|every|all|both)\b", re.I)
_SECTION_SLOTS = ("button", "nav", "pair", "brand", "attribution")  # never an element's text
_COPY_SLOTS = ("paragraph", "subtitle", "quote", "heading", "kpi", "field")


@dataclass
class ElementDraft:
    """An element under construction: ``modality`` image|video|chart, the units describing it,
    where its mention starts (prose offset), the mentioned words, and collected copy: ``quotes``
    for its alt text, ``captions`` for its visible caption."""

    modality: str
    units: list[pt.Unit]
    start: int
    mention: str
    title: str = ""
    quotes: list[str] = field(default_factory=list)
    captions: list[str] = field(default_factory=list)
    data: DataTable | None = None

    @property
    def text(self) -> str:
        """The prompt's own sentences about this element."""
        return " ".join(u.text for u in self.units)

    @property
    def lead(self) -> str:
        """The mention sentence from the mention on (the closest description of the element)."""
        first = self.units[0]
        return first.text[max(0, self.start - first.start) :]


def negated(text: str) -> set[str]:
    """Modalities that ``text`` says are absent ("no video", "without charts")."""
    return {kind for kind, pattern in _NEGATION.items() if pattern.search(text)}


def banned_modalities(units: list[pt.Unit], global_units: list[pt.Unit]) -> set[str]:
    """Modalities the prompt bans page-wide: negated in a global sentence or in one that says
    "anywhere", "at all", "throughout", …"""
    banned: set[str] = set()
    global_starts = {u.start for u in global_units}
    previous = ""
    for unit in units:
        kinds = negated(unit.text)
        context, previous = previous + " " + unit.text, unit.text  # the clause before counts too
        if _EXCEPT.search(unit.text):
            continue  # "no illustrations beyond the described photographs" bans nothing
        if kinds and (unit.start in global_starts or pt.has_word(context, vocab.NEGATION_GLOBAL)):
            banned |= kinds
    return banned


def _mentions(unit: pt.Unit, banned: set[str], recent: set[str]) -> list[ElementDraft]:
    """The elements a unit introduces (at most one per modality); a sentence opening with "The
    video …" refers back when the paragraph already has one (``recent`` modalities)."""
    text = pt.blank_quotes(unit.text, "x")
    if _GENERIC.match(text):
        return []
    found: list[ElementDraft] = []
    skip = banned | negated(text)
    for kind in ("video", "chart", "image"):
        match = _MENTION[kind].search(text)
        if kind in skip or not match or (kind in recent and _REFERS[kind].match(text)):
            continue
        if (
            kind == "video"
            and re.search(r"\b(?:clip|reel)s?\b", match.group(), re.I)
            and not (_MOVING.search(text))
        ):
            continue  # a binder clip or a fishing reel is no video
        if kind == "image" and any(
            e.modality == "video" and abs(e.start - unit.start - match.start()) < 40 for e in found
        ):
            continue  # "a video frame showing an image" is one element
        found.append(ElementDraft(kind, [unit], unit.start + match.start(), match.group()))
    return found


def find_elements(units: list[pt.Unit], section_kind: str, banned: set[str]) -> list[ElementDraft]:
    """Element drafts of one section's units, in order; each keeps the units that describe it."""
    elements: list[ElementDraft] = []
    last: ElementDraft | None = None
    for unit in units:
        recent = {e.modality for e in elements if e.units[-1].paragraph == unit.paragraph}
        new = _mentions(unit, banned, recent)
        if new:
            elements.extend(new)
            last = new[-1]
        elif last and len(last.units) < _MAX_UNITS[last.modality] and _describes(unit, last):
            last.units.append(unit)
        else:
            last = None
    return elements


def _describes(unit: pt.Unit, element: ElementDraft) -> bool:
    """True when a unit keeps describing ``element`` (same paragraph, not a new block)."""
    if unit.paragraph != element.units[-1].paragraph:
        return False
    if element.modality == "chart":
        return True  # a chart's paragraph goes on about its axes, bars and labels
    lowered = unit.text.lower()
    starts_block = re.match(
        r"^\W*(?:below|beneath|under|next|to the (?:left|right)|on the (?:left|right)|at the "
        r"(?:top|bottom)|the (?:left|right|middle|center|top|bottom|first|second|third|fourth|"
        r"fifth|next|last|final)|inside|its (?:heading|title))",
        lowered,
    )
    return not starts_block or bool(
        re.search(
            r"\b(?:the|this|its) (?:[\w-]+ ){0,2}(?:image|illustration|video|chart|photo|"
            r"photograph|picture|scene|frame|graph)\b",
            lowered[:60],
        )
    )


@cache
def _lettering() -> re.Pattern[str]:
    data = json.loads(resource("offline", "in_picture.json").read_text(encoding="utf-8"))
    words = sorted(data["cues"], key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + r")\b", re.I)


#: characters before a quote in which a lettering word must stand
LETTERING_GAP = 60


def in_picture(before: str) -> bool:
    """True when the prose right before a quote (``before``, quotes blanked or not) says the
    quote is lettering inside a picture: a cue word of ``in_picture.json`` within
    :data:`LETTERING_GAP` characters before it in its sentence (other quotes left out, so a
    listed quote shares the list's cue)."""
    plain = re.sub(r"[“\"][^”\"]*[”\"]", "", before)  # "the words “A”, “B” and …": the list's cue
    cut = max(plain.rfind(". "), plain.rfind("; "), plain.rfind("\n"))
    tail = (plain[cut + 1 :] if cut >= 0 else plain)[-LETTERING_GAP:]
    return bool(_lettering().search(tail))


def element_at(elements: list[ElementDraft], unit: pt.Unit, at: int) -> ElementDraft | None:
    """The element a quote at prose offset ``at`` (in ``unit``) describes, if any."""
    for element in reversed(elements):
        if unit in element.units and (unit is not element.units[0] or at > element.start):
            return element
    return None


def claims(
    element: ElementDraft, slot: str, explicit: bool, quote: pt.Quote, before: str = ""
) -> bool:
    """Give the quote to ``element`` when it names it (a chart's title) or describes what it
    shows: text inside a picture and a chart's series and axis labels go to its alt text
    (``quotes``); only a caption the prompt names goes to its visible caption (``captions``).
    A picture or video takes a quote only when ``before`` (the prose right before it) says it
    is lettering inside it (``resources/offline/in_picture.json``: "a sign that reads", "a
    speech bubble containing the characters"); "“Track 02 – Methods” has intersecting
    shapes" is page copy. Buttons and nav stay in the section. Returns True when the element
    took it."""
    if element.modality == "chart" and slot == "title" and not element.title:
        element.title = quote.text
        return True
    if slot in _SECTION_SLOTS or (explicit and slot != "caption" and element.modality != "chart"):
        return False
    if element.modality != "chart" and slot != "caption" and not in_picture(before):
        return False
    if explicit and slot in _COPY_SLOTS:
        return False  # "beside the chart, a small paragraph explains: “…”" is section copy
    if slot != "caption" and len(quote.text) > 60:
        return False  # long copy next to a chart is the section's text, not one of its labels
    if element.modality == "image" and slot != "caption" and len(quote.text) > 40:
        return False  # long copy next to a picture is the section's text, not text in the picture
    visible = slot == "caption"  # only a caption the prompt names is shown under the asset
    target = element.captions if visible else element.quotes
    limit = 500 if visible else (280 if element.modality == "chart" else 220)
    if sum(len(q) + 2 for q in target) + len(quote.text) > limit:
        return False
    target.append(quote.text)
    return True
