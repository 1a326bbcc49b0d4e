"""Sections keep their items, titles and directives (issue 14, grouped content, nav and layout
directives), on real prompt excerpts of the dev prompts (013, 023, 027, 034, 050, 053, 073, 101,
115, 131)."""

from __future__ import annotations

import pytest

from mmstudio.plan import DesignPlan, Section
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.layout_section import _anchor
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_directives import background_gradient, page_ratio

HEADER = (
    "At the very top, a rigid, full-width horizontal strip forms the header. Its nav lists "
    '"INDEX", "METHODOLOGIES", "FIELD NOTES", "ABOUT".\n\n'
)

METHODS = (
    'Below the index, another section emerges with a slightly jarring design: "METHODOLOGIES". '
    "This heading is set in Impact, but this time, centered and underlined with a thick 4px "
    'black bar. Under the heading, three "method cards" are stacked vertically, but each card '
    "is left-aligned at a slight offset. Each card is a rectangular block with a very light "
    'grey fill. The first card is titled "01. TOOL PATH MAPPING" in uppercase Courier New. '
    'Inside, short sentences explain: "- trace the sequence of tools used on a single piece." '
    'The second card, offset slightly to the right, is titled "02. ERROR ANNOTATION". Its '
    'text: "- treat every mistake as data, not waste." The third card, offset further, is '
    'titled "03. MATERIAL INVENTORY DRIFT". Its text: "- document how off-cuts migrate across '
    'the shop."'
)


def _section(plan: DesignPlan, title: str) -> Section:
    return next(s for s in plan.sections if s.title == title)


def test_ordinal_cards_stay_in_their_section() -> None:
    """013: "The third card, offset further, is titled …" is the section's third card, not a
    section of its own; the nav's “METHODOLOGIES” also heads the section it names."""
    plan = plan_from_prompt(HEADER + METHODS)
    methods = _section(plan, "METHODOLOGIES")
    assert [i.title for i in methods.items] == [
        "01. TOOL PATH MAPPING",
        "02. ERROR ANNOTATION",
        "03. MATERIAL INVENTORY DRIFT",
    ]
    assert "METHODOLOGIES" in plan.sections[0].nav_items
    assert _anchor("METHODOLOGIES", plan) == f"#{methods.id}"


def test_stacked_items_are_one_column() -> None:
    """013 / 034 / 131: "three … cards are stacked vertically" → layout ``column`` (one card a
    row), while "three cards side by side" stays a row or grid."""
    plan = plan_from_prompt(HEADER + METHODS)
    assert _section(plan, "METHODOLOGIES").layout == "column"
    side = METHODS.replace("are stacked vertically", "sit side by side")
    assert _section(plan_from_prompt(HEADER + side), "METHODOLOGIES").layout != "column"


def test_named_section_is_titled_and_kinded() -> None:
    """053: 'there is a “Stories from the Trail” section with a subtle header … three
    testimonial/story cards' is a testimonials section titled by its name."""
    text = (
        "At the very top is a header bar with the logo “Evergreen Guide”.\n\n"
        "Near the bottom of the main card, there is a “Stories from the Trail” section with a "
        "subtle header in 22px serif, dark green, left-aligned. This section showcases three "
        "testimonial/story cards arranged horizontally in a three-column layout."
    )
    section = _section(plan_from_prompt(text), "Stories from the Trail")
    assert section.kind == "testimonials"


def test_second_header_row_joins_the_header() -> None:
    """115: 'Directly below, the main navigation bar appears as a floating pill-shaped strip'
    is the header's second row: its links are nav links, not cards of a section."""
    text = (
        "At the very top, a horizontal strip mimics a slim brushed metal bar running "
        "full-width. The site name reads: “TACTILE FUTURES” in charcoal.\n\n"
        "Directly below, the main navigation bar appears as a floating pill-shaped strip "
        "centered horizontally. It holds the links “Overview”, “Speakers”, “Schedule” and "
        "“Venue”.\n\nThe hero section fills the visible upper half of the page with the "
        "headline “Feel The Screen.”"
    )
    plan = plan_from_prompt(text)
    header = plan.sections[0]
    assert header.kind == "header"
    assert {"Overview", "Speakers", "Venue"} <= set(header.nav_items)
    assert not any(i.title == "Overview" for s in plan.sections for i in s.items)


