"""Pass: quoted copy → copy, label and nav requirements.

A run of quotes joined only by commas / "and" / "or" (“About”, “Workshops”, and “Tickets”) shares
the role read from the words just before the run: a navigation menu gives nav links, a button /
CTA / pill gives button labels, a tag / badge / chip gives tag labels, anything else is copy that
must be visible somewhere. A role noun right after a quote ("and a “Book a class” button")
gives that quote its own role. Short labels must be an element's whole text; the sentence's comma or
period inside the quotes is not part of the label.
"""

from __future__ import annotations

import bisect
import re
from functools import lru_cache

from .model import Requirement
from .text import fold, font_names, loose, quotes, span, strip_label

_COPY_WORDS = re.compile(
    r"\b(notes?|captions?|subtext|microcopy|taglines?|sub-?headings?|subtitles?|descriptions?"
    r"|paragraphs?|sentences?|line of text|disclaimers?)\b",
    re.I,
)
_ROLE = [
    (
        "nav",
        # a food menu ("a menu section listing “Sourdough” £4") is no navigation
        re.compile(
            r"\b(nav(?:igation)?|menu(?!\s+(?:sections?|cards?|boards?|pages?|listing|lists?|of"
            r"|with|grid|items? with))|nav links|links? (?:to|for))\b",
            re.I,
        ),
    ),
    ("button", re.compile(r"\b(buttons?|cta|call[- ]to[- ]action|pill[- ]shaped button)\b", re.I)),
    (
        "field",
        re.compile(
            r"\b(fields?|inputs?|input boxe?s?|text ?boxe?s?|dropdowns?|drop-downs?|select menus?"
            r"|placeholder(?:\s+(?:text|copy))?(?=\W*(?:reads|says|saying)?\W*$))",
            re.I,
        ),
    ),
    (
        "tag",
        re.compile(
            r"\b(tags?|badges?|chips?|capsules?|pills?|(?<!field )labels?|ribbons?|stickers?)\b"
        ),
    ),
    ("heading", re.compile(r"\b(head(?:line|ing)s?|titled?|title reads|wordmark|logo)\b", re.I)),
    (
        "copy",
        re.compile(
            r"\b(notes?|captions?|subtext|microcopy|taglines?|sub-?headings?|subtitles?"
            r"|descriptions?|paragraphs?|sentences?|line of text|disclaimers?)\b",
            re.I,
        ),
    ),
]
#: words before a quote that put it in a chart: an axis, its ticks, the legend, value labels
_CHART_TEXT = re.compile(
    r"\b(?:[xy][- ]axis|axis|axes|tick labels?|legend|(?:data|value) labels?)\b", re.I
)
_PLACEHOLDER = re.compile(r"\bplaceholder(?:\s+(?:text|copy))?\W*(?:reads|says|saying)?\W*$", re.I)
_TEXT_IS = re.compile(r"\btext\b,?\s*(?:is|reads|says)?\s*:\s*$", re.I)
_IN_IMAGE = re.compile(
    r"\b(images?|illustrations?|photos?|pictures?|posters?|artwork|scenes?|mockups?|screenshots?"
    r"|graphics?|figures?|signs?|banners? in the|screens?|t-shirts?|mugs?)\b[^.]*$",
    re.I,
)
_FOOTER = re.compile(r"\bfooter\b(?![^.]*\b(?:header|top)\b)[^.]*$", re.I)
_JOIN = re.compile(r"^[\s,;/]*(?:(?:and|or|&|then)\s+)?[\s,]*$", re.I)
_TITLE_BEFORE = re.compile(r"(?:titled|called|named|title)\s*$", re.I)
MAX_LABEL_WORDS = 5


def _runs(text: str) -> list[list[tuple[str, int, int]]]:
    """Quotes grouped into runs separated only by list punctuation."""
    runs: list[list[tuple[str, int, int]]] = []
    for quote in quotes(text):
        if runs and _JOIN.match(text[runs[-1][-1][2] + 1 : quote[1] - 1]):
            runs[-1].append(quote)
        else:
            runs.append([quote])
    return runs


