"""Measured checks on each image, video and chart: present, decoded, visible, uncropped, drawn.

Thresholds (shares 0–1, px) are module constants so a test can name them.
"""

from __future__ import annotations

import math
from pathlib import PurePosixPath

from mmstudio.render.model import MediaProbe, Render

from .findings import Element, Findings

COVER_CUT_MAX = 0.45  # object-fit: cover may cut away at most this share of the asset
STRETCH_MAX = 0.08  # fill: relative aspect mismatch above this is a visible stretch
COVERED_MIN = 0.6  # share of sample points under an opaque element that counts as covered
CHART_FILL_MIN = 0.35  # drawn chart area / frame area below this: chart sized wrongly
FRAME_MIN_H = 160  # px: a chart frame shorter than this cannot hold a readable chart
OVERFLOW_TOLERANCE = 4  # px


def check_elements(render: Render, elements: dict[str, Element], found: Findings) -> None:
    """Run every element check on the elements that are on the page."""
    missing = {r.path for r in render.blocked if r.reason == "missing"}
    external = {r.url for r in render.blocked if r.reason in ("network", "outside-site")}
    hung_after = min((t["at_ms"] for t in render.script_timeouts), default=None)
    for element in elements.values():
        media = element.probe
        if media is None:
            continue
        if _asset_problems(element, media, missing, external, found):
            continue
        _visibility(element, media, found)
        if media.tag == "video":
            _video(element, media, missing, found)
        if media.hidden is not None and media.hidden.cause in ("display", "zero-size"):
            continue
        if media.tag == "img":
            _fit(element, media, found)
        if media.tag == "iframe" and media.frame is not None:
            _frame(element, media, hung_after, found)
        if media.tag in ("canvas",) or media.graphics:
            _canvas(element, media, found)


def _asset_problems(element, media: MediaProbe, missing, external, found: Findings) -> bool:
    """Missing file, network asset or undecodable image; True when the element has no asset."""
    name = _noun(element)
    if media.path and media.path in missing:
        found.add(
            "missing-asset",
            f"The {name} file {media.path} is missing from the site folder.",
            element.id,
            path=media.path,
        )
        return True
    if media.src and media.src in external:
        found.add(
            "external-asset",
            f"The {name} comes from the network ({media.src[:120]}); the renderer blocked it. "
            "Bundle the asset inside the site folder.",
            element.id,
            url=media.src[:300],
        )
        return True
    if media.tag == "img" and (not media.raw_src and not media.src):
        found.add("broken-asset", f"The {name} has no src.", element.id)
        return True
    if media.tag == "img" and media.complete and media.natural_w == 0:
        found.add(
            "broken-asset",
            f"The {name} file {media.path or media.src[:120]} is broken: the browser could not "
            "decode it.",
            element.id,
            path=media.path,
        )
        return True
    return False


def _visibility(element: Element, media: MediaProbe, found: Findings) -> None:
    hidden = media.hidden
    name = _noun(element)
    if hidden is not None:
        if hidden.cause == "display" and not (element.planned or media.explicit):
            found.add(
                "hidden-by-design",
                f"The {name} is not displayed by default (display: none on {hidden.on}); "
                "fine for a tab, slide or dialog, otherwise show it.",
                element.id,
                cause=hidden.cause,
                on=hidden.on,
            )
            return
        found.add(
            "invisible-default",
            f"The {name} is invisible by default ({_cause(hidden)}); a visitor cannot see it "
            "without interaction. Make it visible in its resting state.",
            element.id,
            cause=hidden.cause,
            on=hidden.on,
            value=hidden.value,
        )
        return
    if media.covered and media.covered.fraction >= COVERED_MIN:
        found.add(
            "covered",
            f"The {name} is covered by another element ({media.covered.by}).",
            element.id,
            covered_share=round(media.covered.fraction, 2),
            by=media.covered.by,
        )


def _cause(hidden) -> str:
    if hidden.cause == "opacity":
        return f"opacity {float(hidden.value or 0):.2g} on {hidden.on}"
    if hidden.cause == "visibility":
        return f"visibility: {hidden.value} on {hidden.on}"
    if hidden.cause == "display":
        return f"display: none on {hidden.on}"
    if hidden.cause == "zero-size":
        return "it has zero size"
    return "it is placed off-screen"


def visible_share(slot_w: float, slot_h: float, asset_w: float, asset_h: float) -> float:
    """Share (0–1) of an asset that object-fit: cover keeps in a slot (all sizes px)."""
    scale = max(slot_w / asset_w, slot_h / asset_h)
    return min(1.0, (slot_w * slot_h) / (asset_w * asset_h * scale * scale))


def _fit(element: Element, media: MediaProbe, found: Findings) -> None:
    w, h, nw, nh = media.rect.w, media.rect.h, media.natural_w, media.natural_h
    if min(w, h, nw, nh) < 2:
        return
    evidence = {"slot_px": [round(w), round(h)], "asset_px": [nw, nh]}
    if media.object_fit == "cover":
        kept = visible_share(w, h, nw, nh)
        if 1 - kept > COVER_CUT_MAX:
            found.add(
                "cover-crop",
                f"The {_noun(element)} is cropped: its {nw}×{nh} asset fills a "
                f"{round(w)}×{round(h)} slot with object-fit: cover, cutting away "
                f"{(1 - kept):.0%} of it. Give the slot the asset's shape or use a better-shaped "
                "asset.",
                element.id,
                visible_share=round(kept, 3),
                **evidence,
            )
    elif media.object_fit == "fill":
        mismatch = abs(math.log((w / h) / (nw / nh)))
        if mismatch > STRETCH_MAX:
            found.add(
                "stretched",
                f"The {_noun(element)} is distorted: a {nw}×{nh} asset is stretched into a "
                f"{round(w)}×{round(h)} slot (aspect {nw / nh:.2f} shown at {w / h:.2f}). Use "
                "object-fit: cover or match the slot's aspect.",
                element.id,
                aspect_mismatch=round(mismatch, 3),
                **evidence,
            )


