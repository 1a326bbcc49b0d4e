"""Passes: sections and their order, images and videos, widgets, layout directives, prohibitions.

Words are matched whole and case-insensitively against ``resources/requirements/vocabulary.json``.
A mention inside a negation ("no video", "without gradients", "avoid drop shadows", "instead of
a photo") is a prohibition, never a demand.
"""

from __future__ import annotations

import re

from .model import Requirement
from .text import quotes, sentence_bounds, span, vocabulary, without_quotes, words_pattern

_NEGATORS = (
    r"\b(?:no|without|avoid(?:ing)?|never|not?\s+use|don'?t\s+use|do not (?:use|include|add)"
    r"|instead of|rather than|free of|must not (?:use|include)|excluding|exclude|not)\s+"
)
_BEFORE_THING = r"(?:any\s+|an?\s+|the\s+|heavy\s+|harsh\s+|background\s+|stock\s+|real\s+)*$"
_NEGATION = re.compile(
    _NEGATORS
    + r"(?:[\w-]+\s+(?:or|nor|and)\s+)?"  # "no animations or videos"
    + _BEFORE_THING,
    re.I,
)
#: "no animations, videos, or motion elements": a negated list, when the list goes on after
_NEGATED_LIST = re.compile(_NEGATORS + r"(?:[\w-]+,\s+){1,3}" + _BEFORE_THING, re.I)
_LIST_GOES_ON = re.compile(r"[\w-]*(?:\s+[\w-]+)?(?:,|\s+(?:or|nor|and)\b)", re.I)
_COUNT_IMAGES = re.compile(
    r"\b(\d{1,2}|one|a single|two|three|four|five|six|seven|eight|nine|ten|twelve|pair of)\s+"
    r"(?:[a-z-]+\s+){0,3}?(images|photos|photographs|pictures|thumbnails|illustrations|portraits"
    r"|headshots)\b",
    re.I,
)
_STICKY = re.compile(
    # "a fixed, minimal header bar", "a simple, fixed-position navigation bar"
    r"\b(?:sticky|fixed|pinned|persistent)(?:[- ]position(?:ed)?)?,?\s+(?:[a-z-]+,?\s+){0,2}?"
    r"(?:header|nav(?:igation)?(?:\s+bar)?|navbar|top bar|menu bar)"
    r"|\b(?:header|navbar|nav(?:igation)? bar|top bar)\b[^.]{0,60}?\b(?:stays?|remains?|is|sticks?)"
    r"\s+(?:sticky|fixed|pinned|visible)\b",
    re.I,
)
_RATIO = re.compile(r"\b(\d{2})\s?%[^.%]{0,80}?\b(\d{2})\s?%", re.I)
#: "about 7 of 12 columns", "(about 3 of 12) … (about 9 of 12)": a 12-column grid's split
_TWELFTHS = re.compile(r"\b(\d{1,2})\s+of\s+12\b(?:[^.]{0,120}?\b(\d{1,2})\s+of\s+12\b)?", re.I)
_COLUMNS = re.compile(
    r"\b(two|three|four|2|3|4)[- ]column\b"
    r"|\b(two|three|four|2|3|4)\s+(?:equal(?:ly[- ]sized)?\s+|even\s+)?columns\b",
    re.I,
)
_GRID = re.compile(
    r"\b(two|three|four|five|six|eight|2|3|4|5|6|8)\s+(?:[a-z-]+\s+){0,3}?(cards|tiles|"
    r"plans|tiers|columns|feature cards|pricing cards|testimonials|steps)\b",
    re.I,
)


_CHARTY = re.compile(r"\b(charts?|graphs?|donut|doughnut|pie|segments?|slices?|axis|bars)\b", re.I)


def number_word(word: str) -> int:
    """'three' -> 3, '4' -> 4 (``numbers`` of the vocabulary); 0 for a word that is none."""
    word = word.lower()
    return int(word) if word.isdigit() else vocabulary()["numbers"].get(word, 0)


def negated(text: str, at: int) -> bool:
    """Whether the word at ``at`` sits in a negation ("no …", "without …", "avoid …", "not a
    …", "no animations, videos, or …")."""
    before = text[max(0, at - 60) : at]
    if _NEGATION.search(before[-40:]):
        return True
    return bool(_NEGATED_LIST.search(before) and _LIST_GOES_ON.match(text, at))


