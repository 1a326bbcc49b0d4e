"""Reading a design prompt's text: units (sentences and clauses), quoted strings, colours, fonts,
numbers and the markdown tables of a ``### Dataset`` section.

All positions are character offsets into the prose (the prompt without its dataset). Quoted strings
use the judge's own pattern (``sitecheck.py`` QUOTE_RE: text inside “…” or "…" of 2–80 characters),
so the planner places exactly the strings the page is checked for.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, field
from functools import lru_cache

from mmstudio.providers.offline import vocabulary as vocab

QUOTE_RE = re.compile(r"[“\"]([^”\"\n]{2,80})[”\"]")
HEX_RE = re.compile(r"#[0-9a-fA-F]{6}\b")
_ANY_QUOTE_RE = re.compile(r"“[^“”\n]{0,600}”|\"[^“\"\n]{0,600}\"")
_LONG_QUOTE_RE = re.compile(r"“([^“”\n]{81,1500})”|(?<![\w])\"([^“”\"\n]{81,1500})\"(?![\w])")
_DATASET_RE = re.compile(r"^#{2,4}\s*(?:dataset|data set|data)\b.*$", re.I | re.M)
_TITLE_LINE_RE = re.compile(r"^\s*(?:\*\*(.+?)\*\*|#{2,6}\s*(.+?))\s*:?\s*$")
_CSV_FENCE = re.compile(r"```[ \t]*(csv|tsv|)[ \t]*\n(.*?)```", re.S | re.I)
_SEPARATOR_RE = re.compile(r"^\|?\s*:?-{2,}")
_NUMBER_RE = re.compile(
    r"^[+\-−]?[$€£]?\s*[+\-−]?\d[\d,]*(?:\.\d+)?\s*(?:%|k|m|[a-z]{0,3})?$", re.I
)
_NAME_STOP = {"from", "to", "in", "a", "an", "the", "with", "and", "of", "is", "uses", "on", "or"}
_MAX_QUOTE_RUN = 400  # chars a straight-quote span may run before we assume it was unpaired


@dataclass(frozen=True)
class Unit:
    """A sentence or ``;``-clause of the prose: ``[start, end)`` offsets, its paragraph index."""

    start: int
    end: int
    text: str
    paragraph: int


@dataclass(frozen=True)
class Quote:
    """A quoted string as the judge sees it: ``text`` stripped, ``[start, end)`` of the quotes."""

    start: int
    end: int
    text: str


@dataclass
class Table:
    """A markdown table of the dataset: ``title`` (the bold line above it, may be ""), column
    names and rows of raw cell strings."""

    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)


def split_dataset(prompt: str) -> tuple[str, str]:
    """``(prose, dataset)``: the prompt cut at its ``### Dataset`` heading ("" when absent)."""
    match = _DATASET_RE.search(prompt)
    if not match:
        return prompt, ""
    return prompt[: match.start()], prompt[match.end() :]


def blank_quotes(text: str, fill: str = " ") -> str:
    """``text`` with the inside of every “…”/"…" span (any length up to 600) replaced by
    ``fill``, so keyword rules never read the page's own copy; offsets are kept."""
    return _ANY_QUOTE_RE.sub(
        lambda m: m.group()[0] + fill * (len(m.group()) - 2) + m.group()[-1], text
    )


def find_quotes(text: str) -> list[Quote]:
    """Every quoted string of ``text`` (judge's QUOTE_RE), in order, skipping blank ones."""
    found = []
    for match in QUOTE_RE.finditer(text):
        body = match.group(1).strip()
        if len(body) >= 2:
            found.append(Quote(match.start(), match.end(), body))
    return found


def find_long_quotes(text: str) -> list[Quote]:
    """Quoted copy longer than the judge's 80 characters (a hero paragraph, a testimonial), in
    order: “…” spans of 81–1500 characters, and "…" spans that no judge quote starts inside
    (so a straight quote that closes one string and opens the next is never read as copy)."""
    short = [q.start for q in find_quotes(text)]
    found = []
    for match in _LONG_QUOTE_RE.finditer(text):
        body = (match.group(1) or match.group(2) or "").strip()
        inside = any(match.start() < s < match.end() - 1 for s in short)
        if len(body) > 80 and not inside:
            found.append(Quote(match.start(), match.end(), body))
    return found


