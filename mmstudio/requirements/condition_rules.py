"""The rules :func:`~.conditions.read_condition` reads a condition with: widgets and form fields,
visual properties (colour, contrast, font class, weight, size, full-width images, grids and
columns, position, gradients, shadows) with the element they are about, and behaviours
are read by :mod:`.condition_behaviour`.

Each rule returns :class:`~.model.Requirement` parts with ``checker`` ``cond.<name>``;
``role`` is the *subject* a property is about — ``button``, ``nav-links``, ``headline``,
``subheading``, ``text``, ``control:<label>`` (elements) inside ``header``, ``footer``,
``hero``, ``banner``, ``sidebar``, ``page``, ``section:<name>`` (containers), joined by ``@``
("headline@hero").
"""

from __future__ import annotations

import re

from .model import Requirement
from .structure import negated
from .text import quotes, span, strip_label

WIDGETS: dict[str, re.Pattern[str]] = {
    name: re.compile(pattern, re.I)
    for name, pattern in {
        "search": r"\bsearch (?:bar|box|field|input|functionality|tool|feature|button)\b"
        r"|\bsearchable\b",
        "form": r"\b(?:form|sign-?up form|contact form)\b",
        "select": r"\b(?:dropdown|drop-down)(?: menu| list)?\b",
        "table": r"\btables?\b|\btabular\b",
        "map": r"\bmaps?\b",
        "carousel": r"\b(?:carousel|slider|slideshow|rotating banner)\b",
        "filter": r"\b(?:filter (?:bar|buttons?|options?|dropdowns?|menus?|panel|controls?"
        r"|functionality|feature|system|tool)"
        r"|filters|filtering)\b",
        "tabs": r"\btabs?\b",
        "accordion": r"\b(?:accordion|collapsible)\b",
        "modal": r"\b(?:modal|pop-?up|lightbox)\b",
        "calendar": r"\bcalendar\b",
        "progress": r"\bprogress (?:bar|tracker|indicator)s?\b",
        "sidebar": r"\b(?:sidebar|side bar)\b",
        "comments": r"\bcomments? (?:section|area|form)\b",
        "video": r"\bvideos?\b",
        "radio": r"\bmultiple-choice\b",
        "contact": r"\bcontact (?:information|info|details)\b|\bphysical address\b",
    }.items()
}
FIELDS = re.compile(
    r"\b(?:fields? for|fields?:|including fields for|inputs? for)\s*"
    r"((?:[\w' -]+?(?:,\s*|\s+and\s+|\s+or\s+|,\s*and\s+))*[\w' -]+?)(?=\.|;|$|,?\s+(?:and|with)"
    r"\s+(?:a|an|includes)\b|\s+(?:on|in|within)\s+the\b)",
    re.I,
)
FIELD_WORDS = (
    "name",
    "email",
    "password",
    "message",
    "comment",
    "phone",
    "date",
    "title",
    "description",
    "username",
    "category",
    "checkbox",
    "address",
    "upload",
    "search",
    "subject",
    "rating",
    "time",
)
_COLOURS = (
    r"\b(?:(light|dark|pale|deep|bright|soft)\s+)?(blue|red|green|gr[ae]y|white|black|yellow"
    r"|orange|purple|pink|brown|teal|navy|beige|cream|gold)\b"
)
_SUBJECTS: tuple[tuple[str, str], ...] = (
    (r"call-to-action(?: \(CTA\))?(?: buttons?)?|\bCTA\b(?: buttons?)?|buttons?", "button"),
    (r"menu items?|navigation links?|nav links?|links", "nav-links"),
    (r"sub-?headings?|taglines?|subtitles?", "subheading"),
    (r"headlines|headings|titles|names", "headings"),
    (r"headline|heading|title|name", "headline"),
    (r"(?:home ?page|page) background|background of the (?:home ?)?page", "page"),
    (r"navigation bar|nav bar|navbar|navigation menu|header|top bar|menu bar", "header"),
    (r"footer", "footer"),
    (r"hero(?: section| banner)?", "hero"),
    (r"(?:announcement )?banner", "banner"),
    (r"sidebar", "sidebar"),
    (r"body text|text|descriptions?|excerpts?", "text"),
    (r"search bar|search box", "search"),
    (r"\bmap\b", "map"),
)
ELEMENTS = ("button", "nav-links", "subheading", "headline", "headings", "text", "search", "map")
_CLAUSE = re.compile(r",\s*while\s+|;\s*|\.\s+|\s+whereas\s+|,\s*but\s+")
_POSITION = re.compile(
    r"\b(?:immediately\s+|directly\s+)?(below|beneath|under(?:neath)?|above|at the top of"
    r"|at the top|on the (?:left|right)(?: side)?|to the (?:left|right)|left|right|centered"
    r"|centred|centrally aligned|center-aligned|in the (?:center|centre))\b",
    re.I,
)