def _role(text: str, start: int) -> str:
    """The role read from the clause before offset ``start`` (≤ 90 characters, same sentence);
    ``in-image`` for words the brief puts inside a picture ("posters that say …")."""
    base = max(0, start - 90)
    window = text[base:start]
    # the clause starts after the sentence's end, or after the quote before this one (its role
    # words were that quote's)
    cut = max(window.rfind(". "), window.rfind("\n"), window.rfind("; "), window.rfind("”"))
    if cut >= 0:
        window, base = window[cut + 1 :], base + cut + 1
    if _CHART_TEXT.search(window):
        return "chart"  # "the X-axis … with 7 tick labels: “Mon”, …": drawn in the chart
    if _PLACEHOLDER.search(window):
        return "field"  # "placeholder text: “Select a date & theme…”"
    if _TEXT_IS.search(window):
        return "copy"
    best, at = "text", -1  # "text": no word names a role (copy on the page, like "copy")
    for role, pattern in _ROLE:
        for m in pattern.finditer(window):
            if m.start() > at:
                best, at = role, m.start()
    if best in ("copy", "text") and _in_image(text, base, window):
        return "in-image"
    return best


_BESIDE = re.compile(
    r"\b(?:below|beneath|under|above|beside|next to|right of|left of|after|before|around)"
    r"\s+(?:(?:each|this|the|that|every|its|an?)\s+)?(?:[a-z-]+\s+)?$",
    re.I,
)


def _in_image(text: str, base: int, window: str) -> bool:
    """Whether the words before a quote (``window``, from offset ``base`` of ``text``) put it
    inside a picture ("a poster that reads …"), not beside one ("below each image, the card
    has …")."""
    at = base
    return any(
        not _BESIDE.search(text[max(0, at + m.start() - 30) : at + m.start()])
        for m in _IN_IMAGE.finditer(window)
    )


#: a role noun right after the quote ("a “Book a class” button") names that quote's role
_ROLE_AFTER = re.compile(
    r"^\s*(?:(buttons?|cta|call[- ]to[- ]action)|(tags?|badges?|chips?|pills?|ribbons?))\b", re.I
)


def _role_after(text: str, end: int) -> str | None:
    """The role named by the word just after the quote that ends at ``end``, or None."""
    m = _ROLE_AFTER.match(text[end + 1 : end + 40])
    if m is None:
        return None
    return "button" if m.group(1) else "tag"


#: words that hand the quote over as copy ("the headline reads “sign up today”")
_INTRO = re.compile(
    r"(?:\b(?:reads?|reading|says?|saying|titled|labell?ed|named|called|text|words?|caption"
    r"|tagline|headline|heading|title|button|link|tab)\b|:)\W{0,3}$",
    re.I,
)


#: a quote the next word makes a look ("with a “Holographic Accordion” feel") or a part of
#: the layout ("a prominent “Tickets & Call to Action” section")
_IDEA_AFTER = re.compile(r"^\W{0,2}(?:feel|look|vibe|aesthetic|motif|effect|mood)\b", re.I)
_PART_AFTER = re.compile(r"^\W{0,2}(?:section|band|strip|area|block|panel|module)\b", re.I)


def _design_idea(label: str, after: str) -> bool:
    """Whether a quote names a look or a layout part, not copy: one followed by a look word,
    or one followed by a section word that is built on a component's name (“… Call to
    Action”, “… Accordion”: the vocabulary's ``component_nouns``)."""
    if _IDEA_AFTER.search(after):
        return True
    return bool(_PART_AFTER.search(after) and _components().search(label))


@lru_cache(maxsize=1)
def _components() -> re.Pattern[str]:
    from .text import vocabulary, words_pattern

    return words_pattern(vocabulary()["component_nouns"]["words"])


def _scare_quote(inner: str, role: str = "text", before: str = "") -> bool:
    """“sketchbook”-style quotes: one lower-case word that is no nav link (a “pressed” button
    state) — or up to three lower-case words naming a design idea (“flavor tiles”, “leaf
    bullet list”, “event passes”) where no word before it names a role, or no word right
    before it (``before``, the brief's text up to the quote) hands it over as copy."""
    words = inner.split()
    if role in ("nav", "listed", "field"):
        return False  # a lower-case menu (“work”, “about”) or list of names is still copy
    if len(words) == 1:
        return inner[:1].islower() and len(inner) < 20
    plain = all(w.isalpha() and w.islower() for w in words)
    if not (plain and len(words) <= 3 and len(inner) < 30):
        return False
    if role == "text":
        return True
    # a role word of copy further back ("below the paragraphs, a small “leaf bullet list”")
    # hands nothing over; a tag or a button is named as one
    return role in ("copy", "heading") and not _INTRO.search(before[-30:])


