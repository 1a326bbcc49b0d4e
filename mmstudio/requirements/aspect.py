"""Aspect ratios the brief gives a picture or a video ("a small rectangular image with a 3:2
aspect ratio", "the frame has … a 3:4 vertical aspect ratio"), checked on the boxes a visitor
sees (the displayed box, not the file: a cover crop shows the box's shape)."""

from __future__ import annotations

import re

from mmstudio.render.facts import PageFacts

from .model import Requirement, RequirementResult
from .structure import section_at
from .text import span, vocabulary, without_quotes, words_pattern

_RATIO = re.compile(
    r"\b(\d{1,2})\s?:\s?(\d{1,2})\s+(?:(?:vertical|horizontal|portrait|landscape|wide)\s+)?"
    r"(?:aspect\s+)?ratio\b|\baspect\s+ratio\s+(?:of\s+)?(\d{1,2})\s?:\s?(\d{1,2})\b",
    re.I,
)
#: the box may differ this much from the asked ratio (w/h, relative) — a 3:2 box drawn 300×196
TOLERANCE = 0.08
_EVERY = re.compile(r"\b(?:each|every|all)\b", re.I)


def extract_aspect(text: str, source: str = "prompt") -> list[Requirement]:
    """One ``image`` or ``video`` requirement (checker ``aspect``) per ratio the brief gives a
    picture or a video; ``ratio`` is [w, h], ``label`` the section it is described in, ``role``
    ``every`` when each picture of that section must have it."""
    plain = without_quotes(text)
    vocab = vocabulary()
    media = words_pattern([*vocab["image_words"], *vocab["video_words"]])
    videos = {w.lower() for w in vocab["video_words"]}
    found: list[Requirement] = []
    for m in _RATIO.finditer(plain):
        w, h = (int(g) for g in (m.group(1, 2) if m.group(1) else m.group(3, 4)))
        mentions = list(media.finditer(plain[max(0, m.start() - 300) : m.start()]))
        if not w or not h or not mentions:
            continue
        kind = "video" if mentions[-1].group(0).lower() in videos else "image"
        sentence = plain[plain.rfind(".", 0, m.start()) + 1 : m.start()]
        label, titles = section_at(text, m.start())
        found.append(
            Requirement(
                id="",
                kind=kind,
                key=f"{w}:{h}",
                checker="aspect",
                ratio=[float(w), float(h)],
                # "each card's image": each in that section; with no section named, one will do
                role="every" if label and _EVERY.search(sentence) else "",
                label=label,
                values=titles,
                text=f"{'Video' if kind == 'video' else 'Pictures'} at {w}:{h}",
                span=span(text, m.start(), m.end(), source),
                severity="minor",
            )
        )
    return found


def check_aspect(req: Requirement, facts: PageFacts) -> RequirementResult:
    """The videos (or pictures) of the section: one of them (``every``: each) within
    :data:`TOLERANCE` of the asked ratio; unchecked when the section or the media are absent
    (the section and media requirements report those)."""
    from .checks import find_section

    scope = find_section(req.label, facts, req.values) if req.label else None
    if req.label and scope is None:
        return RequirementResult.of(req, "unchecked", "the section is not on the page")
    boxes = [v.rect for v in facts.videos] if req.kind == "video" else [
        p.rect for p in facts.pictures if p.rect.w * p.rect.h >= 4000
    ]  # fmt: skip
    if scope is not None:
        top, bottom = scope.rect.y, scope.rect.y + scope.rect.h
        boxes = [b for b in boxes if top <= b.y + b.h / 2 < bottom]
    if not boxes:
        return RequirementResult.of(req, "unchecked", f"no {req.kind} to measure there")
    want = req.ratio[0] / req.ratio[1]
    fits = [abs(b.w / max(b.h, 1) - want) / want <= TOLERANCE for b in boxes]
    if all(fits) or (any(fits) and req.role != "every"):
        return RequirementResult.of(req, "pass", f"{sum(fits)} of {len(fits)} at {req.key}")
    shown = ", ".join(
        f"{round(b.w)}×{round(b.h)}" for b, ok in zip(boxes, fits, strict=True) if not ok
    )
    msg = f"{req.key} asked; shown {shown}"
    return RequirementResult.of(req, "fail", msg, found=shown)
