"""Short briefs that quote some copy: the parts they name in plain words are still planned
(issue 14; the newcomer's three briefs)."""

from __future__ import annotations

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline import planner_data as data
from mmstudio.providers.offline.planner import find_title, plan_from_prompt

BIKE = (
    "A one-page site for Rosa's Bike Repair, a small bike workshop in Leeds. Warm palette: cream "
    "background #FFF8EE, dark green text #1F3B2D and terracotta buttons #C8553D. Top navigation "
    'menu with "Services", "Prices", "Book a repair". Hero with a photo of a mechanic fixing a '
    'bicycle and the headline "Back on the road by Friday". A price list: Puncture fix £12, Full '
    'service £65, Brake tune £20. A bar chart titled "Repairs per month" with data Jan 40, Feb 52, '
    "Mar 61, Apr 75. Finish with a contact form and a footer with opening hours."
)
PORTFOLIO = (
    "A minimal portfolio for Lena Ortiz, a freelance product photographer. Black and white with "
    "one accent colour #E4572E, lots of whitespace, serif headings in Playfair Display. A big hero "
    "with her name, a grid of six project photos (ceramics, watches, sneakers, perfume, coffee, "
    'lamps), a short about section with her portrait, client logos, and a "Get in touch" button. '
    "No videos."
)
DASHBOARD = (
    "A dark analytics dashboard for a small online plant shop called Leafy. Left sidebar "
    'navigation with "Overview", "Orders", "Customers", "Settings". Four KPI tiles at the top: '
    'Revenue $12,480, Orders 318, Conversion 3.2%, Avg order $39. A line chart "Weekly revenue" '
    "with Mon 1500, Tue 1720, Wed 1610, Thu 1980, Fri 2400, Sat 2750, Sun 2520 and a donut chart "
    '"Sales by category" with Indoor 45, Outdoor 30, Pots 25. A table of recent orders below. '
    "Sticky header with a search box."
)


def _kinds(plan: DesignPlan) -> list[str]:
    return [s.kind for s in plan.sections]


def test_title_is_the_business_not_a_chart_title() -> None:
    assert find_title(BIKE) == "Rosa's Bike Repair"
    assert find_title(PORTFOLIO) == "Lena Ortiz"
    assert find_title(DASHBOARD) == "Leafy"
    # a page named "titled …" in its opening line still is
    assert find_title('A landing page titled "Tide" with a hero.') == "Tide"


def test_listed_pairs_read_labels_with_values_as_written() -> None:
    kpis = "Four KPI tiles at the top: Revenue $12,480, Orders 318, Conversion 3.2%, Avg order $39."
    assert data.listed_pairs(kpis) == [
        ("Revenue", "$12,480"),
        ("Orders", "318"),
        ("Conversion", "3.2%"),
        ("Avg order", "$39"),
    ]
    assert data.listed_pairs("one number 40 only") == []
    first_run = data.listed_data(
        "with Mon 1500, Tue 1720 and a donut chart with Indoor 45, Pots 25"
    )
    assert first_run is not None and first_run.rows == [["Mon", 1500], ["Tue", 1720]]


def test_bike_brief_keeps_price_list_chart_data_form_and_footer() -> None:
    plan = plan_from_prompt(BIKE)
    assert plan.title == "Rosa's Bike Repair"
    kinds = _kinds(plan)
    assert {"pricing", "charts", "form", "footer"} <= set(kinds) and kinds[-1] == "footer"
    pricing = next(s for s in plan.sections if s.kind == "pricing")
    assert [(i.title, i.value) for i in pricing.items] == [
        ("Puncture fix", "£12"), ("Full service", "£65"), ("Brake tune", "£20")
    ]  # fmt: skip
    (chart,) = plan.charts
    assert chart.title == "Repairs per month" and chart.attributes.chart_type == "bar"
    assert not chart.source_data.synthesized
    assert chart.source_data.rows == [["Jan", 40], ["Feb", 52], ["Mar", 61], ["Apr", 75]]
    header = plan.sections[0]
    assert header.nav_items == ["Services", "Prices", "Book a repair"]
    footer = plan.sections[-1]
    assert any("Friday" in i.title or "Saturday" in i.title for i in footer.items)  # hours


def test_portfolio_brief_keeps_gallery_about_portrait_and_logos() -> None:
    plan = plan_from_prompt(PORTFOLIO)
    assert plan.title == "Lena Ortiz" and not plan.videos
    gallery = [i for i in plan.images if i.context.section == "gallery"]
    assert len(gallery) == 6
    assert "watches" in gallery[1].prompt and "lamps" in gallery[5].prompt
    about = next(s for s in plan.sections if s.title == "About")
    assert any(i.context.section == about.id for i in plan.images)  # her portrait
    assert any(s.title == "Clients" for s in plan.sections)


def test_dashboard_brief_keeps_kpis_charts_from_data_and_table() -> None:
    plan = plan_from_prompt(DASHBOARD)
    stats = next(s for s in plan.sections if s.kind == "stats")
    assert [(i.label, i.value) for i in stats.items][:2] == [
        ("Revenue", "$12,480"),
        ("Orders", "318"),
    ]
    by_title = {c.title: c for c in plan.charts}
    line, donut = by_title["Weekly revenue"], by_title["Sales by category"]
    assert line.attributes.chart_type == "line"
    assert donut.attributes.chart_type == "donut"
    assert len(line.source_data.rows) == 7 and line.source_data.rows[-1] == ["Sun", 2520]
    assert donut.source_data.rows == [["Indoor", 45], ["Outdoor", 30], ["Pots", 25]]
    assert "table" in _kinds(plan)
    header = plan.sections[0]
    assert header.nav_items == ["Overview", "Orders", "Customers", "Settings"]
    assert "Weekly revenue" not in header.tags


def test_a_banned_chart_is_not_added_back() -> None:
    plan = plan_from_prompt(BIKE + " No charts anywhere.")
    assert not plan.charts


def test_an_untitled_chart_is_titled_by_what_it_shows():
    """ "A bar chart of students per month (Jan 6, …)" was titled "Chart"."""
    import asyncio

    from mmstudio.providers.offline.designer import OfflineDesigner

    brief = (
        'A website for "Fernhill Pottery Studio" with the nav links "Classes" and "Contact". '
        "A bar chart of students per month (Jan 6, Feb 8, Mar 10, Apr 12)."
    )
    plan = asyncio.run(OfflineDesigner().plan(brief))
    (chart,) = plan.charts
    assert chart.title == "Students per month"
    assert chart.source_data.rows == [["Jan", 6], ["Feb", 8], ["Mar", 10], ["Apr", 12]]
