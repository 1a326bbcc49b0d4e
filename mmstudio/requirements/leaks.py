"""Leak checks: the brief's own words must not reach the page as copy.

A designer reads a page that prints "soft off-white background with a faint diagonal grid" or
"Poppins" or "#FF66A3" as text as broken: those are notes to the designer. The brief's prose
(outside quoted copy and dataset tables) is cut into runs of :data:`RUN` words; a visible run of
that length which is not also in a quoted string is a leak.
"""

from __future__ import annotations

import re

from mmstudio.render.facts import PageFacts

from .copy import TYPE_WORDS, extract_copy
from .model import Requirement, RequirementResult
from .style import HEX
from .text import fold, loose, quotes, span, strip_label, vocabulary, without_quotes, words_pattern

RUN = 8
_PLACEHOLDER = re.compile(r"\blorem ipsum\b|\bplaceholder text\b|\bTODO\b|\{\{[^}]*\}\}", re.I)


def prose(text: str) -> list[str]:
    """The brief's sentences outside quotes and tables that have at least :data:`RUN` words."""
    plain = without_quotes(text)
    lines = [ln for ln in plain.splitlines() if not ln.lstrip().startswith("|")]
    sentences = re.split(r"(?<=[.!?;:])\s+|\n+", "\n".join(lines))
    return [s for s in sentences if len(s.split()) >= RUN]


def _grams(words: list[str]) -> set[tuple[str, ...]]:
    return {tuple(words[i : i + RUN]) for i in range(len(words) - RUN + 1)}


def leaked_runs(brief_prose: list[str], page_text: str) -> list[str]:
    """Runs of the page's visible text (≥ :data:`RUN` words) copied from the brief's prose."""
    notes: set[tuple[str, ...]] = set()
    for sentence in brief_prose:
        notes |= _grams(loose(sentence).split())
    words = loose(page_text).split()
    covered = [False] * len(words)
    for i in range(len(words) - RUN + 1):
        if tuple(words[i : i + RUN]) in notes:
            covered[i : i + RUN] = [True] * RUN
    runs, current = [], []
    for word, hit in zip(words, covered, strict=True):
        if hit:
            current.append(word)
        elif current:
            runs.append(" ".join(current))
            current = []
    if current:
        runs.append(" ".join(current))
    # a run with its numbers ("revenue 12 480 orders 318 conversion 3 2") is the brief's data
    # shown as asked (KPI tiles, a price list), not a note to the designer
    return [r for r in runs if sum(w.isdigit() for w in r.split()) < 2]


#: a line that describes the copy it stands for instead of being it: "A one-line introduction to
#: Crumb & Co., a bakery.", "A short paragraph on Book a repair for …", "A line on the house bread."
_SAMPLE = re.compile(
    r"^(?:an?|the|one|two|three)\s+(?:"
    r"(?:short|brief|one-line|two-line|single|little|quick)\s+(?:lines?|paragraphs?|sentences?"
    r"|introduction|intro|description|blurb|summary|note|tagline|caption|text|bio|quote)"
    r"|(?:lines?|paragraphs?|sentences?|blurb|tagline|caption))"
    r"\s+(?:on|about|for|of|to|introducing|describing|explaining)\b",
    re.I,
)


def sample_copy(facts: PageFacts) -> list[str]:
    """Visible lines that stand for copy instead of being copy (a designer reads them as
    placeholders): "A line on the house bread."."""
    return list(
        dict.fromkeys(b.text.strip() for b in facts.blocks if _SAMPLE.match(b.text.strip()))
    )


def extract_notes(text: str, source: str = "prompt") -> list[Requirement]:
    """Up to three requirements: no sample copy stands in for the real copy ("A line on the
    house bread."), none of the brief's prose is printed as copy, and no stray words of it
    (“hole”, “step cards”) show up as chips or lines of their own."""
    sample = Requirement(
        id="",
        kind="leak",
        key="sample copy",
        role="sample",
        text="No sample copy standing in for real copy",
        span=span(text, 0, min(len(text), 120), source),
        severity="major",
    )
    sentences = prose(text)
    if not sentences:
        return [sample]
    # quotes that are no copy (“step cards”, “polaroid”: a design idea in scare quotes) are
    # the brief's prose as much as its unquoted words
    copy = {
        fold(v) for r in extract_copy(text, source)
        for v in (r.label, *(r.values if r.role == "field" else []))
    }  # fmt: skip
    terms = [q for q, _, _ in quotes(text) if fold(strip_label(q)) not in copy]
    stray = Requirement(
        id="",
        kind="leak",
        key="stray words",
        role="stray",
        label=" | ".join([loose(without_quotes(text)), *(loose(t) for t in terms)]),
        values=[loose(q) for q, _, _ in quotes(text) if fold(strip_label(q)) in copy],
        text="No stray words of the brief printed as labels",
        span=span(text, 0, min(len(text), 120), source),
        severity="major",
    )
    typeface = Requirement(
        id="",
        kind="leak",
        key="typeface description",
        role="type-notes",
        values=stray.values,
        text="No description of the typefaces printed as copy",
        span=span(text, 0, min(len(text), 120), source),
        severity="major",
    )
    return [
        sample,
        stray,
        *([typeface] if TYPE_WORDS.search(text) else []),
        Requirement(
            id="",
            kind="leak",
            key="design notes",
            role="notes",
            values=sentences,
            text="No design notes or instructions printed as copy",
            span=span(text, 0, min(len(text), 120), source),
            severity="major",
        ),
    ]


