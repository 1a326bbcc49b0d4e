"""The behaviour kit (MM Studio issue 16): small, dependency-free, accessible page components —
tabs, accordion, modal, carousel, form with validation and a confirmation, search / filter, counter
buttons, add / remove list, quiz — each one JavaScript file of ``resources/behaviours/`` that
enhances plain markup through ``data-mm-*`` attributes (the markup works without JavaScript).

This module is what a designer or a feedback operation calls to place one:

- :func:`summon` names the components a request's words ask for ("a Like button", "an FAQ").
- :func:`configure` turns those words (and optional items) into the keyword arguments of
  :func:`snippet`, which returns the component's markup, every text escaped.
- :func:`install` copies the kit files a page needs into the site (``assets/js/mm-<name>.js``,
  ``assets/css/mm-behaviours.css``; :func:`files` gives the same as bytes for a refiner's
  ``Change.files``) and :func:`head_tags` / :func:`with_head_tags` the ``<link>`` / ``<script
  defer>`` lines that load them. Scripts are local files of the site, as the guardrails require.

The DOM each component exposes (roles, ``aria-*`` states, ``data-mm-*`` markers) is documented
in ``resources/behaviours/README.md``; functional checks (:mod:`mmstudio.feedback.functional`)
drive it by role and text.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import Any

from mmstudio.resources import resource

JS_DIR = "assets/js"
CSS_PATH = "assets/css/mm-behaviours.css"


@dataclass(frozen=True)
class Behaviour:
    """One kit component: its ``name``, the kit file, and the ``words`` (regular expressions,
    matched case-insensitively on word boundaries) that summon it."""

    name: str
    file: str
    words: tuple[str, ...]
    summary: str

    @property
    def site_path(self) -> str:
        """Where :func:`install` puts the script, relative to the site folder."""
        return f"{JS_DIR}/mm-{self.file}"


KIT: dict[str, Behaviour] = {
    b.name: b
    for b in (
        Behaviour("tabs", "tabs.js", (r"tabs?", r"tabbed"), "panels switched by tabs"),
        Behaviour(
            "accordion",
            "accordion.js",
            (r"accordions?", r"faqs?", r"collapsible", r"expandable", r"frequently asked"),
            "headings that open and close their panel",
        ),
        Behaviour(
            "modal",
            "modal.js",
            (r"modal", r"pop-?up", r"lightbox", r"dialog"),
            "a dialog opened by a button",
        ),
        Behaviour(
            "carousel",
            "carousel.js",
            (r"carousel", r"slider", r"slideshow", r"slides"),
            "one slide at a time, previous / next",
        ),
        Behaviour(
            "form",
            "form.js",
            (
                r"contact form",
                r"sign[- ]?up",
                r"newsletter",
                r"booking form",
                r"registration",
                r"subscribe",
                r"form",
                r"rsvp",
            ),
            "fields checked on submit, then a confirmation",
        ),
        Behaviour(
            "filter",
            "filter.js",
            (r"search(?:es|ing)?", r"filter(?:s|ing|ed)?", r"search bar"),
            "a search field (and tag buttons) filtering a list",
        ),
        Behaviour(
            "counter",
            "counter.js",
            (
                r"like buttons?",
                r"likes? counts?",
                r"(?:up)?votes?",
                r"voting",
                r"counters?",
                r"heart button",
            ),
            "a button that counts (like, vote)",
        ),
        Behaviour(
            "list",
            "list.js",
            (
                r"itinerar(?:y|ies)",
                r"to-?do",
                r"wish ?list",
                r"favou?rites",
                r"cart",
                r"add (?:and|or|/) ?remove",
                r"shopping list",
                r"packing list",
            ),
            "items added and removed, kept in the page's storage",
        ),
        Behaviour("quiz", "quiz.js", (r"quiz(?:zes)?", r"trivia"), "questions scored"),
    )
}


def kit_dir() -> Path:
    """The folder of the kit's files (``resources/behaviours``)."""
    return resource("behaviours")


def _pattern(b: Behaviour) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(b.words) + r")\b", re.I)


