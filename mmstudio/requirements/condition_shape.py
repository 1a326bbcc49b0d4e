"""Shapes of FronTalk conditions read from the site's style sheets: "cards with rounded corners",
"circular avatars", "a subtle border around the map", "each tile has a thin border".

:func:`shape_part` reads the claim into parts (``checker`` ``cond.rounded`` or ``cond.border``;
``label`` the kind of element — card, image, button, link, avatar, icon as the hover parts
name them, or map, search, form, sidebar, table, badge, banner; a shape of no named element is
left unread). :func:`check_shape` decides one on the page's CSS (its ``<style>``
blocks and the site's own CSS files), outside ``:hover`` rules: rounded passes when a rule whose
selector names that kind of element declares a ``border-radius`` of at least 4 px (50 % or
999 px for "circular"), border when one declares a visible border (a width above 0, not
``none``); both fail when none does. As with hover, what the rule does to the pixels is not
measured: a rule for an element the page does not show would pass.
"""

from __future__ import annotations

import re

from .condition_hover import _HOVER, _SUBJECTS, _rules
from .condition_rules import _req
from .model import Requirement, RequirementResult

_ROUNDED = re.compile(r"\brounded(?: corners| edges)?\b|\bcircular\b|\bround corners\b", re.I)
_BORDER = re.compile(r"\b(?:thin |subtle |light |soft |solid )?borders?\b", re.I)
#: condition words the shape parts read (see :data:`~.condition_words.READ_BY`)
READS = {"rounded": r"rounded|circular|corners?|avatars?", "border": r"borders?"}


#: more kinds of element a shape is claimed of (after the hover parts' :data:`_SUBJECTS`)
_MORE = (
    (r"maps?", "map", r"map"),
    (r"search (?:bars?|box\w*|fields?|inputs?)", "search", r"search|input"),
    (r"forms?|input fields?|fields?", "form", r"form|input|textarea|select"),
    (r"sidebars?", "sidebar", r"sidebar|aside"),
    (r"tables?", "table", r"table|\btd\b|\bth\b"),
    (r"badges?|tags?|chips?|pills?", "badge", r"badge|tag|chip|pill"),
    (r"banners?", "banner", r"banner|hero"),
)
_KINDS = (*_SUBJECTS, *_MORE)


def shape_part(text: str, plain: str) -> list[Requirement]:
    """The rounded / border parts of a condition ([] when it claims neither, or only of a
    hover: "its border colour changes on hover" is the hover part's)."""
    found = []
    for checker, pattern in (("rounded", _ROUNDED), ("border", _BORDER)):
        m = pattern.search(plain)
        if m is None or _HOVER.search(plain[max(0, m.start() - 60) : m.end() + 60]):
            continue
        if re.search(r"\bborder colou?r\b|\bno borders?\b|\bborderless\b", plain, re.I):
            continue
        near = plain[max(0, m.start() - 80) : m.end() + 80]
        subject = next((kind for words, kind, _sel in _KINDS
                        if re.search(rf"\b(?:{words})\b", near, re.I)), "")  # fmt: skip
        if not subject:
            continue  # a shape of nothing named: its words stay unread
        circular = "circular" in m.group().lower()
        words = "is circular" if circular else (
            "has rounded corners" if checker == "rounded" else "has a border"
        )  # fmt: skip
        found.append(
            _req("layout", checker, subject, f"The {subject} {words}", (m.start(), m.end()),
                 label=subject, values=["circular"] if circular else [], source=text)
        )  # fmt: skip
    return found


def check_shape(part: Requirement, css: str) -> RequirementResult:
    """The result of a rounded / border part on the page's style sheets ``css``."""
    from .condition_view import result

    pattern = next((sel for _w, kind, sel in _KINDS if kind == part.label), r"(?!)")
    kind = part.checker.removeprefix("cond.")
    what = part.label or "any element"
    for sel, body in _rules(css):
        if ":hover" in sel or not re.search(pattern, sel, re.I):
            continue
        if kind == "rounded" and _radius(_resolved(body, css), "circular" in part.values):
            return result(part, "pass", f"“{sel[:60]}” declares rounded corners")
        if kind == "border" and _visible_border(body):
            return result(part, "pass", f"“{sel[:60]}” declares a border")
    words = "rounded corners" if kind == "rounded" else "a visible border"
    return result(part, "fail", f"no rule gives {what} {words} in the style sheets")


def _resolved(body: str, css: str) -> str:
    """``body`` with each ``var(--name[, fallback])`` replaced by the value the style sheets
    give ``--name`` (its last declaration), else by its fallback."""
    values = dict(re.findall(r"(--[\w-]+)\s*:\s*([^;{}]+)", css))

    def swap(m: re.Match) -> str:
        return values.get(m.group(1), m.group(2) or "").strip()

    for _ in range(3):  # a variable defined by another
        body = re.sub(r"var\(\s*(--[\w-]+)\s*(?:,\s*([^()]*))?\)", swap, body)
    return body


def _radius(body: str, circular: bool) -> bool:
    for m in re.finditer(r"border(?:-[a-z]+)*-radius\s*:\s*([^;]+)", body, re.I):
        value = m.group(1).strip().lower()
        numbers = re.findall(r"([\d.]+)\s*(px|%|rem|em)?", value)
        for number, unit in numbers:
            size = float(number) * (16 if unit in ("rem", "em") else 1)
            if circular and ((unit == "%" and size >= 50) or (unit != "%" and size >= 99)):
                return True
            if not circular and (size >= 4 if unit != "%" else size >= 5):
                return True
    return False


def _visible_border(body: str) -> bool:
    for m in re.finditer(r"(?<![\w-])border(?:-(?:top|right|bottom|left))?\s*:\s*([^;]+)", body,
                         re.I):  # fmt: skip
        value = m.group(1).strip().lower()
        if re.match(r"(?:none|0(?:px)?|hidden)\b", value):
            continue
        if re.search(r"\b(?:solid|dashed|dotted|double|groove|ridge|inset|outset)\b", value):
            width = re.match(r"([\d.]+)", value)
            if width is None or float(width.group(1)) > 0:
                return True
    return False
