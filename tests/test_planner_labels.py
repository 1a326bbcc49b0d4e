"""Labels without the prompt's sentence punctuation (issue 14, defect class 1), on real excerpts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_labels import label_text

BENCH = Path(__file__).resolve().parents[2] / "shared" / "data" / "bench" / "mm_webgen_dev.jsonl"

# dev prompt 065 (header and flavour tiles), abridged around its quotes
CHOCOLATE = (
    "Design a single-page dashboard-style homepage for an “artisan chocolate tutorial "
    "subscription” platform called “CocoaCraft Studio.”\n\n"
    "At the very top, a wooden header bar. To the right of the logo, but still within the wooden "
    "bar, are three navigation buttons: “Dashboard,” “Tutorial Library,” and “My Recipes.” Each "
    "is a pill-shaped button.\n\n"
    "Below, a gallery of flavor tiles shows a glossy chocolate bonbon. Each tile is labeled "
    "beneath it with serif text: “Sea Salt Caramel,” “Hazelnut Gianduja,” “Raspberry Truffle,” "
    "and “Single Origin 70%.” The bonbons have realistic lighting."
)


def _shown(plan: DesignPlan) -> list[str]:
    """Every short string a section shows as a label (nav, buttons, tags, item titles, KPIs)."""
    out: list[str] = []
    for s in plan.sections:
        out += s.nav_items + s.buttons + s.tags + s.headings + [s.title]
        out += [t for i in s.items for t in (i.title, i.label, i.value) if t]
    return [t for t in out if t]


@pytest.mark.parametrize(
    ("raw", "slot", "shown"),
    [
        ("Story,", "nav", "Story"),  # issue 14's own example
        ("My Recipes.", "button", "My Recipes"),
        ("Shop Issue 01,", "nav", "Shop Issue 01"),
        ("Single Origin 70%.", "item", "Single Origin 70%"),
        ("Perfect Snap: Tempering 101,", "heading", "Perfect Snap: Tempering 101"),
        ("30 min.", "paragraph", "30 min"),  # subtext as short as a label
        ("PRIMARY LANGUAGE:", "tag", "PRIMARY LANGUAGE:"),  # a label's colon introduces its value
        ("Avery P.", "attribution", "Avery P."),  # an initial keeps its full stop
        ("Loading...", "tag", "Loading..."),
        ("Level Up Your Creative Superpowers.", "title", "Level Up Your Creative Superpowers."),
        ("We buy from farms we visit.", "paragraph", "We buy from farms we visit."),
        ("Note:", "paragraph", "Note:"),  # running copy may end in a colon
        (",", "tag", ","),  # nothing left: the raw text, not an empty label
    ],
)
def test_label_text(raw: str, slot: str, shown: str) -> None:
    assert label_text(raw, slot) == shown


def test_nav_buttons_and_tiles_drop_the_sentence_marks() -> None:
    shown = _shown(plan_from_prompt(CHOCOLATE))
    for want in ("Dashboard", "Tutorial Library", "My Recipes", "Sea Salt Caramel"):
        assert want in shown
    assert "Single Origin 70%" in shown
    assert not [t for t in shown if re.search(r"[,;]$", t)], shown


def test_dev_prompts_show_no_label_ending_in_a_comma() -> None:
    if not BENCH.is_file():
        pytest.skip(f"needs the dev prompts at {BENCH} (../shared beside the clone)")
    rows = [json.loads(line) for line in BENCH.read_text().splitlines() if line.strip()]
    prompts = {row["id"]: row["prompt"] for row in rows}
    for prompt_id in ("047", "065", "076", "089"):
        stray = [t for t in _shown(plan_from_prompt(prompts[prompt_id])) if t.endswith((",", ";"))]
        assert not stray, (prompt_id, stray)


def test_text_beside_a_picture_is_page_copy_not_words_in_the_picture() -> None:
    plan = plan_from_prompt(  # dev prompts 060 and 101, abridged
        "Design a dashboard called “ColorBloom Studio”.\n\n"
        "At the top right of the header, a circular avatar illustration of a smiling face, and to "
        "the right, the username text “Hey, Luna!” in medium-weight charcoal.\n\n"
        "The hero card holds a whimsical illustration of a paint palette. The text block at the "
        "top-left reads, in big friendly type, “Good morning, Luna!” on one line.\n\n"
        "The gallery shows an illustration of a shop sign reading “OPEN” above a door."
    )
    shown = [
        v
        for s in plan.sections
        for v in (*s.headings, *s.paragraphs, *s.tags, s.title, *[i.title for i in s.items])
    ]
    alts = " ".join(e.alt for e in plan.elements())
    assert "Hey, Luna!" in shown and "— Hey, Luna!" not in alts  # not the picture's words
    assert "Good morning, Luna!" in shown
    assert "OPEN" not in shown and "— OPEN" in alts  # a sign in the picture keeps its words
