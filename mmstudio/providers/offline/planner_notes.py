"""Notes to the designer: quoted strings of a prompt that name a typeface or a part of the design.

One pass, one job (issue 14): find the quotes that are never page copy, so the quote placer
skips them. Three kinds:

- ``typeface``: a font the prompt names ("a refined serif typeface, like “Cormorant Garamond,”",
  "a sans-serif similar to “Inter”"): a known family of ``vocabulary.NAMED_FONTS``, or a
  Title-Case name right after a typeface word and "like / such as / similar to / e.g." (or in a
  list of such names: "“Didot” or “Playfair Display”"; or in brackets after one: "a rounded
  sans-serif (“Garden Sans”)"). The typography rules read them; the page
  never prints them.
- ``term``: the prompt's own name for a part of the design, in scare quotes — one to three
  lower-case words ("three stacked “task” rows", "progress “dials,”", "a brutalist “hero”
  section") not introduced by a word that makes it copy (``resources/offline/design_terms.json``
  lists them: "reading", "labeled", "like", "with", …) and not in a list of quotes ("nav links in
  lowercase: “event”, “program”, “subscribe”" is copy);
- ``colour``: a colour code in quotes ("a creamy off-white base (“#F7F3EC”)"): the palette
  reads it.

Public API: :class:`Note`, :func:`design_notes`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Literal

from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab
from mmstudio.resources import resource

NoteKind = Literal["typeface", "term", "colour"]

_HEX_CODE = re.compile(r"^#[0-9a-fA-F]{3}(?:[0-9a-fA-F]{3})?$")
_TERM = re.compile(r"^[a-z][a-z'’ -]*$")
_WORD = r"(?:[A-Z][a-z]+|[A-Z]{2,3})"  # "Garamond", "IBM"
_TITLE_WORDS = re.compile(rf"^{_WORD}(?:[ -](?:{_WORD}|\d{{2,3}}))*$")
_TYPEFACE_CUE = re.compile(
    r"\b(?:fonts?|typefaces?|type|serif|sans-serif|sans|grotesk|grotesque|monospaced?|mono|"
    r"script|slab|display face|lettering)\b[^.;“”\"]{0,70}?"
    r"(?:\b(?:like|such as|similar to|e\.g\.,?|i\.e\.,?|reminiscent of|close to)|\()\s*$",
    re.I,
)
_IN_LIST = re.compile(r"[”\"]\s*(?:,|,?\s*(?:and|or))?\s*$")
_LIST_NEXT = re.compile(r"^\s*(?:,|,?\s*(?:and|or))\s*[“\"]")


@dataclass(frozen=True)
class Note:
    """A quoted string the prompt addresses to the designer: ``kind`` says what it names."""

    quote: pt.Quote
    kind: NoteKind


def design_notes(prose: str, quotes: list[pt.Quote]) -> dict[int, Note]:
    """``{quote.start: Note}`` for the quotes of ``prose`` (``quotes`` in text order, as
    :func:`prompt_text.find_all_quotes` gives them) that are never page copy."""
    notes: dict[int, Note] = {}
    for index, quote in enumerate(quotes):
        before = prose[max(0, quote.start - 120) : quote.start]
        listed = bool(_IN_LIST.search(before[-12:]))
        previous = notes.get(quotes[index - 1].start) if index and listed else None
        face = _typeface(quote.text, before) or (previous and previous.kind == "typeface")
        if _HEX_CODE.match(_bare(quote.text)):
            notes[quote.start] = Note(quote, "colour")
        elif face and _name_like(quote.text):
            notes[quote.start] = Note(quote, "typeface")
        elif _term(prose, quote, before, listed):
            notes[quote.start] = Note(quote, "term")
    return notes


def _bare(text: str) -> str:
    return text.strip().rstrip(",.;:").strip()


def _name_like(text: str) -> bool:
    """One to four Title-Case words ("Cormorant Garamond", "IBM Plex Mono"), no other marks."""
    bare = _bare(text)
    return len(bare.split()) <= 4 and bool(_TITLE_WORDS.match(bare))


def _typeface(text: str, before: str) -> bool:
    """A known family, or a font-like name right after a typeface word and "like" etc."""
    bare = _bare(text)
    known = bare.casefold() in {name.casefold() for name in vocab.NAMED_FONTS}
    return known or bool(_TYPEFACE_CUE.search(before))


def _term(prose: str, quote: pt.Quote, before: str, listed: bool) -> bool:
    """A lower-case scare-quoted design term (see the module docstring)."""
    bare = _bare(quote.text)
    if not _TERM.match(bare) or len(bare.split()) > 3:
        return False
    if listed or _LIST_NEXT.match(prose[quote.end : quote.end + 12]):
        return False
    return not _copy_cue().search(before)


@cache
def _copy_cue() -> re.Pattern:
    """The words of ``resources/offline/design_terms.json`` (or a colon / bracket) ending a text."""
    data = json.loads(resource("offline", "design_terms.json").read_text(encoding="utf-8"))
    words = sorted(data["copy_cues"], key=len, reverse=True)
    alternatives = "|".join(re.escape(w) for w in words)
    return re.compile(rf"(?:(?<![\w-])(?:{alternatives})|[:(—–])\s*$", re.I)