def summon(text: str) -> list[str]:
    """The names of the kit components ``text`` asks for, in kit order ([] when none)."""
    return [name for name, b in KIT.items() if _pattern(b).search(text)]


def _known(names: Iterable[str]) -> list[str]:
    names = list(dict.fromkeys(names))
    unknown = [n for n in names if n not in KIT]
    if unknown:
        raise KeyError(f"no behaviour {unknown[0]!r} in the kit (known: {', '.join(KIT)})")
    return names


def install(site_dir: Path, names: Iterable[str]) -> list[str]:
    """Copy the scripts of ``names`` and the kit's stylesheet into ``site_dir``; returns the
    site-relative paths written. Raises KeyError for a name not in :data:`KIT`."""
    names = _known(names)
    written = []
    for rel, source in [(CSS_PATH, "behaviours.css")] + [
        (KIT[n].site_path, KIT[n].file) for n in names
    ]:
        target = Path(site_dir) / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(kit_dir() / source, target)
        written.append(rel)
    return written


def files(names: Iterable[str]) -> dict[str, bytes]:
    """The same files as :func:`install`, as site-relative path → bytes (a refiner's
    ``Change.files``). Raises KeyError for an unknown name."""
    names = _known(names)
    out = {CSS_PATH: (kit_dir() / "behaviours.css").read_bytes()}
    out |= {KIT[n].site_path: (kit_dir() / KIT[n].file).read_bytes() for n in names}
    return out


def head_tags(names: Iterable[str], prefix: str = "") -> str:
    """The ``<link>`` and ``<script defer>`` lines loading the kit files of ``names``
    (``prefix`` before each path, e.g. ``"../"`` for a page in a subfolder). Raises KeyError."""
    names = _known(names)
    lines = [f'<link rel="stylesheet" href="{prefix}{CSS_PATH}">']
    lines += [f'<script src="{prefix}{KIT[n].site_path}" defer></script>' for n in names]
    return "\n".join(lines)


def with_head_tags(html: str, names: Iterable[str], prefix: str = "") -> str:
    """``html`` with the :func:`head_tags` lines it lacks inserted before ``</head>`` (each
    once: calling it again changes nothing); raises ValueError for a page without
    ``</head>``, KeyError for an unknown name."""
    missing = [t for t in head_tags(names, prefix).splitlines() if t not in html]
    if not missing:
        return html
    at = html.lower().find("</head>")
    if at < 0:
        raise ValueError("the page has no </head> to load the behaviour kit from")
    return html[:at] + "".join(f"{t}\n" for t in missing) + html[at:]


# --- markup ---------------------------------------------------------------------------------


def _e(text: Any) -> str:
    return escape(str(text), quote=True)


