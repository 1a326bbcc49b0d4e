"""Buttons in the prompt's colours, prices in the place's currency (issue 14, class 6)."""

from __future__ import annotations

import pytest

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline import vocabulary
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_currency import currency_for

DEFAULT_BLUES = {"#2f6fed", "#4f8cff"}  # the light and dark schemes' primary


def _role(plan: DesignPlan, role: str) -> str | None:
    return plan.layout.color(role)


def test_an_accent_hex_lends_itself_to_the_buttons() -> None:
    plan = plan_from_prompt(  # dev prompt 060, abridged
        "Design a playful, two-column dashboard homepage called “ColorBloom Studio”. The page "
        "sits on a soft cream background (#FFF8F0). Headings are in deep charcoal (#333333). "
        "Accents use a bright playful coral (#FF6F61) for highlights and calls to action."
    )
    assert _role(plan, "accent") == "#ff6f61"
    assert _role(plan, "primary") == "#ff6f61"


def test_a_button_colour_named_in_words_becomes_primary() -> None:
    plan = plan_from_prompt(  # dev prompt 101, abridged: colours in words only
        "Imagine a whimsical dashboard-style homepage called “Cloud Lagoon” on a pale lavender "
        "background. Beneath the text is a row of two buttons. The left button is a large "
        "rounded pill, filled with coral, with white text “Start Quick Session”."
    )
    assert _role(plan, "primary") == vocabulary.NAMED_COLORS["coral"]


def test_the_prompts_own_hex_wins_over_the_colour_word() -> None:
    plan = plan_from_prompt(  # dev prompt 001, abridged
        "Design a playful event landing page titled “Pixel Pop Creative Camp 2025”. Highlights "
        "use a bubblegum pink (#FF66A3). The hero has a pink button “Get Early-Bird Tickets”."
    )
    primary = next(c for c in plan.layout.palette if c.role == "primary")
    assert (primary.hex, primary.name) == ("#ff66a3", "bubblegum pink")


def test_no_colour_at_all_keeps_the_scheme() -> None:
    plan = plan_from_prompt("A landing page for a bakery with a hero photo and a menu.")
    assert _role(plan, "primary") in DEFAULT_BLUES


@pytest.mark.parametrize(
    ("prose", "symbol"),
    [
        ("A landing page for a small bakery in Leeds with a menu of breads.", "£"),
        ("An event page for a design festival in Lisbon, with tickets.", "€"),
        ("A shop page for a tea house in Kyoto.", "¥"),
        ("Tickets start at €25 for a club night in London.", "€"),  # a written price wins
        ("An Italian restaurant in Chicago with a menu of pastas.", "$"),  # cuisine, not place
        ("A landing page for a bakery with a menu of breads.", "$"),
    ],
)
def test_sample_prices_take_the_places_currency(prose: str, symbol: str) -> None:
    assert currency_for(prose) == symbol


def test_a_short_brief_in_leeds_prices_in_pounds() -> None:
    plan = plan_from_prompt(
        "A landing page for a small neighbourhood bakery in Leeds called Crumb & Co. with a hero "
        "photo, a menu of breads with prices, opening hours and a contact form."
    )
    prices = [i.value for s in plan.sections for i in s.items if i.value]
    assert prices and all(p.startswith("£") for p in prices)


def test_a_pale_accent_does_not_become_the_button_colour() -> None:
    plan = plan_from_prompt(  # dev prompt 027, abridged: the accent role is a pale grey
        "Design a minimal, airy landing page called “Seedline” on white (#FFFFFF) with soft "
        "gray accent panels (#F5F5F5). Buttons are filled forest green (#1F5C4D) with white text."
    )
    assert _role(plan, "primary") == "#1f5c4d"