def _req(kind, checker, key, text, at, **fields) -> Requirement:
    return Requirement(
        id="",
        kind=kind,
        key=key,
        text=text,
        checker=f"cond.{checker}",
        span=span(fields.pop("source"), at[0], at[1], "condition"),
        **fields,
    )


def widget_parts(text: str, plain: str) -> list[Requirement]:
    """A widget for each widget word that is not negated, and a field for each form field the
    condition lists ("fields for name, email, and message", "an email input field")."""
    found = []
    for name, pattern in WIDGETS.items():
        m = next((m for m in pattern.finditer(plain) if not negated(plain, m.start())), None)
        if m is None:
            continue
        if name == "form" and re.search(r"\b(?:format|platform|perform)\b", m.group(), re.I):
            continue
        label = (
            "address" if name == "contact" and re.search(r"physical address", plain, re.I) else ""
        )
        found.append(
            _req("widget", "widget", name, f"A {name}", (m.start(), m.end()), role=name,
                 label=label, source=text)
        )  # fmt: skip
    for word in _field_words(plain):
        found.append(
            _req(
                "widget",
                "field",
                word,
                f"A form field for {word}",
                (0, len(text)),
                label=word,
                role=word,
                source=text,
            )
        )
    for m in _NAMED_CONTROLS.finditer(plain):
        for name in re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+", m.group(1)):
            role = "link" if m.group(2) == "links" else "button"
            found.append(_req("label", "control", name, f"A {role} “{name}”", (m.start(), m.end()),
                              label=name, role=role, source=text))  # fmt: skip
    for m in _LINKS_TO.finditer(plain):
        for name in re.split(r",\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+", m.group(1)):
            if name.strip() and not re.match(r"(?:the|a|an)$", name.strip()):
                found.append(
                    _req(
                        "nav",
                        "control",
                        name.strip(),
                        f"A link “{name.strip()}”",
                        (m.start(), m.end()),
                        label=name.strip(),
                        role="link",
                        source=text,
                    )
                )
    return found


_LINKS_TO = re.compile(
    r"\b(?:navigation |nav |quick )?links (?:to|for) ([A-Za-z][\w ,&'-]*?)(?=[.;:]|$| on | in "
    r"| within | from | that | which | for | categories| pages| sections)",
)
#: unquoted names before a control noun: "Facebook, Twitter, and WhatsApp sharing buttons"
_NAMED_CONTROLS = re.compile(
    r"\b((?:[A-Z][\w+-]*(?:,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+))+[A-Z][\w+-]*)"
    r"(?:\s+[a-z]+)?\s+(buttons|links)\b"
)


