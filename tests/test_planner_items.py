"""Fields of one item stay together (issue 14, defect class 3), on real prompt excerpts."""

from __future__ import annotations

import pytest

from mmstudio.plan import DesignPlan, SectionItem
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_items import item_fields


def _fields(text: str) -> list[tuple[str, str, str]]:
    """``(first, role, second)`` for every two-field item the pass finds in ``text``."""
    quotes = pt.find_all_quotes(text)
    return [
        (quotes[i].text, f.role, quotes[f.index].text) for i, f in item_fields(text, quotes).items()
    ]


@pytest.mark.parametrize(
    ("excerpt", "first", "role", "second"),
    [  # dev prompts 089, 101, 060, 076, 016, 008
        ("there are left labels and right values arranged in a two-column grid: “Plan:” with "
         "value “PRO EXCHANGE / 5 SESSIONS / WEEK”, “Languages:” with value “SPANISH”",
         "Plan:", "value", "PRO EXCHANGE / 5 SESSIONS / WEEK"),
        ("The first tile reads “TOTAL MINUTES IN VR”, big number “42 min”, and a tiny caption.",
         "TOTAL MINUTES IN VR", "value", "42 min"),
        ("The fields show prefilled values: under “PRIMARY LANGUAGE:” the field reads “Spanish "
         "(conversation, B2-C1)”; under", "PRIMARY LANGUAGE:", "value",
         "Spanish (conversation, B2-C1)"),
        ("a small-caps label “Altitude” followed by a numeric value like “1,800 m”, then",
         "Altitude", "value", "1,800 m"),
        ("The second card is “Upload new asset” in bold and smaller text under it saying “Add "
         "your sketches or finished illustrations.”", "Upload new asset", "text",
         "Add your sketches or finished illustrations."),
        ("The first is titled “Lagoon Float Ritual”, and beneath in smaller type “Completed · 15 "
         "min”.", "Lagoon Float Ritual", "text", "Completed · 15 min"),
        ("“Refine mascot sketches for ‘Sunny Sips Cafe’” in medium-bold text, with a small gray "
         "subtext line: “Due today • 3 reference images attached.”",
         "Refine mascot sketches for ‘Sunny Sips Cafe’", "text",
         "Due today • 3 reference images attached."),
    ],
)  # fmt: skip
def test_two_fields_of_one_item(excerpt: str, first: str, role: str, second: str) -> None:
    assert (first, role, second) in _fields(excerpt)


@pytest.mark.parametrize(
    "excerpt",
    [  # a new element, a list, a new sentence: dev prompts 076, 001, 065
        "“Recent Sketches” and a small text link aligned right that says “View full gallery →”",
        "a row with “Due Friday • Need color palette ideas,” and a pill label reading “Zine "
        "Collective” at the right",
        "three navigation buttons: “Dashboard,” “Tutorial Library,” and “My Recipes.”",
        "the main headline: “Level Up Your Creative Superpowers.” The first line “Level Up Your” "
        "is in deep violet",
    ],
)
def test_not_one_item(excerpt: str) -> None:
    assert _fields(excerpt) == []


CARDS = (  # dev prompt 101, abridged
    "Design a whimsical dashboard-style homepage called “Cloud Lagoon”.\n\n"
    "Below the hero, a stats strip shows three KPI tiles: the first reads “TOTAL MINUTES IN VR”, "
    "big number “42 min”; the second reads “FOCUS SCORE”, big number “87”.\n\n"
    "Next, a recent sessions list holds two cards. The first is titled “Lagoon Float Ritual”, "
    "and beneath in smaller type “Completed · 15 min”. The second is “Crystal Cavern "
    "Breathwork”, with text “Completed · 20 min”."
)


def _items(plan: DesignPlan) -> list[SectionItem]:
    return [i for s in plan.sections for i in s.items]


def test_fields_reach_one_item_of_the_plan() -> None:
    items = _items(plan_from_prompt(CARDS))
    assert ("TOTAL MINUTES IN VR", "42 min") in [(i.label, i.value) for i in items]
    assert ("FOCUS SCORE", "87") in [(i.label, i.value) for i in items]
    pairs = [(i.title, i.text) for i in items]
    assert ("Lagoon Float Ritual", "Completed · 15 min") in pairs
    assert ("Crystal Cavern Breathwork", "Completed · 20 min") in pairs