def other_sense(plain: str, m: re.Match[str]) -> bool:
    """Whether the widget, video or section word matched by ``m`` names an everyday thing here
    (``other_senses`` of the vocabulary): "a café table with a sketchbook", "sitting at a low
    table", "a binder clip", "the navigation menu items" are no table, video or menu section."""
    senses = vocabulary()["other_senses"]
    matched = m.group(0).lower()
    for word, sense in senses.items():
        found = re.search(rf"(?<![\w-]){re.escape(word)}(?![\w-])", matched)
        if word.startswith("_") or found is None:
            continue
        at, end = m.start() + found.start(), m.start() + found.end()
        before = plain[max(0, at - 40) : at].lower().split()
        after = plain[end : end + 30].lower().split()
        if before and before[-1].strip(",;:") in sense.get("before", ()):
            return True
        if after and after[0].strip(",.;:") in sense.get("after", ()):
            return True
        places = sense.get("places")
        if places and re.search(
            rf"\b(?:{'|'.join(places)})\s+(?:an?|the|its|their)\s+(?:[\w’'-]+\s+)?$",
            plain[max(0, at - 40) : at],
            re.I,
        ):
            return True
    return False


def extract_sections(text: str, source: str = "prompt") -> list[Requirement]:
    """One requirement per section the brief asks for, ``order`` = its rank of first mention.

    A word names a section when a section word ("section", "area", "band" …) stands within 25
    characters after it or an article just before it ("a gallery"); header, hero and footer
    need neither. A passing mention ("feels like an art gallery") is no section.
    ``values`` holds the quoted headings near the mention (the section may carry its own title,
    "Meet the Creative Crew" for speakers)."""
    plain = without_quotes(text)
    hits: list[tuple[int, int, str]] = []
    for name, mentions in _mentions(plain).items():
        # the mention that describes the section gives its place; a passing mention its presence
        m = (mentions[0] or mentions[1] or [None])[0]
        if m is not None:
            hits.append((m.start(), m.end(), name))
    hits += _named_sections(plain, {name for _, _, name in hits})
    hits.sort()
    return [
        Requirement(
            id="",
            kind="section",
            key=name,
            role=name,
            text=f"A {name} section",
            span=span(text, start, end + 20, source),
            severity="critical",
            order=rank,
            values=_titles_near(text, end),
        )
        for rank, (start, end, name) in enumerate(hits)
    ]


def _mentions(plain: str) -> dict[str, tuple[list[re.Match], list[re.Match]]]:
    """Per section name: the mentions that describe a section (a section word after it, an
    article before it, a strong word opening a sentence) and the plain mentions of header,
    hero and footer."""
    context = words_pattern(vocabulary()["section_context"])
    out = {}
    for name, entry in vocabulary()["sections"].items():
        plain_hits, described = [], []
        for m in words_pattern(entry["words"]).finditer(plain):
            if negated(plain, m.start()) or other_sense(plain, m):
                continue
            after = plain[m.end() : m.end() + 40].split()
            after = " ".join(after[1:2] if after[:1] in (["us"], ["&"]) else after[:1])
            before = plain[max(0, m.start() - 30) : m.start()]
            if (
                context.search(after)
                or re.search(r"\b(?:an?|the)\s+$", before)
                # "Testimonials from two students." (not "About halfway down …")
                or (entry.get("strong") and _opens_sentence(plain, m.start()))
            ):
                described.append(m)
            elif name in _ANCHORS:
                plain_hits.append(m)
        out[name] = (described, plain_hits)
    return out


_ANCHORS = ("header", "hero", "footer")
#: "a classes section", "the workshops band": a plural noun the vocabulary does not know
_NAMED_SECTION = re.compile(
    r"\b(?:[Aa]n?|[Tt]he|[Ii]ts|[Oo]ur)\s+([a-z][a-z-]{2,}s)\s+(?:section|band|strip|area|block|panel)\b"
)


def _opens_sentence(plain: str, at: int) -> bool:
    """The word at ``at`` starts a sentence, a line or a list item, capitalised."""
    before = plain[max(0, at - 3) : at]
    return plain[at : at + 1].isupper() and (
        at == 0 or bool(re.search(r"(?:[.!?;:]\s|\n)\s*$", before))
    )


