"""Prompt fidelity of a generated site: how much of the prompt's own words and colours reached it.

The words are the quoted copy the evaluator reads from the brief (:mod:`mmstudio.requirements`:
copy, button / tag labels and nav links of 2–80 characters, without a sentence's punctuation
inside the quotes; not the brief's quoted typefaces, colour codes, design terms or words meant to
sit inside a picture), matched case-insensitively against the site's text (HTML text,
alt/title/aria-label/placeholder/value/content attributes, chart pages and chart JSON). Each
``#rrggbb`` of the prompt must be found anywhere in the site's HTML/CSS/JSON/JS/SVG (vendor/
excluded). The strict, visible-text-only check of the same copy is the evaluation's
(``mmstudio evaluate``: the ``req-*`` rows).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

QUOTE_RE = re.compile(r"[“\"]([^”\"\n]{2,80})[”\"]")
HEX_RE = re.compile(r"#[0-9a-fA-F]{6}\b")
_TEXT_ATTRS = ("alt", "placeholder", "title", "aria-label", "value", "content")


def normalise(text: str) -> str:
    """Lower-case ``text`` with entities decoded, typographic quotes/dashes folded and runs of
    whitespace collapsed."""
    text = html.unescape(text).replace("’", "'").replace("‘", "'")
    text = text.replace("–", "-").replace("—", "-")
    return re.sub(r"\s+", " ", text).strip().lower()


class _VisibleText(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._hidden += 1
        self.parts += [v for k, v in attrs if k in _TEXT_ATTRS and v]

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style") and self._hidden:
            self._hidden -= 1

    def handle_data(self, data: str) -> None:
        if not self._hidden:
            self.parts.append(data)


@dataclass
class Fidelity:
    """Quoted strings and hex colours of a prompt, and which of them the site shows (0–1 shares)."""

    quotes: list[str]
    quotes_found: list[str]
    colours: list[str]
    colours_found: list[str]

    @property
    def quote_share(self) -> float:
        return len(self.quotes_found) / len(self.quotes) if self.quotes else 1.0

    @property
    def colour_share(self) -> float:
        return len(self.colours_found) / len(self.colours) if self.colours else 1.0


def _site_files(site: Path) -> list[Path]:
    return [p for p in sorted(site.rglob("*")) if p.is_file() and "vendor" not in p.parts]


def site_text(site: Path) -> str:
    """All visible text of the site folder, normalised (see :func:`normalise`)."""
    parts: list[str] = []
    for path in _site_files(site):
        text = (
            path.read_text(encoding="utf-8", errors="replace")
            if path.suffix in (".html", ".htm", ".json")
            else ""
        )
        if path.suffix in (".html", ".htm"):
            parser = _VisibleText()
            parser.feed(text)
            parts += parser.parts
            if "assets" in path.parts:
                parts.append(text)
        elif path.suffix == ".json":
            parts.append(text)
    return normalise(" ".join(parts))


def measure(prompt: str, site: Path) -> Fidelity:
    """How much of ``prompt`` the site folder ``site`` carries."""
    text = site_text(site)
    raw = "".join(
        p.read_text(encoding="utf-8", errors="replace").lower()
        for p in _site_files(site)
        if p.suffix in (".html", ".css", ".json", ".js", ".svg")
    )
    quotes = brief_copy(prompt)
    colours = sorted({h.lower() for h in HEX_RE.findall(prompt)})
    return Fidelity(
        quotes=quotes,
        quotes_found=[q for q in quotes if q in text],
        colours=colours,
        colours_found=[c for c in colours if c in raw],
    )


def brief_copy(prompt: str) -> list[str]:
    """The brief's quoted copy, labels and nav links (2–80 characters), normalised."""
    from mmstudio.requirements import extract

    keys = {
        normalise(r.key)
        for r in extract(prompt)
        if r.kind in ("copy", "label", "nav") and r.role != "in-image"
    }
    return sorted(k for k in keys if 2 <= len(k) <= 80)