def _field_words(plain: str) -> list[str]:
    words: list[str] = []
    for m in FIELDS.finditer(plain):
        listed = re.sub(r"\be-?mail address", "email", m.group(1), flags=re.I)
        words += [w for w in FIELD_WORDS if re.search(rf"\b{w}", listed, re.I)]
    for m in re.finditer(
        r"\b(email|e-mail|password|name|username|message|comment)s?\s+(?:input\s+)?"
        r"(?:field|input|box|address)\b|\benter (?:an? |their |your )?(email)",
        plain,
        re.I,
    ):
        words.append((m.group(1) or m.group(2)).lower().replace("e-mail", "email"))
    if re.search(r"\b(?:text ?area|text box) for\b", plain, re.I):
        words.append("message")
    if re.search(r"\bcheckbox\b", plain, re.I):
        words.append("checkbox")
    return list(dict.fromkeys(words))


def _subjects(clause: str, text: str, offset: int) -> tuple[str, str]:
    """(element, container) subjects of a clause: the first of each kind it names, in the
    order they are written; a quoted control or section name is an element / container."""
    hits: list[tuple[int, str]] = []
    for inner, start, end in quotes(text):
        if not offset <= start < offset + len(clause):
            continue
        label, after = strip_label(inner), text[end : end + 20].lower()
        if re.match(r"\W*\s*(?:button|link|menu item)", after):
            hits.append((start - offset, f"control:{label}"))
        elif re.match(
            r"\W*\s*(?:section|feature|area|banner|panel|ticker|carousel|bar|widget"
            r"|list|sidebar|tool|portal)",
            after,
        ):
            hits.append((start - offset, f"section:{label}"))
        elif re.search(
            r"\b(?:title|name|heading|headline)\s+\W?$", text[max(0, start - 12) : start]
        ):
            hits.append((start - offset - 1, f"title:{label}"))
    for pattern, name in _SUBJECTS:
        m = re.search(pattern, clause, re.I)
        if m:
            hits.append((m.start(), name))
    element = container = ""
    for _, name in sorted(hits):
        if (name in ELEMENTS or name.startswith(("control:", "title:"))) and not element:
            element = name
        elif name not in ELEMENTS and not name.startswith(("control:", "title:")) and not container:
            container = name
    if element.startswith("title:") and container.startswith("section:"):
        container = ""
    return element, container


def style_parts(text: str, plain: str) -> list[Requirement]:
    """Colour, contrast, font class, weight, size, images, grid / columns, position, gradient
    and shadow parts, each about the subject of its clause."""
    found: list[Requirement] = []
    at = 0
    for clause in _CLAUSE.split(plain):
        offset = plain.find(clause, at)
        at = offset + len(clause)
        element, container = _subjects(clause, text, offset)
        found += _clause_style(clause, text, offset, element, container)
    return found


def _subject(element: str, container: str) -> str:
    return f"{element}@{container}" if element and container else element or container or "page"


