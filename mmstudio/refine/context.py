"""The context refiner: fix how the page embeds one element, never the page as a whole.

Offline rules for the measured context issues (MM-WebAgent §3.4 "context" level; MM Studio
issue 5). Each rule returns CSS for the element's labelled ``<style data-mm-patch="ID">`` block
(declarations are ``!important`` so they win over the page's own rules, inline styles and
animations), or an edit of the element's own start tag (``alt``). Rules read only the issue's
evidence (px) and the element's plan; unknown codes are skipped.
"""

from __future__ import annotations

import logging

from mmstudio.evaluate.assets import FRAME_MIN_H
from mmstudio.report import Issue

from . import html_edit
from .model import Change, RefineInput

log = logging.getLogger(__name__)

MAX_SLOT_H = 640  # px: a fitted image slot taller than this keeps its height instead
FRAME_MARGIN_PX = 8
COVER_Z = 50


def _show(issue: Issue, sel: str, inp: RefineInput) -> str:
    """Invisible by default → visible in its resting state (opacity, visibility, display…)."""
    cause, on = issue.evidence.get("cause"), str(issue.evidence.get("on") or "")
    target = sel if not on or inp.element in on else f"{on}:has({sel})"
    if cause == "display":
        return f"{target}{{display:block!important}}"
    if cause == "zero-size":
        w, h = _planned_size(inp, 640, 360)
        return (
            f"{sel}{{display:block!important;width:min(100%,{w}px)!important;"
            f"height:{h}px!important}}"
        )
    if cause == "off-screen":
        return (
            f"{target}{{transform:none!important;translate:none!important;"
            "position:relative!important;left:auto!important;top:auto!important}"
        )
    return f"{target}{{opacity:1!important;visibility:visible!important}}"


def _planned_size(inp: RefineInput, w: int, h: int) -> tuple[int, int]:
    spec = inp.element_plan()
    return (spec.display_width_px, spec.display_height_px) if spec else (w, h)


def fitted_slot(slot: list[float], asset: list[float]) -> tuple[int, int]:
    """The slot size (w, h px) that shows a ``asset`` (w, h) uncropped and undistorted: the
    slot's width at the asset's aspect, or — when that is taller than :data:`MAX_SLOT_H` and
    than the slot — the slot's height at the asset's aspect."""
    (w, h), (aw, ah) = slot, asset  # px
    aspect = aw / ah
    if w / aspect <= max(h, MAX_SLOT_H):
        return round(w), round(w / aspect)
    return round(h * aspect), round(h)


def _fit(issue: Issue, sel: str, inp: RefineInput) -> str | None:
    """Cover-crop or stretch → the slot takes the asset's shape (object-fit: cover, no cut)."""
    slot, asset = issue.evidence.get("slot_px"), issue.evidence.get("asset_px")
    if not slot or not asset or min(*slot, *asset) <= 0:
        return None
    w, _h = fitted_slot(slot, asset)
    return (
        f"{sel}{{width:min(100%,{w}px)!important;height:auto!important;max-height:none!important;"
        f"aspect-ratio:{asset[0]}/{asset[1]}!important;object-fit:cover!important}}"
    )


def _frame_height(issue: Issue, sel: str, inp: RefineInput) -> str:
    """A chart frame too short for its chart → give it the chart's height (≥ the planned one)."""
    need = (issue.evidence.get("content_px") or [0, 0])[1] + FRAME_MARGIN_PX
    planned = _planned_size(inp, 0, 0)[1]
    height = max(FRAME_MIN_H + 80, need, planned)
    return (
        f"{sel}{{height:{height}px!important;min-height:{height}px!important;"
        "aspect-ratio:auto!important}"
    )


def _undersized(issue: Issue, sel: str, inp: RefineInput) -> str:
    """A chart drawn small in its frame → the frame shown and sized from the first paint."""
    height = max(FRAME_MIN_H + 80, _planned_size(inp, 0, 0)[1])
    return (
        f"{sel}{{display:block!important;width:100%!important;min-height:{height}px!important;"
        "opacity:1!important;visibility:visible!important}"
    )


def _uncover(issue: Issue, sel: str, inp: RefineInput) -> str:
    """Covered by another element → lift the element above it."""
    return f"{sel}{{position:relative!important;z-index:{COVER_Z}!important}}"


CSS_RULES = {
    "invisible-default": _show,
    "cover-crop": _fit,
    "stretched": _fit,
    "frame-too-short": _frame_height,
    "chart-undersized": _undersized,
    "covered": _uncover,
}
MARKUP_RULES = ("missing-alt",)
CODES = (*CSS_RULES, *MARKUP_RULES)


def _alt_text(inp: RefineInput) -> str:
    spec = inp.element_plan()
    if spec is not None and (spec.alt or spec.caption):
        return spec.alt or spec.caption
    return (inp.element or "image").replace("_", " ").replace("-", " ").strip().capitalize()


def propose(inp: RefineInput) -> Change | None:
    """One element-scoped Change for ``inp.issues`` (None when no rule applies)."""
    path = inp.element_path()
    sel = html_edit.selector_for(inp.html, inp.element or "", path)
    if sel is None:
        log.info("context: %s is not in the page", inp.element)
        return None
    rules, codes = [], []
    for issue in inp.issues:
        rule = CSS_RULES.get(issue.code)
        css = rule(issue, sel, inp) if rule else None
        if css and css not in rules:
            rules.append(css)
            codes.append(issue.code)
    alt = _alt_text(inp) if any(i.code == "missing-alt" for i in inp.issues) else None
    if not rules and alt is None:
        return None
    codes += ["missing-alt"] if alt is not None else []
    key, element_id, css = inp.element or "page", inp.element or "", "\n".join(rules)

    def edit(html: str) -> str:
        if css:
            html = html_edit.set_patch_block(html, key, css)
        node = html_edit.element_node(html, element_id, path) if alt is not None else None
        return html_edit.set_attribute(html, node, "alt", alt) if node is not None else html

    summary = f"Context fix for {inp.element}: " + ", ".join(codes)
    return Change("context", inp.element, codes, summary, page=edit)