def _named_sections(plain: str, known: set[str]) -> list[tuple[int, int, str]]:
    """Sections named by a plural noun before a section word that no vocabulary entry covers
    (neither the noun nor its singular is a section word), other than those in ``known``."""
    sections = vocabulary()["sections"]
    words = {w for name, entry in sections.items() for w in [name, *entry["words"]]}
    found: dict[str, tuple[int, int, str]] = {}
    for m in _NAMED_SECTION.finditer(plain):
        name = m.group(1)
        if re.search(r"(?:ss|us|is)$", name) or name in words or name[:-1] in words:
            continue
        if negated(plain, m.start(1)) or name in found or name in known:
            continue
        found[name] = (m.start(1), m.end(1), name)
    return list(found.values())


def _titles_near(text: str, at: int) -> list[str]:
    """Quoted strings in the 700 characters after ``at`` that could name the section or show
    up in it (its title, its first items)."""
    return [q.strip().rstrip(",.") for q, _, _ in quotes(text[at : at + 700]) if len(q) < 80][:8]


#: "minutes on the y-axis", "revenue in thousands on the y-axis", "the y-axis as “Streams (k)”"
_ON_Y = re.compile(
    r"([A-Za-z][\w ()%$€£-]{1,60}?)\s+(?:on|along|up)\s+the\s+(?:vertical\s+)?y[- ]axis\b", re.I
)
_Y_AS = re.compile(
    r"\by[- ]axis\s+(?:as|labell?ed(?:\s+as)?|titled|named|reading|showing)\s+"
    r"[“\"]([^”\"\n]{1,60})[”\"]",
    re.I,
)
_AXIS_CUT = re.compile(r".*\b(?:and|with|but|showing|shows|plotting|plots|by|of|while|,)\s+", re.I)
_TITLED = re.compile(r"(?:titled|called|named|chart|graph)\W{0,3}$", re.I)


def extract_axis_names(text: str, source: str = "prompt") -> list[Requirement]:
    """What a chart's value axis must say ("minutes on the y-axis", "the y-axis as “Streams
    (k)”"): one requirement per demand, ``label`` the words, ``values`` the title of the chart
    the sentence names (or none: any chart)."""
    found: list[Requirement] = []
    for pattern, quoted in ((_Y_AS, True), (_ON_Y, False)):
        for m in pattern.finditer(text):
            words = m.group(1).strip()
            if not quoted:
                words = _AXIS_CUT.sub("", words).strip()
                words = re.sub(r"^(?:the|a|an|its)\s+", "", words, flags=re.I)
                if len(words.split()) > 4 or not words or "“" in words:
                    continue
            start, _ = sentence_bounds(text, m.start())
            titles = [q for q, s, _ in quotes(text[start : m.start()])
                      if _TITLED.search(text[max(0, start + s - 14) : start + s - 1])]  # fmt: skip
            key = words.strip(" ,.")
            if any(r.label.casefold() == key.casefold() for r in found):
                continue
            found.append(
                Requirement(
                    id="",
                    kind="chart",
                    key=key,
                    label=key,
                    role="axis",
                    checker="axis",
                    values=titles[-1:],
                    text=f"The y-axis says “{key}”" + (f" on “{titles[-1]}”" if titles else ""),
                    span=span(text, m.start(), m.end(), source),
                    severity="minor",
                )
            )
    return found


_LOGO = re.compile(r"\b(?:logo(?:type| text| mark)?|wordmark|brand ?name|brand mark)\b", re.I)
_MARK = re.compile(r"\b(icon|emblem|glyph|symbol|monogram|pictogram|badge icon)\b[\s:,-]*", re.I)


