"""Placing every quoted string of a prompt in its slot (offline planner helper).

Each quote — the judge's short ones (2–80 characters) and longer quoted copy alike — goes to the
section whose sentence holds it, in the slot its wording names: the nearest slot word before it
("a button reading “Go”"), a slot word right after it ("a “Subscribe” button"), a pair of quotes
("“Source” with the text “We buy …”" → one card with title and text), or the section kind's
default. Long copy only ever lands in text slots (paragraphs, card texts, testimonial quotes).
A testimonial quote becomes an item whose ``text`` is the quote and ``title`` its attribution
("attributed to “Maya R.”", or an unquoted "— Jamie, 12" right after it).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, replace

from mmstudio.plan import SectionItem
from mmstudio.providers.offline import planner_elements as element_rules
from mmstudio.providers.offline import planner_eyebrows as eyebrows
from mmstudio.providers.offline import planner_names as names
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab
from mmstudio.providers.offline.planner_items import Fields, item_fields
from mmstudio.providers.offline.planner_labels import label_text
from mmstudio.providers.offline.planner_notes import design_notes
from mmstudio.providers.offline.planner_sections import Draft

_LIST_GAP = re.compile(r"^[\s,;:.]*(?:(?:and|or|then|&|plus)\b)?[\s,]*$", re.I)
_SUFFIX = re.compile(
    r"^[”\"]?(?:(?:\s*,\s*|\s+and\s+|\s+or\s+)[“\"][^”\"\n]{1,80}[”\"])*\s*"
    r"(?:(?!(?:with|and|or|in|on|of|the|a|an|to|for|is|are)\b)[\w-]+\s+)?([\w-]+)\b",
    re.I,
)
_CITE = re.compile(
    r"^[”\"]?\s*,?\s*(?:—|–|--|-)\s*([A-Z][\w.’' ]{1,40}?(?:,\s*[\w’' ]{1,30}?)?)"
    r"(?=\s*[.;)(]|\s+(?:and|with|next|beside|in|set|appears|below|under)\b|$)"
)
_FRAGMENT = re.compile(  # prompt prose between two straight-quoted strings, not page copy
    r"^\s*[.,;:)]|\b(?:titled|reads|labell?ed|called|text|is|are|says)\s*:?\s*$|:\s*$", re.I
)
_ASIDE = re.compile(r"^[a-z][\w-]*(?:\s[a-z][\w-]*)?[,.]?$")  # “programs”: a scare-quoted word
_TITLED = re.compile(r"\b(?:titled|headed|called|labell?ed)\s*:?\s*[“\"]?$", re.I)
_TEXT_SLOTS = ("subtitle", "item", "quote", "caption", "paragraph", "pair", "attribution")
_NOT_PAIRED = ("nav", "button", "field", "brand")
_QUOTE_HOMES = ("testimonials", "content")
#: slots a label placed above a heading may have been read into (a chip, a loose line)
_EYEBROW_SLOTS = ("tag", "heading", "paragraph", "")
#: slots that head a section: its title, or its quoted name (“…” section: planner_names)
_TITLE_SLOTS = ("title", names.NAME_SLOT)
_CHROME = ("header", "footer", "sidebar")
#: a page-level quote right after these words names or describes a typeface (“Garden Sans”):
#: the typography rules read it, the page never prints it
_TYPEFACE_CUE = re.compile(
    r"\b(?:fonts?|typefaces?|sans-serif|serif|grotesk|monospace|lettering|typography)\b"
    r"[^.;]{0,60}$",
    re.I,
)


#: words right before a quote that make it the page's text, not words inside a nearby picture
_PAGE_TEXT = re.compile(
    r"\b(?:the|a|with|its|small|username|user name|greeting|overlay|label)?\s*"
    r"(?:text|username|greeting|subtext|tagline|label text)\s*(?:that\s+)?"
    r"(?:reading|reads|saying|says)?\s*:?\s*[“\"]?$"
    r"|\b(?:text|text block|copy)\b[^.;“”\"]{0,40}\b(?:reads|reading|says|saying)\b"
    r"[^.;“”\"]{0,30}$",
    re.I,
)


@dataclass
class Candidate:
    """One quote with the section draft, slot and sentence it goes to; ``text`` is the second
    quote of a title + text pair ("“Source” with the text “…”")."""

    quote: pt.Quote
    draft: Draft
    slot: str
    explicit: bool
    unit: pt.Unit
    text: str = ""
    label: str = ""


def place_quotes(
    prose: str, units: list[pt.Unit], drafts: list[Draft], global_units: list[pt.Unit]
) -> None:
    """Put every quoted string of the prose into the slot of the section (or element) that the
    prompt places it in. Quotes of global sentences land in the first body section."""
    placed: set[str] = {_key(d.first("title")) for d in drafts[:1]}
    shown: dict[int, str] = {}  # per section, the quotes placed so far (normalised, joined)
    exact: set[tuple[int, str]] = set()  # (section, quote) pairs placed so far
    for c in _best_occurrences(_candidates(prose, units, drafts), placed):
        key = _key(c.quote.text)
        if c.text and (id(c.draft), key) in exact:
            if _join_shown(c):
                continue  # under “ALIGN” (a panel named above): “We start …” — its text
            c = _text_only(c)  # under the heading “01 Climate” shown above: “Micro-climate …”
            key = _key(c.quote.text)
        elif not c.text and key in shown.get(id(c.draft), ""):
            continue  # “Creative” inside the headline “Level Up Your Creative Superpowers.”
        shown[id(c.draft)] = shown.get(id(c.draft), "") + "\n" + key
        exact.add((id(c.draft), key))
        _put(c, prose)
    for draft in drafts:
        names.settle_names(draft)  # a “Library” section headed “Library of calm practices”


def _candidates(prose: str, units: list[pt.Unit], drafts: list[Draft]) -> list[Candidate]:
    """Every quote of the prose with its draft and slot, in prose order (pairs joined)."""
    owner = {u.start: d for d in drafts for u in d.units}
    starts = [u.start for u in units]
    body = next((d for d in drafts if d.kind not in ("header", "footer")), drafts[-1])
    quotes = pt.find_all_quotes(prose)
    notes = design_notes(prose, quotes)
    quotes = [q for q in quotes if q.start not in notes]  # typefaces, design terms: never copy
    pairs = item_fields(prose, quotes)
    taken: set[int] = set()  # quotes placed as the second field of an item
    previous: tuple[int, tuple[str, bool] | None] = (-1, None)
    found: list[Candidate] = []
    for index, quote in enumerate(quotes):
        if index in taken:
            continue
        unit = units[max(bisect.bisect_right(starts, quote.start) - 1, 0)]
        draft = owner.get(unit.start)
        gap = prose[previous[0] : quote.start] if 0 <= quote.start - previous[0] <= 40 else "x"
        run = previous[1] if _LIST_GAP.match(gap) else None
        prefix = pt.blank_quotes(prose[unit.start : quote.start])
        slot, explicit = run or _slot(prefix, (draft or body).kind, quote.text, prose, quote.end)
        if draft is None and _TYPEFACE_CUE.search(prefix):
            continue  # a page-level typeface ("headings use “Garden Sans”"): typography, no copy
        if draft is None:  # page-level sentence: a chip of the first body section
            draft, slot, explicit = body, "tag", True
        second = _second_field(pairs.get(index), slot)
        text = quotes[second.index].text if second else ""
        if second:
            taken.add(second.index)
            slot = "pair" if second.role == "text" else "kpi"
        previous = (quotes[second.index].end if second else quote.end, (slot, explicit))
        straight = prose[quote.start : quote.start + 1] == '"'  # only those can pair wrongly
        if (straight and _FRAGMENT.search(quote.text)) or (
            not explicit and _ASIDE.search(quote.text)
        ):
            slot = "fragment"
        found.append(Candidate(quote, draft, _long_slot(slot, quote), explicit, unit, text))
        if slot == "pair":
            _take_label(found)
    return found


def _second_field(fields: Fields | None, slot: str) -> Fields | None:
    """The item's second field, unless the first quote's slot keeps no fields (a nav link, a
    button, a form field, the brand); a KPI takes a value, not a text."""
    if fields is None or slot in _NOT_PAIRED:
        return None
    if slot == "kpi" and fields.role != "value":
        return None
    return fields


def _take_label(found: list[Candidate]) -> None:
    """ "label “Program 01”, title “Resonant Studios.” …": a short tag or heading just before a
    title + text pair (≤ 60 characters before it, same section) becomes the pair's label."""
    if len(found) < 2:
        return
    before, pair = found[-2], found[-1]
    close = 0 <= pair.quote.start - before.quote.end <= 60 and before.draft is pair.draft
    if (
        close
        and not before.text
        and before.slot in ("tag", "heading", "")
        and (len(before.quote.text) <= 30)
    ):
        pair.label = before.quote.text
        found.pop(-2)


