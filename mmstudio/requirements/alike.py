"""Questions the brief lists together (“CAN I PAUSE MY ROTATION?”, “WHAT IF I ALREADY HAVE SOME
GEAR?”, …) are items of one kind — an FAQ's questions — and must be set alike on the page: one
printed as the answer under another (a paragraph in that question's card) is a mispaired item.
"""

from __future__ import annotations

import re

from mmstudio.render.facts import PageFacts, TextBlock

from .model import Requirement, RequirementResult
from .text import loose, quotes, span

_JOIN = re.compile(r"^[\s,;]*(?:(?:and|or)\s+)?$", re.I)
MIN_ITEMS = 3


def extract_alike(text: str, source: str = "prompt") -> list[Requirement]:
    """One ``pairing`` requirement (checker ``alike``) per run of at least :data:`MIN_ITEMS`
    quoted questions joined only by commas or "and" / "or"; ``values`` the questions."""
    found, run = [], []
    for inner, start, end in (*quotes(text), ("", len(text) + 2, len(text) + 2)):
        q = inner.strip()
        joined = run and _JOIN.match(text[run[-1][2] + 1 : max(run[-1][2] + 1, start - 1)])
        if q.endswith("?") and (not run or joined):
            run.append((q, start, end))
            continue
        if len(run) >= MIN_ITEMS:
            found.append(_requirement(text, run, source))
        run = [(q, start, end)] if q.endswith("?") else []
    return found


def _requirement(text: str, run: list[tuple[str, int, int]], source: str) -> Requirement:
    labels = [q for q, _, _ in run]
    return Requirement(
        id="",
        kind="pairing",
        key=labels[0],
        checker="alike",
        values=labels,
        text=f"The {len(labels)} questions “{labels[0]}” … set alike, each its own item",
        span=span(text, run[0][1] - 1, run[-1][2] + 1, source),
        severity="major",
    )


def _look(block: TextBlock) -> tuple:
    return (block.heading, block.tag, round(block.font_size), block.font_weight >= 600)


def check_alike(req: Requirement, facts: PageFacts) -> RequirementResult:
    """Each question shown as a block of its own; the ones set unlike most of the others
    (heading or not, tag, size, bold) fail, naming the odd ones (``labels``); unchecked
    when fewer than :data:`MIN_ITEMS` are shown (the copy checks report the missing)."""
    shown: dict[str, TextBlock] = {}
    for label in req.values:
        want = loose(label)
        # the innermost element showing just the question (not the card around its heading)
        blocks = [b for b in facts.blocks if loose(b.text) == want]
        if blocks:
            shown[label] = min(blocks, key=lambda b: b.rect.w * b.rect.h)
    if len(shown) < MIN_ITEMS:
        return RequirementResult.of(req, "unchecked", "too few of the questions are shown")
    looks = [_look(b) for b in shown.values()]
    usual = max(set(looks), key=looks.count)
    if looks.count(usual) <= len(looks) / 2:
        return RequirementResult.of(req, "unchecked", "the questions follow no one style")
    odd = [label for label, b in shown.items() if _look(b) != usual]
    if not odd:
        return RequirementResult.of(req, "pass", f"{len(shown)} questions set alike")
    names = ", ".join(f"“{x}”" for x in odd[:3])
    msg = f"{names} set unlike the other questions ({shown[odd[0]].tag}, not a question)"
    return RequirementResult.of(req, "fail", msg, labels=odd, closest=odd[0])
