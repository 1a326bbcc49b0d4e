"""Short design briefs: the parts a brief lists become the page's sections (offline planner helper).

The planner reads long prompts paragraph by paragraph; a designer's short brief names the whole
page in one sentence instead — "a landing page for a bakery called Crumb & Co. with a hero photo,
a menu of breads with prices, opening hours and a contact form". Here each listed part becomes
its own section draft, in the brief's order, with the kind, elements and copy the part implies
(``vocab.BRIEF_PARTS``). Copy the brief does not give is written as plain, honest sample copy
from the brief's own words ("A sentence on what the smart water bottle does best."), and
invented numbers say so ("Sample prices — set your own."). Charts get synthesised data, flagged
by ``planner_data.synthesize`` as the planner always does.

Public API: :func:`expand` (used by ``planner.plan_from_prompt`` only for a prompt without a
dataset whose usual segmentation found at most two body sections, fewer than the brief lists;
a brief that also quotes copy keeps its segmented sections and gets the parts it names in plain
words added by :func:`complete`), :func:`named_parts`,
:func:`find_parts`, and :func:`unquoted_name`, :func:`subject` and :func:`title_from_subject`
(used by ``planner.find_title``). The sample copy itself is data: ``vocab.BRIEF_*``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from mmstudio.plan import SectionItem
from mmstudio.providers.offline import planner_data as data
from mmstudio.providers.offline import planner_listed as listed
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab
from mmstudio.providers.offline.planner_currency import currency_for
from mmstudio.providers.offline.planner_elements import ElementDraft, negated
from mmstudio.providers.offline.planner_labels import label_text
from mmstudio.providers.offline.planner_sections import Draft

_MAX_BODY = 2  # a plan with more body sections than this is left as segmented
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                 "eleven", "twelve")  # fmt: skip
_COUNTS = {word: i for i, word in enumerate(_NUMBER_WORDS, 1)}
_COUNT = re.compile(r"\b(\d{1,2}|" + "|".join(_COUNTS) + r")\b", re.I)
_TRIGGER = re.compile(
    r"\b(?:with|includ(?:e|es|ing)|featuring|contain(?:s|ing)?|ha(?:s|ve|ving)|needs?|plus)\b"
    r"\s*:?|:",
    re.I,
)
_PAGE = re.compile(
    r"\b(?:page|site|website|homepage|home page|portfolio|store|shop|app|blog)\b", re.I
)
_LEAD_VERB = re.compile(
    r"^\W*(?:(?:please|also|then|and|finally|plus)\s+)*"
    r"(?:(?:design|create|build|make|add|include|imagine|give it|put)\s+)?",
    re.I,
)
_AND = re.compile(
    r"\s+(?:and|&|plus|as well as|then)\s+(?=(?:an?|the|some|our|my|\d+|"
    + "|".join(_COUNTS)
    + r")\b|(?-i:[A-Z])|(?:"
    + "|".join(re.escape(w) for _, words in vocab.BRIEF_PARTS for w in words)
    + r")\b)",
    re.I,
)
_PLACE = re.compile(
    r"\s+(?:at the (?:very )?(?:top|bottom|end)|underneath|below it|to finish|to close)$", re.I
)
_ARTICLE = re.compile(r"^(?:an?|the|some|our|my|\d+|" + "|".join(_COUNTS) + r")\s+", re.I)
_NAME_CUE = re.compile(r"\b(?:called|named|titled|entitled)\s+")
_ABBREVIATIONS = ("Co", "Inc", "Ltd", "St", "Dr", "Mr", "Mrs", "Ms", "Jr", "Bros", "Corp")
_CONNECTORS = ("of", "the", "and", "de", "la", "le", "du", "da", "van", "von", "y", "on")
_SUBJECT = re.compile(
    r"\b(?:page|site|website|homepage|portfolio|store|shop|app|blog)\s+(?:for|about|of)\s+"
    r"(?:(?:an?|the|my|our)\s+)?(?P<np>[^,.;:!?]+)",
    re.I,
)
_SUBJECT_BEFORE = re.compile(
    r"^\W*(?:(?:please\s+)?(?:design|create|build|make|imagine)\s+)?(?:(?:an?|the|my|our)\s+)?"
    r"(?P<np>[\w'’ &-]+?)\s+(?:landing page|homepage|home page|website|web page|site|page)\b",
    re.I,
)
_SUBJECT_END = re.compile(
    r"\s+(?:called|named|titled|entitled|with|that|which|who|where|featuring|including|to|in|"
    r"on|at|by|for|and)\b.*$",
    re.I,
)
_QUOTED_NAME = re.compile(r"^\s*[“\"][^”\"]+[”\"]\s*$")
_APPOSITION = re.compile(r"\s*,\s*(?:an?|the)\s+([^,.;:!?“”\"]+)", re.I)
_GENERIC = ("small", "little", "new", "simple", "modern", "clean", "minimal", "local", "fictional",
            "beautiful", "personal", "single", "one-page", "single-page")  # fmt: skip
_SMALL_WORDS = ("of", "and", "the", "for", "a", "an", "in", "on", "with", "to")


@dataclass(frozen=True)
class Part:
    """One listed part of a brief: its words (``text``), prose offsets ``[start, end)``, its
    paragraph, its key in ``vocab.BRIEF_PARTS`` and the count it names ("six photos" → 6)."""

    text: str
    start: int
    end: int
    paragraph: int
    kind: str
    count: int | None

    @property
    def unit(self) -> pt.Unit:
        """The part as a prose unit (a section's description, an element's sentence)."""
        return pt.Unit(self.start, self.end, self.text, self.paragraph)

    @property
    def phrase(self) -> str:
        """The part without its article or count: "gallery of six photos"."""
        return _ARTICLE.sub("", self.text).strip()


@dataclass(frozen=True)
class Brief:
    """What every part's copy draws on: the page ``title``, the ``subject`` the page is for
    ("smart water bottle", may be ""), the ``name`` it gives ("Ana Ruiz", may be "") and the
    currency symbol for sample prices."""

    title: str
    subject: str
    name: str
    currency: str

    @property
    def noun(self) -> str:
        """What the copy talks about: "the smart water bottle", else the name or title."""
        if self.subject and not self.name:
            proper = self.subject[:1].isupper()  # "portfolio for Lena Ortiz": a name, no "the"
            return self.subject if proper else f"the {self.subject}"
        return self.name or self.title

    @property
    def owner(self) -> str:
        """Who the page is for, for element prompts: "a wedding photographer named Ana Ruiz"."""
        if not self.subject:
            return self.name or self.title
        if self.subject[:1].isupper() and not self.name:
            return self.subject  # a name, no article
        article = "an" if self.subject[:1].lower() in "aeiou" else "a"
        return f"{article} {self.subject}" + (f" called {self.name}" if self.name else "")


def unquoted_name(sentence: str) -> str:
    """The capitalised name after "called/named/titled" ("called Crumb & Co. with …" →
    "Crumb & Co."), "" when none; abbreviations keep their full stop."""
    for cue in _NAME_CUE.finditer(sentence):
        taken: list[str] = []
        for token in sentence[cue.end() :].split():
            core = token.rstrip(",.;:!?)")
            tail = token[len(core) :]
            if core in _ABBREVIATIONS and tail.startswith("."):
                core, tail = core + ".", tail[1:]
            named = core[:1].isupper() or core[:1].isdigit() or core in ("&", "+")
            if not core or not (named or (taken and core.lower() in _CONNECTORS)):
                break
            taken.append(core)
            if tail or len(taken) >= 8:
                break
        while taken and (taken[-1].lower() in _CONNECTORS or taken[-1] in ("&", "+")):
            taken.pop()
        if taken:
            return " ".join(taken)
    return ""


def subject(sentence: str) -> str:
    """What the page is for, from its opening sentence: "product page for a smart water
    bottle" → "smart water bottle", "a coffee shop homepage" → "coffee shop" ("" if none)."""
    match = _SUBJECT.search(sentence) or _SUBJECT_BEFORE.search(sentence)
    if not match:
        return ""
    np = match.group("np")
    if _QUOTED_NAME.match(np):  # "for “Spoke Doctor”, a bike repair shop": the apposition
        apposition = _APPOSITION.match(sentence, match.end("np"))
        if apposition is None:
            return ""
        np = apposition.group(1)
    words = _SUBJECT_END.sub("", np).split()[:6]
    while words and words[0].lower() in ("a", "an", "the", "my", "our"):
        words.pop(0)
    return " ".join(words).strip(" -&")