def _join_shown(c: Candidate) -> bool:
    """Give the text half of a pair to the item or loose heading its title already shows in
    the section ("three panels “ALIGN”, “ASCEND”, “ANCHOR” … under “ALIGN”: “We start …”"):
    the item takes the text, a loose heading becomes an item with it. False when neither."""
    draft, title = c.draft, _key(c.quote.text)
    text = label_text(c.text, "paragraph")
    for item in draft.slots.get("items", []):
        if _key(item.title) == title and not item.text:
            item.text = text
            return True
    headings = draft.slots.get("headings", [])
    shown = next(
        (h for h in headings if _key(h) == _key(label_text(c.quote.text, "heading"))), None
    )
    if shown is None:
        return False
    headings.remove(shown)
    draft.add("items", SectionItem(title=shown, text=text))
    return True


def _text_only(c: Candidate) -> Candidate:
    """The text half of a pair whose title the section already shows, as a paragraph."""
    start = c.quote.end + 1
    return Candidate(
        pt.Quote(start, start + len(c.text), c.text), c.draft, "paragraph", True, c.unit
    )


def _long_slot(slot: str, quote: pt.Quote) -> str:
    """Quoted copy over 80 characters only goes to a text slot (a paragraph by default)."""
    if len(quote.text) <= 80 or not slot or slot in _TEXT_SLOTS:
        return slot
    return "paragraph"


