"""The global refiner: layout and style fixes across the page (MM-WebAgent §3.4 "global" level).

Offline rules for the measured page issues: horizontal overflow (culprits capped to the
viewport; below 600 px every box capped and rows allowed to wrap), text contrast (the text and
its like-placed siblings get a readable colour against the measured background),
section order against the plan (sibling sections swapped back), text running out of its box
(allowed to wrap), overlapping text (the overlay put back in flow), blocked external scripts and
styles (removed), and inconsistent spacing (one vertical rhythm for sections; raised by the judge —
no measured check exists yet). CSS goes to the ``<style data-mm-patch="page">`` block.
"""

from __future__ import annotations

import re

from mmstudio.pipeline.charts import contrast
from mmstudio.report import Issue

from . import html_edit
from .model import Change, RefineInput

PAGE_KEY = "page"
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_TEXT_INKS = ("#111111", "#1d232b", "#ffffff", "#f5f5f5", "#000000")
SECTION_PADDING = "clamp(32px, 5vw, 64px)"
# below 600 px wide only (the desktop render is untouched): nothing wider than its container,
# rows of links and buttons wrap, long words break
MOBILE_FIT = (
    "@media (max-width: 600px){body *{max-width:100%!important;min-width:0!important;"
    "box-sizing:border-box}ul,ol,nav,header,footer,nav *{flex-wrap:wrap!important}"
    "body{overflow-wrap:anywhere}}"
)


def _owner_sel(issue: Issue) -> str | None:
    return f"[data-mm-id={html_edit.css_string(issue.element)}]" if issue.element else None


def _overflow(issue: Issue, inp: RefineInput) -> str:
    """Sideways scrolling → culprits capped at their container; media never wider than it."""
    rules = ["img,video,iframe,canvas,svg{max-width:100%}", MOBILE_FIT]
    for sel in issue.evidence.get("culprits") or []:
        extra = (
            "display:block!important;overflow-x:auto!important;" if sel.startswith("table") else ""
        )
        rules.append(
            f"{sel}{{max-width:100%!important;min-width:0!important;"
            f"box-sizing:border-box!important;{extra}}}"
        )
    return "\n".join(rules)


def readable_ink(background: str, needed: float, preferred: list[str]) -> str:
    """The first of ``preferred`` then neutral inks reaching ``needed`` + 0.5 contrast (1–21)
    against ``background`` (hex), else the one with the highest contrast."""
    candidates = [c for c in (*preferred, *_TEXT_INKS) if _HEX.match(c)]
    for colour in candidates:
        if contrast(colour, background) >= needed + 0.5:
            return colour
    return max(candidates, key=lambda c: contrast(c, background))


def _contrast(issue: Issue, inp: RefineInput) -> str | None:
    """Low contrast → the text takes a readable colour against the pixels behind it."""
    sel, background = issue.evidence.get("selector"), issue.evidence.get("background")
    if not sel or not background or not _HEX.match(str(background)):
        return None
    preferred = []
    if inp.plan is not None:
        preferred = [c for c in (inp.plan.layout.color("text"),) if c]
    ink = readable_ink(str(background), float(issue.evidence.get("needed") or 4.5), preferred)
    siblings = re.sub(r":nth-of-type\(\d+\)", "", sel)  # the block's like-placed siblings too
    return f"{siblings}{{color:{ink}!important;text-shadow:none!important}}"


def _spill(issue: Issue, inp: RefineInput) -> str | None:
    """Text past its box → the box fits its text and the text wraps."""
    sel = _owner_sel(issue)
    if sel is None:
        match = re.search(r"\(([^()]+)\)\.?$", issue.message)
        sel = match.group(1) if match else None
    if sel is None:
        return None
    return (
        f"{sel}{{width:auto!important;max-width:100%!important;height:auto!important;"
        f"white-space:normal!important;overflow-wrap:anywhere!important}}"
    )


def _overlap(issue: Issue, inp: RefineInput) -> str | None:
    """Text over text → the later block goes back into the normal flow."""
    selectors = issue.evidence.get("selectors") or []
    if len(selectors) < 2:
        return None
    return f"{selectors[1]}{{position:static!important;transform:none!important;margin-top:8px}}"


def _spacing(issue: Issue, inp: RefineInput) -> str:
    """Inconsistent spacing → one vertical rhythm for every section."""
    pad = SECTION_PADDING
    return f"[data-mm-section]{{padding-top:{pad}!important;padding-bottom:{pad}!important}}"


CSS_RULES = {
    "horizontal-overflow": _overflow,
    "low-contrast": _contrast,
    "low-contrast-minor": _contrast,
    "text-overflow": _spill,
    "text-overlap": _overlap,
    "inconsistent-spacing": _spacing,
}
CODES = (*CSS_RULES, "section-order", "blocked-request")


def _is_spacing(issue: Issue) -> bool:
    return issue.code == "inconsistent-spacing" or (
        issue.source == "judge" and "spacing" in issue.message.lower()
    )


def _drop_external(html: str, urls: set[str]) -> str:
    """``html`` without the ``<script src>`` / ``<link href>`` elements loading ``urls``."""
    spans = [
        (n.start, n.end)
        for n in html_edit.parse(html)
        if n.tag in ("script", "link") and (n.attrs.get("src") or n.attrs.get("href")) in urls
    ]
    for start, end in sorted(spans, reverse=True):
        html = html[:start] + html[end:]
    return html


_GROUPS = {"low-contrast-minor": "low-contrast"}


def _group(issue: Issue) -> str:
    code = "inconsistent-spacing" if _is_spacing(issue) else issue.code
    return _GROUPS.get(code, code)


def propose(inp: RefineInput) -> list[Change]:
    """One page Change per kind of issue in ``inp.issues`` (each is tried on its own, so one
    rule that does not help never sinks another)."""
    groups: dict[str, list[Issue]] = {}
    for issue in inp.issues:
        groups.setdefault(_group(issue), []).append(issue)
    changes = [_group_change(group, issues, inp) for group, issues in groups.items()]
    return [c for c in changes if c is not None]


def _group_change(group: str, issues: list[Issue], inp: RefineInput) -> Change | None:
    rules, order, urls = [], None, set()
    for issue in issues:
        rule = CSS_RULES.get(group)
        css = rule(issue, inp) if rule else None
        if css and css not in rules:
            rules.append(css)
        if group == "section-order" and issue.evidence.get("planned"):
            order = list(issue.evidence["planned"])
        if group == "blocked-request" and issue.evidence.get("urls"):
            urls |= set(issue.evidence["urls"])
    if not rules and order is None and not urls:
        return None
    css = "\n".join(rules)

    def edit(html: str) -> str:
        if order:
            html = html_edit.reorder_sections(html, order)
        if urls:
            html = _drop_external(html, urls)
        return html_edit.set_patch_block(html, PAGE_KEY, css) if css else html

    codes = list(dict.fromkeys(i.code for i in issues))
    return Change("global", None, codes, "Page fix: " + ", ".join(codes), page=edit)
