"""Items a brief lists in quotes, with their fields (offline planner pass).

One pass, one job (issue 14, items and their fields): a short brief names a part's items in one
run of quotes — "a menu section listing “Sourdough” £4, “Rye loaf” £3.50 and “Cinnamon bun”
£2.20", "plans “Drop-in” £12 … and “Unlimited” £85 per month", "a contact form with fields
“Name”, “Email” and “Message”, and a “Send” button". The quote placer reads each quote on its
own and puts such names in buttons, chips or nav links; this pass reads the run as the part's
items, each with its fields, so ``planner_brief`` can build the part from them (a price card per
dish, an input per field, the form's own submit label).

Public API: :class:`PricedItem`, :func:`priced_items`, :func:`form_fields`,
:func:`submit_label`. Pure functions of prose text (quotes included); offsets are not kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mmstudio.providers.offline.planner_labels import label_text

_Q = r"[“\"](?P<{name}>[^”\"\n]{{2,80}})[”\"]"
_NUMBER = r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_MONEY = rf"[$€£¥₹]\s?{_NUMBER}|{_NUMBER}\s?(?:€|EUR|USD|GBP|kr)\b"
_PER = (
    r"(?:\s*/\s*|\s+(?:per|a|an|each)\s+)"
    r"(?:month|mo|year|yr|week|class|session|lesson|hour|night|person|day|visit|item|seat|"
    r"user)\b"
)
_PRICED = re.compile(
    _Q.format(name="name")
    + r"\s*(?:[:–—-]|\bat\b|\bfor\b|\bcosts?\b|\bis\b)?\s*\(?[“\"]?(?P<price>"
    + _MONEY
    + r")[”\"]?(?P<per>"
    + _PER
    + r"|\s+each\b)?\)?",
    re.I,
)
_RUN_GAP = re.compile(r"^\s*(?:[,;]\s*)?(?:(?:and|&|or|plus)\s+)?$", re.I)
_FIELD_CUE = re.compile(
    r"\b(?:fields?|inputs?|boxes|asking for|asks for|asks|collecting|collects)"
    r"(?:\s+(?:for|labell?ed|named|called|titled))?\s*:?\s*(?=[“\"])",
    re.I,
)
_QUOTE = re.compile(_Q.format(name="text"))
_BUTTON_AFTER = re.compile(
    _Q.format(name="text") + r"\s+(?:submit\s+|send\s+|call[- ]to[- ]action\s+)?(?:button|cta)\b",
    re.I,
)
_BUTTON_BEFORE = re.compile(
    r"\b(?:button|cta|submit(?:ted)?)\s+(?:labell?ed|saying|reading|that says|with|titled)?"
    r"\s*(?:an?\s+|the\s+)?:?\s*" + _Q.format(name="text"),
    re.I,
)


@dataclass(frozen=True)
class PricedItem:
    """One listed item: its ``name`` (a whole label, sentence punctuation removed), its
    ``price`` as written ("£3.50") and the unit the price is ``per`` ("per month", "" none)."""

    name: str
    price: str
    per: str = ""

    @property
    def shown(self) -> str:
        """The price as a card shows it: "£85 / month" for £85 per month, else the price."""
        unit = self.per.removeprefix("per ").strip()
        return f"{self.price} / {unit}" if unit and unit != "each" else self.price


def priced_items(text: str) -> list[PricedItem]:
    """The first run of quoted names each followed by a price in ``text``, joined by commas
    or "and" ("“Sourdough” £4, “Rye loaf” £3.50 and “Cinnamon bun” £2.20"); a price's "per
    month" stays with its own item. [] when ``text`` names no priced quote."""
    items: list[PricedItem] = []
    end = -1
    for match in _PRICED.finditer(text):
        if items and not _RUN_GAP.match(text[end : match.start()]):
            break
        per = (match.group("per") or "").strip()
        if per.startswith("/"):
            per = "per " + per[1:].strip()
        name = label_text(match.group("name").strip(), "tag")
        price = re.sub(r"\s+", "", match.group("price"))
        items.append(PricedItem(name=name, price=price, per=per))
        end = match.end()
    return items


def form_fields(text: str) -> list[str]:
    """The quoted field names after a field cue in ``text`` ("with fields “Name”, “Email” and
    “Message”" → ["Name", "Email", "Message"]), in order; [] when no cue is followed by a
    quote."""
    cue = _FIELD_CUE.search(text)
    if cue is None:
        return []
    names: list[str] = []
    end = cue.end()
    for match in _QUOTE.finditer(text, cue.end()):
        if names and not _RUN_GAP.match(text[end : match.start()]):
            break
        if not names and match.start() != cue.end():
            break
        if _BUTTON_AFTER.match(text, match.start()):
            break  # "… and a “Send” button": the form's button, not a field
        names.append(label_text(match.group("text").strip(), "tag"))
        end = match.end()
    return names


def submit_label(text: str) -> str:
    """The quoted label of the button ``text`` names ("and a “Send” button", "submitted with a
    “Book a class” button", "a button labelled “Join”"), "" when none."""
    found = [m for m in (_BUTTON_AFTER.search(text), _BUTTON_BEFORE.search(text)) if m]
    if not found:
        return ""
    first = min(found, key=lambda m: m.start("text"))
    return label_text(first.group("text").strip(), "button")