def _best_occurrences(candidates: list[Candidate], placed: set[str]) -> list[Candidate]:
    """One occurrence per distinct quote, in prose order: the first one, unless a later one
    names it explicitly as a title ("a card titled “Today’s Tasks”")."""
    best: dict[str, int] = {}
    headed: dict[str, int] = {}  # a nav label's later occurrence that titles its section
    for index, c in enumerate(candidates):
        key = _key(c.quote.text) + ("\n" + _key(c.text) if c.text else "")
        if key in placed:
            continue
        chosen = candidates[best[key]] if key in best else None
        titled = c.slot == "title" and c.explicit and _TITLED.search(quote_prefix(c.quote, c.unit))
        if chosen is None or (titled and chosen.slot not in _TITLE_SLOTS):
            best[key] = index
        elif chosen.slot == "nav" and _heads_section(c) and key not in headed:
            headed[key] = index  # the nav's “METHODOLOGIES” and the section it names
    titles = [
        (c.draft, _key(c.quote.text)) for c in candidates if c.slot in _TITLE_SLOTS and c.explicit
    ]
    extra = [
        replace(candidates[i], slot=candidates[i].slot or "title", explicit=True)
        for key, i in headed.items()
        if not any(d is candidates[i].draft and key in t and key != t for d, t in titles)
    ]  # the "FIELD NOTES" area headed “[ FIELD NOTES / TRANSCRIPTS ]” keeps its own heading
    chosen_ones = [candidates[i] for i in best.values()] + extra
    return sorted(chosen_ones, key=lambda c: c.quote.start)


def _heads_section(c: Candidate) -> bool:
    """True when a quote the navigation already shows names a body section: in that section's
    opening sentence ("another section emerges …: “METHODOLOGIES”") or as its explicit title."""
    if c.draft.kind in ("header", "footer", "sidebar") or c.text:
        return False
    opening = bool(c.draft.units) and c.unit.start == c.draft.units[0].start
    titled = c.slot in _TITLE_SLOTS and c.explicit
    return (opening and c.slot in ("", "heading", *_TITLE_SLOTS)) or titled


def quote_prefix(quote: pt.Quote, unit: pt.Unit) -> str:
    """Up to 40 characters of the quote's sentence before its opening quote mark (and it)."""
    return unit.text[max(0, quote.start - unit.start - 40) : quote.start - unit.start + 1]


