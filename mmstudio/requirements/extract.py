"""Requirements from a brief: every pass over the text, in one call, with stable ids.

The reading is the evaluator's own — independent of the planner's parser on purpose, so that the
evaluation does not agree with the planner's mistakes (MM-WebAgent's extraction + completeness
step, arXiv 2604.15309, prompts 17–20).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from functools import lru_cache

from .alike import extract_alike
from .arrangement import extract_arrangement
from .aspect import extract_aspect
from .copy import extract_copy
from .element_colours import extract_element_colours
from .leaks import extract_notes
from .model import Requirement
from .pairs import extract_pairs
from .placement import extract_placement
from .social import extract_social_icons
from .structure import (
    extract_axis_names,
    extract_layout,
    extract_logo_icon,
    extract_media,
    extract_prohibitions,
    extract_sections,
    extract_widgets,
)
from .style import extract_fonts, extract_leaks, extract_palette
from .text import MAX_TEXT
from .typography import extract_typography

log = logging.getLogger(__name__)

Pass = Callable[[str, str], list[Requirement]]


def _data_pass(text: str, source: str) -> list[Requirement]:
    from .charts import extract_data

    return extract_data(text, source)


PASSES: tuple[Pass, ...] = (
    extract_sections,
    extract_copy,
    extract_pairs,
    extract_alike,
    extract_media,
    extract_aspect,
    extract_logo_icon,
    _data_pass,
    extract_axis_names,
    extract_widgets,
    extract_social_icons,
    extract_palette,
    extract_element_colours,
    extract_typography,
    extract_fonts,
    extract_layout,
    extract_placement,
    extract_arrangement,
    extract_prohibitions,
    extract_leaks,
    extract_notes,
)


class ExtractionError(Exception):
    """A pass failed on this text; the message is one line for the report."""


def extract(text: str, source: str = "prompt") -> list[Requirement]:
    """Every requirement of ``text`` (a brief, a turn or a test condition), ids ``<kind>-<n>``.

    Reads at most :data:`~.text.MAX_TEXT` characters. Raises :class:`ExtractionError` when a
    pass fails (the caller reports it in one line and still runs the measured checks)."""
    return list(_cached(text[:MAX_TEXT], source))


@lru_cache(maxsize=64)
def _cached(text: str, source: str) -> tuple[Requirement, ...]:
    started = time.perf_counter()
    found: list[Requirement] = []
    for extract_pass in PASSES:
        try:
            found.extend(extract_pass(text, source))
        except Exception as exc:  # a bug in one pass must not cost the others
            name = getattr(extract_pass, "__name__", "pass")
            raise ExtractionError(f"{name} failed: {type(exc).__name__}: {exc}") from exc
    found = _drop_covered(_drop_prohibited(found))
    counters: dict[str, int] = {}
    prefix = re.sub(r"[^a-z0-9]", "", source.lower())[:12] or "req"
    for req in found:
        counters[req.kind] = counters.get(req.kind, 0) + 1
        req.id = f"{prefix}-{req.kind}-{counters[req.kind]}"
    log.debug("%d requirements in %.3f s", len(found), time.perf_counter() - started)
    return tuple(found)


def _drop_covered(found: list[Requirement]) -> list[Requirement]:
    """Quoted copy that is a chart's title or a dataset's label is checked by the chart or
    data check (drawn in a canvas, it is no page text): one requirement, not two."""
    covered = {
        v.casefold() for r in found if r.kind == "chart" or r.checker == "data"
        for v in (r.label, r.key, *r.values) if v
    }  # fmt: skip
    return [r for r in found if not (r.kind == "copy" and r.key.casefold() in covered)]


def _drop_prohibited(found: list[Requirement]) -> list[Requirement]:
    """A thing both asked for and forbidden (a 'photo' mentioned, 'no photos' said) is
    forbidden: the prohibition is the more specific reading."""
    banned = {r.key for r in found if r.kind == "prohibition"}
    clash = {"video": "video", "image": "photo"}
    return [r for r in found if not (r.kind in clash and clash[r.kind] in banned)]