def title_from_subject(text: str) -> str:
    """A noun-phrase title: "small neighbourhood bakery" → "Neighbourhood Bakery"."""
    words = text.split()
    while len(words) > 1 and words[0].lower() in _GENERIC:
        words.pop(0)
    return " ".join(
        w if w.lower() in _SMALL_WORDS and i else w[:1].upper() + w[1:] for i, w in enumerate(words)
    )


def find_parts(prose: str) -> list[Part]:
    """The parts a brief lists, in order (at most one header, hero and footer)."""
    units = pt.split_units(prose)
    parts: list[Part] = []
    continuing = False
    for unit in units:
        found = _unit_parts(unit, continuing)
        continuing = bool(found) and unit.text.rstrip().endswith((";", ":"))
        for part in found:
            unique = part.kind in ("header", "hero", "footer")
            if not (unique and any(p.kind == part.kind for p in parts)):
                parts.append(part)
    return parts


def _unit_parts(unit: pt.Unit, continuing: bool) -> list[Part]:
    """The parts one sentence lists: after its first list cue ("with", "include", ":"), or
    the whole sentence when it only names parts ("A hero with the product shot, a footer.")."""
    text = unit.text
    cue = _TRIGGER.search(text)
    offset = 0
    if cue and not continuing:
        prefix = _LEAD_VERB.sub("", text[: cue.start()], count=1).strip()
        is_part = pt.first_key(prefix, vocab.BRIEF_PARTS) and not _PAGE.search(prefix)
        offset = 0 if prefix and is_part else cue.end()  # "A hero with …, a footer": a list
    elif not continuing and _PAGE.search(text):
        return []
    chunks = _chunks(text, offset)
    if offset == 0 and chunks and pt.first_key(chunks[0][1], vocab.BRIEF_PARTS) == "header":
        return []  # "Top navigation menu with Services, Prices, …": nav labels, not parts
    parts = []
    for start, chunk in chunks:
        kind = pt.first_key(chunk, vocab.BRIEF_PARTS)
        if kind is None and len(chunk.split()) > 8:
            continue
        count = _COUNT.search(chunk)
        number = None
        if count:
            word = count.group(1).lower()
            number = max(1, min(12, int(word) if word.isdigit() else _COUNTS[word]))
        at = unit.start + start
        parts.append(Part(chunk, at, at + len(chunk), unit.paragraph, kind or "content", number))
    return parts if sum(p.kind != "content" for p in parts) >= (1 if continuing else 2) else []


