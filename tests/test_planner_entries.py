"""The quotes of one counted entry stay in one card (issue 14, grouped content), on real
prompt excerpts."""

from __future__ import annotations

from mmstudio.providers.offline.layout import render_page
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_entries import read_entries

SPEAKERS = (  # dev prompt 023
    "The section “GUEST FACULTY” lists the speakers as a vertical list. The second entry: name "
    "“MARCOS GIMENEZ”; role line: “Independent Art Director, Basel”; description: “Bringing "
    "real-world agency experience, Marcos bridges strict typographic systems with bold client "
    "work.” The third entry: name “AYUMI TAKEDA”; role line: “Interactive Systems Designer, "
    "Tokyo”; description: “Ayumi explores how static grids can inform motionless interfaces and "
    "adaptive layouts without sacrificing clarity.” All text is left-aligned."
)
TIERS = (  # dev prompt 131
    "Tier 1: “BASELINE” features a medium-sized uppercase label, a short description "
    "(“Minimalist essentials for frequent riders who prefer light kits.”), followed by a simple "
    "list of bullet points: “Trail-grade tubes & sealant”, “Core multi-tool”, “Seasonal socks & "
    "hydration”. Tier 2: “ELEVATION” has a short description (“Balanced upgrades for riders who "
    "want more from every ride.”) and bullet points: “High-performance tires”, “Protection "
    "layers”."
)


def test_a_speaker_keeps_name_role_and_description_together() -> None:
    entries = read_entries(SPEAKERS)
    assert [(e.title, e.meta) for e in entries] == [
        ("MARCOS GIMENEZ", "Independent Art Director, Basel"),
        ("AYUMI TAKEDA", "Interactive Systems Designer, Tokyo"),
    ]
    assert entries[1].text.startswith("Ayumi explores how static grids")


def test_a_tier_keeps_its_description_and_bullets() -> None:
    entries = read_entries(TIERS)
    assert [e.title for e in entries] == ["BASELINE", "ELEVATION"]
    assert entries[0].text.startswith("Minimalist essentials")
    assert entries[0].points == ["Trail-grade tubes & sealant", "Core multi-tool",
                                 "Seasonal socks & hydration"]  # fmt: skip
    assert entries[1].points == ["High-performance tires", "Protection layers"]


def test_one_entry_is_no_list_and_buttons_stay_buttons() -> None:
    assert read_entries("The first card: “Solo” with the text “For one person and a laptop.”") == []
    text = (
        "The first card: “Solo”, with a button “Join now”. The second card: “Team”, with a "
        "button “Join now”."
    )
    assert [e.strings() for e in read_entries(text, {"join now"})] == [["Solo"], ["Team"]]


def test_each_speaker_is_one_card_on_the_page() -> None:
    plan = plan_from_prompt("Design a conference page titled “Grid Summit”.\n\n" + SPEAKERS)
    section = next(s for s in plan.sections if any(i.title == "AYUMI TAKEDA" for i in s.items))
    assert "AYUMI TAKEDA" not in section.headings
    html = render_page(plan)
    card = html[html.index("AYUMI TAKEDA") :]
    card = card[: card.index("</li>")]
    assert "Interactive Systems Designer, Tokyo" in card and "Ayumi explores" in card
    assert "MARCOS GIMENEZ" not in card


def test_a_card_described_over_several_sentences_is_one_entry() -> None:
    text = (  # dev prompt 076
        "The second card has a pale mint background with the title “Starloop” in teal. Subtext "
        "reads “Launch animations & Twitch emotes.” The third card has a faded lavender "
        "background with the title “Pixel Paws” in blue, and subtext “App icons & onboarding "
        "scenes.” The thumbnail shows a cat.\nBelow the grid, a note reads “All projects are "
        "samples.”"
    )
    entries = read_entries(text)
    assert [(e.title, e.text) for e in entries] == [
        ("Starloop", "Launch animations & Twitch emotes."),
        ("Pixel Paws", "App icons & onboarding scenes."),
    ]  # the next paragraph's note is no card's