#: words that describe type, not content: a line holding them is a note on the typeface
TYPE_WORDS = re.compile(
    r"\b(?:sans-?serifs?|serifs?|monospaced?|typefaces?|font family|font stack|grotesk"
    r"|grotesque|letterforms?|slab serif|humanist sans)\b",
    re.I,
)
_HEX = re.compile(r"^#[0-9a-f]{3}(?:[0-9a-f]{3})?(?:[0-9a-f]{2})?$", re.I)
#: the words before a quote that make it a typeface ("a condensed sans-serif (think of
#: something like “Neue Display”)", "the typeface “Inter”") — not a heading described by its
#: type ("in a heavy grotesk: “Level Up”")
_FONT_BEFORE = re.compile(
    r"(?:\b(?:fonts?|typefaces?|type ?face|lettering|typeset|(?:sans-?)?serif|monospace"
    r"|grotesk|grotesque|slab)\b[^.]{0,50}\b(?:like|such as|think of|similar to)\s*"
    r"|\b(?:font|typeface|font family)\s+(?:called\s+|named\s+)?)[“\"«]?$",
    re.I,
)


def extract_copy(text: str, source: str = "prompt") -> list[Requirement]:
    """Copy, label, nav and field requirements of every quoted string (see :func:`_extract`);
    fresh objects each call, read once per text."""
    return [r.model_copy(deep=True) for r in _extract(text, source)]


@lru_cache(maxsize=8)
def _extract(text: str, source: str) -> tuple[Requirement, ...]:
    """Copy, label and nav requirements of every quoted string (ids ``copy-N`` …), then one
    ``repeat`` requirement per quote the brief places in several paragraphs (a brand in the
    header and the footer, a CTA in the hero and the closing band).

    A quote in capitals (“LINA SCHAUB”) keeps its capitals even when the brief also writes it
    in mixed case; ``values`` of a copy requirement are the longer quotes that contain it (its
    words inside them do not count as showing it)."""
    found: dict[tuple[str, str], Requirement] = {}
    fields: list[Requirement] = []
    for run in _runs(text):
        role = _role(text, run[0][1] - 1)
        # the last of a list of short like items (“Map your early adopters”, “Interview for
        # insight, not approval.”), not a sentence quoted beside a title (“Roast”)
        list_of_short = (
            len(run) > 1
            and all(len(q.split()) <= 8 for q, _, _ in run)
            and any(not q.rstrip().endswith(".") for q, _, _ in run)
        )
        for inner, start, end in run:
            own = _role_after(text, end) if role not in ("nav", "in-image") else None
            # a list of names (“northloop”, “quiet harbor”, “Featherline”) is no design term
            listed = own or (role if role != "text" or len(run) == 1 else "listed")
            req = _one(text, inner, start, end, listed, source)
            if req is None:
                continue
            if req.role == "field" and fields and fields[-1].span.end >= start - 40:
                fields[-1].values.append(req.label)  # one form: its fields are one demand
                fields[-1].key = "form fields"
                fields[-1].text = f"Form fields {', '.join(f'“{x}”' for x in fields[-1].values)}"
                fields[-1].span = span(text, fields[-1].span.start, end + 1, source)
                continue
            if req.role == "field":
                req.values = [req.label]
                fields.append(req)
            req.sentence_end = (
                req.punct.startswith(".")
                and (_title_like(req.label) or list_of_short)
                and not _sentence_goes_on(text, end)
                and not _ABBREVIATION.search(req.label)
            )
            kept = found.setdefault((req.kind, req.key.casefold()), req)
            if kept is not req and _capitals(req.label) and not _capitals(kept.label):
                kept.label = kept.key = req.label  # the capitals are the demand
    reqs = list(found.values())
    _containers(text, reqs)
    return tuple(reqs + _repeats(text, reqs, source))


#: a label ending in an initial or an abbreviation keeps its period ("Avery P.", "Mug Co.")
_ABBREVIATION = re.compile(r"(?:^|\s)(?:[A-Z]|Co|Inc|Ltd|Jr|Sr|St|Dr|Mr|Mrs|Ms|Bros|Corp)$")