def _chunks(text: str, offset: int) -> list[tuple[int, str]]:
    """``[(offset in text, words)]`` of a list: split on commas, semicolons and "and a …"."""
    found = []
    for piece in re.finditer(r"[^,;]+", text[offset:]):
        start = offset + piece.start()
        for sub in _split_and(piece.group()):
            clean = _LEAD_VERB.sub("", sub[1], count=1)
            clean = _PLACE.sub("", clean.strip().rstrip(".!?:").strip())
            if len(clean) >= 2:
                found.append((start + sub[0] + sub[1].find(clean[:8]), clean))
    return found


def _split_and(piece: str) -> list[tuple[int, str]]:
    bounds = [0] + [m.end() for m in _AND.finditer(piece)]
    cuts = [m.start() for m in _AND.finditer(piece)] + [len(piece)]
    return [(b, piece[b:c]) for b, c in zip(bounds, cuts, strict=True)]


def expand(prose: str, title: str, drafts: list[Draft]) -> list[Draft]:
    """Section drafts built from the parts a short brief lists, or ``drafts`` unchanged when
    the brief lists fewer than two parts or no more body parts than ``drafts`` has body
    sections, the segmentation found more than :data:`_MAX_BODY` body sections, or the brief
    quotes copy beyond its title (that copy is placed by the usual quote rules)."""
    body = [
        d
        for d in drafts
        if d.kind not in ("header", "footer") and (d.elements or any(d.slots.values()))
    ]  # a draft with neither copy nor elements is folded away when the plan is assembled
    quoted = {q.text for q in pt.find_all_quotes(prose)} - {title}
    if len(body) > _MAX_BODY:
        return drafts
    if quoted:
        return complete(prose, title, drafts)
    parts = named_parts(prose)
    if len(parts) < 2 or sum(p.kind not in ("header", "footer") for p in parts) <= len(body):
        return drafts  # the segmentation already found every part it lists
    opening = pt.split_units(prose)[0].text
    currency = currency_for(prose)  # "a bakery in Leeds" → £
    brief = Brief(title, subject(opening), unquoted_name(opening), currency)
    built = [
        _complete_part(p, brief, [], prose, parts)
        if p.kind in _READS_ITS_WORDS
        else _BUILDERS.get(p.kind, _content)(p, brief, parts)
        for p in parts
    ]
    if not any(d.kind == "header" for d in built):
        built.insert(0, Draft("header"))
    _header(next(d for d in built if d.kind == "header"), built, title)
    return built


# part kind → the section kind that, when the segmentation found one, already holds that part
_COVERED_BY = {"pricing": "pricing", "menu": "pricing", "form": "form", "footer": "footer",
               "gallery": "gallery", "stats": "stats", "table": "table", "chart": "charts",
               "testimonials": "testimonials", "team": "team", "faq": "faq", "about": "about",
               "logos": "logos", "hours": "hours", "map": "map"}  # fmt: skip
# parts whose items, values or data the brief may list in its own words ("Mon 1500, …")
_READS_ITS_WORDS = ("pricing", "menu", "stats", "chart", "gallery")
_LEAD_WORDS = 8  # a sentence that names a part in its first words is about that part


def _has_fields(draft: Draft) -> bool:
    return any(getattr(i, "meta", "") == "field" for i in draft.slots.get("items", []))


