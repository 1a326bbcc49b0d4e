"""Fields of one item stay together (issue 14, defect class 3), on real prompt excerpts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mmstudio.plan import DesignPlan, SectionItem
from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.layout import render_page
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.providers.offline.planner_items import item_fields
from mmstudio.providers.offline.planner_pricing import read_plans
from mmstudio.providers.offline.planner_schedule import read_rows

BENCH = Path(__file__).resolve().parents[2] / "shared" / "data" / "bench" / "mm_webgen_dev.jsonl"


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


PRICING = (  # dev prompt 027, abridged
    "Design a minimal landing page called “Seedline”.\n\n"
    "Next, a pricing section returns to a centered grid. At the top center, the title “Choose a "
    "simple subscription” is in dark gray. Beneath this, two vertical pricing cards sit "
    "side-by-side. The left card is titled “Solo” in small uppercase gray text. Beneath the "
    "title, the price is shown in large, bold forest green: “$19 / month”. Below the price, in "
    "smaller text: “For individual founders learning at their own pace.” Under that, a short "
    "list of benefits in bullet form: “Access to all tutorials”, “Weekly founder prompts”. A "
    "slim, outlined button at the bottom says “Start trial” in forest green text. The right "
    "card is labeled “Studio (up to 5 seats)” with the price “$49 / month” in bold forest "
    "green. Below: “For small product teams and studios.” Benefits listed: “Everything in "
    "Solo”, “Shared workspace & notes”. At the bottom of this card, a filled forest green "
    "button reads “Start team trial” in white.\n\n"
    "After pricing, a FAQ section. Example questions and answers: “Can I switch plans later?” "
    "with answer: “Yes. You can upgrade or downgrade between Solo and Studio at any time.”"
)


def test_each_pricing_plan_is_one_card() -> None:
    section = PRICING[PRICING.index("Next, a pricing") : PRICING.index("After pricing")]
    cards = [(p.name, p.price, p.line, p.features) for p in read_plans(section)]
    assert cards == [
        ("Solo", "$19 / month", "For individual founders learning at their own pace.",
         ["Access to all tutorials", "Weekly founder prompts"]),
        ("Studio (up to 5 seats)", "$49 / month", "For small product teams and studios.",
         ["Everything in Solo", "Shared workspace & notes"]),
    ]  # fmt: skip


def test_one_price_is_no_plan_grid() -> None:
    one = PRICING[: PRICING.index("The right card")]
    assert read_plans(one) == []


@pytest.fixture(scope="module")
def plan_027() -> DesignPlan:
    if not BENCH.is_file():
        pytest.skip(f"needs the dev prompts at {BENCH} (../shared beside the clone)")
    rows = [json.loads(line) for line in BENCH.read_text().splitlines() if line.strip()]
    return plan_from_prompt(next(r["prompt"] for r in rows if r["id"] == "027"))


def test_027_plans_are_cards_and_the_section_keeps_its_copy(plan_027: DesignPlan) -> None:
    pricing = next(s for s in plan_027.sections if s.kind == "pricing")
    assert [(i.title, i.value, len(i.points)) for i in pricing.items] == [
        ("Solo", "$19 / month", 3),
        ("Studio (up to 5 seats)", "$49 / month", 4),
    ]
    assert pricing.title == "Choose a simple subscription"
    assert set(pricing.buttons) == {"Start trial", "Start team trial"}
    assert not {"Solo", "$19 / month", "$49 / month"} & set(pricing.headings + pricing.tags)


def test_027_a_plan_card_renders_name_price_line_and_points(plan_027: DesignPlan) -> None:
    html = render_page(plan_027)
    start = html.index(">Solo</h3>")
    body = html[start : html.index("</li>\n", html.index("</ul>", start))]
    assert body.index("Solo") < body.index("$19 &#47; month") < body.index("For individual")
    assert "<li>Access to all tutorials</li>" in body


SCHEDULE = (  # dev prompt 016, abridged
    "Inside, horizontal lines create rows, each representing a time slot. Example rows: at "
    "“19:00” the text reads “DOORS OPEN + LOBBY INSTALLATION: ‘NEBULA ENTRANCE’” in uppercase; a "
    "smaller subline beneath it in lighter gray: “The main hall becomes a swirling projected "
    "starfield, built from live visitor data.” At “20:00” the row text: “TALK: ‘WHY GLITCHES "
    "MATTER’ — DR. ALMA REYES (MAIN THEATER)”, with a subline in gray: “A 20-minute thunder talk "
    "with zero bullet points.” At “21:00”: “PLAY SESSION: ‘PARTICLE PANIC’ MULTIPLAYER GAME — "
    "GAME ARCADE”; 22:00: “LIVE 3D PRINT DEMO: GENERATIVE CITYSCAPE (PRINT LAB)”."
)


def test_each_time_keeps_its_session_and_subline() -> None:
    rows = [(r.time, r.title[:18], r.text[:20]) for r in read_rows(SCHEDULE)]
    assert rows == [
        ("19:00", "DOORS OPEN + LOBBY", "The main hall become"),
        ("20:00", "TALK: ‘WHY GLITCHE", "A 20-minute thunder "),
        ("21:00", "PLAY SESSION: ‘PAR", ""),
        ("22:00", "LIVE 3D PRINT DEMO", ""),
    ]


def test_times_inside_sessions_are_no_rows() -> None:
    text = (  # dev prompt 089: the times belong to the sessions' own words
        "“Queued sessions” listing three items: “Tomorrow 07:00 — @ken_ja — Japanese,” “Wed "
        "19:30 — @lena_de — German,” “Fri 21:00 — @ana_br — Portuguese (trial).”"
    )
    assert read_rows(text) == []


def test_016_schedule_rows_reach_the_plan() -> None:
    if not BENCH.is_file():
        pytest.skip(f"needs the dev prompts at {BENCH} (../shared beside the clone)")
    rows = [json.loads(line) for line in BENCH.read_text().splitlines() if line.strip()]
    plan = plan_from_prompt(next(r["prompt"] for r in rows if r["id"] == "016"))
    timeline = next(s for s in plan.sections if s.kind == "timeline")
    times = [i.meta for i in timeline.items if i.meta]
    assert times == ["19:00", "20:00", "21:00", "22:00", "23:00", "00:30", "01:30"]
    assert not {"19:00", "20:00"} & set(timeline.headings)
