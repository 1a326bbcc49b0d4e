"""Entries as cards: the quotes of one counted entry in one item (offline planner pass).

One pass, one job (issue 14, grouped content): "The second entry: name “MARCOS GIMENEZ”; role
line: “Independent Art Director, Basel”; description: “Bringing real-world agency experience
…”", "Tier 1: “BASELINE” features …, a short description (“Minimalist essentials …”), followed by
… bullet points …: “Trail-grade tubes & sealant”, “Core multi-tool”", "Column two is “WHO IT’S
FOR”, listing types: “Directors, cinematographers …”". The quote placer reads each quote on its
own and pools names into headings and lines into paragraphs, so a speaker's role lands under
another speaker. This pass reads a section's sentences for entry openings (an ordinal or number
with an entry noun, ``resources/offline/entries.json``); the quotes of each such sentence are one
item: the first short quote its ``title``, a sentence its ``text``, a role / date line its
``meta``, a list of short quotes its ``points``. Two or more entries make items of the section;
their strings leave its headings, tags, paragraphs and loose items (buttons stay buttons).

Public API: :class:`Entry`, :func:`read_entries`, :func:`group_entries`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cache

from mmstudio.plan import SectionItem
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.planner_labels import label_text
from mmstudio.providers.offline.planner_sections import Draft
from mmstudio.resources import resource

#: a quote longer than this is an entry's text, never its title or meta
MAX_TITLE = 60
MIN_ENTRIES = 2
#: sentences the last entry of a list may take (it has no next opening to end it)
LAST_SENTENCES = 3
#: characters before a quote in which a role word makes it the entry's meta line
ROLE_GAP = 24
_CHROME = ("header", "footer", "sidebar", "hero")
_SENTENCE_END = re.compile(r"[.!?”\"](?=\s+[A-Z])")
#: a quote that reads as a sentence ("App icons & onboarding scenes."): an entry's text
_SENTENCE = re.compile(r"[.!?]\s|^\S+(?:\s+\S+){2,}[.!?]$")
_LISTED = re.compile(r"^[”\"]?\s*(?:,|,?\s*(?:and|or))\s*[“\"]?$")


@dataclass
class Entry:
    """One counted entry: its title, text, meta line and points (all as the page shows them)."""

    title: str
    text: str = ""
    meta: str = ""
    points: list[str] = field(default_factory=list)

    def item(self) -> SectionItem:
        """The entry as a section item."""
        return SectionItem(
            title=self.title, text=self.text, meta=self.meta, points=self.points[:20]
        )

    def strings(self) -> list[str]:
        return [s for s in (self.title, self.text, self.meta, *self.points) if s]


@cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(entry opening, role word right before a quote)."""
    data = json.loads(resource("offline", "entries.json").read_text(encoding="utf-8"))

    def words(key: str) -> str:
        return "|".join(re.escape(w) for w in sorted(data[key], key=len, reverse=True))

    nouns = rf"(?:{words('nouns')})s?"
    lead = re.compile(
        r"(?:^|(?<=[.;:!?]\s)|(?<=[”\"]\s)(?=[A-Z])|(?<=\n))\s*(?:for example,?\s+|e\.g\.,?\s+)?"
        rf"(?:(?:the\s+)?(?:{words('ordinals')})\s+{nouns}\b[^“”\".;]{{0,40}}?"
        r"(?::|\bis\b|\bshows\b|\breads\b|\bhas\b|\bfeatures\b|\bcontains\b|,)"
        rf"|{nouns}\s+(?:{words('numbers')})\b\s*(?::|—|–|\bis\b|\())",
        re.I,
    )
    role = re.compile(rf"\b(?:{words('role_words')})\b[^“”\"]{{0,12}}$", re.I)
    return lead, role