def complete(prose: str, title: str, drafts: list[Draft]) -> list[Draft]:
    """The long reading of a brief that quotes some copy, completed: every part it names in
    plain words ("A price list: Puncture fix £12, …", "a contact form", "four KPI tiles …",
    "a grid of six project photos") that no section of ``drafts`` holds becomes its own
    section, built as :func:`expand` builds it, with the items and values the brief lists
    (``planner_data.listed_pairs``). A chart or picture already planned inside another section
    moves into (or is replaced by) the new section, so nothing is drawn twice. The footer
    stays last; ``drafts`` is returned unchanged when nothing is missing."""
    blank = pt.blank_quotes(prose)
    have = {d.kind for d in drafts if d.kind != "content"} | {
        _section_key(d) for d in drafts if d.kind == "content"
    }
    if any(_has_fields(d) for d in drafts):
        have.add("form")  # a section that already shows inputs holds the brief's form
    banned = negated(blank)  # "No videos, animation or charts appear anywhere."
    missing = [
        p
        for p in named_parts(blank)
        if _COVERED_BY.get(p.kind, "") not in have | {""}
        and not (p.kind == "chart" and "chart" in banned)
        and not (p.kind in ("gallery", "logos") and "image" in banned)
    ]
    if not missing:
        return drafts
    opening = pt.split_units(prose)[0].text
    brief = Brief(title, subject(opening), unquoted_name(opening), currency_for(prose))
    built: list[Draft] = []
    seen: set[str] = set()
    every = named_parts(blank)
    for part in missing:
        key = _COVERED_BY[part.kind]
        if key in seen and key not in ("charts", "gallery"):
            continue
        seen.add(key)
        host = _named_host(part, prose, drafts)
        if host is not None:  # "Use three photos of the workshop in the hero."
            _take_elements([host], "image", part.start, _part_end(part, every, prose))
            host.elements.extend(_BUILDERS["gallery"](part, brief, [part]).elements)
            continue
        draft = _complete_part(part, brief, drafts, prose, every)
        _claim(draft, prose[part.start : _part_end(part, every, prose)], prose, drafts)
        previous = built[-1] if built else None
        if (
            previous is not None
            and draft.kind == previous.kind == "charts"
            and _unit_start(part.start, prose) == _unit_start(previous.units[0].start, prose)
        ):
            previous.elements.extend(draft.elements)  # charts of one sentence sit side by side
        else:
            built.append(draft)
    _nav_to_header(prose, drafts)
    titles = {e.title for d in built for e in d.elements if e.modality == "chart" and e.title}
    for draft in drafts:
        for slot in ("tags", "buttons", "nav_items"):
            if draft.slots.get(slot):  # a chart's title is the chart's, not a chip or a link
                draft.slots[slot] = [v for v in draft.slots[slot] if v not in titles]
    footers = [d for d in drafts if d.kind == "footer"] + [d for d in built if d.kind == "footer"]
    body = [d for d in drafts if d.kind != "footer"] + [d for d in built if d.kind != "footer"]
    return body + footers[:1]


def _nav_to_header(prose: str, drafts: list[Draft]) -> None:
    """In place: the labels quoted in the sentence that names the navigation ("Top navigation
    menu with “Services”, “Prices”, …") become the header's nav items when the quote rules
    left them as buttons or chips of some section and the header has none."""
    header = next((d for d in drafts if d.kind == "header"), None)
    if header is None or header.slots.get("nav_items"):
        return
    for unit in pt.split_units(prose):
        lead = " ".join(pt.blank_quotes(unit.text).split()[:_LEAD_WORDS])
        if pt.first_key(lead, vocab.BRIEF_PARTS) != "header":
            continue
        names = [q.text for q in pt.find_quotes(unit.text)]
        placed = [v for d in drafts for slot in ("buttons", "tags") for v in d.slots.get(slot, [])]
        if len(names) < 2 or not all(n in placed for n in names):
            return
        for draft in drafts:
            for slot in ("buttons", "tags"):
                if draft.slots.get(slot):
                    draft.slots[slot] = [v for v in draft.slots[slot] if v not in names]
        header.slots["nav_items"] = names
        return


def named_parts(blank: str) -> list[Part]:
    """The parts ``blank`` (prose with its quotes blanked) names: the lists :func:`find_parts`
    reads, and each other sentence that names a part in its first words ("A price list: …",
    "Four KPI tiles at the top: …"), the whole sentence as the part. A photo part that counts
    two or more photos ("a grid of six project photos") is a gallery."""
    found = find_parts(blank)
    for unit in pt.split_units(blank):
        if any(unit.start <= p.start < unit.end for p in found):
            continue
        lead = " ".join(unit.text.split()[:_LEAD_WORDS])
        kind = pt.first_key(lead.split(":")[0], vocab.BRIEF_PARTS)
        if kind is None:
            continue
        count = _COUNT.search(lead)
        number = None
        if count:
            word = count.group(1).lower()
            number = max(1, min(12, int(word) if word.isdigit() else _COUNTS[word]))
        found.append(Part(unit.text, unit.start, unit.end, unit.paragraph, kind, number))
    found.sort(key=lambda p: p.start)
    return [
        Part(p.text, p.start, p.end, p.paragraph, "gallery", p.count)
        if p.kind == "image" and (p.count or 0) >= 2
        else p
        for p in found
    ]


