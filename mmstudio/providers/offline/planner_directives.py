"""Page-level layout directives written anywhere in a prompt (offline planner pass).

One pass, one job (issue 14, layout directives): "Beneath the header, the page body begins with a
main content area split into two columns: the left column occupies roughly 65% of the width, the
right column 35%" sets the page's column ratio even though it is written in the header's
paragraph, not in the opening sentences the style rules read. A sentence counts when it talks
about the page body (the page, its body, the main content area, the layout, the dashboard) and
gives a ratio (``prompt_text.column_ratio``); a section's own "the left column of this card …"
stays that section's.

Public API: :func:`page_ratio`.
"""

from __future__ import annotations

import re

from mmstudio.providers.offline import prompt_text as pt

_PAGE_BODY = re.compile(
    r"\b(?:page body|body of the page|main content(?: area)?|main area|content area|main body|"
    r"(?:page|overall|main|dashboard|site) (?:layout|grid|structure)|the page is (?:split|divided)|"
    r"the (?:rest of the )?page (?:below|beneath|under)|below the header, the page|"
    r"page (?:is )?(?:split|splits|divided|divides) into)\b",
    re.I,
)

_COLUMNS = re.compile(r"\b(?:two|2)[- ](?:main )?columns?\b|\btwo main columns\b", re.I)


def page_ratio(units: list[pt.Unit]) -> list[int]:
    """The column ratio (``[65, 35]``) the first page-body sentence gives — or the sentence
    right after it in its paragraph ("the main content area is divided into an uneven
    two-column layout. The left column takes about 60% of the width, and the right 40%") —
    else []."""
    for index, unit in enumerate(units):
        text = pt.blank_quotes(unit.text)
        if not _PAGE_BODY.search(text):
            continue
        if _COLUMNS.search(text):  # the widths may follow in the next clause or two
            after = [u for u in units[index + 1 : index + 3] if u.paragraph == unit.paragraph]
            text = " ".join([text, *(pt.blank_quotes(u.text) for u in after)])
        ratio = pt.column_ratio(text)
        if len(ratio) == 2:
            return ratio
    return []


_GRADIENT = re.compile(
    r"(?<!no )(?<!without )(?<!without a )\bgradient\b[^.;]{0,120}?\bfrom\b", re.I
)
_BACKGROUND_WORD = re.compile(r"\b(?:background|backdrop|bar|band|strip|header)\b", re.I)
_BUTTON_WORD = re.compile(r"\b(?:button|filled|pill|badge|chip|bars?\s+are)\b", re.I)
_DIRECTIONS = (  # where the first stop sits → CSS gradient angle
    (re.compile(r"\btop[- ]left\b", re.I), 135),
    (re.compile(r"\bbottom[- ]left\b", re.I), 45),
    (re.compile(r"\b(?:at the )?top\b|\bvertical\b", re.I), 180),
    (re.compile(r"\bbottom\b", re.I), 0),
    (re.compile(r"\bright\b", re.I), 270),
)


def background_gradient(description: str) -> tuple[int, list[str]] | None:
    """``(angle in degrees, [first hex, second hex])`` of the background gradient a section's
    sentences give ("the header background is a gradient from bubblegum pink (#FF66A3) on the
    left to bright tangerine (#FF9E4A) on the right" → ``(90, ["#ff66a3", "#ff9e4a"])``), else
    None. A button's or a bar chart's gradient ("bars with no gradient", "filled with a vertical
    gradient") is not the section's background."""
    for sentence in re.split(r"(?<=[.;])\s+", description):
        found = _GRADIENT.search(sentence)
        if not found or not _BACKGROUND_WORD.search(sentence):
            continue
        if _BUTTON_WORD.search(sentence[: found.start()]):
            continue
        stops = [h.lower() for h in pt.HEX_RE.findall(sentence[found.start() :])][:2]
        if len(stops) < 2:
            continue
        first = sentence[found.end() : found.end() + 60]
        angle = next((a for pattern, a in _DIRECTIONS if pattern.search(first)), 90)
        return angle, stops
    return None