def find_all_quotes(text: str) -> list[Quote]:
    """The judge's quotes and the longer quoted copy together, in text order."""
    return sorted(find_quotes(text) + find_long_quotes(text), key=lambda q: q.start)


def split_units(prose: str) -> list[Unit]:
    """Sentences (and ``;`` clauses) of ``prose``; every line is its own paragraph.

    A ``.!?`` inside quotes never ends a sentence, but a quoted sentence ending the outer one does
    (“Grab it.” Next …)."""
    units: list[Unit] = []
    paragraph = 0
    for line in re.finditer(r"[^\n]+", prose):
        if not line.group().strip():
            continue
        for start, end in _sentence_spans(line.group()):
            text = line.group()[start:end].strip()
            if len(text) > 1:
                offset = (
                    line.start()
                    + start
                    + (len(line.group()[start:end]) - len(line.group()[start:end].lstrip()))
                )
                units.append(Unit(offset, offset + len(text), text, paragraph))
        paragraph += 1
    return units


def _sentence_spans(line: str) -> list[tuple[int, int]]:
    spans, start, inside, opened = [], 0, "", 0
    for i, char in enumerate(line):
        if inside:
            closes = char == "”" if inside == "“" else char == '"'
            if closes or i - opened > _MAX_QUOTE_RUN:
                inside = ""
                if closes and i > 0 and line[i - 1] in ".!?" and _starts_sentence(line, i + 1):
                    spans.append((start, i + 1))
                    start = i + 1
            continue
        if char in '“"':
            inside, opened = char, i
        elif (char in ".!?" and _starts_sentence(line, i + 1)) or char == ";":
            spans.append((start, i + 1))
            start = i + 1
    if start < len(line):
        spans.append((start, len(line)))
    return spans


def _starts_sentence(line: str, index: int) -> bool:
    rest = line[index : index + 3]
    return bool(re.match(r"\s+[A-Z0-9“\"(#*]", rest)) or not line[index:].strip()


def parse_tables(dataset: str) -> list[Table]:
    """The tables of a dataset section — markdown tables and fenced CSV blocks — each titled by
    the bold/heading line above it."""
    return _markdown_tables(_CSV_FENCE.sub("", dataset)) + _csv_tables(dataset)


def _csv_tables(dataset: str) -> list[Table]:
    tables = []
    for match in _CSV_FENCE.finditer(dataset):
        rows = [
            r for r in csv.reader(match.group(2).strip().splitlines()) if any(c.strip() for c in r)
        ]
        above = [_TITLE_LINE_RE.match(x.strip()) for x in dataset[: match.start()].splitlines()]
        titles = [(t.group(1) or t.group(2)).strip() for t in above if t]
        if len(rows) > 1 and len(rows[0]) > 1:
            width = len(rows[0])
            body = [([c.strip() for c in r] + [""] * width)[:width] for r in rows[1:]]
            tables.append(Table(titles[-1] if titles else "", [c.strip() for c in rows[0]], body))
    return tables


def _markdown_tables(dataset: str) -> list[Table]:
    tables: list[Table] = []
    title, current = "", None
    for raw in dataset.splitlines():
        line = raw.strip()
        heading = _TITLE_LINE_RE.match(line)
        if heading and not line.startswith("|"):
            title, current = (heading.group(1) or heading.group(2) or "").strip(), None
        elif line.startswith("|") and not _SEPARATOR_RE.match(line):
            cells = [c.strip() for c in line.strip("|").split("|")]
            if current is None:
                current = Table(title, [c or f"column {i + 1}" for i, c in enumerate(cells)])
                tables.append(current)
            else:
                current.rows.append((cells + [""] * len(current.columns))[: len(current.columns)])
        elif not line.startswith("|") and line:
            current = None
    return [t for t in tables if t.rows]