def _section_key(draft: Draft) -> str:
    """A content section's part kind from its title ("About" → about), "" when none."""
    return pt.first_key(draft.first("title"), vocab.BRIEF_PARTS) or ""


def _sentence_of(part: Part, prose: str) -> str:
    """The prose sentence that holds ``part`` (with its quotes, which the part's text blanks)."""
    for unit in pt.split_units(prose):
        if unit.start <= part.start < unit.end:
            return unit.text
    return part.text


def _take_elements(drafts: list[Draft], modality: str, start: int, end: int) -> list[ElementDraft]:
    """Remove and return the ``modality`` elements of ``drafts`` mentioned in ``[start, end)``."""
    taken: list[ElementDraft] = []
    for draft in drafts:
        keep: list[ElementDraft] = []
        for element in draft.elements:
            inside = element.modality == modality and start <= element.start < end
            (taken if inside else keep).append(element)
        draft.elements = keep
    return taken


def _complete_part(
    part: Part, brief: Brief, drafts: list[Draft], prose: str, parts: list[Part]
) -> Draft:
    """The section for one part the segmentation missed (see :func:`complete`)."""
    sentence = _sentence_of(part, prose)
    unit_end = part.start + max(len(part.text), 1)
    for unit in pt.split_units(prose):
        if unit.start <= part.start < unit.end:
            unit_end = unit.end
    if part.kind == "chart":
        later = [p.start for p in parts if p.kind == "chart" and part.start < p.start < unit_end]
        end = min([unit_end, *later])
        charts = _take_elements(drafts, "chart", part.start, end)
        if not charts:
            return _own_chart(part, brief, prose[part.start : end].strip(" ,;"))
        draft = _draft("charts", part, charts[0].title or "Charts")
        draft.elements = charts
        return draft
    if part.kind in ("gallery", "about", "logos"):
        _take_elements(drafts, "image", part.start, unit_end)
    draft = _BUILDERS.get(part.kind, _content)(part, brief, [part])
    pairs = data.listed_pairs(sentence[max(0, part.start - _unit_start(part.start, prose)) :])
    if part.kind == "gallery":
        _name_photos(draft, prose[part.start : part.start + 300], brief)
    span = prose[part.start : _part_end(part, parts, prose)]
    priced = listed.priced_items(span)
    if part.kind in ("pricing", "menu") and priced:  # the brief's own items, each in one card
        draft.slots["items"] = [SectionItem(title=i.name, value=i.shown) for i in priced]
        draft.slots["paragraphs"] = []
        draft.slots["subtitle"] = []
        named = "Menu" if "menu" in span.lower() else "Pricing" if "pricing" in span else ""
        draft.slots["title"] = [named or "Prices"]
    elif part.kind in ("pricing", "menu") and pairs:
        draft.slots["items"] = [SectionItem(title=label, value=value) for label, value in pairs]
        draft.slots["paragraphs"] = []
        draft.slots["subtitle"] = []
        draft.slots["title"] = ["Prices"]
    elif part.kind == "form" and (listed.form_fields(span) or listed.submit_label(span)):
        fields = listed.form_fields(span)
        if fields:  # "with fields “Name”, “Email” and “Message”": one input each
            draft.slots["items"] = [SectionItem(label=f, meta="field") for f in fields]
        if listed.submit_label(span):
            draft.slots["buttons"] = [listed.submit_label(span)]
    elif part.kind == "stats" and pairs:
        draft.slots["items"] = [SectionItem(label=label, value=value) for label, value in pairs]
        draft.slots["paragraphs"] = []
        draft.slots["title"] = ["At a glance"]
    return draft


def _part_end(part: Part, parts: list[Part], prose: str) -> int:
    """Where ``part``'s words end in ``prose``: at the next named part of its sentence (a
    "content" chunk is no part), else at the sentence's end."""
    end = part.end
    for unit in pt.split_units(prose):
        if unit.start <= part.start < unit.end:
            end = unit.end
    later = [p.start for p in parts if p.kind != "content" and part.start < p.start < end]
    return min([end, *later])


_PLACED_IN = re.compile(r"\b(?:in|inside|within|across|for)\s+the\s+(\w+)\b", re.I)


def _named_host(part: Part, prose: str, drafts: list[Draft]) -> Draft | None:
    """The section a picture part puts its photos in ("three photos of the workshop in the
    hero" → the hero draft), when that section exists; None otherwise."""
    if part.kind not in ("gallery", "image"):
        return None
    placed = _PLACED_IN.search(part.text)
    if placed is None:
        return None
    kind = pt.first_key(placed.group(1), vocab.BRIEF_PARTS)
    return next((d for d in drafts if kind and d.kind == kind), None)


_CLAIM_SLOTS = ("buttons", "tags", "nav_items", "headings", "paragraphs")


