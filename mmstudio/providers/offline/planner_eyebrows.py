"""Eyebrows: the quoted label a prompt places above a section's heading (offline planner pass).

One pass, one job (issue 14, layout directives): "a heading “Field Sites” … with a small
uppercase label above it: “CURRENT STUDY LOCATIONS”", "At the very top of this block … sits a
label: “RESEARCH ARCHIVE”", "“NEW SEASON” above the headline". Such a label is the section's
eyebrow — the first line of its head, above the title — not a chip among the section's tags.

The words come from ``resources/offline/eyebrows.json``: a label noun before the quote in its
clause together with an "above" phrase or an "at the (very) top of this block" opening, or an
"above the heading/headline/title" phrase right after the quote.

Public API: :func:`placed_above`.
"""

from __future__ import annotations

import json
import re
from functools import cache

from mmstudio.resources import resource

#: characters of the quote's sentence read before and after it
BEFORE, AFTER = 200, 60
#: a label longer than this many words is copy, never an eyebrow
MAX_WORDS = 8

_CLAUSE_END = re.compile(r"[.!?](?=\s+[A-Z“\"])|;|\n")
_IN_LIST = re.compile(r"[”\"]\s*(?:,|,?\s*(?:and|or))\s*$")
_LIST_NEXT = re.compile(r"^[”\"]?\s*(?:,|,?\s*(?:and|or))\s*[“\"]")


@cache
def _cues() -> tuple[re.Pattern[str], ...]:
    """(label noun, above phrase, top-of opening, above right after, card word) patterns."""
    data = json.loads(resource("offline", "eyebrows.json").read_text(encoding="utf-8"))

    def words(key: str) -> str:
        listed = sorted(data[key], key=len, reverse=True)
        return "|".join(re.escape(w).replace(r"\ ", r"\s+") for w in listed)

    label = re.compile(rf"\b(?:{words('label_words')})\b", re.I)
    above = re.compile(rf"\b(?:{words('above')})\b", re.I)
    top = re.compile(
        r"^\W*(?:at|on)\s+the\s+(?:very\s+)?top(?:[- ](?:left|right|center|centre))?\b"
        rf"(?:\s+(?:of|inside)\s+(?:this|the|its)\s+(?:[\w-]+\s+)?(?:{words('top_of')})\b)?"
        r"(?![- ](?:left|right|center|centre)\b)(?!\s+(?:of|inside|corner)\b)",
        re.I,
    )
    right_after = re.compile(
        r"^[”\"]?\s*,?\s*(?:(?:is\s+|sits\s+|set\s+|placed\s+)?(?:directly\s+|just\s+)?)"
        r"(?:above|over)\s+(?:the|its|this)\s+(?:[\w-]+\s+)?(?:heading|headline|title)\b",
        re.I,
    )
    item = re.compile(rf"(?<![\w’'])(?:{words('item_words')})(?![\w’'])", re.I)
    return label, above, top, right_after, item


def _clause(prose: str, start: int, end: int) -> tuple[str, str]:
    """The quote's clause before (from its sentence's start) and after (to its end)."""
    head = prose[max(0, start - BEFORE) : start]
    cuts = list(_CLAUSE_END.finditer(head))
    head = head[cuts[-1].end() :] if cuts else head
    tail = prose[end : end + AFTER]
    cut = _CLAUSE_END.search(tail)
    return head, tail[: cut.start()] if cut else tail


def placed_above(prose: str, start: int, end: int, text: str) -> bool:
    """True when the quote ``text`` at ``prose[start:end]`` (its marks included) is a label
    the prompt puts above a heading: see the module docstring."""
    if not text.strip() or len(text.split()) > MAX_WORDS:
        return False
    label, above, top, right_after, item = _cues()
    head, tail = _clause(prose, start, end)
    if _IN_LIST.search(prose[max(0, start - 6) : start]) or _LIST_NEXT.match(tail):
        return False  # one of a list of labels ("“A”, “B”, “C”"): a legend or chips
    head = re.split(r"[“\"][^”\"]*[”\"]", head)[-1]  # cues before another quote are its own
    if right_after.match(tail):
        return True
    if not label.search(head) or item.search(head):
        return False
    return bool(above.search(head) or top.search(head))