_LOWER_WORDS = re.compile(r"^[a-z][a-z'-]{2,}(?: [a-z][a-z'-]+){0,2}$")


def stray_words(req: Requirement, facts: PageFacts) -> list[str]:
    """Lines of their own that are notes, not copy: short all-lower-case lines (1–3 words) that
    are words of the brief's prose (or of a design idea it puts in scare quotes) and no quoted
    copy — a design note's noun printed as a chip or a paragraph — and headings or lines of up
    to six words built on a layout component's name (“Welcome panel”, “Holographic Accordion”)
    that no quote of the brief holds: the planner's internal name printed as copy."""
    prose_text = f" {req.label} "
    quoted = f" {' | '.join(req.values)} "
    component = words_pattern(vocabulary()["component_nouns"]["words"])
    found: dict[str, str] = {}  # loose text → as shown (an h3 and its card show it once)
    for block in facts.blocks:
        text = loose(block.text)
        if block.link or text in found or not text or f" {text} " in quoted:
            continue
        if _LOWER_WORDS.match(block.text.strip().rstrip(".,;:")) and f" {text} " in prose_text:
            found[text] = text
        elif _name_like(block) and component.search(text) and _own_line(block, facts):
            found[text] = block.text.strip()
    return list(found.values())


def _name_like(block) -> bool:
    """A heading of up to six words, or a capitalised line of up to four (a tile's title), with
    no sentence punctuation: how a name reads, not a sentence."""
    words = block.text.strip().split()
    if not words or not words[0][:1].isupper() or re.search(r"[.!?]\s|[.!?]$", block.text):
        return False
    return len(words) <= (6 if block.heading else 4)


def _own_line(block, facts: PageFacts) -> bool:
    """Whether ``block`` is a line of its own, not words inside a line of copy: no longer block
    of about its height holds its text and its box."""
    text, r = loose(block.text), block.rect
    for other in facts.blocks:
        o = other.rect
        if other is block or len(other.text) <= len(block.text) or o.h > 2 * max(r.h, 1):
            continue
        inside = o.x <= r.x + 1 and o.y <= r.y + 1 and o.x + o.w >= r.x + r.w - 1
        if inside and o.y + o.h >= r.y + r.h - 1 and f" {text} " in f" {loose(other.text)} ":
            return False
    return True


#: leaked runs a finding lists: each is a finding of its own for the designer
MAX_LEAKED = 12


def check_leak(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Fail with the leaked words as evidence (at most :data:`MAX_LEAKED` runs)."""
    text = facts.text
    if req.role == "notes":
        runs = leaked_runs(req.values, text)
        placeholder = _PLACEHOLDER.findall(text)
        found = runs + placeholder
        what = "design notes"
    elif req.role == "sample":
        found = sample_copy(facts)
        what = "sample lines"
    elif req.role == "stray":
        found = stray_words(req, facts)
        what = "stray words of the brief"
    elif req.role == "type-notes":
        quoted = f" {' | '.join(req.values)} "
        found = list(
            dict.fromkeys(
                b.text.strip() for b in facts.blocks
                if TYPE_WORDS.search(b.text) and f" {loose(b.text)} " not in quoted
                and len(b.text) <= 160 and _own_line(b, facts)
            )
        )  # fmt: skip
        found = [t for t in sorted(found, key=len) if not any(k in t for k in found if k != t)]
        what = "typeface descriptions"
    elif req.role == "fonts":
        found = [
            n for n in req.values if re.search(rf"(?<![\w-]){re.escape(n)}(?![\w-])", text, re.I)
        ]
        what = "typeface names"
    elif req.role == "hex":
        found = sorted(set(HEX.findall(text)))
        what = "colour codes"
    else:
        return RequirementResult.of(req, "unchecked", "no rule reads this leak")
    if not found:
        return RequirementResult.of(req, "pass", f"no {what} in the copy")
    shown = "; ".join(f"“{f[:80]}”" for f in found[:3])
    return RequirementResult.of(
        req, "fail", f"{what} printed as copy: {shown}", leaked=found[:MAX_LEAKED]
    )
