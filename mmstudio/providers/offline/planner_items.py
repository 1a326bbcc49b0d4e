"""Items and their fields: which quoted strings of a prompt are fields of one item.

One pass, one job (issue 14, grouped content): a card title and its line, a plan and its price,
a KPI label and its number, a session and its status must reach the page in one box. Two
quotes in a row are one item's fields when the words between them hand over from the first to
the second:

- ``text`` — a title then its text: "“Source” with the text “We buy …”", "“Upload new asset” in
  bold and smaller text under it saying “Add your sketches …”", "“Lagoon Float Ritual”, and
  beneath in smaller type “Completed · 15 min”", "“Plan X” — “its line”";
- ``value`` — a label then its value: "“Plan:” with value “PRO EXCHANGE”", "“TOTAL MINUTES IN
  VR”, big number “42 min”", "“Altitude” followed by a numeric value like “1,800 m”", a label
  ending in a colon and what its field shows ("under “PRIMARY LANGUAGE:” the field reads “…”");
- ``text`` too — a question then its answer: "“Can I switch plans later?” with answer: “Yes. …”".

A gap that names another slot (a button, link, pill, tag, title, heading) or ends a sentence
hands over to a new element, not to a field of the same item; one that names an input or its
placeholder makes the second quote what a form field shows.

Public API: :class:`Fields`, :func:`item_fields`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from mmstudio.providers.offline import prompt_text as pt

FieldRole = Literal["text", "value"]

#: at most this many characters of prose between a title and its text
MAX_GAP = 110
#: a first field longer than this is copy, never a card title or label
MAX_TITLE = 60

_TEXT_GAP = re.compile(  # the fixed phrasings: "with the text", "—", ": "
    r"^[”\"]?\s*[,:]?\s*(?:(?:with|and|has|having|plus|followed by|carrying)\s+)?"
    r"(?:(?:the|a|an|its)\s+)?(?:(?:short|small|brief|one-line|single|supporting)\s+)?"
    r"(?:text|description|copy|body(?:\s+text)?|blurb|line|sentence|subtext|note|details?)"
    r"\s*(?:reading|that reads|which reads|saying)?\s*:?\s*[“\"]?$"
    r"|^[”\"]?\s*,?\s*(?:with|and|plus|followed by)\b[^“”\".;:]{0,50}?\b"
    r"(?:text|description|copy|blurb|line|sentence|subtext|note|details?)\b"
    r"\s*(?:reading|that reads|which reads|saying)?\s*:?\s*[“\"]?$"
    r"|^[”\"]?\s*[,.]?\s*(?:(?:the|its|a|with(?:\s+(?:the|a))?)\s+)?"
    r"(?:(?:short|one-sentence|one-line|brief)\s+)?(?:description|text|blurb|copy|summary)\b"
    r"[^“”\".;]{0,30}?:?\s*[“\"]?$"
    r"|^[”\"]?\s*(?:—|–|--|:)\s*[“\"]?$",
    re.I,
)
_HANDOVER = re.compile(  # the free phrasings: "… smaller text under it saying", "beneath in type"
    r"\b(?:text|subtext|type|line|copy|caption|snippet|description|details?|print)\b"
    r"(?:\s+(?:line|below|beneath|under(?:neath)?(?:\s+it)?|below\s+it))?"
    r"\s*(?:saying|reading|that reads|which reads|reads|says|shows|showing)?\s*:?\s*$",
    re.I,
)
_VALUE = re.compile(
    r"\b(?:value|values|number|figure|count|amount|reading|stat|metric)\b"
    r"(?:\s+(?:like|of|reading|reads|shows|showing|such as|e\.g\.,?))?\s*:?\s*$",
    re.I,
)
#: words that hand over to another element: the second quote is not this item's field
_OTHER_SLOT = re.compile(
    r"\b(?:button|buttons|cta|link|links|pill|pills|chip|chips|tag|tags|badge|label|labell?ed|"
    r"title|titled|heading|headline|called|named|tab|tabs|icon|card|cards|row|panel|section|"
    r"column|widget|module)\b",
    re.I,
)
#: words that make the second quote what an input shows, not the item's text
_INPUT = re.compile(
    r"\b(?:input|inputs|placeholder|text field|email field|search field|search bar|search box|"
    r"form field|dropdown)\b",
    re.I,
)
_READS = re.compile(r"^[^“”\"]{0,40}\b(?:reads|shows|says|displays|reading|showing)\s*:?\s*$", re.I)
_QUESTION = re.compile(r"^.{3,}\?\s*$", re.S)
_SENTENCE_END = re.compile(r"[.!?]\s+[A-Z]|;|\n")


@dataclass(frozen=True)
class Fields:
    """The second field of an item: ``index`` of its quote and its ``role``."""

    index: int
    role: FieldRole


def item_fields(prose: str, quotes: list[pt.Quote]) -> dict[int, Fields]:
    """``{first quote index: Fields}`` for the quotes of ``prose`` (in text order, as
    :func:`prompt_text.find_all_quotes` gives them) that are two fields of one item. A quote is
    the second field of one item at most and never chains on to a third."""
    found: dict[int, Fields] = {}
    seconds: set[int] = set()
    for index in range(len(quotes) - 1):
        if index in seconds:
            continue
        role = field_role(prose, quotes[index], quotes[index + 1])
        if role is not None:
            found[index] = Fields(index + 1, role)
            seconds.add(index + 1)
    return found


def field_role(prose: str, first: pt.Quote, second: pt.Quote) -> FieldRole | None:
    """How ``second`` belongs to ``first`` ("text" or "value"), or None when it does not."""
    if len(first.text) > MAX_TITLE or not 0 <= second.start - first.end <= MAX_GAP:
        return None
    if len(second.text.strip()) < 2:
        return None
    if _INPUT.search(prose[first.end : second.start]):
        return None  # "“Stay in the Loop” with an email input … placeholder “you@…”": a field
    if _TEXT_GAP.match(prose[first.end - 1 : second.start + 1]):
        return "text" if len(second.text) >= 12 else None
    gap = prose[first.end : second.start]
    if _SENTENCE_END.search(first.text[-1:] + gap) or re.match(r"\s*(?:,|and|or)?\s*$", gap):
        return None  # a new sentence (“… Superpowers.” The first line …), a list of quotes
    if _QUESTION.match(first.text) and not _QUESTION.match(second.text) and len(gap) <= 60:
        return "text"  # “Can I switch plans later?” with answer: “Yes. …”
    if _OTHER_SLOT.search(gap):
        return None
    if _VALUE.search(gap) or (first.text.endswith(":") and _READS.search(gap)):
        return "value"
    if _HANDOVER.search(gap):
        return "text"
    return None