def read_entries(text: str, keep: Collection[str] = ()) -> list[Entry]:
    """The entries of a section's ``text`` in order ([] when fewer than :data:`MIN_ENTRIES`);
    quotes whose folded text is in ``keep`` (the section's buttons and links) are left out.

    An entry runs from its opening to the next one ("The second card has a pale mint
    background with the title “Starloop”. Subtext reads “…”" is one card), never past its
    paragraph (a newline in ``text``); the last one takes as many sentences as the longest
    entry before it, at most :data:`LAST_SENTENCES`."""
    lead, _ = _patterns()
    blank = pt.blank_quotes(text)
    starts = [m.start() for m in lead.finditer(blank)]
    entries: list[Entry] = []
    longest = 1
    for index, start in enumerate(starts):
        paragraph = blank.find("\n", start)
        stop = paragraph if paragraph >= 0 else len(text)
        ends = [m.start() + 1 for m in _SENTENCE_END.finditer(blank, start, stop)]
        if index + 1 < len(starts) and starts[index + 1] < stop:
            stop = starts[index + 1]
            longest = max(longest, 1 + sum(e < stop - 1 for e in ends))
        elif ends:
            stop = min(stop, ends[min(longest, LAST_SENTENCES, len(ends)) - 1])
        entry = _entry(text, start, stop, keep)
        if entry is not None:
            entries.append(entry)
    return entries if len(entries) >= MIN_ENTRIES else []


def _entry(text: str, start: int, stop: int, keep: Collection[str]) -> Entry | None:
    """One entry from the quotes of ``text[start:stop]``; None when it has no short title."""
    _, role = _patterns()
    quotes = [
        q
        for q in pt.find_all_quotes(text[start:stop])
        if label_text(q.text, "tag").casefold() not in keep
    ]
    titled = next((q for q in quotes if len(q.text) <= MAX_TITLE), None)
    if titled is None:
        return None
    entry = Entry(label_text(titled.text, "heading"))
    part = text[start:stop]
    rest = [q for q in quotes if q is not titled]
    for i, quote in enumerate(rest):
        before = part[max(0, quote.start - ROLE_GAP) : quote.start + 1]
        neighbours = [(rest[i - 1], quote)] if i else []
        neighbours += [(quote, rest[i + 1])] if i + 1 < len(rest) else []
        listed = any(_LISTED.match(part[a.end - 1 : b.start + 1]) for a, b in neighbours)
        long = len(quote.text) > MAX_TITLE or bool(_SENTENCE.search(quote.text.strip()))
        if listed and not long:
            entry.points.append(label_text(quote.text, "tag"))
        elif role.search(before) and not long and not entry.meta:
            entry.meta = label_text(quote.text, "tag")
        elif long and not entry.text:
            entry.text = label_text(quote.text, "paragraph")
        elif not long and not entry.meta:
            entry.meta = label_text(quote.text, "tag")
        else:
            entry.points.append(label_text(quote.text, "paragraph"))
    return entry


def group_entries(draft: Draft) -> None:
    """In place: a body draft whose sentences open two or more entries gets one item per entry
    (before its other items); the entries' strings leave its headings, tags, paragraphs and
    loose items. Items another pass already grouped (a plan with a price, a timed row) stay."""
    if draft.kind in _CHROME:
        return
    keep = {
        label_text(str(v), "tag").casefold()
        for slot in ("buttons", "nav_items")
        for v in draft.slots.get(slot, [])
    }
    entries = read_entries(_paragraphs(draft), keep)
    if not entries:
        return
    grouped = [i for i in draft.slots.get("items", []) if i.value or (i.meta and i.title)]
    if grouped:
        return  # pricing or schedule rows already hold these fields
    used = {label_text(s, "tag").casefold() for e in entries for s in e.strings()}
    for slot in ("headings", "tags", "paragraphs", "title"):
        values = draft.slots.get(slot, [])
        draft.slots[slot] = [v for v in values if label_text(str(v), "tag").casefold() not in used]
    kept = [  # an item goes when its own name is an entry's (another's pill label stays)
        i
        for i in draft.slots.get("items", [])
        if label_text(i.title or i.text or i.label, "tag").casefold() not in used
    ]
    draft.slots["items"] = [_merged(e, draft.slots.get("items", [])) for e in entries] + kept


def _paragraphs(draft: Draft) -> str:
    """The draft's sentences, a newline between paragraphs."""
    parts: list[str] = []
    for index, unit in enumerate(draft.units):
        new = index and unit.paragraph != draft.units[index - 1].paragraph
        parts.append(("\n" if new else " " if index else "") + unit.text)
    return "".join(parts)


def _merged(entry: Entry, items: list[SectionItem]) -> SectionItem:
    """The entry's item, keeping the fields an item of the same title already had."""
    item = entry.item()
    same = next((i for i in items if i.title.casefold() == entry.title.casefold()), None)
    if same is None:
        return item
    return same.model_copy(
        update={
            "text": same.text or item.text,
            "meta": same.meta or item.meta,
            "points": same.points or item.points,
        }
    )
