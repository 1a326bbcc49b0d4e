"""Sections keep their items, titles and directives (issue 14, grouped content, nav and layout
directives), on real prompt excerpts of the dev prompts (013, 023, 027, 034, 047, 050, 053, 073,
101, 111, 115, 131)."""

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


JOURNAL = (  # 047
    "Further down, there is an “Excerpts from the journal” section styled like a list of "
    "abstracts from an academic journal but with a lifestyle twist. At the top, centered in the "
    "column, a small horizontal decorative line in muted gold sits above the title text “From "
    "the Journal.” Under that, three short snippets stacked vertically. Each snippet begins "
    "with a small, uppercase sans-serif date in muted gray, e.g., “JANUARY 2025.”"
)
LIBRARY = (  # 047
    "Below the journal excerpts, include a quiet “Library” section highlighting three types of "
    "resources the institute maintains, again in a single column but with delicate column-like "
    "illusions. The section heading reads “Library of calm practices” in serif, with a small "
    "sans subtitle beneath: “A curated set of references from spa culture, studio practice, and "
    "organizational science.”"
)
TICKETS = (  # 111
    "Finally, create a prominent “Tickets & Call to Action” section towards the bottom, "
    "centered and clearly focal but still integrated into the layered design. In the middle, a "
    "large central panel appears, slightly elevated with strong neon edges. Below, in large, "
    "bold white text, the headline reads: “Secure your portal into NEON FLOW”. The left card, "
    "labeled “Standard Entry”, shows in larger text “¥18,000” and describes: “One session of "
    "your choice, ambient gallery access, and ceremonial tea ritual.” The middle card is "
    "labeled “Full Journey” with “¥29,000” and description: “Access to all three sessions.”"
)


@pytest.mark.parametrize(
    ("excerpt", "title", "eyebrow", "kind"),
    [
        (JOURNAL, "From the Journal", "Excerpts from the journal", None),
        (LIBRARY, "Library of calm practices", "Library", None),
        (TICKETS, "Secure your portal into NEON FLOW", "", "pricing"),
    ],
)
def test_named_section_keeps_its_own_heading(
    excerpt: str, title: str, eyebrow: str, kind: str | None
) -> None:
    """047 / 111: a “…” section whose sentences give its heading ('the title text “From the
    Journal.”', 'the headline reads: “Secure …”') is titled by that heading; its name is the
    label above it, or — built on a component's name (“… Call to Action”) — is not shown."""
    plan = plan_from_prompt("At the very top is a header bar with the logo “Atlas”.\n\n" + excerpt)
    section = _section(plan, title)
    assert section.eyebrow == eyebrow
    shown = [section.title, section.eyebrow, *section.headings, *section.paragraphs, *section.tags]
    assert "Tickets & Call to Action" not in shown
    if kind:
        assert section.kind == kind


def test_faq_segment_below_a_section_opens_its_own() -> None:
    """111: 'Below location, place a subtle FAQ-like segment …' starts a new section: the
    FAQ's heading “Before you arrive” does not head the location section above it."""
    text = (
        "At the very top is a header bar with the logo “NEON FLOW”.\n\n"
        "Descending further, create an immersive, almost full-width “Location & Atmosphere” "
        "section with a strong visual. At the top of the card is the heading “Skyhaven Gallery” "
        "in white.\n\n"
        "Below location, place a subtle FAQ-like segment. The section heading, centered, reads "
        "“Before you arrive” in white. Underneath, three questions appear as bars, such as "
        "“What should I bring?”, “Is this beginner-friendly?”, “What should I wear?”"
    )
    plan = plan_from_prompt(text)
    assert _section(plan, "Location & Atmosphere").eyebrow == ""
    assert _section(plan, "Before you arrive")


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