def extract_logo_icon(text: str, source: str = "prompt") -> list[Requirement]:
    """A small picture by the logo ("next to the logo is a tiny flat icon: a pen tablet", "the
    logo: a circular emblem like a brass compass"): one requirement, its span the mark's own
    words. Read in the sentence naming the logo and the ones around it, first logo only."""
    plain = without_quotes(text)
    logo = _LOGO.search(plain)
    if logo is None:
        return []
    start, end = sentence_bounds(plain, logo.start())
    before, _ = sentence_bounds(plain, max(0, start - 2))
    if text.count("\n", before, start):
        before = start  # the sentence before belongs to another paragraph
    _, after = sentence_bounds(plain, min(len(plain) - 1, end + 2))
    for m in _MARK.finditer(plain, before, max(end, after)):
        if negated(plain, m.start()):
            continue
        words = plain[m.end() :].split()[:7]
        what = " ".join(w.strip(",.;:") for w in words)
        return [
            Requirement(
                id="",
                kind="image",
                key="logo icon",
                role="logo-icon",
                text="A small icon by the logo" + (f" ({what})" if what else ""),
                span=span(text, m.start(), m.end() + len(" ".join(words)), source),
                severity="minor",
            )
        ]
    return []


def extract_media(text: str, source: str = "prompt") -> list[Requirement]:
    """Images (with the largest count asked for) and a video, unless negated."""
    plain = without_quotes(text)
    found: list[Requirement] = []
    image = _first_positive(plain, vocabulary()["image_words"])
    if image is not None:
        counts = [
            (number_word(m.group(1)), m)
            for m in _COUNT_IMAGES.finditer(plain)
            if number_word(m.group(1))
        ]
        best = max(counts, key=lambda c: c[0], default=None)
        where = best[1] if best else image
        count = best[0] if best else 1
        found.append(
            Requirement(
                id="",
                kind="image",
                key="images",
                count=count,
                text=f"At least {count} picture{'s' if count > 1 else ''}",
                span=span(text, where.start(), where.end() + 20, source),
                severity="critical",
            )
        )
    if image is not None:
        found += _section_image_counts(text, plain, source)
    video = _first_positive(plain, vocabulary()["video_words"], vocabulary()["video_not_asset"])
    if video is not None:
        found.append(
            Requirement(
                id="",
                kind="video",
                key="video",
                text="A video",
                span=span(text, max(0, video.start() - 30), video.end() + 20, source),
                severity="critical",
            )
        )
    return found


_SECTION_IMAGES = re.compile(
    r"\b(two|three|four|five|six|eight|2|3|4|5|6|8)\s+(?:[a-z-]+\s+){0,3}?(images|photos"
    r"|photographs|pictures|thumbnails|illustrations|portraits|headshots|polaroids|avatars"
    r"|profile cards"
    r"|(?:polaroid|photo|picture|image|portrait)(?:-style)?\s+(?:cards|frames|tiles))\b",
    re.I,
)


def _section_image_counts(text: str, plain: str, source: str) -> list[Requirement]:
    """ "four portrait frames" in the team paragraph: that many pictures in that section (one
    requirement per section and count; page-wide counts are the ``images`` requirement)."""
    out: list[Requirement] = []
    seen: set[tuple[str, str, int]] = set()
    for m in _SECTION_IMAGES.finditer(plain):
        n = number_word(m.group(1))
        where, titles = section_at(text, m.start())
        tail = plain[m.end() : m.end() + 60].split(".")[0]
        named = _IN_PART.search(tail)
        if named and (part := _named_in(named.group(0))):
            where, titles = part  # "three photos of the workshop in the hero": where it says
        if n < 2 or (not where and not titles) or negated(plain, m.start()):
            continue
        if (where, titles[0] if titles else "", n) in seen:
            continue
        seen.add((where, titles[0] if titles else "", n))
        noun = m.group(2).lower()
        out.append(
            Requirement(
                id="",
                kind="image",
                key=f"{n} {noun}",
                role="count",
                count=n,
                label=where,
                values=titles,
                text=f"{n} {noun}" + _in(where or "section"),
                span=span(text, m.start(), m.end(), source),
                severity="major",
            )
        )
    return out


def _first_positive(
    plain: str, words: list[str], not_before: list[str] = ()
) -> re.Match[str] | None:
    """The first mention of ``words`` that is no negation and is not followed by one of
    ``not_before`` ("video streaming platform" asks for no video)."""
    after = words_pattern(list(not_before)) if not_before else None
    for m in words_pattern(words).finditer(plain):
        if negated(plain, m.start()) or other_sense(plain, m):
            continue
        if after is not None and after.match(plain, m.end() + 1):
            continue
        if plain[m.start() : m.end() + 12].lower().startswith("table of contents"):
            continue
        return m
    return None


