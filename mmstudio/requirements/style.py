"""Passes: palette colours with their roles, typefaces, and what must never be printed as copy."""

from __future__ import annotations

import re
from functools import cache

from .model import Requirement
from .text import QUOTE, font_names, quotes, span, vocabulary, without_quotes, words_pattern

HEX = re.compile(r"#(?:[0-9a-fA-F]{6}|[0-9a-fA-F]{3})(?![0-9a-fA-F\w])")


def hex6(value: str) -> str:
    """``#abc`` → ``#aabbcc``, lower case."""
    value = value.lower()
    if len(value) == 4:
        value = "#" + "".join(c * 2 for c in value[1:])
    return value


_RANK = {"cta": 0, "background": 1, "text": 2, "accent": 3, "any": 4}  # most specific first


def _neutral(colour: str) -> bool:
    from .colour import NEUTRAL_CHROMA, chroma, rgb

    return chroma(rgb(colour)) < NEUTRAL_CHROMA * 0.7


_NAME = re.compile(r"([a-z][a-z -]{2,30}?)\s*\(?\s*$", re.I)


def _name_before(text: str, at: int) -> str:
    """The colour's name as the brief writes it: "bubblegum pink (#FF66A3)" → bubblegum pink."""
    m = _NAME.search(text[max(0, at - 32) : at])
    words = m.group(1).split()[-2:] if m else []
    return " ".join(w for w in words if w.lower() not in ("a", "an", "the", "in", "of", "is"))


def _named_colours(text: str) -> list[str]:
    """Hex values of the colour names the brief uses ("tangerine", "mint", "navy")."""
    names = vocabulary()["colour_names"]
    pattern = words_pattern(list(names))
    return list(dict.fromkeys(names[m.group().lower()] for m in pattern.finditer(text)))


def _colour_role(text: str, at: int) -> str:
    """The role of the colour at ``at``: the nearest role word before it in its clause."""
    window = text[max(0, at - 70) : at]
    cut = max(window.rfind(". "), window.rfind("\n"), window.rfind("; "))
    window = window[cut + 1 :] if cut >= 0 else window
    best, where = "any", -1
    for role, words in vocabulary()["colour_roles"].items():
        for m in words_pattern(words).finditer(window):
            if m.start() > where:
                best, where = role, m.start()
    return best


def extract_palette(text: str, source: str = "prompt") -> list[Requirement]:
    """One requirement per distinct hex colour of the brief, with the role its clause gives."""
    seen: dict[str, Requirement] = {}
    for m in HEX.finditer(text):
        colour = hex6(m.group())
        role = _colour_role(text, m.start())
        if role != "background" and _neutral(colour):
            continue  # greys and near-whites: no designer checks a #777 caption against #888
        if colour in seen and _RANK[seen[colour].role] <= _RANK[role]:
            continue
        seen[colour] = Requirement(
            id="",
            kind="palette",
            key=colour,
            label=colour,
            role=role,
            text=f"Colour {colour}" + (f" as {role}" if role != "any" else " on the page"),
            values=[_name_before(text, m.start())],
            span=span(text, max(0, m.start() - 50), m.end(), source),
            severity="major" if role in ("background", "cta") else "minor",
        )
    found = list(seen.values())
    named = _named_colours(text)
    if len(found) + len(named) >= 3 and found:
        found.append(
            Requirement(
                id="",
                kind="palette",
                key="palette only",
                role="only",
                values=sorted(seen, key=lambda c: _RANK[seen[c].role]) + named,
                text="Buttons and large areas in the brief's palette (or neutrals)",
                span=found[0].span,
                severity="major",
            )
        )
    return found


def _blank(m: re.Match[str]) -> str:
    return " " * len(m.group())


def _inner(m: re.Match[str]) -> str:
    return next((g for g in m.groups() if g is not None), "").strip().rstrip(",.;:")


@cache
def _font_pattern() -> re.Pattern[str]:
    """Every typeface name as a whole word, longest first (one scan of the brief, not one per
    name: 238 scans took seconds on a 120,000-character brief)."""
    names = sorted(font_names(), key=len, reverse=True)
    return re.compile(r"(?<![\w-])(?:" + "|".join(map(re.escape, names)) + r")(?![\w-])")


def extract_fonts(text: str, source: str = "prompt") -> list[Requirement]:
    """One requirement per typeface the brief names (outside quoted copy)."""
    names = {f.casefold() for f in font_names()}
    plain = QUOTE.sub(
        lambda m: m.group() if _inner(m).casefold() in names else " " * len(m.group()), text
    )
    found: dict[str, Requirement] = {}
    for m in _font_pattern().finditer(plain):
        name = m.group()
        if name.casefold() in found:
            continue
        found[name.casefold()] = Requirement(
            id="",
            kind="font",
            key=name,
            label=name,
            text=f"Typeface {name}",
            span=span(text, m.start(), m.end(), source),
            severity="minor",
        )
    # a longer name wins over a name it contains (Roboto Mono over Roboto)
    names = list(found)
    kept = [r for k, r in found.items() if not any(k != o and k in o for o in names)]
    return _alternatives(plain, sorted(kept, key=lambda r: r.span.start))


def _alternatives(plain: str, fonts: list[Requirement]) -> list[Requirement]:
    """Fonts the brief offers as alternatives ("like Nunito or Quicksand") make one requirement
    that any of them meets (``values``)."""
    out: list[Requirement] = []
    for req in fonts:
        previous = out[-1] if out else None
        gap = plain[previous.span.end : req.span.start] if previous else ""
        if previous and len(gap) < 40 and re.search(r"\b(?:or|/)\s*$|\bor\b", gap):
            previous.values.append(req.label)
            previous.text = f"Typeface {' or '.join(previous.values)}"
            continue
        req.values = [req.label]
        out.append(req)
    return out


def extract_leaks(text: str, source: str = "prompt") -> list[Requirement]:
    """What must never show up as copy: the typefaces the brief names (unless a quoted line of
    copy holds the name) and its hex codes. One requirement each."""
    found: list[Requirement] = []
    names = {f.casefold() for f in font_names()}
    quoted = " ".join(q for q, *_ in quotes(text) if q.strip(" ,.").casefold() not in names)
    quoted = quoted.casefold()
    fonts = [f for f in extract_fonts(text, source) if f.label.casefold() not in quoted]
    if fonts:
        found.append(
            Requirement(
                id="",
                kind="leak",
                key="typeface names",
                role="fonts",
                values=[name for f in fonts for name in (f.values or [f.label])],
                text="No typeface names printed as copy",
                span=fonts[0].span,
                severity="major",
            )
        )
    if HEX.search(without_quotes(text)):
        m = HEX.search(text)
        found.append(
            Requirement(
                id="",
                kind="leak",
                key="hex codes",
                role="hex",
                text="No colour codes printed as copy",
                span=span(text, max(0, m.start() - 30), m.end(), source) if m else span(text, 0, 0),
                severity="major",
            )
        )
    return found