def _video(element: Element, media: MediaProbe, missing: set[str], found: Findings) -> None:
    video = media.video
    if video is None:
        return
    sources = [s.src for s in video.sources] or ([video.src] if video.src else [])
    kinds = {(s.type or "").split(";")[0] for s in video.sources}
    exts = {PurePosixPath(s.split("?")[0]).suffix.lower() for s in sources}
    if video.error is not None or video.network_state == 3:
        found.add(
            "video-unplayable",
            f"The video cannot play (media error {video.error}, no playable source among "
            f"{len(sources)}).",
            element.id,
            sources=sources[:5],
            error=video.error,
        )
    if sources and "video/webm" not in kinds and ".webm" not in exts:
        found.add(
            "video-format",
            "The video only offers MP4/H.264 (codec unsupported by the QtWebEngine preview); "
            "add a VP9 webm <source> first and keep the mp4 as a fallback.",
            element.id,
            sources=sources[:5],
            types=sorted(k for k in kinds if k),
        )
    poster = video.poster.split("/", 3)[-1] if video.poster else ""
    if poster and any(poster.endswith(m) for m in missing if m):
        found.add(
            "missing-poster",
            f"The video's poster image ({poster}) is missing.",
            element.id,
            poster=poster,
        )


def _frame(element: Element, media: MediaProbe, hung_after: float | None, found: Findings) -> None:
    frame = media.frame
    if not frame.accessible:
        return
    if hung_after is not None and (frame.loaded_at is None or frame.loaded_at >= hung_after):
        found.add(
            "chart-script-hang",
            "The chart's script never finished (an endless loop); the renderer stopped it. "
            "Rewrite the chart page so it draws without waiting in a loop.",
            element.id,
            frame=frame.url,
        )
        return
    _frame_drawn(element, frame, found)
    _frame_size(element, media, found)


def _frame_drawn(element: Element, frame, found: Findings) -> None:
    graphics = [g for g in frame.graphics if g.w >= 2 and g.h >= 2]
    if (not graphics and len(frame.text) < 40) or (graphics and not any(g.drawn for g in graphics)):
        found.add(
            "chart-empty",
            "The chart frame shows no drawn chart (no canvas or svg with content).",
            element.id,
            graphics=len(graphics),
            text=frame.text[:80],
        )
        return
    area = frame.client_w * frame.client_h
    biggest = max((g.w * g.h for g in graphics if g.drawn is not False), default=0)
    if graphics and area > 0 and biggest / area < CHART_FILL_MIN:
        g = max(graphics, key=lambda g: g.w * g.h)
        found.add(
            "chart-undersized",
            f"The chart is drawn at {round(g.w)}×{round(g.h)} px inside a "
            f"{round(frame.client_w)}×{round(frame.client_h)} frame (it was sized while hidden "
            "or before layout); resize it to its container when shown.",
            element.id,
            drawn_px=[round(g.w), round(g.h)],
            frame_px=[round(frame.client_w), round(frame.client_h)],
            fill_share=round(biggest / area, 3),
        )


def _frame_size(element: Element, media: MediaProbe, found: Findings) -> None:
    frame = media.frame
    graphics = [g for g in frame.graphics if g.w >= 2 and g.h >= 2]
    if graphics:  # the chart itself past the frame's edges (hidden sr-only extras do not count)
        over_h = max(g.bottom for g in graphics) - frame.client_h
        over_w = max(g.right for g in graphics) - frame.client_w
    else:
        over_h = frame.scroll_h - frame.client_h
        over_w = frame.scroll_w - frame.client_w
    need_w, need_h = round(frame.client_w + max(0, over_w)), round(frame.client_h + max(0, over_h))
    evidence = {
        "frame_px": [round(frame.client_w), round(frame.client_h)],
        "content_px": [need_w, need_h],
    }
    if max(over_h, over_w) > OVERFLOW_TOLERANCE and frame.uses_vh:
        found.add(
            "chart-overflow",
            f"The chart overflows its frame by {round(max(over_h, over_w))} px: its page is sized "
            "in vh (100vh plus other content). Size the chart 100% of its container.",
            element.id,
            **evidence,
        )
    elif max(over_h, over_w) > OVERFLOW_TOLERANCE or 0 < media.rect.h < FRAME_MIN_H:
        found.add(
            "frame-too-short",
            f"The chart frame is too small for its chart: {round(frame.client_w)}×"
            f"{round(frame.client_h)} px "
            + (f"holds a {need_w}×{need_h} px chart. " if need_h > frame.client_h else "high. ")
            + f"Give the iframe at least {max(FRAME_MIN_H, need_h)} px of height.",
            element.id,
            **evidence,
        )


def _canvas(element: Element, media: MediaProbe, found: Findings) -> None:
    drawn = [media.drawn] if media.tag == "canvas" else [g.drawn for g in media.graphics]
    if drawn and not any(d is not False for d in drawn) and media.hidden is None:
        found.add("chart-empty", "The chart canvas is empty: nothing was drawn.", element.id)


def _noun(element: Element) -> str:
    return f"{element.kind} {element.id}"
