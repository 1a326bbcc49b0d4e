"""Pass and check: the colour the brief gives a named element ("“Sign In” in pink", "four nav
items in white", "a coral button “Join the Zine”").

Colour words are read from the clause around a run of quotes (before it, up to
:data:`BEFORE` characters; after it, up to :data:`AFTER`); "background", "filled", "button",
"pill" near the word make it the element's fill, otherwise its text colour. On the page the
element is the block whose whole text is the label; the colour passes when it belongs to the
same family as the brief's word: white, black and grey by lightness, any other colour by hue
(within :data:`HUE_DEG`) — a designer's name for a colour is a family, not a hex value.
"""

from __future__ import annotations

import math
import re

from mmstudio.render.facts import PageFacts

from .colour import chroma, lab, rgb
from .copy import _runs
from .model import Requirement, RequirementResult
from .text import fold, span, strip_label, vocabulary, words_pattern

BEFORE, AFTER = 60, 70
HUE_DEG = 35.0
_FILL = re.compile(
    r"\b(background|filled|fill|button|pill|badge|chip|capsule|tag|bubble|card|tile|panel|band"
    r"|strip|box|block|banner)s?\b",
    re.I,
)
_STROKE = re.compile(r"^[\s-]*(?:border|outline|stroke|frame|rule|underline|line)s?\b", re.I)
#: "a thicker border in forest green", "outlined in coral": the colour of a stroke
_STROKE_BEFORE = re.compile(
    r"\b(?:border|outline|stroke|frame|rule|underline)s?\s+(?:in|of)\s+(?:an?\s+)?(?:[a-z-]+\s+)?$"
    r"|\boutlined\s+in\s+(?:[a-z-]+\s+)?$",
    re.I,
)
_CUT = re.compile(r"[.;\n]|“|\"")
_GREYS = ("grey", "gray", "light grey", "light gray", "dark grey", "dark gray")


#: words after a quote that bring in the next element ("…, followed by a small orange button",
#: "“PIXEL POP” on the first line and in smaller uppercase mint text beneath, “CREATIVE CAMP.”",
#: "one in mint with text “In progress”, one in soft amber with text “Review needed”")
_NEXT = re.compile(
    r",?\s+(?:followed by|then|next to|beside|and an?)\s|,\s+and\s|\s+and\s+(?=in|with|on)\b"
    r"|,\s+(?:one|another|the other|the (?:second|third|fourth|last|next))\b",
    re.I,
)
#: a colour word that names a thing beside the text: "a lavender folder icon and text “…”",
#: "with tiny square forest green bullets", "three sliders in mint, mauve, and peach"
_OBJECT = re.compile(
    r"^[\s,-]*(?:[a-z-]+\s+)?(?:icons?|bullets?|dots?|stars?|folders?|hearts?|arrows?|shapes?"
    r"|circles?|sliders?|glyphs?|sparkles?|leaf|leaves|stripes?|glows?|shadows?|routes?|emojis?"
    r"|squiggles?|doodles?|splash(?:es)?|blobs?|checkmarks?|ticks?|lines? art)\b",
    re.I,
)


_OBJECT_BEFORE = re.compile(
    r"\b(?:icons?|bullets?|dots?|stars?|sliders?|glyphs?|routes?|lines?|arrows?|shapes?)\s+"
    r"(?:highlighted\s+|drawn\s+|coloured\s+|colored\s+)?in\s+(?:soft\s+|bright\s+)?$",
    re.I,
)


def _clause_after(text: str, end: int) -> str:
    tail = text[end + 1 : end + 1 + AFTER]
    m = _CUT.search(tail)
    tail = tail[: m.start()] if m else tail
    m = _NEXT.search(tail)
    return tail[: m.start()] if m else tail


def _clause_before(text: str, start: int) -> str:
    head = text[max(0, start - 1 - BEFORE) : start - 1]
    cut = max(head.rfind(". "), head.rfind("\n"), head.rfind("; "), head.rfind("”"))
    return head[cut + 1 :] if cut >= 0 else head


def _hex_of(text: str, word: str) -> str:
    """The hex code the brief gives ``word`` ("a muted forest green (#1F5C4D)"), or ""."""
    m = re.search(
        rf"(?<![\w-]){re.escape(word)}(?:\s+[a-z]+)?[\s(:]{{0,3}}(#[0-9a-f]{{6}})\b",
        text,
        re.I,
    )
    return m.group(1).upper() if m else ""