def extract_widgets(text: str, source: str = "prompt") -> list[Requirement]:
    """Table, map, form, search, tabs, toggle, counter, accordion, carousel, modal."""
    plain = without_quotes(text)
    found = []
    for widget, words in vocabulary()["widgets"].items():
        m = _first_positive(plain, words)
        if m is None:
            continue
        start, end = sentence_bounds(plain, m.start())
        if re.search(r"\bstatic\b", plain[start:end], re.I):
            continue  # "shown open for this static design": the brief asks for a picture of it
        found.append(
            Requirement(
                id="",
                kind="widget",
                key=widget,
                role=widget,
                text=f"A {widget}",
                span=span(text, max(0, m.start() - 30), m.end() + 20, source),
                severity="critical" if widget in ("table", "map", "form") else "major",
            )
        )
    return found


def extract_layout(text: str, source: str = "prompt") -> list[Requirement]:
    """Sticky / fixed header, column ratios ("55% … 45%"), column counts, grid counts."""
    plain = without_quotes(text)
    found: list[Requirement] = []
    m = _STICKY.search(plain)
    if m:
        found.append(
            _layout("fixed header", "Header stays at the top when scrolling", m, text, source)
        )
    for m in _RATIO.finditer(plain):
        a, b = int(m.group(1)), int(m.group(2))
        if 95 <= a + b <= 105 and "column" in plain[max(0, m.start() - 80) : m.end() + 40]:
            req = _layout(f"{a}/{b} columns", f"Columns at {a} % / {b} %", m, text, source)
            req.ratio = [a / (a + b), b / (a + b)]
            req.label, req.values = section_at(text, m.start())
            found.append(req)
            break
    m = _TWELFTHS.search(plain)
    if m and not any(r.ratio for r in found):
        a = int(m.group(1))
        b = int(m.group(2)) if m.group(2) else 12 - a
        near = plain[max(0, m.start() - 80) : m.end() + 60].lower()
        if 0 < a < 12 and a + b == 12 and a != b and "column" in near:
            req = _layout(
                f"{a}/{b} of 12 columns", f"Columns at {a}/12 and {b}/12", m, text, source
            )
            req.ratio = [a / 12, b / 12]
            req.label, req.values = section_at(text, m.start())
            found.append(req)
    seen: set[tuple[str, str, str]] = set()
    for m in _COLUMNS.finditer(plain):
        before = plain[max(0, m.start() - 40) : m.start()]
        if _SPAN_OF.search(before) or _EITHER.search(before):
            continue  # "across the width of three columns", "two or three columns": no demand
        n = number_word(m.group(1) or m.group(2))
        key = f"{n} columns"
        where, titles = section_at(text, m.start())
        if _PAGE_NOUN.match(plain[m.end() : m.end() + 30]) or _PAGE_USES.search(before):
            where, titles = "", []  # "a two-column dashboard homepage": the page's layout
        if n and (key, where, *titles[:1]) not in seen:
            seen.add((key, where, *titles[:1]))
            req = _layout(key, f"A {n}-column layout" + _in(where), m, text, source, "minor")
            req.count, req.label, req.values = n, where, titles
            found.append(req)
    for m in _GRID.finditer(plain):
        n, noun = number_word(m.group(1)), m.group(2).lower()
        start, end = sentence_bounds(plain, m.start())
        if _CHARTY.search(plain[start:end]):
            continue  # "five plan tiers" of a donut chart: segments, not cards
        if re.search(r"\bstacked\b", plain[m.start() : m.end() + 20], re.I):
            continue  # "three vertically stacked cards": not side by side (see .arrangement)
        key = f"{n} {noun}"
        where, titles = _named_in(m.group(0)) or section_at(text, m.start())
        if n >= 2 and noun != "columns" and (key, where, *titles[:1]) not in seen:
            seen.add((key, where, *titles[:1]))
            label = f"{n} {noun} side by side or in a grid" + _in(where)
            req = _layout(key, label, m, text, source, "minor")
            req.count, req.role, req.label, req.values = n, "grid", where, titles
            found.append(req)
    return found


