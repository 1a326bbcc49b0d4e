"""Page-wide prohibitions of a prompt: what the page must not have (offline planner pass).

One pass, one job (issue 14, prohibitions): "no gradients, no shadows, and absolutely no
animation", "There are no rounded corners anywhere", "ultra-flat … no drop shadows" ban a look
for the whole page. A ban counts when its sentence speaks for the page — a page-level sentence
(no section's), or one saying "anywhere", "at all", "throughout", "ever", "the page", "the
design", "all elements" — not when it describes one element ("the header casts no shadow",
"both buttons have no drop shadow": those say how that element looks, and a page may still have
shadows elsewhere). Modalities (video, charts, images) are banned by
``planner_elements.banned_modalities``; this pass is about looks.

Public API: :func:`page_bans` → the ``GlobalLayout.avoid`` list.
"""

from __future__ import annotations

import re

from mmstudio.plan import AVOIDABLE
from mmstudio.providers.offline import prompt_text as pt

_NEG = r"\b(?:no|without|zero|never(?:\s+use)?|avoid(?:ing)?|free of)\s+"
_NEG += r"(?:any\s+|visible\s+|heavy\s+)?"
_BANS = {
    "shadow": re.compile(_NEG + r"(?:drop[ -]|box[ -]|soft\s+)?shadows?\b", re.I),
    "gradient": re.compile(_NEG + r"gradients?\b", re.I),
    "rounded": re.compile(
        _NEG + r"(?:rounded\s+corners?|rounding|border[ -]radius|curves)\b", re.I
    ),
    "motion": re.compile(_NEG + r"(?:animations?|motion|transitions?)\b", re.I),
}
_PAGE_WIDE = re.compile(
    r"\b(?:anywhere|at all|throughout|ever|everywhere|the (?:whole |entire )?(?:page|site|design"
    r"|layout|interface)|all elements|every element|page-wide|strictly static|overall)\b",
    re.I,
)
_EXCEPT = re.compile(r"\b(?:except|other than|apart from|besides|beyond)\b", re.I)


def page_bans(units: list[pt.Unit], global_units: list[pt.Unit]) -> list[str]:
    """The looks of :data:`mmstudio.plan.AVOIDABLE` the prompt bans page-wide, in that order."""
    page_level = {u.start for u in global_units}
    banned: set[str] = set()
    for unit in units:
        text = pt.blank_quotes(unit.text)
        if unit.start in page_level or _PAGE_WIDE.search(text):
            banned |= {look for look, pattern in _BANS.items() if _bans(pattern, text)}
    return [look for look in AVOIDABLE if look in banned]


def _bans(pattern: re.Pattern, text: str) -> bool:
    """A ban without an exception right after it ("no shadows except on the cards" bans
    nothing page-wide; "no illustrations beyond the photographs, no drop shadows" does)."""
    return any(not _EXCEPT.search(text[m.end() : m.end() + 30]) for m in pattern.finditer(text))