_PLACEMENT_NOTE_RE = re.compile(
    r"\s*\((?=[^()]*\b(?:left|right|cent(?:er|re|ral)|top|bottom|side|pod|widget|gauge|"
    r"mini-gauge|badges?|panel|card|tile|sidebar|module|map|chart|column|row)\b)[^()]*\)\s*$",
    re.I,
)
_UNIT_SUFFIX = {"n", "cm", "mm", "m", "km", "kg", "g", "deg", "s", "ms", "h", "min", "usd", "eur"}
_WORD_RE = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z0-9]+|%")
_SMALL_WORDS = {"of", "per", "vs", "and", "or", "to", "in", "by", "the", "a", "an"}


def display_title(title: str) -> str:
    """A dataset title as a reader sees it: a trailing note about where the data goes on the page
    ("Live Trip Requests (Central Gauge)" → "Live Trip Requests") is dropped; other
    parentheses ("Friends Leaderboard (This Week)") stay."""
    return _PLACEMENT_NOTE_RE.sub("", title).strip() or title.strip()


def column_label(name: str) -> str:
    """A dataset column identifier as a header: ``SharePercent`` → ``Share (%)``,
    ``Length_cm`` → ``Length (cm)``, ``PricingType`` → ``Pricing Type``; names that already read
    as words ("Avg Drag", "Revenue ($)") are returned unchanged."""
    text = name.strip()
    if not text or " " in text or not (re.search(r"[a-z][A-Z]", text) or "_" in text):
        return name
    words = [w for part in text.split("_") for w in _WORD_RE.findall(part)]
    if not words:
        return name
    unit = ""
    if len(words) > 1 and words[-1].lower() in ("percent", "pct", "%"):
        unit, words = "%", words[:-1]
    elif len(words) > 1 and "_" in text and words[-1].lower() in _UNIT_SUFFIX:
        unit, words = words[-1], words[:-1]
    shown = [
        w.lower() if i and w.lower() in _SMALL_WORDS else (w if w.isupper() else w.capitalize())
        for i, w in enumerate(words)
    ]
    return " ".join(shown) + (f" ({unit})" if unit else "")


def to_number(cell: object) -> float | int | None:
    """``"2,000,000"`` → 2000000, ``"98.4%"`` → 98.4, ``"$189"`` → 189; None when not a number."""
    if isinstance(cell, int | float):
        return cell
    text = str(cell).strip().replace("−", "-")
    if not text or not _NUMBER_RE.match(text):
        return None
    digits = re.sub(r"[^\d.\-]", "", text.replace(",", ""))
    digits = digits[0] + digits[1:].replace("-", "") if digits else digits
    try:
        value = float(digits)
    except ValueError:
        return None
    return int(value) if value.is_integer() and "." not in digits else value


@lru_cache(maxsize=64)
def _table_regex(
    table: tuple[tuple[str, tuple[str, ...]], ...],
) -> tuple[re.Pattern[str], dict[str, str]]:
    owner: dict[str, str] = {}
    for key, words in table:
        for word in words:
            owner.setdefault(word.lower(), key)
    alternation = "|".join(re.escape(w) for w in sorted(owner, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternation})(?![\w-])", re.I), owner


def keyword_hits(
    text: str, table: tuple[tuple[str, tuple[str, ...]], ...]
) -> list[tuple[int, str]]:
    """``[(offset, key), …]`` for every word of ``table`` found in ``text``, in text order."""
    pattern, owner = _table_regex(table)
    return [(m.start(), owner[m.group().lower()]) for m in pattern.finditer(text)]


def first_key(text: str, table: tuple[tuple[str, tuple[str, ...]], ...]) -> str | None:
    """The key of ``table`` whose words occur in ``text``, by table priority (None if none)."""
    keys = {key for _, key in keyword_hits(text, table)}
    return next((key for key, _ in table if key in keys), None)


def has_word(text: str, words: tuple[str, ...]) -> bool:
    """True when one of ``words`` occurs in ``text`` as a whole word (case-insensitive)."""
    return bool(keyword_hits(text, (("x", words),)))


