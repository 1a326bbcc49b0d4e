"""Pass and check: fields of one item that must stay together (plan ↔ price, question ↔ answer,
speaker ↔ role, time ↔ session, card title ↔ its line).

Two quoted strings of one sentence that are not items of one list ("“Solo” at “$19 / month”",
"titled “Dawn Simulation” with a subtext: “Soft Awakening Flow”") describe one item. On the
page the smallest box holding both must be that item's own box: when it is a whole section (or
the page) that also holds other items' first fields, the fields were pooled into separate grids
and the item is broken — a designer sees prices under the wrong plans.
"""

from __future__ import annotations

import itertools
import re

from mmstudio.render.facts import PageFacts

from .copy import _role, _role_after, _runs
from .model import Requirement, RequirementResult
from .text import quotes, sentence_bounds, span, strip_label

MAX_GAP = 160  # characters between the two fields in the brief
ADJACENT_PX = 60  # centre to centre: a title straight above its line
_SKIP_ROLES = ("nav", "button", "in-image", "chart")


def extract_pairs(text: str, source: str = "prompt") -> list[Requirement]:
    """One ``pairing`` requirement per pair of quoted fields of one item (ids ``pairing-N``)."""
    found: list[Requirement] = []
    taken: set[int] = set()  # a field is the second of one pair at most, never chained on
    for first, second in itertools.pairwise(_runs(text)):
        a, a_start, a_end = first[0]
        b, b_start, b_end = second[0]
        if len(first) > 1 or b_start - a_end > MAX_GAP or a_start in taken:
            continue
        if _ATTRIBUTION.match(a):
            continue  # “— Jamal, yoga teacher.” ends its testimonial; the next quote is another's
        _, end = sentence_bounds(text, a_start)
        if b_start > end or _role(text, a_start - 1) in _SKIP_ROLES:
            continue
        if _role(text, b_start - 1) in _SKIP_ROLES or _role_after(text, b_end) == "button":
            continue  # a heading and its call to action are no item's fields
        a, b = strip_label(a), strip_label(b)
        if min(len(a), len(b)) < 2 or max(len(a), len(b)) > 200 or _alike(a, b):
            continue
        between = text[a_end + 1 : b_start - 1]
        if re.search(r"\b(?:or|versus|vs\.?|instead of)\s*$", between):
            continue
        if _NEW_PART.search(between):
            continue  # "a hero saying “…”, a pricing section with plans “…”": two parts
        taken.add(b_start)
        where = span(text, a_start - 1, b_end + 1, source)
        found.append(_pairing(a, b, f"“{_cut(a)}” and “{_cut(b)}” in one box", where))
    found += _attributed(text, source, {tuple(r.values) for r in found})
    return found + _priced(text, source, {r.key for r in found})


#: a quoted signature: “— Maya, first-time gardener”, “– Destin Sparks”
_ATTRIBUTION = re.compile(r"^\s*[—–―-]{1,2}\s*[^\W\d_]")
MAX_QUOTE_GAP = 200  # characters between a testimonial's quote and its signature in the brief


def _attributed(text: str, source: str, taken: set[tuple[str, ...]]) -> list[Requirement]:
    """A testimonial's quote and the signature the brief gives it next ("The quote text: “…”
    Beneath the quote, a small line reads “— Maya, first-time gardener”", "“…” followed by
    “— Amir, product lead at Atlas & Co”"), even across a sentence end: a designer reads the
    signature under the wrong quote, or under none, as a broken testimonial."""
    found: list[Requirement] = []
    spans = quotes(text)
    for (a, a_start, a_end), (b, b_start, b_end) in itertools.pairwise(spans):
        if not _ATTRIBUTION.match(b) or _ATTRIBUTION.match(a):
            continue
        between = text[a_end + 1 : b_start - 1]
        if b_start - a_end > MAX_QUOTE_GAP or "\n" in between:
            continue
        quote, name = strip_label(a), strip_label(b)
        if len(quote.split()) < 4 or len(name) < 4 or (quote, name) in taken:
            continue  # a quote is a sentence; a label (“Stories”) signed is no testimonial
        where = span(text, a_start - 1, b_end + 1, source)
        found.append(_pairing(quote, name, f"“{_cut(quote)}” signed “{_cut(name)}”", where))
    return found