def _key(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _slot(prefix: str, kind: str, text: str, prose: str, end: int) -> tuple[str, bool]:
    """``(slot, explicit)`` for a quote: a button / link / tag word right after it, else the
    nearest slot word before it in its sentence (explicit), else a word after it naming a
    heading, else the section kind's default or a guess by length (not explicit)."""
    suffix = _suffix_slot(prose[end - 1 : end + 160])
    if suffix and suffix not in ("title", names.NAME_SLOT):
        return suffix, True
    found = _prefix_slot(prefix[-90:], kind)
    if found[1] or suffix is None:
        return found
    return suffix, True


def _suffix_slot(after: str) -> str | None:
    """The slot a word right after a quote names: its first word (“…” section with a header)
    or, past one modifier, its second (“…” small button); None when neither names one. A
    section word (“Library” section) gives ``name``: see :mod:`planner_names`."""
    match = _SUFFIX.match(after)
    if not match:
        return None
    first = re.match(
        r"^[”\"]?(?:(?:\s*,\s*|\s+and\s+|\s+or\s+)[“\"][^”\"\n]{1,80}[”\"])*\s*([\w-]+)", after
    )
    own = vocab.SUFFIX_SLOTS.get(first.group(1).lower()) if first else None
    return own or vocab.SUFFIX_SLOTS.get(match.group(1).lower())


def _prefix_slot(tail: str, kind: str) -> tuple[str, bool]:
    """The slot the words before a quote name (see :func:`_slot`)."""
    if re.search(
        r"\b(?:titled|called|named|headed|heading|headline)(?:\s+(?:that\s+)?(?:reads?|"
        r"says|is))?\s*:?\s*$",
        tail,
        re.I,
    ):
        return "title", True
    if re.search(
        r"\b(?:card|panel|widget|section|module|box|column)\s+(?:labeled|labelled)\s*$", tail, re.I
    ):
        return "title", True
    if re.search(r"(?:^|[,;.]\s*)(?:body |its )?(?:text|copy|description)\s*:\s*$", tail, re.I):
        return "paragraph", True
    hits = pt.keyword_hits(tail, vocab.SLOT_WORDS)
    if hits and hits[-1][1] != "item":
        return hits[-1][1], True
    if hits and kind not in ("testimonials", "header", "footer", "sidebar", "stats"):
        return "item", False
    return "", False


def _by_kind(kind: str, text: str) -> str:
    """The default slot of a quote no wording places, by section kind and length."""
    words = len(text.split())
    if kind in ("header", "footer", "sidebar") and words <= 4:
        return "tag" if text.rstrip()[-1:] in ".!?" else "nav"
    defaults = {
        "stats": "kpi",
        "pricing": "item",
        "team": "item",
        "timeline": "item",
        "features": "item",
        "gallery": "item",
        "form": "field",
        "table": "item",
    }
    if words > 9 or (words > 5 and text.rstrip()[-1:] in ".!?"):
        return "quote" if kind == "testimonials" else "paragraph"
    return defaults.get(kind, "heading")


def _put(c: Candidate, prose: str) -> None:
    """Place one quote into its draft (or the draft's element) according to its slot."""
    draft, slot = c.draft, c.slot or _by_kind(c.draft.kind, c.quote.text)
    if draft.kind == "stats" and slot in ("tag", "item", "heading", "paragraph"):
        slot = "kpi"
    text = label_text(c.quote.text, slot)
    element = element_rules.element_at(draft.elements, c.unit, c.quote.start)
    shown = replace(c.quote, text=text)
    claimed = "pair" if c.text else slot  # an item's fields stay in the section together
    claimed = "title" if claimed == names.NAME_SLOT else claimed  # a “…” panel's chart title
    page_text = (
        element is not None
        and element.modality == "image"
        and _PAGE_TEXT.search(pt.blank_quotes(prose[max(0, c.quote.start - 90) : c.quote.start]))
    )  # "next to the text “Welcome back, Luna”": the page's words beside a picture
    if (
        element is not None
        and not page_text
        and element_rules.claims(
            element, claimed, c.explicit, shown, prose[max(0, c.quote.start - 160) : c.quote.start]
        )
    ):
        return
    if slot in _EYEBROW_SLOTS and eyebrows.placed_above(prose, c.quote.start, c.quote.end, text):
        draft.add("eyebrow", text)  # "a small label above it: “…”": the head's first line
    elif slot == "pair":
        pair_text, label = label_text(c.text, "paragraph"), label_text(c.label, "tag")
        draft.add("items", SectionItem(title=text, text=pair_text, label=label))
    elif slot == "kpi" and c.text:  # “TOTAL MINUTES IN VR”, big number “42 min”
        draft.add("items", SectionItem(label=text, value=label_text(c.text, "kpi")))
    elif slot in ("nav", "button"):
        chrome = draft.kind in ("header", "footer", "sidebar")
        draft.add("nav_items" if slot == "nav" and chrome else "buttons", text)
    elif slot == names.NAME_SLOT and draft.kind not in _CHROME and not _titled(draft):
        draft.add(slot, text)  # the section's quoted name: title or eyebrow, once all are in
    elif (
        slot == "title"
        and names.pending(draft)
        and not names.heads_section(pt.blank_quotes(prose[c.unit.start : c.quote.start]))
    ):
        draft.add("headings", text)  # a card's title under the named section: not its heading
    elif slot == "brand" or (slot in _TITLE_SLOTS and draft.default_title):
        _put_brand(draft, text)  # the header's own title replaces the page title it was lent
    elif slot == names.NAME_SLOT and draft.kind not in _CHROME:
        draft.add("headings", text)  # 'On the left, a “Hosted by” section': a block inside
    elif slot in (*_TITLE_SLOTS, "subtitle"):
        slot = "title" if slot == names.NAME_SLOT else slot  # a header's “…” band: its title
        plural = "headings" if slot == "title" else "paragraphs"
        draft.add(slot if not draft.first(slot) else plural, text)
    elif _is_testimonial(draft, slot, text) and _holds_quotes(draft, c.unit):
        cite = _CITE.match(prose[c.quote.end - 1 : c.quote.end + 80])
        draft.add("items", SectionItem(text=text, title=cite.group(1).strip() if cite else ""))
    elif slot == "attribution":
        _put_attribution(draft, text)
    else:
        _put_plain(draft, slot, text, prose, c.quote.end)


def _titled(draft: Draft) -> bool:
    """True when ``draft`` already has a title or a quoted name: a later “…” section / band
    inside it ('On the left, a “Hosted by” section') is one of its headings."""
    return bool(draft.first("title") or draft.slots.get(names.NAME_SLOT))


def _put_plain(draft: Draft, slot: str, text: str, prose: str, end: int) -> None:
    """Tags, KPIs, form fields, card titles, paragraphs and headings."""
    if slot == "fragment":
        draft.add("notes", text)  # prompt prose caught between straight quotes: never shown
    elif slot == "tag":
        draft.add("tags", text)
    elif slot == "kpi":
        draft.add("items", SectionItem(label=text, value=_value_after(prose, end)))
    elif slot == "field":
        draft.add("items", SectionItem(label=text, meta="field"))
    elif slot == "item":
        draft.add("items", SectionItem(title=text) if len(text) <= 60 else SectionItem(text=text))
    elif slot in ("paragraph", "quote", "caption", "attribution"):
        draft.add("paragraphs", text)
    else:
        draft.add("headings", text)


def _is_testimonial(draft: Draft, slot: str, text: str) -> bool:
    """A quote slot, or a card of a testimonials section that reads like a sentence."""
    sentence = len(text) > 40 and text.rstrip("”\"' ")[-1:] in ".!?"
    return slot == "quote" or (draft.kind == "testimonials" and slot == "item" and sentence)


def _holds_quotes(draft: Draft, unit: pt.Unit) -> bool:
    """True when a quote in ``unit`` is a testimonial card of ``draft`` (not a pull quote)."""
    talks = pt.has_word(pt.blank_quotes(unit.text), ("testimonial", "testimonials", "review"))
    return draft.kind in _QUOTE_HOMES or talks


def _put_brand(draft: Draft, text: str) -> None:
    """A wordmark / logo text: the brand of a header, footer or sidebar (replacing the page
    title the header was given by default), else an ordinary title."""
    chrome = draft.kind in ("header", "footer", "sidebar")
    if chrome and (draft.default_title or not draft.first("title")):
        draft.slots["title"] = [text, *draft.slots.get("title", [])[1:]]
        draft.default_title = False
    elif not draft.first("title"):
        draft.add("title", text)
    else:
        draft.add("headings", text)


def _put_attribution(draft: Draft, text: str) -> None:
    """ "attributed to “Maya R.”": the cite of the last testimonial quote without one."""
    quotes = [i for i in draft.slots.get("items", []) if i.text]
    if quotes and not quotes[-1].title:
        quotes[-1].title = text
    elif quotes and not quotes[-1].label:
        quotes[-1].label = text  # "the name “Avery P.” … and “Illustrator” in gray": the role
    else:
        _put_plain(draft, _by_kind(draft.kind, text), text, "", 0)


def _value_after(prose: str, end: int) -> str:
    """A KPI value written right after its label: “Daily Active Players” (show 2,000,000)."""
    match = re.match(
        r"\s*\((?:show(?:ing)?|e\.g\.,?|value:?)?\s*([^)]{1,24})\)", prose[end : end + 40]
    )
    return match.group(1).strip() if match else ""