def _sentence_goes_on(text: str, end: int) -> bool:
    """Whether the brief's sentence goes on after the closing quote at ``end`` with its own
    punctuation (“Silly prompts, fast doodles, zero pressure.”; …): then a period inside the
    quotes is the copy's own, not the sentence's. (A title quoted mid-sentence with a period,
    “Grow Together in the City.” is large, keeps the rule: a title takes no period.)"""
    return bool(re.match(r"\s*[;,]", text[end + 1 : end + 8]))


_SMALL = {"a", "an", "and", "at", "by", "for", "in", "of", "on", "or", "the", "to", "with", "&"}


def _title_like(label: str) -> bool:
    """A title, not a sentence: two to eight words, every word but the small ones capitalised
    (“Panel Flow for Emotional Impact”, “May 18–19, 2025 — Balcony Herb Basics”)."""
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", label) if w.casefold() not in _SMALL]
    return 2 <= len(label.split()) <= 8 and bool(words) and all(w[0].isupper() for w in words)


def _capitals(label: str) -> bool:
    letters = [c for c in label if c.isalpha()]
    return len(letters) >= 3 and all(c.isupper() for c in letters)


def _line_of(text: str):
    """A function: offset of ``text`` → its line (paragraph) number, in O(log n)."""
    breaks = [i for i, c in enumerate(text) if c == "\n"]
    return lambda at: bisect.bisect_left(breaks, at)


def _containers(text: str, reqs: list[Requirement]) -> None:
    """Fill each copy requirement's ``values`` with the brief's longer quotes that hold it and
    stand in another paragraph (“Galaxy Doodles” inside “Upload assets: Galaxy Doodles pack”) —
    not a quote's own parts described beside it (“Level Up Your” in “Level Up Your Creative
    Superpowers”)."""
    line = _line_of(text)
    longer: dict[str, set[int]] = {}
    for q, start, _ in quotes(text):
        longer.setdefault(loose(strip_label(q)), set()).add(line(start))
    for req in reqs:
        if req.kind != "copy":
            continue
        want = f" {loose(req.label)} "
        own = longer.get(want.strip(), set())
        req.values = sorted(
            c for c, where in longer.items()
            if want in f" {c} " and c != want.strip() and not where & own
        )  # fmt: skip


#: an occurrence that introduces the name of the thing the brief is about, not a place on the
#: page ("a studio called “Seedline Studio”", "a designer named “Lina Schaub”")
_NAMING = re.compile(r"\b(?:called|named|for|by|of|brand(?:ed)?|company|studio)\s*[“\"«‘]?$", re.I)
#: a mention that points back at an element, not a second place for its copy: "a paint splash
#: behind “Explore Illustration Packs”", "the “Quick Actions” card in white"
_POINTING = re.compile(
    r"\b(?:behind|beside|next to|near|around|below|above|under|beneath|inside|within|into"
    r"|onto|toward|towards|than|like)\s+(?:the\s+)?[“\"«‘]?$",
    re.I,
)
_NAMED_PART = re.compile(
    r"^[”\"»’]?\s+(?:card|section|panel|block|tile|area|band|strip|module|widget|column|page|tab"
    r"|box|container|row|list)s?\b",
    re.I,
)