def words_found(text: str, words: tuple[str, ...], limit: int = 4) -> list[str]:
    """Up to ``limit`` distinct ``words`` present in ``text``, in text order."""
    pattern, _ = _table_regex((("x", words),))
    found: list[str] = []
    for match in pattern.finditer(text):
        word = match.group().lower()
        if word not in found:
            found.append(word)
    return found[:limit]


def color_role(text: str, at: int, end: int) -> str | None:
    """The palette role of the colour written at ``text[at:end]``: the role word nearest to it in
    its own clause (before or after, ≤ 70 chars), else None."""
    left = re.split(r"[.;!?]\s", text[max(0, at - 90) : at])[-1]
    left = re.sub(r"\b(?:primary|colou?r) palette\b", " ", left, flags=re.I)
    # "a muted cobalt blue (#3A6DFF)": an adjective of the colour's name is not its role
    left = re.sub(r"\bmuted(?=(?:\s+[\w-]+){1,2}\s*\(?\s*$)", "", left, flags=re.I)
    right = re.split(r"[.;!?,]\s|\s(?:and|with|while)\s", text[end : end + 70])[0]
    best: tuple[int, str] | None = None
    for offset, role in keyword_hits(left, vocab.ROLE_WORDS):
        distance = len(left) - offset
        best = min(best or (distance, role), (distance, role))
    for offset, role in keyword_hits(right, vocab.ROLE_WORDS):
        best = min(best or (offset + 8, role), (offset + 8, role))
    return best[1] if best else None


def color_name(text: str, at: int) -> str | None:
    """The colour words written just before a hex (``bubblegum pink (#FF66A3)``), else None."""
    words = re.findall(r"[a-z-]+", text[max(0, at - 40) : at].lower())[-3:]
    while words and words[0] in _NAME_STOP:
        words.pop(0)
    name = " ".join(words)
    if words and (name in vocab.NAMED_COLORS or words[-1] in vocab.NAMED_COLORS):
        return name[:80]
    return None


def named_colors(text: str) -> list[tuple[int, int, str, str]]:
    """``[(start, end, name, hex), …]`` for every named colour of ``NAMED_COLORS`` in ``text``."""
    table = tuple((name, (name,)) for name in vocab.NAMED_COLORS)
    pattern, owner = _table_regex(table)
    return [
        (m.start(), m.end(), owner[m.group().lower()], vocab.NAMED_COLORS[owner[m.group().lower()]])
        for m in pattern.finditer(text)
    ]


def font_names(text: str) -> list[str]:
    """Named fonts of ``NAMED_FONTS`` in ``text``, in order of first appearance."""
    hits = keyword_hits(text, tuple((n, (n,)) for n in vocab.NAMED_FONTS))
    names: list[str] = []
    for _, name in sorted(hits):
        if name not in names:
            names.append(name)
    return names


def pixel_width(text: str) -> int | None:
    """A content width in px the prose asks for ("about 760px", "max-width 1200px"), else None."""
    pattern = (
        r"(?:width|wide|column|container|max-width)[^.;]{0,60}?(\d{3,4})\s*(?:–|-|to)?"
        r"\s*(?:\d{3,4})?\s*px|(\d{3,4})\s*px[^.;]{0,20}?(?:wide|width|column|container)"
    )
    for match in re.finditer(pattern, text, re.I):
        value = int(match.group(1) or match.group(2))
        if 320 <= value <= 2560:
            return value
    return None


def column_ratio(text: str) -> list[int]:
    """Relative widths like ``[60, 40]`` from "60/40", "55% … 45%" or "40% / 35% / 25%"."""
    match = re.search(r"\b(\d{2})\s*(?:%\s*)?/\s*(\d{2})(?:\s*%?\s*/\s*(\d{2}))?\b", text)
    if match:
        parts = [int(p) for p in match.groups() if p]
    else:
        near = re.search(r"\b(\d{2})\s*%[^.]{0,80}?\b(\d{2})\s*%", text)
        parts = [int(p) for p in near.groups()] if near else []
    return parts if 95 <= sum(parts) <= 105 else []