def _clause_style(clause, text, offset, element, container) -> list[Requirement]:
    found = []
    where = (offset, offset + len(clause))
    low = clause.lower()

    def add(checker, key, words, role=None, **fields):
        found.append(
            _req(
                fields.pop("kind", "palette"),
                checker,
                key,
                words,
                where,
                role=role or _subject(element, container),
                source=text,
                **fields,
            )
        )

    background = "background" in low or not element
    for m in re.finditer(_COLOURS, clause, re.I):
        shade, hue = (m.group(1) or "").lower(), m.group(2).lower().replace("grey", "gray")
        target = _subject("" if background else element, container)
        values = [hue] + ([shade] if shade in ("light", "dark", "pale", "deep") else [])
        add(
            "colour",
            f"{shade} {hue}".strip(),
            f"{m.group()} for {target}",
            target,
            values=values,
            label="background" if background else "text",
        )
    m = re.search(r"\b(dark|light)(?:-colou?red)?\s+(?:background|theme|mode|colou?r)", low)
    if m and not found:
        add(
            "colour",
            m.group(1),
            f"A {m.group(1)} background",
            _subject("", container),
            values=[m.group(1)],
            label="background",
        )
    if re.search(r"\blight(?:-colou?red)? text\b", low):
        add(
            "colour",
            "light text",
            "Light text",
            _subject("text", container),
            values=["light"],
            label="text",
        )
    if re.search(r"\bcontrast\w*", low):
        add("contrast", "contrast", f"Contrasting colours for {_subject(element, container)}")
    font = re.search(r"\b(sans-serif|serif)\b", low)
    if font:
        add("font", font.group(1), f"A {font.group(1)} font", kind="font", label=font.group(1))
    bold = re.search(r"\bbold\w*\b(?!,?\s+(?:colou?r|hue|accent|background|contrast))", low)
    regular = re.search(r"\bregular(?: font| weight| type)?\b", low)
    if bold:
        add("weight", "bold", "Bold type", kind="font", label="bold")
    elif regular and "regular" not in low[:8]:  # both in one clause: two subjects, one named
        add("weight", "regular", "Regular-weight type", kind="font", label="regular")
    size = re.search(r"\b(large|larger|big|bigger|smaller)\b", low)  # the first: its subject
    if size and re.search(r"font|typograph|text|headline|heading|title|name|\bbold\b", low):
        label = "small" if size.group(1) == "smaller" else "large"
        add("size", label, f"A {label} font size", kind="font", label=label)
    if re.search(r"\bfull[- ]width\b|\bspans? (?:the )?(?:full|entire) width\b", low):
        if re.search(r"\b(?:image|photo|picture|background)\b", low):
            add(
                "image",
                "full-width image",
                "A full-width picture",
                _subject("", container),
                kind="image",
                label="full-width",
            )
        else:
            add("width", "full width", "Spans the full width", kind="layout")
    elif re.search(r"\b(?:images?|photos?|pictures?|photographs?|illustrations?)\b", low):
        add("image", "image", "A picture", _subject("", container), kind="image")
    if re.search(r"\bgrid\b", low):
        add("grid", "grid", "A grid", _subject("", container), kind="layout")
    cols = re.search(r"\b(two|three|2|3)[- ]column", low)
    if cols:
        n = {"two": 2, "three": 3}.get(
            cols.group(1), int(cols.group(1)) if cols.group(1).isdigit() else 2
        )
        add("columns", f"{n} columns", f"A {n}-column layout", kind="layout", count=n)
    for pos in _POSITION.finditer(clause):
        found += _position(pos, clause, text, offset, element, container)
    if re.search(r"\bgradient\b", low):
        add("gradient", "gradient", "A gradient", _subject("", container), kind="layout")
    if re.search(r"\bshadows?\b", low) and not re.search(r"\btext shadow", low):
        add("shadow", "shadow", "A shadow", kind="layout")
    return found


def _position(pos, clause, text, offset, element, container) -> list[Requirement]:
    """A position part: the clause's subject below / above a reference, at the top, on the left
    or right, or centred."""
    word = pos.group(1).lower()
    rest = clause[pos.end() : pos.end() + 60]
    reference = ""
    if word in ("below", "beneath", "under", "underneath", "above"):
        ref_el, ref_box = _subjects(rest, text, offset + pos.end())
        reference = ref_el or ref_box
        quoted = [q for q in quotes(text) if 0 <= q[1] - offset - pos.end() <= 8]
        reference = reference or (f"title:{strip_label(quoted[0][0])}" if quoted else "")
        if not reference:
            return []
        word = "above" if word == "above" else "below"
    elif word.startswith("at the top"):
        word = "top"
    elif "left" in word or "right" in word:
        word = "left" if "left" in word else "right"
    else:
        word = "center"
    subject = element or container
    if not subject or subject == reference or (reference.endswith("header") and word == "top"):
        return []
    start = offset + pos.start()
    return [
        _req(
            "layout",
            "position",
            word,
            f"{subject} {word} {reference}".strip(),
            (start, start + len(pos.group())),
            role=_subject(element, container),
            label=word,
            values=[reference] if reference else [],
            source=text,
        )
    ]