def _repeats(text: str, reqs: list[Requirement], source: str) -> list[Requirement]:
    """``repeat`` requirements for quotes the brief places in more than one paragraph (a brand
    in the header and the footer, a CTA in the hero and the closing band): one per quote, or
    one per list of them (the footer's “About”, “Workshops”, … after the header's menu), whose
    ``values`` are the labels and ``numbers`` how often each must show."""
    by_label = {fold(r.label): r for r in reqs if r.kind in ("copy", "label", "nav")}
    seen: dict[str, set[int]] = {}
    out: list[Requirement] = []
    line_of = _line_of(text)
    for run in _runs(text):
        again: list[tuple[Requirement, int]] = []
        for inner, start, end in run:
            before = text[max(0, start - 24) : start]
            if _NAMING.search(before) or _POINTING.search(before):
                continue
            if _NAMED_PART.match(text[end : end + 16]):
                continue
            req = by_label.get(fold(strip_label(inner)))
            if req is None or req.role == "in-image" or len(req.label) > 120:
                continue
            places = seen.setdefault(fold(req.label), set())
            line = line_of(start)
            if places and line not in places:
                again.append((req, len(places) + 1))
            places.add(line)
        if not again:
            continue
        first = run[0][1]
        where = span(text, max(0, first - 1), run[-1][2] + 1, source)
        if len(again) == 1:
            req, times = again[0]
            out.append(
                Requirement(
                    id="",
                    kind=req.kind,
                    key=req.label,
                    label=req.label,
                    role="repeat",
                    count=times,
                    values=req.values if req.kind == "copy" else [],
                    text=f"“{_short(req.label)}” in {times} places",
                    span=where,
                    severity="minor",
                )
            )
            continue
        labels = [r.label for r, _ in again]
        out.append(
            Requirement(
                id="",
                kind=again[0][0].kind,
                key=labels[0],
                label=labels[0],
                role="repeat",
                values=labels,
                numbers=[float(t) for _, t in again],
                text=f"{', '.join(f'“{x}”' for x in labels[:4])}{' …' if len(labels) > 4 else ''}"
                " again",
                span=where,
                severity="minor",
            )
        )
    return out


def _one(text, inner, start, end, role, source) -> Requirement | None:
    req = _build(text, inner, start, end, role, source)
    if req is not None:
        req.punct = inner.strip()[len(req.label) :].strip() if inner.strip() != req.label else ""
    return req


def _build(text, inner, start, end, role, source) -> Requirement | None:
    label = strip_label(inner)
    before = text[max(0, start - 32) : max(0, start - 1)]
    if sum(c.isalnum() for c in label) < 2 or _scare_quote(label, role, before) or len(label) > 300:
        return None  # "W", "1", "·": a mark, a step number, a separator — no copy to check
    role = "copy" if role == "listed" else role
    if _design_idea(label, text[end + 1 : end + 30]):
        return None  # a “Holographic Accordion” feel, a “Tickets & Call to Action” section
    if TYPE_WORDS.search(label) and role not in ("nav", "button", "tag"):
        return None  # “a clean, geometric sans-serif similar to Inter”: a typeface, not copy
    if _HEX.match(label):
        return None  # a colour code in quotes (“#F7F3EC”): the palette pass reads it
    if label.casefold() in _font_keys() or (
        role not in ("nav", "button", "tag")
        and _FONT_BEFORE.search(text[max(0, start - 90) : start])
    ):
        return None  # a typeface named in quotes: the font pass reads it
    if role == "tag" and inner.rstrip().endswith((".", "!", "?")) and len(label.split()) > 3:
        role = "copy"  # a sentence, not a tag: its own full stop belongs to it
    short = len(label.split()) <= MAX_LABEL_WORDS and len(label) <= 40
    where = span(text, max(0, start - 1), end + 1, source)
    if role == "nav" and short and _FOOTER.search(text[max(0, start - 200) : start]):
        role = "copy"  # footer link lists: the words must show, a prototype may not link them

    def made(kind, role, what: str, severity) -> Requirement:
        return Requirement(
            id="", kind=kind, key=label, label=label, role=role, text=what, span=where,
            severity=severity,
        )  # fmt: skip

    if role == "nav" and short:
        return made("nav", "nav", f"Nav link “{label}”", "major")
    if role == "field" and len(label) <= 80:
        return made("widget", "field", f"An input field “{_short(label)}”", "major")
    if role in ("button", "tag") and short:
        severity = "major" if role == "button" else "minor"
        return made("label", role, f"{role.capitalize()} label “{label}”", severity)
    if role == "chart":
        return made("copy", "chart", f"Chart text “{_short(label)}”", "minor")
    if role == "in-image":
        return made("copy", "in-image", f"Words in a picture “{_short(label)}”", "minor")
    if role == "heading" or _TITLE_BEFORE.search(text[max(0, start - 12) : start]):
        return made("copy", "heading", f"Heading “{_short(label)}”", "major")
    return made("copy", "copy", f"Copy “{_short(label)}”", "minor")


@lru_cache(maxsize=1)
def _font_keys() -> frozenset[str]:
    return frozenset(f.casefold() for f in font_names())


def _short(label: str) -> str:
    return label if len(label) <= 60 else label[:57] + "…"