def extract_element_colours(text: str, source: str = "prompt") -> list[Requirement]:
    """One requirement per run of quoted labels that the brief gives a colour by name."""
    names = vocabulary()["colour_names"]
    pattern = words_pattern(list(names))
    found: list[Requirement] = []
    for run in _runs(text):
        labels = [strip_label(q) for q, *_ in run if len(strip_label(q).split()) <= 6]
        if not labels:
            continue
        start, end = run[0][1], run[-1][2]
        after = _clause_after(text, end)
        before = _clause_before(text, start)
        m, clause = _colour_word(pattern, after, before)
        if m is None:
            continue
        word = m.group().lower()
        near_after = clause[m.end() : m.end() + 25]
        near_before = clause[max(0, m.start() - 25) : m.start()]
        on = re.search(r"\bon\s+(?:an?\s+|the\s+)?(?:[a-z-]+\s+)?$", near_before, re.I)
        fill = bool(on or _FILL.search(near_after) or _FILL.search(near_before[-12:]))
        if not fill and word in _GREYS:
            continue  # a grey caption in #666 or #888: no designer's demand, a shade
        code = _hex_of(text, word)
        found.append(
            Requirement(
                id="",
                kind="palette",
                hex=code,
                key=word,
                label=names[word],
                role="element-fill" if fill else "element-text",
                values=labels,
                text=f"“{labels[0]}”{' …' if len(labels) > 1 else ''} in {word}"
                + (f" ({code})" if code else ""),
                span=span(text, max(0, start - 1 - len(before)), end + 1 + len(after), source),
                severity="minor",
            )
        )
    return found


def _colour_word(pattern, after: str, before: str):
    """The colour word that names the element's text or fill — the first after the quotes,
    else the last before them — skipping colours of a border, outline or rule (not checked) and
    of a thing beside the text (an icon, bullets, a star)."""
    for clause in (after, before):
        hits = list(pattern.finditer(clause))
        for m in hits if clause is after else reversed(hits):
            rest = clause[m.end() :]
            if (
                not _STROKE.match(rest)
                and not _OBJECT.match(rest)
                and not _STROKE_BEFORE.search(clause[max(0, m.start() - 30) : m.start()])
                and not _OBJECT_BEFORE.search(clause[max(0, m.start() - 30) : m.start()])
            ):
                return m, clause
    return None, ""


def _innermost(blocks: list) -> list:
    """Per text, the smallest block showing it (the element itself, not its wrappers)."""
    best: dict[str, object] = {}
    for block in blocks:
        key = fold(block.text)
        if key not in best or block.rect.area < best[key].rect.area:
            best[key] = block
    return list(best.values())


def same_family(seen, named: str) -> bool:
    """Whether the page colour ``seen`` (RGB 0–255) reads as the brief's named colour."""
    want = rgb(named)
    ls, a, b = lab(seen)
    lw, aw, bw = lab(want)
    if chroma(want) < 12:  # white, black, greys: lightness decides
        if lw > 90:
            return ls >= 88 and chroma(seen) < 14
        if lw < 25:
            return ls <= 30 and chroma(seen) < 20
        return chroma(seen) < 14 and abs(ls - lw) <= 30
    if chroma(seen) < 15:
        return False
    hue = abs(math.degrees(math.atan2(b, a)) - math.degrees(math.atan2(bw, aw))) % 360
    return min(hue, 360 - hue) <= HUE_DEG


def check_element_colour(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Every block showing one of the labels has the named colour as its text or fill."""
    fill = req.role == "element-fill"
    wanted = {fold(v) for v in req.values}
    from .checks import folded_blocks

    rows = folded_blocks(facts)
    blocks = [b for b, row in zip(facts.blocks, rows, strict=True) if row[1] in wanted]
    if not blocks:
        return RequirementResult.of(req, "unchecked", "the labelled element is not on the page")
    wrong, right = [], 0
    for block in _innermost(blocks) if not fill else blocks:
        colour = block.background if fill else block.color
        if fill and (colour is None or colour[3] < 0.3):
            # what shows behind the text: the card or band around it, else the page
            colour = block.backdrop or facts.page_background
        if colour is None:
            continue
        if same_family(colour, req.label):
            right += 1
        else:
            wrong.append((block.text, "#" + "".join(f"{round(v):02x}" for v in colour[:3])))
    if right:  # the brief's element is one of the blocks with that text: one in colour will do
        wrong = []
    if not wrong:
        return RequirementResult.of(req, "pass", f"{req.key} as asked", labels=req.values)
    what = "filled" if fill else "set"
    shown = ", ".join(f"“{t[:30]}” {c}" for t, c in wrong[:3])
    named = f"{req.key} ({req.hex})" if req.hex else req.key
    msg = f"not {what} in {named}: {shown}"
    return RequirementResult.of(
        req, "fail", msg, seen=[c for _, c in wrong[:5]], labels=req.values[:8], hex=req.hex or None
    )
