"""A label the prompt puts above a heading is the section's eyebrow (issue 14, layout
directives), on real prompt excerpts."""

from __future__ import annotations

import pytest

from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.layout import render_page
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_eyebrows import placed_above


def _above(text: str) -> list[str]:
    return [q.text for q in pt.find_all_quotes(text) if placed_above(text, q.start, q.end, q.text)]


@pytest.mark.parametrize(
    ("excerpt", "label"),
    [  # dev prompts 008, 008, 037, 043, 016
        ("At the top-left, aligned to the first column, there is a heading “Field Sites” in bold "
         "26px, black, with a small uppercase label above it: “CURRENT STUDY LOCATIONS”.",
         "CURRENT STUDY LOCATIONS"),
        ("At the very top of this block, in small uppercase type (11px, letter-spaced), sits a "
         "label: “RESEARCH ARCHIVE”. Beneath it, a thin horizontal rule", "RESEARCH ARCHIVE"),
        ("At the top left in small uppercase red text is the label: “PORTFOLIO / VISUAL "
         "SYSTEMS”.", "PORTFOLIO / VISUAL SYSTEMS"),
        ("At the top, the label “LOCATION” in gray uppercase appears, followed by a bold heading "
         "“BASEL, SWITZERLAND”.", "LOCATION"),
        ("At the top-left inside the container, there is a small label in a black box: black "
         "background, white monospaced uppercase text reading “SECTION // ABOUT THE EVENT”.",
         "SECTION // ABOUT THE EVENT"),
    ],
)  # fmt: skip
def test_a_label_above_a_heading_is_found(excerpt: str, label: str) -> None:
    assert _above(excerpt) == [label]


@pytest.mark.parametrize(
    "excerpt",
    [  # dev prompts 023, 097, 108, 079, 040
        "a horizontal red rectangle about 6px tall spanning the card’s width, with a label above "
        "it: “DAY 1 — THEORY”.",
        "At the top right of the chart block: three tiny colored squares with monospaced labels "
        "stacked vertically: “LOCAL LINEUP = ENTRY-LEVEL MONTHLY”, “CITY HOPPER = MULTI-CITY "
        "PASS”, “INFINITE NOISE = UNLIMITED ACCESS”.",
        "At the top left of the frame, overlayed in a small black label box with neon yellow "
        "monospace text, is “LOOPING DEMO REEL”.",
        "At the top right corner of the diagram, a tiny white label on black background says "
        "“DRAFT V1.0”.",
        "a bold heading “Featured Tracks” and a button labeled “Browse all”.",
    ],
)
def test_card_labels_legends_and_overlays_are_no_eyebrow(excerpt: str) -> None:
    assert _above(excerpt) == []


def test_the_eyebrow_is_drawn_above_the_section_title() -> None:
    prompt = (
        "Design a research homepage called “Alpine Ecologies Lab”.\n\n"
        "Below this, there is a section titled “Field Sites” that uses the full width. At the "
        "top-left there is a heading “Field Sites” in bold 26px, black, with a small uppercase "
        "label above it: “CURRENT STUDY LOCATIONS”. To the right, a short text reads: “We "
        "maintain a distributed network of eco-lodge prototypes across alpine regions.”"
    )
    plan = plan_from_prompt(prompt)
    section = next(s for s in plan.sections if s.title == "Field Sites")
    assert section.eyebrow == "CURRENT STUDY LOCATIONS"
    assert "CURRENT STUDY LOCATIONS" not in section.tags
    html = render_page(plan)
    assert html.index("CURRENT STUDY LOCATIONS") < html.index(">Field Sites<")
