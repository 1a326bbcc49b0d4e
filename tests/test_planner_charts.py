"""Charts as the prompt asks (issue 14, defect class 4): one gauge per gauge it names."""

from __future__ import annotations

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline.planner import plan_from_prompt

# dev prompt 135, abridged: its gauge sentence and the dataset table under it
GAUGES = (
    "Design a full-screen dark-themed “NovaQuest Live Ops Control Center” dashboard for a mobile "
    "game studio. In the center top, create a large numeric highlight labeled “Total Revenue "
    "Today (USD)” showing a big, bright figure (e.g., 1,938,272) and directly to its right three "
    "circular mini-gauges for high-level monetization health: “ARPU”, “Payer Conversion”, and "
    "“Retention D1”, each showing a percentage ring with the current value in the center (e.g., "
    "80%, 7.3%, 30%).\n\n"
    "### Dataset\n\n"
    "**Revenue Highlight and Monetization Gauges**\n\n"
    "| Metric              | Value     |\n"
    "|---------------------|-----------|\n"
    "| Total Revenue Today | 1938272   |\n"
    "| ARPU                | 80%       |\n"
    "| Payer Conversion    | 7.3%      |\n"
    "| Retention D1        | 30%       |\n"
)


def _gauges(plan: DesignPlan) -> list[tuple[str, list]]:
    return [
        (c.title, c.source_data.rows) for c in plan.charts if c.attributes.chart_type == "gauge"
    ]


def test_each_named_gauge_is_its_own_chart_with_its_row() -> None:
    assert _gauges(plan_from_prompt(GAUGES)) == [
        ("ARPU", [["ARPU", 80]]),
        ("Payer Conversion", [["Payer Conversion", 7.3]]),
        ("Retention D1", [["Retention D1", 30]]),
    ]


def test_the_row_no_gauge_names_is_a_kpi_under_the_prompts_label() -> None:
    plan = plan_from_prompt(GAUGES)
    items = [(i.label, i.value) for s in plan.sections for i in s.items]
    assert ("Total Revenue Today (USD)", "1,938,272") in items
    headings = [h for s in plan.sections for h in (s.title, *s.headings)]
    assert "Total Revenue Today (USD)" not in headings  # said once, over its number


def test_a_single_gauge_keeps_its_table() -> None:
    prompt = GAUGES.replace(
        "three circular mini-gauges for high-level monetization health: “ARPU”, “Payer "
        "Conversion”, and “Retention D1”,",
        "one circular gauge for monetization health,",
    )
    gauges = _gauges(plan_from_prompt(prompt))
    assert len(gauges) == 1 and len(gauges[0][1]) == 4


def test_an_untitled_chart_is_titled_by_everything_it_compares():
    """The demo's chart was titled "Sweetness" (the first of the three measures it compares)."""
    from mmstudio.providers.offline.planner_assembly import _shows

    lead = "a bar chart comparing the sweetness, acidity and body scores (0–10) of our origins"
    assert _shows(lead) == "Sweetness, acidity and body scores"
    assert _shows("a line chart showing weekly visits, with a legend") == "Weekly visits"
    assert _shows("a bar chart of students per month (Jan 6, Feb 9)") == "Students per month"