def _slug(text: str, fallback: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", str(text).lower()).strip("-")[:32]
    return slug or fallback


def _root(mm_id: str) -> str:
    return f' data-mm-id="{_e(mm_id)}"' if mm_id else ""


def _pairs(items: Sequence[Any], what: str) -> list[tuple[str, str]]:
    out = []
    for item in items:
        if isinstance(item, str):
            out.append((item, ""))
        elif isinstance(item, dict):
            out.append((str(item.get("title", "")), str(item.get("body", ""))))
        else:
            title, body = item
            out.append((str(title), str(body)))
    if not out:
        raise ValueError(f"{what} needs at least one item")
    return out


def tabs(items: Sequence[Any], *, label: str = "", mm_id: str = "", prefix: str = "tab") -> str:
    """Tabs over ``items`` — (title, body) pairs or {"title", "body"} dicts, at least one."""
    pairs = _pairs(items, "tabs")
    ids = [f"{prefix}-{_slug(t, str(i))}" for i, (t, _) in enumerate(pairs, 1)]
    links = "".join(
        f'<li><a href="#{i}">{_e(t)}</a></li>' for i, (t, _) in zip(ids, pairs, strict=True)
    )
    panels = "".join(
        f'<section id="{i}" class="mm-tab-panel"><h3>{_e(t)}</h3><p>{_e(b)}</p></section>'
        for i, (t, b) in zip(ids, pairs, strict=True)
    )
    aria = f' data-mm-label="{_e(label)}"' if label else ""
    return (
        f'<div class="mm-tabs" data-mm-behaviour="tabs"{aria}{_root(mm_id)}>'
        f"<ul data-mm-tablist>{links}</ul>{panels}</div>"
    )


def accordion(items: Sequence[Any], *, single: bool = True, level: int = 3, mm_id: str = "") -> str:
    """An accordion of (question, answer) ``items``; ``single``: one panel open at a time;
    ``level``: the headings' level (2–6)."""
    pairs = _pairs(items, "an accordion")
    h = f"h{min(max(level, 2), 6)}"
    body = "".join(
        f"<{h} data-mm-accordion-heading>{_e(q)}</{h}><div data-mm-accordion-panel>"
        f"<p>{_e(a)}</p></div>"
        for q, a in pairs
    )
    one = ' data-mm-single="true"' if single else ""
    return (
        f'<div class="mm-accordion" data-mm-behaviour="accordion"{one}{_root(mm_id)}>{body}</div>'
    )


def modal(
    title: str, body: str, *, open_label: str = "", dialog_id: str = "", mm_id: str = ""
) -> str:
    """A button ``open_label`` (default: ``title``) and the dialog it opens."""
    dialog_id = dialog_id or f"dialog-{_slug(title, 'modal')}"
    return (
        f'<a class="mm-modal-opener" href="#{_e(dialog_id)}" data-mm-modal-open>'
        f"{_e(open_label or title)}</a>"
        f'<section id="{_e(dialog_id)}" class="mm-modal" data-mm-behaviour="modal"{_root(mm_id)}>'
        f"<h2>{_e(title)}</h2><p>{_e(body)}</p>"
        f'<button type="button" data-mm-modal-close>Close</button></section>'
    )


def carousel(slides: Sequence[Any], *, label: str = "Highlights", mm_id: str = "") -> str:
    """A carousel of (title, body) ``slides``, named ``label``."""
    pairs = _pairs(slides, "a carousel")
    body = "".join(f"<div data-mm-slide><h3>{_e(t)}</h3><p>{_e(b)}</p></div>" for t, b in pairs)
    return (
        f'<div class="mm-carousel" data-mm-behaviour="carousel" data-mm-label="{_e(label)}"'
        f'{_root(mm_id)}><div class="mm-slides">{body}</div></div>'
    )


@dataclass(frozen=True)
class Field:
    """One form field: ``kind`` is an ``<input type>`` or "textarea"; ``error`` the message
    shown when it is invalid ("" : the kit's own)."""

    name: str
    label: str
    kind: str = "text"
    required: bool = True
    minlength: int = 0
    error: str = ""


CONTACT_FIELDS = (
    Field("name", "Name"),
    Field("email", "Email", "email", error="Enter an email address like name@example.com."),
    Field("message", "Message", "textarea", minlength=10),
)


def form(
    fields: Sequence[Field] = CONTACT_FIELDS,
    *,
    submit: str = "Send",
    confirm: str = "Thank you, {name}! We will be in touch soon.",
    form_id: str = "contact-form",
    mm_id: str = "",
) -> str:
    """A form of ``fields`` that shows each invalid field's error, then ``confirm`` ({field}
    names are replaced by what was typed)."""
    if not fields:
        raise ValueError("a form needs at least one field")
    rows = []
    for f in fields:
        fid = f"{form_id}-{_slug(f.name, 'field')}"
        attrs = f' id="{fid}" name="{_e(f.name)}"' + (" required" if f.required else "")
        attrs += f' minlength="{f.minlength}"' if f.minlength else ""
        attrs += f' data-mm-error="{_e(f.error)}"' if f.error else ""
        control = (
            f'<textarea{attrs} rows="4"></textarea>'
            if f.kind == "textarea"
            else f'<input type="{_e(f.kind)}"{attrs}>'
        )
        star = " *" if f.required else ""
        rows.append(
            f'<p class="mm-field"><label for="{fid}">{_e(f.label)}{star}</label>{control}</p>'
        )
    return (
        f'<form id="{_e(form_id)}" class="mm-form" data-mm-behaviour="form" '
        f'data-mm-confirm="{_e(confirm)}"{_root(mm_id)}>{"".join(rows)}'
        f'<button type="submit">{_e(submit)}</button></form>'
    )


def filter_list(
    items: Sequence[Any],
    *,
    label: str = "Search",
    tags: Sequence[str] = (),
    empty: str = "Nothing matches your search.",
    mm_id: str = "",
) -> str:
    """A search field (and one button per tag, plus "All") over ``items`` — texts, or
    (text, "tag tag") pairs."""
    pairs = _pairs(items, "a filter")
    fid = f"search-{_slug(label, 'list')}"
    buttons = ""
    if tags:
        buttons = '<div class="mm-filter-tags" role="group" aria-label="Filter by tag">'
        buttons += '<button type="button" data-mm-filter-tag="">All</button>'
        buttons += "".join(
            f'<button type="button" data-mm-filter-tag="{_e(t.lower())}">{_e(t)}</button>'
            for t in tags
        )
        buttons += "</div>"
    lis = "".join(
        f'<li data-mm-item data-mm-tags="{_e(g.lower())}">{_e(t)}</li>'
        if g
        else f"<li data-mm-item>{_e(t)}</li>"
        for t, g in pairs
    )
    return (
        f'<div class="mm-filter" data-mm-behaviour="filter"{_root(mm_id)}>'
        f'<label for="{fid}">{_e(label)}</label> '
        f'<input id="{fid}" type="search" data-mm-filter-input autocomplete="off">{buttons}'
        f'<p class="mm-filter-count" data-mm-filter-count></p>'
        f'<ul class="mm-filter-items">{lis}</ul>'
        f"<p data-mm-filter-empty>{_e(empty)}</p></div>"
    )


def counter(
    label: str = "Like",
    *,
    count: int = 0,
    toggle: bool = True,
    step: int = 1,
    key: str = "",
    mm_id: str = "",
) -> str:
    """A button ``label`` showing ``count``; ``toggle``: a second press takes the step back (a
    Like); ``key``: the count is kept in the page's localStorage under it."""
    attrs = f' data-mm-count="{int(count)}" data-mm-step="{int(step)}"'
    attrs += ' data-mm-toggle="true"' if toggle else ""
    attrs += f' data-mm-key="{_e(key)}"' if key else ""
    return (
        f'<button type="button" class="mm-counter" data-mm-behaviour="counter"{attrs}'
        f"{_root(mm_id)}>{_e(label)} <span data-mm-count-value>{int(count)}</span></button>"
    )


def item_list(
    items: Sequence[str] = (),
    *,
    label: str = "Your list",
    field_label: str = "Add an item",
    add: str = "Add",
    empty: str = "Nothing here yet.",
    key: str = "",
    mm_id: str = "",
) -> str:
    """A list of ``items`` with a field to add more and a remove button on each; ``key``:
    kept in the page's localStorage under it."""
    slug = _slug(label, "list")
    store = f' data-mm-key="{_e(key)}"' if key else ""
    lis = "".join(f"<li>{_e(t)}</li>" for t in items)
    return (
        f'<div class="mm-list" data-mm-behaviour="list"{store}{_root(mm_id)}>'
        f'<h3 id="{slug}-title">{_e(label)} (<span data-mm-list-count>{len(items)}</span>)</h3>'
        f'<form data-mm-list-add><label for="{slug}-new">{_e(field_label)}</label> '
        f'<input id="{slug}-new" name="item" type="text" autocomplete="off"> '
        f'<button type="submit">{_e(add)}</button></form>'
        f'<ul data-mm-list-items aria-labelledby="{slug}-title">{lis}</ul>'
        f"<p data-mm-list-empty{'' if not items else ' hidden'}>{_e(empty)}</p></div>"
    )


def quiz(questions: Sequence[Any], *, submit: str = "Check my answers", mm_id: str = "") -> str:
    """A quiz of ``questions`` — (question, [options], answer) or dicts with those keys; the
    answer must be one of the options."""
    if not questions:
        raise ValueError("a quiz needs at least one question")
    sets = []
    for n, q in enumerate(questions, 1):
        text, options, answer = (
            (q["question"], q["options"], q["answer"]) if isinstance(q, dict) else q
        )
        if answer not in options:
            raise ValueError(f"question {n}: the answer {answer!r} is not one of its options")
        radios = "".join(
            f'<p><input type="radio" id="q{n}-{k}" name="q{n}" value="{_e(o)}">'
            f'<label for="q{n}-{k}">{_e(o)}</label></p>'
            for k, o in enumerate(options, 1)
        )
        sets.append(
            f'<fieldset data-mm-answer="{_e(answer)}">'
            f"<legend>{_e(text)}</legend>{radios}</fieldset>"
        )
    return (
        f'<form class="mm-quiz" data-mm-behaviour="quiz"{_root(mm_id)}>{"".join(sets)}'
        f'<button type="submit">{_e(submit)}</button><p data-mm-quiz-result></p></form>'
    )


_BUILDERS: dict[str, Callable[..., str]] = {  # each takes its own keyword arguments
    "tabs": tabs, "accordion": accordion, "modal": modal, "carousel": carousel, "form": form,
    "filter": filter_list, "counter": counter, "list": item_list, "quiz": quiz,
}  # fmt: skip


def snippet(name: str, **config: Any) -> str:
    """The markup of kit component ``name`` with ``config`` (the keyword arguments of its
    builder: :func:`tabs`, :func:`accordion`, :func:`modal`, :func:`carousel`, :func:`form`,
    :func:`filter_list`, :func:`counter`, :func:`item_list`, :func:`quiz`). Raises KeyError
    for an unknown name, TypeError / ValueError for a bad config."""
    _known([name])
    return _BUILDERS[name](**config)


def configure(name: str, words: str, items: Sequence[Any] = ()) -> dict[str, Any]:
    """Keyword arguments for :func:`snippet` read from a request's ``words`` (labels, which
    counter, which form) and its ``items`` (the entries the component shows: tabs, accordion,
    carousel, filter need some, a quiz its (question, options, answer) triples; a modal takes
    [title, body]). Raises KeyError for an unknown name, ValueError when items are needed and
    none are given."""
    _known([name])
    low = words.lower()
    if name == "counter":
        vote = re.search(r"\b(?:up)?votes?\b", low)
        label = "Vote" if vote else ("Heart" if "heart" in low else "Like")
        return {"label": label, "toggle": not vote, "key": _slug(words, "counter")[:24]}
    if name == "list":
        kind = next(
            (k for k in ("itinerary", "cart", "wishlist", "favourites", "favorites", "packing list",
                         "shopping list", "to-do", "todo") if k in low),
            "list",
        )  # fmt: skip
        label = {"itinerary": "Your itinerary", "cart": "Your cart", "to-do": "To do",
                 "todo": "To do"}.get(kind, f"Your {kind}")  # fmt: skip
        field_label = "Add a stop" if kind == "itinerary" else "Add an item"
        return {"items": [str(i) for i in items], "label": label, "field_label": field_label,
                "key": _slug(kind, "list")}  # fmt: skip
    if name == "form":
        if re.search(r"newsletter|subscribe|sign[- ]?up", low):
            fields: tuple[Field, ...] = (Field("email", "Email", "email"),)
            confirm = "Thanks! {email} is on the list."
            return {"fields": fields, "submit": "Subscribe", "confirm": confirm,
                    "form_id": "signup-form"}  # fmt: skip
        if re.search(r"book|reserv|rsvp", low):
            fields = (*CONTACT_FIELDS[:2], Field("date", "Date", "date"))
            return {"fields": fields, "submit": "Book",
                    "confirm": "Thank you, {name}! Your booking request for {date} is in.",
                    "form_id": "booking-form"}  # fmt: skip
        return {}
    if name == "modal":
        title = str(items[0]) if items else "More information"
        body = str(items[1]) if len(items) > 1 else ""
        return {"title": title, "body": body or title}
    if not items:
        raise ValueError(f"a {name} shows items: give them (none were given)")
    return {"questions" if name == "quiz" else "items": list(items)}
