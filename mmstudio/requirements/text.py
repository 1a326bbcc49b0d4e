"""Text helpers shared by the extraction passes and the checks: normalising, spans, vocabulary."""

from __future__ import annotations

import json
import re
import unicodedata
from functools import cache, lru_cache
from typing import Any

from mmstudio.resources import resource

from .model import Span

# quotes as briefs write them: curly double, straight double, guillemets, curly single pairs
QUOTE = re.compile(r"“([^”\n]{1,400})”|\"([^\"\n]{1,400})\"|«([^»\n]{1,400})»|‘([^’\n]{1,200})’")
_FOLD = str.maketrans(
    {"’": "'", "‘": "'", "“": '"', "”": '"', "–": "-", "—": "-", "‑": "-", "•": "·", "\u00a0": " "}
)
_SPACE = re.compile(r"\s+")
_PUNCT = re.compile(r"[^\w\s#%$€£¥&+·-]", re.UNICODE)
MAX_TEXT = 120_000  # characters of a brief read; the rest is ignored (and said so)


def fold(text: str) -> str:
    """Casefolded, accent-kept, quotes/dashes unified, whitespace collapsed: for comparisons."""
    text = unicodedata.normalize("NFKC", text or "").translate(_FOLD)
    return _SPACE.sub(" ", text).strip().casefold()


def loose(text: str) -> str:
    """:func:`fold` with punctuation dropped (for 'does the page show these words')."""
    return _SPACE.sub(" ", _PUNCT.sub(" ", fold(text))).strip()


def strip_label(text: str) -> str:
    """A quoted label without the sentence's punctuation the brief put inside the quotes
    (“Sign In,” → Sign In; “CREATIVE CAMP.” → CREATIVE CAMP) and without outer spaces."""
    return text.strip().rstrip(",;.").strip()


def span(text: str, start: int, end: int, source: str = "prompt") -> Span:
    """A :class:`Span` over ``text[start:end]`` with an excerpt of at most ~160 characters;
    an end that falls inside a word moves out to the word's edge (a designer reads words)."""
    start, end = max(0, start), min(len(text), end)
    while 0 < start < len(text) and text[start - 1].isalnum() and text[start].isalnum():
        start -= 1
    while 0 < end < len(text) and text[end - 1].isalnum() and text[end].isalnum():
        end += 1
    excerpt = text[start:end]
    if len(excerpt) > 160:
        excerpt = excerpt[:157] + "…"
    return Span(source=source, start=start, end=end, excerpt=excerpt.strip())


def sentence_bounds(text: str, at: int) -> tuple[int, int]:
    """(start, end) of the sentence around offset ``at`` (cut at . ! ? ; newline)."""
    start = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at), text.rfind("; ", 0, at))
    ends = [i for i in (text.find(". ", at), text.find("\n", at)) if i != -1]
    return start + 1 if start >= 0 else 0, min(ends) if ends else len(text)


def words_pattern(words: list[str]) -> re.Pattern[str]:
    """A case-insensitive whole-word alternation of ``words`` (longest first)."""
    body = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{body})(?![\w-])", re.I)


@cache
def vocabulary() -> dict[str, Any]:
    """``resources/requirements/vocabulary.json``."""
    return json.loads(resource("requirements", "vocabulary.json").read_text(encoding="utf-8"))


@cache
def font_names() -> tuple[str, ...]:
    """The typeface names of ``resources/requirements/fonts.txt``."""
    lines = resource("requirements", "fonts.txt").read_text(encoding="utf-8").splitlines()
    return tuple(x.strip() for x in lines if x.strip() and not x.startswith("#"))


@lru_cache(maxsize=32)
def quotes(text: str) -> tuple[tuple[str, int, int], ...]:
    """Every quoted string of ``text`` as (inner text, start, end) of the inner text. Cached:
    every pass of the extraction asks it of the same brief (a 120,000-character brief was
    scanned ten times)."""
    found = []
    for m in QUOTE.finditer(text):
        group = next(g for g in range(1, 5) if m.group(g) is not None)
        found.append((m.group(group), m.start(group), m.end(group)))
    return tuple(found)


@lru_cache(maxsize=32)
def without_quotes(text: str) -> str:
    """``text`` with each quoted string blanked (same length, so offsets stay valid); cached."""
    return QUOTE.sub(lambda m: " " * (m.end() - m.start()), text)