#: the words between two quotes bring in another part of the page
_NEW_PART = re.compile(
    r"[,;]\s+(?:and\s+)?(?:an?|the)\s+(?:[a-z-]+\s+)?(?:section|band|footer|header|hero|panel"
    r"|page|form|strip|sidebar)s?\b",
    re.I,
)
#: a price written right after a quoted name: “Taster evening” £45, “Pro” at $19 / month
_PRICE_AFTER = re.compile(
    r"^\s*(?:(?:plan|tier|package|pass|option|ticket)\s+)?(?:at|for|costs?|[-–—:(])?\s*((?:[£$€¥]\s?\d(?:[\d,.]*\d)?|\d(?:[\d,.]*\d)?\s?(?:€|EUR|USD|GBP))"
    r"(?:\s?/\s?(?:month|mo|year|yr|person|night|session|week))?)",
    re.I,
)


def _priced(text: str, source: str, taken: set[str]) -> list[Requirement]:
    """Pairings of a quoted name with the unquoted price just after it."""
    found: list[Requirement] = []
    for inner, start, end in quotes(text):
        m = _PRICE_AFTER.match(text[end + 1 : end + 40])
        name = strip_label(inner)
        if m is None or name in taken or len(name) < 2 or _role(text, start - 1) in _SKIP_ROLES:
            continue
        price = m.group(1).strip()
        where = span(text, start - 1, end + 1 + m.end(), source)
        found.append(
            _pairing(name, price, f"“{_cut(name)}” and its price {price} in one box", where)
        )
    return found


def _pairing(first: str, second: str, label: str, where) -> Requirement:
    """One item's two fields that must share a box (keyed by the first)."""
    return Requirement(
        id="", kind="pairing", key=first, label=first, values=[first, second], text=label,
        span=where, severity="major",
    )  # fmt: skip


def _alike(a: str, b: str) -> bool:
    """Two fields of the same sort are siblings, not one item's fields: fragments of one line
    (“Creative”, “Superpowers”), two days (“Day 1: Play”, “Day 2: Build”), two labels."""
    wa, wb = a.split(), b.split()
    if a.casefold() == b.casefold() or (len(wa) <= 2 and len(wb) <= 2):
        return True
    if wa[0].casefold() == wb[0].casefold():
        return True
    return a.isupper() == b.isupper() and len(wa) <= 3 and len(wb) <= 3


def _cut(text: str) -> str:
    return text if len(text) <= 40 else text[:37] + "…"


def pairs_of(reqs: list[Requirement]) -> tuple[tuple[str, str], ...]:
    """The (first, second) texts the renderer locates for the pairing requirements."""
    return tuple((r.values[0], r.values[1]) for r in reqs if r.kind == "pairing")


def check_pairing(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Fail when the two fields were pooled apart: the smallest box holding both also holds
    the first fields of two or more other items (the titles of one grid, the prices of another),
    or is a whole section or the page and holds another item's (a name in the nav, its price in
    a card far below) — unless the two sit right next to each other (≤ :data:`ADJACENT_PX`)."""
    fact = next((p for p in facts.pairs if p.a == req.values[0] and p.b == req.values[1]), None)
    if fact is None or not all(fact.found):
        return RequirementResult.of(req, "unchecked", "one of the two texts is not on the page")
    pooled = fact.others >= 2 or (fact.landmark and fact.others >= 1)
    if pooled and fact.distance > ADJACENT_PX:
        msg = (
            f"“{_cut(req.values[0])}” and “{_cut(req.values[1])}” are not in one box: they sit "
            f"{fact.distance:.0f} px apart among other items' fields"
        )
        return RequirementResult.of(
            req, "fail", msg, element=fact.section, distance=fact.distance, fields=req.values
        )
    return RequirementResult.of(req, "pass", "together", element=fact.section)
