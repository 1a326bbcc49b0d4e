"""FronTalk test conditions (arXiv 2601.04203) read into checkable requirements, without a model.

``read_condition(condition, pass_, fail)`` → :class:`ConditionReading`: where the condition is
(the homepage, a named page, anywhere on the site), the :class:`~.model.Requirement` parts it
demands — named text, controls ("a “Take Quiz” button"), sections and features, widgets, form
fields, colours, fonts, layout, position, and behaviours (a click that navigates, a form whose
submission confirms, a click that reveals a named text) — and the words of the condition no rule
reads (hover effects, animations, taste, per-item claims …). Parts are checked on the rendered
pages by :mod:`.condition_checks`; behaviours become scripts for the functional-check machinery
(:mod:`mmstudio.feedback.functional`) there.

Verdict rule (:func:`.condition_checks.verdict`): any part failing fails the condition (a thing
it needs is missing); every part passing passes it only when the reading is *complete* (no
unread words); otherwise it stays unchecked. A condition nothing reads is unchecked and never
counts as a pass. Only the condition text is read: the ``pass`` / ``fail`` texts restate it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from pydantic import BaseModel, Field

from .condition_dom import stems
from .extract import ExtractionError, extract
from .model import Requirement
from .text import quotes, span, strip_label, without_quotes

#: words whose claim no rule reads (matched whole, outside quotes) → the reading is partial
UNREAD = re.compile(
    r"\b(?:hover\w*|animat\w*|transitions?|fad(?:e|es|ing)|slid(?:e|es|ing)|rotat\w*|glow\w*"
    r"|pulse|tooltips?|icons?|badges?|emoji\w*|avatars?|rounded|circular|corners?|textur\w*"
    r"|patterns?|overlays?|overlaid|semi-transparent|translucent|italic\w*|legib\w*|readab\w*"
    r"|elegant|playful|modern|professional|clean|calm\w*|sooth\w*|soft|warm|vibrant|colou?rful"
    r"|eye-catching|high-quality|decorative|distinct(?:ive|ly)?|distinguish\w*|prominent\w*"
    r"|uniform\w*|smooth\w*|seamless\w*|engag\w*|interactive|dynamic\w*|intuitive|eas(?:y|ily)"
    r"|instant\w*|random\w*|relevant|placeholder|mock|sample|every|all|multiple|several"
    r"|various|different|at least|up to|chronolog\w*|ordered|order|themes?|reflect\w*|style[ds]?"
    r"|styling|shadows?|borders?|gradient|divid\w*|scroll(?:s|ing)? (?:through|between)|zoom\w*"
    r"|expand\w*|collaps\w*|drag\w*|upload\w*|download\w*|shar(?:e|es|ing)|vot(?:e|es|ing)"
    r"|delet\w*|remov\w*|edit\w*|reply|replies|reminders?|persist\w*|updat(?:e|es|ed|ing)"
    r"|results?|categor(?:y|ies|ized)|functional\w*|feedback|observe|check the|content of"
    r"|information|details|profiles?|sorted|sorts?|sorting|filter(?:s|ed|ing)? (?:by|the|events"
    r"|content|articles|initiatives|policies)|(?:can|to) (?:filter|search|rate|review|post"
    r"|comment|login|log in|register|book|play|print|verify|save|track|compare|browse|find"
    r"|explore|manage|view|read|see|write|perform|use|select|toggle|input|complete)"
    r"|allows?|lets|enabl\w+ users? to (?!enter)|timeline|ratings?|stars?|spacing|spaced|align\w*"
    r"|consistent\w*|evenly|equal|matches|complement\w*|visually|clearly|brief|short)\b",
    re.I,
)
#: unread words a part reads after all (a grid part reads "consistent spacing" …)
_READ_BY = {
    "grid": re.compile(r"^(?:consistent\w*|uniform\w*|spacing|spaced|align\w*|evenly|equal)$", re.I),
    "text": re.compile(r"^(?:brief|short)$", re.I),
    "contrast": re.compile(r"^(?:distinct\w*|visually|clearly)$", re.I),
    "colour": re.compile(r"^(?:calm\w*|sooth\w*|soft|vibrant)$", re.I),
    "any": re.compile(r"^(?:clearly|prominent\w*|visually)$", re.I),
}
_HOME = re.compile(r"\b(?:home ?page|home page|landing page|main page|front page)\b", re.I)
_CONTROL_NOUN = re.compile(
    r"^\W{0,3}\s*(buttons?|btn|links?|menu items?|menu links?|nav(?:igation)? links?|tabs?"
    r"|options?|sorting options?|filters?|dropdown(?: menu)?|menus?|toggles?|icons?)\b",
    re.I,
)
_CONTROL_BEFORE = re.compile(
    r"\b(buttons?|links?|menu items?|tabs?|options?|menus?)\s+(?:labell?ed|titled|named|called"
    r"|for|to|like|reading|such as)?\s*:?\s*$",
    re.I,
)
_PAGE_AFTER = re.compile(r"^\W{0,3}\s*pages?\b", re.I)
_SECTION_AFTER = re.compile(
    r"^\W{0,3}\s*(?:section|feature|area|segment|portal|tool|page|sidebar|panel|heading|title"
    r"|banner|carousel|list|system|directory|library|archive|form|tracker|calendar)s?\b",
    re.I,
)
_PAGE_WORDS = re.compile(
    r"\b(on|in|within|at|of|from|to|into)\s+(?:the\s+|a\s+|an\s+|each\s+|every\s+|any\s+)?"
    r"((?:[\w'&/-]+\s+){1,5}?)pages?\b",
    re.I,
)
_NAV_VERB = re.compile(
    r"\b(?:navigat\w*|leads?|takes?|directs?|opens?|brings?|redirects?|returns?|goes|go|links?"
    r"|accessible|access|accessing)\b(?:\s+(?:the\s+)?users?)?\s*(?:back\s+)?(?:to|from|via)?\s*",
    re.I,
)
_CONFIRM = re.compile(r"\b(?:confirmation|thank[- ]you|success(?:ful)? message|confirm\w*)\b", re.I)
_SUBMIT = re.compile(r"\b(?:submit\w*|subscri\w+|sign(?:ing)? up|send\w*|sav(?:e|es|ing))\b", re.I)


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


def _req(kind: str, checker: str, key: str, text: str, condition: str, at: tuple[int, int],
         **fields) -> Requirement:  # fmt: skip
    return Requirement(id="", kind=kind, key=key, text=text, checker=f"cond.{checker}",
                       span=span(condition, at[0], at[1], "condition"), **fields)  # fmt: skip


@lru_cache(maxsize=4096)
def read_condition(condition: str, pass_: str = "", fail: str = "") -> ConditionReading:
    """The reading of one condition (see the module doc); ``pass_`` / ``fail`` are kept for the
    signature of a FronTalk condition and not read."""
    from .condition_rules import behaviour_parts, style_parts, widget_parts

    text = " ".join(condition.split())
    plain = without_quotes(text)
    reading = ConditionReading(condition=text)
    reading.where, reading.page = _location(text)
    if reading.where == "page":
        reading.parts.append(_req("section", "page", reading.page, f"A page “{reading.page}”",
                                  text, (0, len(text)), label=reading.page))  # fmt: skip
    reading.parts += _quoted_parts(text)
    reading.parts += _named_features(text, plain, reading)
    reading.parts += widget_parts(text, plain)
    reading.parts += style_parts(text, plain)
    reading.parts += behaviour_parts(text, plain, reading.parts)
    reading.parts += _extracted(text, reading.parts)
    reading.parts = _dedupe(reading.parts)
    for n, part in enumerate(reading.parts, start=1):
        part.id = f"c{n}"
    reading.unread = _unread(plain, reading.parts)
    return reading


def _location(text: str) -> tuple[str, str]:
    """(where, page name): the page named after on / in / within (not the target of "to a …
    page"), else ``home`` when the homepage is named, else ``site``."""
    named = _quoted_page(text)
    if named:
        return "page", named
    for m in _PAGE_WORDS.finditer(without_quotes(text)):
        name = m.group(2).strip()
        if m.group(1).lower() in ("to", "into", "from") or _HOME.search(name + " page"):
            continue
        if stems(name):
            return "page", name
    return ("home", "") if _HOME.search(text) else ("site", "")


def _quoted_page(text: str) -> str:
    for inner, start, end in quotes(text):
        before = text[max(0, start - 12) : start].lower()
        if _PAGE_AFTER.match(text[end:]) and not re.search(r"\bto\s+(?:the\s+)?\W?$", before):
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
        noun = _CONTROL_NOUN.match(after) or _CONTROL_BEFORE.search(before)
        for inner, start, end in group:
            label = strip_label(inner)
            if not label or label == page or len(label) > 80:
                continue
            at = (max(0, start - 1), end + 1)
            if noun:
                role = _control_role(noun.group(1))
                found.append(_req("label" if role != "link" else "nav", "control", label,
                                  f"A {role} “{label}”", text, at, label=label, role=role))  # fmt: skip
            else:
                section = bool(_SECTION_AFTER.match(text[end:]))
                found.append(_req("copy", "text", label, f"The text “{label}”", text, at,
                                  label=label, role="section" if section else "copy"))  # fmt: skip
    return found


def _control_role(noun: str) -> str:
    noun = noun.lower()
    for word, role in (("option", "option"), ("filter", "option"), ("dropdown", "option"),
                       ("link", "link"), ("menu", "link"), ("tab", "tab"), ("icon", "any")):  # fmt: skip
        if word in noun:
            return role
    return "button"


_FEATURE = re.compile(
    r"\b(?:the|a|an|its)\s+((?:[A-Z][\w&'-]*\s+(?:(?:and|&|of|for)\s+)?){1,6})"
    r"(?=[a-z,.:;]|$|[A-Z][a-z]*\b(?!\s+[A-Z]))"
    r"|\b(?:the|a|an)\s+((?:[a-z][\w'-]*\s+){1,3}?)(section|directory|library|archive|dashboard"
    r"|calendar|forum|center|centre|gallery|portal|tracker|digest|guide|list)\b",
)


def _named_features(text: str, plain: str, reading: ConditionReading) -> list[Requirement]:
    """Unquoted feature names ("the Interactive Project Gallery", "the comment section", "the
    legal resource center"): a heading, section, page or link of the site must name them."""
    found = []
    skip = {stems(reading.page).__repr__()} if reading.page else set()
    for m in _FEATURE.finditer(plain):
        name = (m.group(1) or f"{m.group(2)}{m.group(3)}").strip()
        words = stems(name)
        if not words or len(words) > 6 or repr(stems(name)) in skip or _HOME.search(name):
            continue
        if not m.group(1) and m.group(3).lower() == "section" and len(words) == 0:
            continue
        if m.group(1) and len(name.split()) < 2:
            continue  # one capitalised word opens a sentence more often than it names a feature
        if _generic(name):
            continue
        skip.add(repr(words))
        found.append(_req("section", "named", name, f"A part of the site named “{name}”", text,
                          (m.start(), m.end()), label=name))  # fmt: skip
    return found


_GENERIC = re.compile(
    r"^(?:search results?|results|main content|content|navigation|header|footer|hero|page"
    r"|user|users|list|each|comment|rating|review|filter)$",
    re.I,
)


def _generic(name: str) -> bool:
    core = re.sub(r"\s+(?:section|list|area)$", "", name.strip(), flags=re.I)
    return bool(_GENERIC.match(core)) or core.lower() in ("search", "search bar", "map")


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
    """Words no part reads (see :data:`UNREAD` and :data:`_READ_BY`)."""
    kinds = {p.checker.removeprefix("cond.") for p in parts} | {"any"}
    kinds |= {"colour"} if any(p.checker == "cond.colour" for p in parts) else set()
    words = []
    for m in UNREAD.finditer(plain):
        word = m.group()
        if any(k in _READ_BY and _READ_BY[k].match(word) for k in kinds):
            continue
        if _read_elsewhere(word, plain, m.start(), parts):
            continue
        words.append(word)
    return list(dict.fromkeys(w.lower() for w in words))


def _read_elsewhere(word: str, plain: str, at: int, parts: list[Requirement]) -> bool:
    """A word a behaviour or style part covers ("submit … confirmation", "users can enter")."""
    low = word.lower()
    checkers = {p.checker for p in parts}
    if "cond.submit" in checkers and re.match(r"(?:allows?|lets|enabl|can|to )", low):
        return True
    if "cond.navigate" in checkers and low in ("clearly", "easily", "easy"):
        return True
    if low.startswith("shadow") and "cond.shadow" in checkers:
        return True
    return low.startswith("gradient") and "cond.gradient" in checkers