@pytest.mark.parametrize(
    ("excerpt", "ratio"),
    [  # 101, 050
        (
            "Below the header the page splits into the two main columns. The left column takes "
            "about 60% of the width; the right column about 40%.",
            [60, 40],
        ),
        (
            "Below the top bar, the main content area is divided into an uneven two-column "
            "layout. The left column takes about 60% of the width, and the right column takes "
            "40%.",
            [60, 40],
        ),
        ("The main content area is calm. A card takes 60% of the hero.", []),
    ],
)
def test_page_ratio_from_the_next_clauses(excerpt: str, ratio: list[int]) -> None:
    assert page_ratio(pt.split_units(excerpt)) == ratio


def test_nav_link_finds_the_section_its_copy_names() -> None:
    """027: “Curriculum” names no section title, but the section under “What you’ll learn”
    reads “A structured, incubator-inspired curriculum …”: the link goes there, not to #top;
    “FAQ” goes to the questions section, not to the first plain section."""
    text = (
        "At the very top is a header with navigation links: “Curriculum”, “Founders”, “FAQ”.\n\n"
        "The next section shows the logos of partner teams: “Featherline”, “Atlas & Co”.\n\n"
        "The next section title “What you’ll learn” appears in bold. Under the title is a "
        "description: “A structured, incubator-inspired curriculum, broken into focused "
        "tracks you can layer over your existing work.”\n\n"
        "Near the bottom, an FAQ section titled “Questions, before you commit?” lists answers."
    )
    plan = plan_from_prompt(text)
    learn = _section(plan, "What you’ll learn")
    faq = _section(plan, "Questions, before you commit?")
    assert _anchor("Curriculum", plan) == f"#{learn.id}"
    assert _anchor("FAQ", plan) == f"#{faq.id}"
    assert _anchor("Founders", plan) == "#top"  # nothing on the page names it


def test_monochrome_palette_buttons_wear_the_ink() -> None:
    """013: black text, grey and off-white grounds and a bright yellow hover fill: the buttons
    are black and the accent is the yellow — never the scheme's blue (#2f6fed)."""
    text = (
        "Design a single-page research website in a stark, brutalist style. The background of "
        "the entire page is a solid, slightly warm off-white (#F5F5F0). The primary text color "
        "is pure black (#000000).\n\nAt the very top, a header with a solid grey background "
        "(#E0E0E0). When hovered, the background behind each nav word fills with a flat bright "
        "yellow (#FFE800)."
    )
    roles = {c.role: c.hex for c in plan_from_prompt(text).layout.palette}
    assert roles["primary"] == "#000000"
    assert roles["accent"] == "#ffe800"


def test_illustrated_map_card_is_a_picture() -> None:
    """073: 'place an illustrated map card, like a sketched neighborhood map' is a picture."""
    text = (
        "At the top, a header with the logo “Rooftop Roots”.\n\nThe next section, “How to Find "
        "Our Rooftop”, has directions on the left. On the right, instead of a high-tech map, "
        "place an illustrated map card, like a sketched neighborhood map. The map is a top-down "
        "drawing in muted colors."
    )
    plan = plan_from_prompt(text)
    assert any("map" in image.alt for image in plan.images)


@pytest.mark.parametrize(
    ("sentence", "gradient"),
    [  # 001, 060, 097, 086
        (
            "the header background is a gradient from bubblegum pink (#FF66A3) on the left to "
            "bright tangerine (#FF9E4A) on the right.",
            (90, ["#ff66a3", "#ff9e4a"]),
        ),
        (
            "This card has rounded corners and a background gradient that transitions from soft "
            "lavender at the top-left (#F2E9FF) to pale pink at the bottom-right (#FFE6F0).",
            (135, ["#f2e9ff", "#ffe6f0"]),
        ),
        (
            "The three bars are wide rectangles with no gradient, each a different harsh color: "
            "Local Lineup is neon green (#39ff14), City Hopper is electric blue (#1f5fff).",
            None,
        ),
        (
            "“Start Free Trial” is filled with a vertical gradient from electric purple (#9B5CFF) "
            "at the top to vibrant magenta (#F54FA4) at the bottom, on the header bar.",
            None,
        ),
    ],
)
def test_background_gradient(sentence: str, gradient: tuple | None) -> None:
    assert background_gradient(sentence) == gradient