def _claim(draft: Draft, span: str, prose: str, drafts: list[Draft]) -> None:
    """In place: the strings ``draft`` shows that the brief quotes once, in the part's own
    words ``span``, leave the other drafts (the quote placer put a dish, a field name or a
    form's button in the hero's buttons or headings)."""
    shown = {str(v) for slot in ("buttons", "title") for v in draft.slots.get(slot, [])}
    for item in draft.slots.get("items", []):
        shown |= {t for t in (item.title, item.label, item.value) if t}
    quoted = [label_text(q.text, "tag") for q in pt.find_quotes(span)]
    all_quotes = [label_text(q.text, "tag") for q in pt.find_quotes(prose)]
    claimed = {q for q in quoted if q in shown and all_quotes.count(q) == 1}
    if not claimed:
        return
    for other in drafts:
        for slot in _CLAIM_SLOTS:
            if other.slots.get(slot):
                other.slots[slot] = [
                    v for v in other.slots[slot]
                    if not isinstance(v, str) or label_text(v, "tag") not in claimed
                ]  # fmt: skip
        items = other.slots.get("items") or []
        other.slots["items"] = [
            i for i in items
            if not any(label_text(t, "tag") in claimed for t in (i.title, i.label) if t)
        ]  # fmt: skip


_LISTED_SUBJECTS = re.compile(r"^[^().;]{0,80}\(([^()]{3,200})\)")


def _name_photos(draft: Draft, words: str, brief: Brief) -> None:
    """In place: a gallery whose part lists what its photos show in brackets ("six project
    photos (ceramics, watches, …)") gets one subject per photo prompt, in order."""
    listed = _LISTED_SUBJECTS.match(words)
    if not listed:
        return
    subjects = [w.strip() for w in re.split(r",|\band\b", listed.group(1)) if w.strip()]
    images = [e for e in draft.elements if e.modality == "image"]
    for i, (element, what) in enumerate(zip(images, subjects, strict=False), 1):
        prompt = f"Photo {i} of {len(images)}: {what}, for {brief.owner}."
        unit = pt.Unit(
            element.start, element.start + len(prompt), prompt, element.units[0].paragraph
        )
        element.units = [unit]
        element.mention = what


def _own_chart(part: Part, brief: Brief, words: str) -> Draft:
    """A chart from its own words ("A line chart “Weekly revenue” with Mon 1500, …"): titled by
    its first quote (else as :func:`_chart` titles it), its prompt those words, so its numbers
    are read as the chart's data when the plan is assembled."""
    words = _AND_TAIL.sub("", words)
    named = pt.find_quotes(words)
    plain = _TITLED.search(words)
    if not named and not plain:
        return _chart(part, brief, [])
    title = named[0].text if named else plain.group(1) if plain else ""
    draft = _draft("charts", part, title)
    prompt = _sentence(words).rstrip(".") + "."
    draft.elements.append(_element("chart", part, prompt, title))
    return draft


_TITLED = re.compile(r"\b(?:titled|called|named)\s+(\w.{1,60}?)(?=\s+(?:with|showing)\b|[,.;]|$)")
_AND_TAIL = re.compile(r"\s+(?:and|&|plus)(?:\s+(?:an?|the))?\s*$", re.I)


def _unit_start(offset: int, prose: str) -> int:
    """Where the prose sentence holding ``offset`` starts."""
    for unit in pt.split_units(prose):
        if unit.start <= offset < unit.end:
            return unit.start
    return offset


def _draft(kind: str, part: Part, title: str, subtitle: str = "") -> Draft:
    draft = Draft(kind, units=[part.unit])
    draft.add("title", title)
    if subtitle:
        draft.add("subtitle", subtitle)
    return draft


def _element(modality: str, part: Part, prompt: str, title: str = "") -> ElementDraft:
    unit = pt.Unit(part.start, part.start + len(prompt), prompt, part.paragraph)
    return ElementDraft(modality, [unit], part.start, part.text, title=title)


def _for(part: Part, brief: Brief) -> str:
    """An element's prompt: the part's own words and who the page is for."""
    return f"{_sentence(part.text)}, for {brief.owner}".rstrip(".") + "."


def _sentence(text: str) -> str:
    text = text.strip()
    return text[:1].upper() + text[1:]


def _header(header: Draft, drafts: list[Draft], title: str) -> None:
    """The page title as the brand and the body sections' titles as nav items (at most 5)."""
    header.slots["title"] = [title]
    names = [d.first("title") for d in drafts if d.kind not in ("header", "hero", "footer")]
    header.slots["nav_items"] = [n for n in names if n and len(n) <= 24][:5]


