"""FronTalk test conditions (arXiv 2601.04203) read into checkable requirements, without a model.

``read_condition(condition, pass_, fail)`` → :class:`ConditionReading`: where the condition is
(the homepage, a named page, anywhere on the site), the :class:`~.model.Requirement` parts it
demands — named text, controls ("a “Take Quiz” button"), sections and features, widgets, form
fields (:mod:`.condition_rules`), colours, fonts, layout and position (also there), behaviours
(:mod:`.condition_behaviour`: a click that navigates, a form whose submission confirms, a click
that reveals a named text) — and the words of the condition no rule reads (hover effects,
animations, taste, per-item claims …; :mod:`.condition_words`). The parts are checked on the
rendered pages by :mod:`~mmstudio.feedback.condition_judge`; behaviours become scripts for the
functional-check machinery (:mod:`mmstudio.feedback.functional`) there (:mod:`.condition_steps`).

Verdict rule (:func:`~mmstudio.feedback.condition_judge.verdict`): any part failing fails the
condition (a thing it needs is missing); every part passing passes it only when the reading is
*complete* (:attr:`ConditionReading.checkable`: no unread words); otherwise it stays unchecked. A
condition nothing reads is unchecked and never counts as a pass. Only the condition text is read:
the ``pass`` / ``fail`` texts restate it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, Field

from .condition_dom import stems
from .condition_rules import WIDGETS
from .condition_words import (
    CONTROL_BEFORE,
    CONTROL_NOUN,
    FEATURE,
    GENERIC,
    HOME,
    PAGE_AFTER,
    PAGE_WORDS,
    READ_BY,
    SECTION_AFTER,
    UNREAD,
)
from .extract import ExtractionError, extract
from .model import Requirement
from .text import quotes, span, strip_label, without_quotes


class ConditionReading(BaseModel):
    """What one test condition demands, as checkable parts. ``where`` is ``home`` (the
    homepage), ``page`` (the page named ``page``) or ``site`` (any page); ``unread`` lists the
    words of the condition no rule reads. ``checkable``: the parts decide it both ways."""

    condition: str
    where: str = "site"
    page: str = ""
    parts: list[Requirement] = Field(default_factory=list)
    unread: list[str] = Field(default_factory=list)

    @property
    def checkable(self) -> bool:
        return bool(self.parts) and not self.unread


def _req(
    kind: str, checker: str, key: str, text: str, condition: str, at: tuple[int, int], **fields
) -> Requirement:
    return Requirement(
        id="",
        kind=kind,
        key=key,
        text=text,
        checker=f"cond.{checker}",
        span=span(condition, at[0], at[1], "condition"),
        **fields,
    )


@lru_cache(maxsize=4096)
def read_condition(condition: str, pass_: str = "", fail: str = "") -> ConditionReading:
    """The reading of one condition (see the module doc); ``pass_`` / ``fail`` are kept for the
    signature of a FronTalk condition and not read."""
    from .condition_behaviour import behaviour_parts, destination_needs
    from .condition_hover import hover_part, motion_part
    from .condition_items import icon_part, items_part
    from .condition_rules import style_parts, widget_parts
    from .condition_shape import shape_part
    from .condition_things import item_link_part, reached_part, thing_parts

    text = " ".join(condition.split())
    plain = without_quotes(text)
    reading = ConditionReading(condition=text)
    reading.where, reading.page = _location(text)
    if reading.where == "page":
        reading.parts.append(
            _req(
                "section",
                "page",
                reading.page,
                f"A page “{reading.page}”",
                text,
                (0, len(text)),
                label=reading.page,
            )
        )
    reading.parts += _quoted_parts(text)
    reading.parts += _named_features(text, plain, reading)
    reading.parts += widget_parts(text, plain)
    reading.parts += style_parts(text, plain)
    reading.parts += behaviour_parts(text, plain, reading.parts)
    reading.parts = destination_needs(reading.parts)
    reading.parts += _paragraphs(text, plain)
    reading.parts += items_part(text, plain, reading.parts) + icon_part(text, plain)
    reading.parts += hover_part(text, plain) or motion_part(text, plain)
    reading.parts += shape_part(text, plain)
    reading.parts += thing_parts(text, plain)
    reading.parts += reached_part(text, plain, reading.where, reading.page, reading.parts)
    reading.parts += item_link_part(text, plain, reading.parts)
    reading.parts += _extracted(text, reading.parts)
    reading.parts = _dedupe(_outside_names(reading.parts, text, reading.page))
    for n, part in enumerate(reading.parts, start=1):
        part.id = f"c{n}"
    reading.unread = _unread(plain, reading.parts)
    if reading.parts and all(p.checker == "cond.page" for p in reading.parts):
        reading.unread.append("(what it says of that place)")
    return reading


#: stems of words that qualify "page" without naming one ("the whole page", "this page")
_NOT_A_PAGE_NAME = stems("whole entire full same current this that single web other every each")


def _location(text: str) -> tuple[str, str]:
    """(where, page name): the page named after on / in / within (not the target of "to a …
    page"), else ``home`` when the homepage is named, else ``site``."""
    named = _quoted_page(text)
    if named:
        return "page", named
    for m in PAGE_WORDS.finditer(without_quotes(text)):
        name = m.group(2).strip()
        if m.group(1).lower() in ("to", "into", "from") or HOME.search(name + " page"):
            continue
        if stems(name) - _NOT_A_PAGE_NAME:
            return "page", name
    homes = [m for m in HOME.finditer(text) if not _journey_origin(text, m.start())]
    return ("home", "") if homes else ("site", "")


def _outside_names(parts: list[Requirement], text: str, page: str) -> list[Requirement]:
    """Widget parts whose word is part of a page or feature name ("the Product Specification
    Search Tool") are that name, not a widget."""
    names = [p.label for p in parts if p.checker == "cond.named"] + ([page] if page else [])
    spans = [(m.start(), m.end()) for n in names for m in re.finditer(re.escape(n), text)]
    return [p for p in parts if p.checker != "cond.widget"
            or not any(a <= p.span.start < b for a, b in spans)]  # fmt: skip


def _journey_origin(text: str, at: int) -> bool:
    """Whether the homepage named at ``at`` is where a journey starts ("accessible from the
    homepage", "via the “News” menu item on the homepage"), not where the claim holds."""
    return bool(re.search(r"\b(?:from|via|through|accessible|access\w*|navigat\w*)\b",
                          text[max(0, at - 45) : at], re.I))  # fmt: skip


def _quoted_page(text: str) -> str:
    for inner, start, end in quotes(text):
        before = text[max(0, start - 12) : start].lower()
        if PAGE_AFTER.match(text[end:]) and not re.search(r"\bto\s+(?:the\s+)?\W?$", before):
            return strip_label(inner)
    return ""


def _groups(text: str) -> list[list[tuple[str, int, int]]]:
    """Quoted strings, grouped when only commas / "and" / "or" stand between them."""
    groups: list[list[tuple[str, int, int]]] = []
    for q in quotes(text):
        gap = text[groups[-1][-1][2] : q[1]] if groups else ""
        if groups and re.fullmatch(r"\W*\s*(?:,?\s*(?:and|or)\s*)?\W*", gap):
            groups[-1].append(q)
        else:
            groups.append([q])
    return groups


def _quoted_parts(text: str) -> list[Requirement]:
    """A control for a name a control noun follows or leads ("the “Read More” button", "links
    to “A,” “B”"), named text for any other quoted name (a page name is the location)."""
    found = []
    page = _quoted_page(text)
    for group in _groups(text):
        first, last = group[0], group[-1]
        after, before = text[last[2] : last[2] + 30], text[max(0, first[1] - 40) : first[1]]
        noun = CONTROL_NOUN.match(after) or CONTROL_BEFORE.search(before)
        for inner, start, end in group:
            label = strip_label(inner)
            if not label or label == page or len(label) > 80:
                continue
            at = (max(0, start - 1), end + 1)
            if noun:
                role = _control_role(noun.group(1))
                found.append(
                    _req(
                        "label" if role != "link" else "nav",
                        "control",
                        label,
                        f"A {role} “{label}”",
                        text,
                        at,
                        label=label,
                        role=role,
                    )
                )
            else:
                section = bool(SECTION_AFTER.match(text[end:]))
                found.append(
                    _req(
                        "copy",
                        "text",
                        label,
                        f"The text “{label}”",
                        text,
                        at,
                        label=label,
                        role="section" if section else "copy",
                    )
                )
    return found


def _control_role(noun: str) -> str:
    noun = noun.lower()
    for word, role in (
        ("option", "option"),
        ("filter", "option"),
        ("dropdown", "option"),
        ("link", "link"),
        ("menu", "link"),
        ("tab", "tab"),
        ("icon", "any"),
    ):
        if word in noun:
            return role
    return "button"


def _named_features(text: str, plain: str, reading: ConditionReading) -> list[Requirement]:
    """Unquoted feature names ("the Interactive Project Gallery", "the comment section", "the
    legal resource center"): a heading, section, page or link of the site must name them."""
    found = []
    skip = {stems(reading.page).__repr__()} if reading.page else set()
    for m in FEATURE.finditer(plain):
        name = (m.group(1) or f"{m.group(2)}{m.group(3)}").strip()
        words = stems(name)
        if not words or len(words) > 6 or repr(stems(name)) in skip or HOME.search(name):
            continue
        if not m.group(1) and m.group(3).lower() == "section" and len(words) == 0:
            continue
        if _generic(name) or "  " in name or any(w.fullmatch(name) for w in WIDGETS.values()):
            continue
        skip.add(repr(words))
        found.append(
            _req(
                "section",
                "named",
                name,
                f"A part of the site named “{name}”",
                text,
                (m.start(), m.end()),
                label=name,
            )
        )
    return found


def _generic(name: str) -> bool:
    core = re.sub(r"\s+(?:section|list|area)$", "", name.strip(), flags=re.I)
    return bool(GENERIC.match(core)) or core.lower() in ("search", "search bar", "map")


def _paragraphs(text: str, plain: str) -> list[Requirement]:
    """ "A brief description / summary / excerpt": some paragraph of running text."""
    m = re.search(
        r"\b(?:brief|short)\s+(?:\w+\s+)?(?:description|summary|excerpt|intro\w*|bio)\b",
        plain,
        re.I,
    )
    if m is None:
        return []
    return [
        _req(
            "copy",
            "text",
            "paragraph",
            "A paragraph of text",
            text,
            (m.start(), m.end()),
            role="paragraph",
        )
    ]


def _extracted(text: str, parts: list[Requirement]) -> list[Requirement]:
    """The brief extractor's sections and fixed header for what the rules above left out."""
    try:
        found = extract(text, "condition")
    except ExtractionError:
        return []
    have = {(p.kind, p.key.lower()) for p in parts}
    out = []
    for req in found:
        if req.kind == "section" and req.role in ("header", "footer", "hero", "faq"):
            if ("widget", req.role) not in have:
                out.append(req.model_copy(update={"checker": "cond.widget", "kind": "widget"}))
        elif req.kind == "layout" and req.role == "header":
            out.append(req.model_copy(update={"checker": ""}))
    return out


def _dedupe(parts: list[Requirement]) -> list[Requirement]:
    seen, out = set(), []
    for part in parts:
        key = (part.checker, part.key.lower(), part.role, tuple(part.values))
        if key not in seen:
            seen.add(key)
            out.append(part)
    return out


def _unread(plain: str, parts: list[Requirement]) -> list[str]:
    """Words no part reads (see :data:`UNREAD` and :data:`READ_BY`)."""
    kinds = {"any"} | {p.checker.removeprefix("cond.") or p.kind for p in parts}
    kinds |= {f"{p.checker.removeprefix('cond.') or p.kind}:{p.role}" for p in parts}
    kinds |= {f"widget:{v[6:]}" for p in parts for v in p.values if v.startswith("needs:")}
    kinds |= {"navigate:clicked" for p in parts if p.checker == "cond.navigate" and p.label
              and p.order != 1}  # fmt: skip
    for part in parts:  # a page or feature name is a name, not a claim
        names = [part.label] if part.checker in ("cond.page", "cond.named") else []
        names += part.values[:1] if part.checker == "cond.navigate" and part.role == "named" else []
        names += part.values[:1] if part.checker in ("cond.reached", "cond.item_link") else []
        for name in [f"each {n}" for n in names] + [f"every {n}" for n in names] + names:
            plain = plain.replace(name, " " * len(name))
        if part.checker == "cond.navigate" and part.role == "vague" and part.label:
            start, end = part.span.start, part.span.end  # "opens a page listing …": the place
            kept = re.sub(r"(?i)\b(?!random)\w+", lambda m: " " * len(m.group()), plain[start:end])
            plain = plain[:start] + kept + plain[end:]
    from .condition_things import reads

    read_by = {**READ_BY, **reads()}
    words = []
    for m in UNREAD.finditer(plain):
        word = m.group()
        if any(re.fullmatch(read_by.get(k, "(?!)"), word, re.I) for k in kinds):
            continue
        if _read_elsewhere(word, plain, m.start(), parts):
            continue
        words.append(word)
    return list(dict.fromkeys(w.lower() for w in words))


def _read_elsewhere(word: str, plain: str, at: int, parts: list[Requirement]) -> bool:
    """A word a behaviour or style part covers ("submit … confirmation", "users can enter")."""
    low = word.lower()
    checkers = {p.checker for p in parts}
    if any(p.checker == "cond.field" and low.startswith(p.label[:5]) for p in parts):
        return True  # "fields for title, description …": the field reads its word
    if "cond.submit" in checkers and re.match(r"(?:allows?|lets|enabl|can|to )", low):
        return True
    if "cond.navigate" in checkers and low in ("clearly", "easily", "easy"):
        return True
    if low in ("next to", "beside", "alongside") and any(
        p.checker == "cond.items"
        and any(v in ("icon", "badge") or v.startswith("button:") for v in p.values)
        for p in parts
    ):
        return True  # "an icon next to each title": every item holds its icon
    if low.startswith("shadow") and "cond.shadow" in checkers:
        return True
    return low.startswith("gradient") and "cond.gradient" in checkers