_SPAN_OF = re.compile(
    r"\b(?:width of|spans?|spanning|across|over|covering|wide as)\s+(?:all\s+|the\s+|its\s+)?$",
    re.I,
)
_IN_PART = re.compile(r"\b(?:in|inside|within|across|on)\s+the\s+[a-z-]+(?:\s+[a-z-]+)?", re.I)
_EITHER = re.compile(r"\b(?:two|three|four|2|3|4)\s+(?:or|to)\s+$", re.I)
#: "The page uses a three-column grid", "The main layout favors a two-column structure"
_PAGE_USES = re.compile(
    r"\b(?:page|site|main layout|overall layout|layout)\s+(?:uses|favou?rs|is built on|follows|has"
    r"|is)\s+(?:an?\s+|the\s+)?(?:[a-z-]+\s+)?$",
    re.I,
)
_PAGE_NOUN = re.compile(
    r"\s*(?:[a-z-]+\s+)?(?:page|homepage|home page|site|website|dashboard|landing page)\b", re.I
)


def _named_in(phrase: str) -> tuple[str, list[str]] | None:
    """The section a count's own words name ("three testimonial cards": testimonials)."""
    for name, entry in vocabulary()["sections"].items():
        words = [w for w in entry["words"] if len(w) > 3] + [name]
        singular = [w[:-1] for w in words if w.endswith("s")]
        if words_pattern(words + singular).search(phrase):
            return name, []
    return None


def _in(section: str) -> str:
    return f" in the {section}" if section else ""


def section_at(text: str, at: int) -> tuple[str, list[str]]:
    """The section the brief is describing at offset ``at`` — the last mention describing a
    section in its paragraph before ``at`` (else the first after it) — and the quoted titles
    near that mention; ``("", [])`` when the paragraph names none (the directive is
    page-wide)."""
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end == -1 else end
    paragraph = without_quotes(text[start:end])
    hits = [(m.start(), m.end(), name) for name, (d, _) in _mentions(paragraph).items() for m in d]
    hits += _named_sections(paragraph, set())
    # "below the hero", "after the pricing section": a neighbour, not the section described
    near = [h for h in hits if _NEIGHBOUR.search(paragraph[max(0, h[0] - 30) : h[0]])]
    hits = [h for h in hits if h not in near]
    s0, s1 = sentence_bounds(paragraph, at - start)
    if any(s0 <= h[0] < s1 for h in near) and not any(s0 <= h[0] < s1 for h in hits):
        return "", []  # "Beneath the header, the page body … two columns": not the header's
    before = [h for h in hits if h[0] <= at - start]
    after = [h for h in hits if h[0] > at - start]
    hit = max(before) if before else (min(after) if after else None)
    if hit is None:  # an unnamed section: its quoted titles still tell where it is
        return "", _titles_near(text, start)[:3]
    return hit[2], _titles_near(text, start + hit[1])


_NEIGHBOUR = re.compile(
    r"\b(?:below|beneath|under|after|following|above|before|than|from|into|like|of)\s+(?:the\s+)?$",
    re.I,
)


def _layout(key, label, m, text, source, severity="major") -> Requirement:
    return Requirement(
        id="",
        kind="layout",
        key=key,
        role=key.split()[-1] if key != "fixed header" else "header",
        text=label,
        span=span(text, m.start(), m.end(), source),
        severity=severity,
    )


def _page_wide(plain: str, at: int) -> bool:
    """A prohibition about the whole page ("no gradients anywhere", "the design uses no video"),
    not about one element ("the same pill shape with no shadow")."""
    start, end = sentence_bounds(plain, at)
    sentence = plain[start:end]
    if re.match(r"\s*(?:no|avoid|without|never|do not|don'?t)\b", sentence, re.I):
        return True
    return bool(words_pattern(vocabulary()["prohibition_scope"]).search(sentence))


def extract_prohibitions(text: str, source: str = "prompt") -> list[Requirement]:
    """What the brief forbids: "no video", "avoid gradients", "without drop shadows" …"""
    plain = without_quotes(text)
    found = []
    for thing, words in vocabulary()["prohibitions"].items():
        for m in words_pattern(words).finditer(plain):
            if negated(plain, m.start()) and _page_wide(plain, m.start()):
                start = max(0, m.start() - 25)
                found.append(
                    Requirement(
                        id="",
                        kind="prohibition",
                        key=thing,
                        role=thing,
                        text=f"No {thing}",
                        span=span(text, start, m.end(), source),
                        severity="major",
                    )
                )
                break
    return found