def _hero(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """The page title, a one-line sample introduction, the asset the part names and a button
    to the brief's form (or its menu, pricing or gallery)."""
    intro = f"A one-line introduction to {brief.noun}"
    if brief.name and brief.subject:
        intro += f", {brief.owner.rsplit(' called ', 1)[0]}"
    draft = _draft("hero", part, brief.title, intro + ".")
    words = part.text.lower()
    if pt.has_word(words, vocab.VIDEO_NOUNS):
        draft.elements.append(_element("video", part, _for(part, brief)))
    elif pt.has_word(words, (*vocab.IMAGE_NOUNS, "shot", "product shot", "visual")):
        draft.elements.append(_element("image", part, _for(part, brief)))
    actions = [vocab.BRIEF_FORMS[_form_type(p)][0] for p in parts if p.kind == "form"][:1]
    actions += [vocab.BRIEF_LINKS[p.kind] for p in parts if p.kind in vocab.BRIEF_LINKS][:1]
    for action in actions:
        draft.add("buttons", action)
    return draft


def _gallery(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """``count`` (default 6) images, one prompt each."""
    draft = _draft("gallery", part, "Gallery")
    count = part.count or 6
    noun = "Illustration" if "illustration" in part.text.lower() else "Photo"
    for i in range(1, count + 1):
        prompt = f"{noun} {i} of {count} for {brief.owner} ({part.text})."
        draft.elements.append(_element("image", part, prompt))
    return draft


def _features(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """``count`` (default 3) feature cards with sample copy about the brief's subject."""
    draft = _draft("features", part, "Features")
    for i in range(part.count or 3):
        title, angle = vocab.BRIEF_FEATURE_ANGLES[i % len(vocab.BRIEF_FEATURE_ANGLES)]
        text = f"A sentence on {angle.format(noun=brief.noun)}."
        draft.add("items", SectionItem(title=title, text=text))
    return draft


def _pricing(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """``count`` (default 3) priced packages, marked as sample prices."""
    draft = _draft("pricing", part, _sentence(part.phrase.split(" section")[0]))
    for tier, price in vocab.BRIEF_TIERS[: part.count or 3]:
        text = f"What the {tier.lower()} option includes, in a sentence."
        draft.add("items", SectionItem(title=tier, value=f"{brief.currency}{price}", text=text))
    draft.add("paragraphs", "Sample prices — set your own before publishing.")
    return draft


def _menu(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """``count`` (default 4) priced dishes named from the menu's noun ("menu of breads")."""
    listed = re.search(r"\bof\s+([\w'’-]+(?:\s+[\w'’-]+)?)", part.text)
    plural = listed.group(1) if listed else "dishes"
    plural = re.split(r"\s+(?:with|and)\b", plural)[0]
    from mmstudio.providers.offline.motifs import singular  # "dishes" → "dish", not "dishe"

    single = " ".join([*plural.split()[:-1], singular(plural.split()[-1])])
    draft = _draft("pricing", part, "Menu", f"Our {plural}, with prices.")
    for i, kind in enumerate(vocab.BRIEF_MENU_KINDS[: part.count or 4]):
        title = f"{kind} {single}"
        value = f"{brief.currency}{3.5 + 0.5 * i:.2f}"
        text = f"A line on the {title.lower()}."
        draft.add("items", SectionItem(title=title, value=value, text=text))
    draft.add("paragraphs", "Sample prices — set your own before publishing.")
    return draft


def _hours(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """Opening hours as a short list of day ranges, marked as sample hours."""
    draft = _draft("content", part, "Opening hours")
    for days, hours in vocab.BRIEF_HOURS:
        draft.add("items", SectionItem(title=days, text=hours))
    draft.add("paragraphs", "Sample hours — replace them with your own.")
    return draft


def _testimonials(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """``count`` (default 3) sample quotes about the page's subject, each with a cite."""
    draft = _draft("testimonials", part, "Testimonials")
    lines = vocab.BRIEF_TESTIMONIALS
    for i in range(part.count or 3):
        text = lines[i % len(lines)].format(noun=brief.noun)
        draft.add("items", SectionItem(text=text, title=f"Client {i + 1}"))
    return draft


def _faq(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """``count`` (default 4) sample questions, each heading followed by its answer."""
    draft = _draft("content", part, "Frequently asked questions")
    for question in vocab.BRIEF_FAQ[: part.count or 4]:
        draft.add("headings", question.format(noun=brief.noun))
        draft.add("paragraphs", "A short, plain answer in one or two sentences.")
    return draft


def _form_type(part: Part) -> str:
    words = part.text.lower()
    if re.search(r"\b(?:book|booking|reservation|reserve|appointment)", words):
        return "booking"
    if re.search(r"\b(?:newsletter|subscribe|sign-?up|waitlist|mailing)", words):
        return "newsletter"
    return "rsvp" if "rsvp" in words else "contact"


def _form(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """A form with the fields its purpose needs (contact: Name, Email, Message; booking adds a
    Date) and a submit button."""
    title, fields, button = vocab.BRIEF_FORMS[_form_type(part)]
    draft = _draft("form", part, title, "Leave your details and we will reply soon.")
    for label in fields:
        draft.add("items", SectionItem(label=label, meta="field"))
    draft.add("buttons", button)
    return draft


def _about_what(part: Part) -> str:
    """The words after "of/showing/about" in a part ("chart of daily water intake" → "daily
    water intake"), else the part without its article."""
    found = re.search(r"\b(?:of|showing|about|tracking|on|for)\s+(.+)$", part.phrase)
    return (found.group(1) if found else part.phrase).strip()


def _chart(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """A chart titled from the part ("a chart of daily water intake" → "Daily Water Intake")."""
    title = title_from_subject(_about_what(part)) if _about_what(part) != part.phrase else "Chart"
    draft = _draft("charts", part, title)
    prompt = _for(part, brief)
    draft.elements.append(_element("chart", part, prompt, title))
    return draft


def _video(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """A section holding the video the part describes, titled by what it shows."""
    draft = _draft("content", part, _sentence(_about_what(part)))
    draft.elements.append(_element("video", part, _for(part, brief)))
    return draft


def _image(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """A section holding the picture the part describes, titled by what it shows."""
    draft = _draft("content", part, _sentence(_about_what(part)))
    draft.elements.append(_element("image", part, _for(part, brief)))
    return draft


def _footer(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """The page title and a one-line sign-off; the opening hours too when the footer is
    "with opening hours" (marked as sample hours)."""
    draft = _draft("footer", part, brief.title)
    if pt.first_key(part.text.split("footer", 1)[-1], vocab.BRIEF_PARTS) == "hours":
        for days, hours in vocab.BRIEF_HOURS:
            draft.add("items", SectionItem(title=days, text=hours))
        draft.add("paragraphs", "Sample hours — replace them with your own.")
    draft.add("paragraphs", f"© {brief.title}")
    return draft


def _map(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """A location section: a map picture of what the part names ("a map of the shop's
    location"), titled "Find us"."""
    draft = _draft("content", part, "Find us")
    what = _about_what(part) if _about_what(part) != part.phrase else "the location"
    prompt = f"A map of {what}, for {brief.owner}."
    draft.elements.append(_element("image", part, prompt))
    return draft


def _about(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """An about section: a sample paragraph, and the portrait or photo the part names."""
    draft = _content(part, brief, parts)
    if pt.has_word(part.text.lower(), vocab.IMAGE_NOUNS):
        draft.elements.append(_element("image", part, _for(part, brief)))
    return draft


def _logos(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """``count`` (default 5) client logos, one small picture each."""
    draft = _draft("gallery", part, "Clients")
    count = part.count or 5
    for i in range(1, count + 1):
        prompt = f"Logo {i} of {count} of a client of {brief.owner} ({part.text})."
        draft.elements.append(_element("image", part, prompt))
    return draft


_TABLE_TAIL = re.compile(r"\s+(?:below|above|underneath|beneath|at the (?:top|bottom))\W*$", re.I)


def _table(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """A table with the columns of what it lists (``vocab.BRIEF_TABLES``) and four sample rows,
    marked as sample rows."""
    words = part.text.lower()
    columns = next(c for w, c in vocab.BRIEF_TABLES if not w or w in words)
    draft = _draft("table", part, _sentence(_TABLE_TAIL.sub("", _about_what(part))))
    rows = []
    for i in range(1, 5):
        cells = []
        for column in columns:
            name = column.lower()
            if name in ("total", "spent", "amount"):
                cells.append(f"{brief.currency}{20 + 7 * i}.00")
            elif name == "order":
                cells.append(f"#{1000 + i}")
            elif name in ("orders",):
                cells.append(str(i + 1))
            elif name == "date":
                cells.append(f"Day {i}")
            else:
                cells.append(f"{column} {i}")
        rows.append(cells)
    draft.table = pt.Table(draft.first("title"), list(columns), rows)
    draft.add("paragraphs", "Sample rows — replace them with your own.")
    return draft


def _content(part: Part, brief: Brief, parts: list[Part]) -> Draft:
    """Any other part (about, team, stats, timeline, …): a section titled from the part with
    a sample paragraph about it."""
    names = {"about": "About", "team": "Team", "stats": "In numbers", "timeline": "Timeline"}
    kinds = {"team": "team", "stats": "stats", "timeline": "timeline", "cta": "cta"}
    title = names.get(part.kind) or _sentence(part.phrase.split(" section")[0])
    draft = _draft(kinds.get(part.kind, "content"), part, title)
    if part.kind == "about":
        draft.add("paragraphs", f"A short introduction to {brief.noun}, in your own words.")
    else:
        draft.add("paragraphs", f"A short paragraph on {part.phrase} for {brief.noun}.")
    return draft


_BUILDERS: dict[str, Callable[[Part, Brief, list[Part]], Draft]] = {
    "header": lambda part, brief, parts: Draft("header", units=[part.unit]),
    "hero": _hero,
    "gallery": _gallery,
    "features": _features,
    "pricing": _pricing,
    "menu": _menu,
    "hours": _hours,
    "testimonials": _testimonials,
    "faq": _faq,
    "form": _form,
    "chart": _chart,
    "video": _video,
    "image": _image,
    "footer": _footer,
    "about": _about,
    "map": _map,
    "logos": _logos,
    "table": _table,
}
