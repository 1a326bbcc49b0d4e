"""Charts and datasets read from a prompt, and their check on hand-built page facts (no browser).

The prompt excerpts are copied from MM-WebGEN-Bench dev prompts 147, 135, 139, 089 and 092.
"""

from __future__ import annotations

import pytest

from mmstudio.render.facts import ChartFact, PageFacts
from mmstudio.requirements.charts import check_data, extract_data, page_types
from mmstudio.requirements.datasets import find_tables, number_shown, parse_number, shown_numbers

P147 = """Design a dark-themed “PulseTrack Weekly Activity Dashboard” for a fitness app. Directly \
beneath the header, create a row of five prominent KPI tiles with large numeric values and smaller \
labels: “Total Steps This Week,” “Active Minutes,” “Workouts Completed,” “Calories Burned,” and \
“Distance Covered (km).” The central body is divided into three main columns: the left column’s \
top panel is a wide multi-line chart titled “Hourly Activity Intensity Today,” plotting smoothed \
curves for “Steps,” “Active Minutes,” and “Calories Burned” across the 24 hours, with small \
summary counters above the chart indicating today’s totals for each metric; directly under it, \
add a grouped bar chart titled “Workout Types by Day,” comparing counts of “Cardio,” “Strength,” \
“Yoga,” and “Other” for each weekday. The middle column’s top panel is a donut chart titled “Goal \
Completion Breakdown,” segmenting the proportion of completion for “Steps Goal,” “Workout Goal,” \
“Calories Goal,” “Distance Goal,” and “Active Minutes Goal,” with a legend on the right. The right \
column’s top panel is a vertical scrollable list of horizontal progress bars titled “Last Hour \
Activity by Device,” where each row shows a connected device name; at the bottom of this column, \
include a panel titled “Friends Leaderboard (This Week)” listing friend display names.

### Dataset

**KPI Tiles**

| Metric                    | Value   |
|---------------------------|---------|
| Total Steps This Week     | 74215   |
| Active Minutes            | 536     |
| Workouts Completed        | 9       |
| Calories Burned           | 18240   |
| Distance Covered (km)     | 58.3    |

**Hourly Activity Intensity Today**

| Hour | Steps | Active Minutes | Calories Burned |
|------|-------|----------------|-----------------|
| 0    | 120   | 2              | 45              |
| 2    | 80    | 1              | 30              |
| 4    | 60    | 1              | 25              |
| 6    | 950   | 10             | 110             |
| 8    | 2200  | 18             | 185             |
| 10   | 1800  | 15             | 160             |

**Workout Types by Day**

| Day      | Cardio | Strength | Yoga | Other |
|----------|--------|----------|------|-------|
| Monday   | 2      | 1        | 0    | 0     |
| Tuesday  | 1      | 1        | 1    | 0     |
| Wednesday| 2      | 0        | 1    | 1     |
| Thursday | 1      | 1        | 0    | 1     |
| Friday   | 2      | 1        | 1    | 0     |
| Saturday | 3      | 1        | 1    | 1     |
| Sunday   | 1      | 0        | 1    | 0     |

**Goal Completion Breakdown**

| Goal                | Completion (%) |
|---------------------|----------------|
| Steps Goal          | 92             |
| Workout Goal        | 75             |
| Calories Goal       | 88             |
| Distance Goal       | 81             |
| Active Minutes Goal | 95             |

**Last Hour Activity by Device**

| Device Name       | Steps (last hour) | Target Steps (hour) |
|-------------------|-------------------|---------------------|
| Phone Tracker     | 1380              | 1500                |
| Smartwatch Alpha  | 990               | 1500                |
| Chest Strap Pro   | 570               | 1200                |

**Friends Leaderboard (This Week)**

| Friend Name | Total Steps | Progress vs You (%) |
|-------------|-------------|---------------------|
| Alex R.     | 80120       | 108                 |
| Jamie K.    | 76950       | 104                 |
| Taylor S.   | 73210       | 99                  |
"""

P135 = """In the center top, create a large numeric highlight labeled “Total Revenue Today (USD)” \
showing a big, bright figure (e.g., 1,938,272) and directly to its right three circular \
mini-gauges for high-level monetization health: “ARPU”, “Payer Conversion”, and “Retention D1”, \
each showing a percentage ring with the current value in the center (e.g., 80%, 7.3%, 30%). Under \
these tiles, place a radar (spider) chart titled “Game Health Profile” with five axes labeled \
“Engagement”, “Monetization Depth”, “Content Freshness”, “Technical Stability”, and “Community \
Activity”. Finally, in the lower right corner, add a vertical ranking panel titled “Top \
Revenue-Generating Countries Today” displaying a horizontal bar chart-style list with ranks 1–5.

### Dataset

**Revenue Highlight and Monetization Gauges**

| Metric              | Value     |
|---------------------|-----------|
| Total Revenue Today | 1938272   |
| ARPU                | 80%       |
| Payer Conversion    | 7.3%      |
| Retention D1        | 30%       |

**Game Health Profile (Radar Chart)**

| Dimension             | Current Week | Previous Week |
|-----------------------|--------------|---------------|
| Engagement            | 82           | 78            |
| Monetization Depth    | 76           | 72            |
| Content Freshness     | 88           | 80            |

**Top Revenue-Generating Countries Today**

| Rank | Country      | Revenue (USD) |
|------|--------------|---------------|
| 1    | United States| 520000        |
| 2    | Japan        | 410000        |
"""

P089 = """Directly beneath this stats section is a data visualization panel. This panel has a \
simple white background, a thick black border, and the title “SPEAKING MINUTES / LAST 7 DAYS” at \
the top in uppercase monospaced font. Inside, there is a hand-drawn-looking bar chart occupying \
most of the width. The X-axis is a straight, bold black line with 7 tick labels: “Mon”, “Tue”, \
“Wed”, “Thu”, “Fri”, “Sat”, “Sun” in small uppercase. Every visible text string is exactly as \
quoted above, and the chart should correspond precisely to the dataset below.

### Dataset
| Day | SpeakingMinutes |
|-----|-----------------|
| Mon | 30              |
| Tue | 45              |
| Wed | 60              |
| Thu | 50              |
| Fri | 20              |
| Sat | 70              |
| Sun | 40              |
"""

P092 = """On the right column, present a static, precise bar chart visualization. The bar chart is \
drawn on a white rectangle with a thin black border. The chart title at the top in small uppercase \
black reads: “AVERAGE DRAG FOR MODULAR SURFBOARD CONFIGURATIONS”. There are no animations or \
motion of any kind—only static text, diagrams, and the single bar chart.

### Dataset

```csv
Configuration,Length_cm,Nose_Type,Tail_Rocker_deg,Avg_Drag_N
Short Flat,180,Flat,2,42
Mid Hybrid,200,Hybrid,4,37
Long Curved,220,Curved,6,29
Control Board,210,Standard,3,51
```
"""


def by_kind(reqs, kind):
    return [r for r in reqs if r.kind == kind]


# --- reading the prompt -----------------------------------------------------------------------


def test_prompt_147_charts_types_titles_and_data():
    reqs = extract_data(P147)
    charts = by_kind(reqs, "chart")
    assert [(c.role, c.key) for c in charts] == [
        ("multi-line", "Hourly Activity Intensity Today"),
        ("grouped-bar", "Workout Types by Day"),
        ("donut", "Goal Completion Breakdown"),
    ]
    line, bars, donut = charts
    assert donut.text == "Donut chart “Goal Completion Breakdown”"
    assert donut.label == "Goal Completion Breakdown" and donut.severity == "critical"
    assert donut.values == [
        "Steps Goal",
        "Workout Goal",
        "Calories Goal",
        "Distance Goal",
        "Active Minutes Goal",
    ]
    assert donut.numbers == [92, 75, 88, 81, 95]
    assert bars.values[0] == "Monday" and bars.values[-1] == "Sunday" and len(bars.values) == 7
    assert bars.numbers == [2, 1, 2, 1, 2, 3, 1]  # the first series: Cardio
    assert line.values == ["0", "2", "4", "6", "8", "10"] and line.numbers[:3] == [120, 80, 60]
    span = donut.span
    assert span.source == "prompt" and P147[span.start : span.end].startswith("donut chart titled")
    assert "Goal Completion Breakdown" in span.excerpt and len(span.excerpt) <= 160
    assert [c.id for c in charts] == ["chart-1", "chart-2", "chart-3"]


def test_prompt_147_datasets_no_chart_draws():
    data = [r for r in extract_data(P147) if r.checker == "data"]
    assert [(d.key, d.role, d.kind) for d in data] == [
        ("KPI Tiles", "counter", "widget"),
        ("Last Hour Activity by Device", "table", "widget"),  # progress bars: not a chart
        ("Friends Leaderboard (This Week)", "table", "widget"),
    ]
    kpi, devices, friends = data
    assert kpi.values[0] == "Total Steps This Week" and kpi.numbers == [74215, 536, 9, 18240, 58.3]
    assert devices.numbers == [1380, 990, 570] and friends.values == [
        "Alex R.",
        "Jamie K.",
        "Taylor S.",
    ]
    assert all(d.severity == "major" for d in data) and data[0].id == "data-1"


def test_mini_gauges_split_radar_heading_and_chart_style_list():
    reqs = extract_data(P135)
    charts = by_kind(reqs, "chart")
    assert [(c.role, c.key, c.numbers) for c in charts] == [
        ("gauge", "ARPU", [80]),
        ("gauge", "Payer Conversion", [7.3]),
        ("gauge", "Retention D1", [30]),
        ("radar", "Game Health Profile", [82, 76, 88]),  # "(Radar Chart)" heading: its data only
    ]
    data = {r.key: r for r in reqs if r.checker == "data"}
    # the rows no gauge draws, and the "chart-style list" as a dataset
    assert data["Revenue Highlight and Monetization Gauges"].values == ["Total Revenue Today"]
    countries = data["Top Revenue-Generating Countries Today"]
    assert countries.values == ["United States", "Japan"]  # the label column, not the rank
    assert countries.numbers == [520000, 410000]


def test_untitled_table_and_title_before_the_chart():
    (chart,) = extract_data(P089)
    assert chart.role == "bar" and chart.key == "SPEAKING MINUTES / LAST 7 DAYS"
    assert chart.values == ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    assert chart.numbers == [30, 45, 60, 50, 20, 70, 40]


def test_csv_dataset_title_after_and_references_are_one_chart():
    reqs = extract_data(P092)
    assert len(reqs) == 1  # "The bar chart is drawn…" and "the single bar chart" refer to it
    (chart,) = reqs
    assert chart.key == "AVERAGE DRAG FOR MODULAR SURFBOARD CONFIGURATIONS"
    assert chart.values == ["Short Flat", "Mid Hybrid", "Long Curved", "Control Board"]
    assert chart.numbers == [42, 37, 29, 51]  # the drag column, as the title says


def test_inline_data_without_tables():
    text = "Add a line chart titled “Visitors” with Mon: 120, Tue: 150, Wed: 90, Thu: 200."
    (chart,) = extract_data(text)
    assert chart.role == "line" and chart.values == ["Mon", "Tue", "Wed", "Thu"]
    assert chart.numbers == [120, 150, 90, 200]
    (pie,) = extract_data("A pie chart showing “Rent”, “Food” and “Travel” shares.")
    assert pie.role == "pie" and pie.values == ["Rent", "Food", "Travel"]


@pytest.mark.parametrize(
    "text",
    [
        "No videos, no animation, and no charts or data visualizations appear anywhere.",
        "Some cards include tiny icon glyphs: a tiny line chart, a chat bubble, and a clock.",
        "One kite is shaped like a bar graph (but not a chart on the page).",
        "Each dial is a circular gauge with a metallic ring. No videos or charts are included.",
        "A vertical ranking panel displaying a horizontal bar chart-style list with ranks 1–5.",
        "The layout is typographic; simple line diagrams show the room plans.",
    ],
)
def test_no_chart_asked(text):
    assert by_kind(extract_data(text), "chart") == []


def test_a_forbidden_type_is_not_asked():
    charts = extract_data("There are no pie charts here; use a bar chart titled “Sales”.")
    assert [(c.role, c.key) for c in charts] == [("bar", "Sales")]


def test_types_normalised():
    roles = [
        c.role
        for c in extract_data(
            "Add a stacked bar chart, then a clustered column chart, a horizontal bar chart, a "
            "stacked area chart, a doughnut chart, a spider chart, a scatter plot, a funnel chart, "
            "a heat map, and a treemap chart."
        )
    ]
    assert roles == [
        "stacked-bar",
        "grouped-bar",
        "horizontal-bar",
        "stacked-area",
        "donut",
        "radar",
        "scatter",
        "funnel",
        "heatmap",
        "treemap",
    ]


def test_non_english_prompts():
    (zh,) = extract_data("页面中间放一个柱状图，标题为“月度销售额”，右侧是饼图。")[:1]
    assert zh.role == "bar" and zh.key == "月度销售额"
    assert [c.role for c in extract_data("页面中间放一个柱状图，右侧是饼图。")] == ["bar", "pie"]
    (es,) = extract_data("Incluye un gráfico de líneas titulado «Ventas mensuales».")
    assert es.role == "line" and es.key == "Ventas mensuales"
    assert extract_data("Ein ruhiges Design ohne Bilder, nur Text und Farbe.") == []


def test_large_and_odd_prompts_never_raise():
    # how fast they are is measured by benchmarks, not asserted here (these machines are noisy)
    big = ("Lorem ipsum dolor sit amet, bar chart | pie | 12,5 | “" * 2000)[:100_000]
    tables = "\n".join(["| a | b |", "|---|---|"] + [f"| r{i} | {i} |" for i in range(5000)])
    unclosed = "a donut chart titled “" + "x" * 100_000
    for text in (big, tables, unclosed, "日本語のテキスト。" * 10_000, "", "|||\n|||", "```csv\n"):
        reqs = extract_data(text)
        assert isinstance(reqs, list)
    assert extract_data(None) == []  # type: ignore[arg-type]


def test_tables_and_numbers():
    (table,) = find_tables("**Pods**\n\n| Segment | Requests |\n|---|---|\n| Leisure | 18,420 |\n")
    assert table.title == "Pods" and table.labels() == ["Leisure"] and table.series(1) == [18420]
    assert [parse_number(x) for x in ("65,980", "98.4%", "-1.4", "1.2M", "00:00", "SF-01")] == [
        65980,
        98.4,
        -1.4,
        1_200_000,
        None,
        None,
    ]
    shown = shown_numbers("Total 74 215 steps · 58.3 km · 18,240 kcal · 2.1M views · 74.2k")
    assert all(number_shown(x, shown) for x in (74215, 58.3, 18240, 2_100_000, 58.27))
    assert not any(number_shown(x, shown) for x in (74216.5e1, 536, 0.4))


# --- checking the page ------------------------------------------------------------------------


def chart(owner, series, x=None, y=None, rect=(0, 100, 500, 360), **extra) -> ChartFact:
    x0, y0, w, h = rect
    return ChartFact.model_validate(
        {
            "owner": owner,
            "rect": {"x": x0, "y": y0, "w": w, "h": h},
            "readable": True,
            "series": series,
            "xAxis": x or [],
            "yAxis": y or [],
            **extra,
        }
    )


def heading(text, rect) -> dict:
    x0, y0, w, h = rect
    return {"tag": "h2", "text": text, "heading": True, "rect": {"x": x0, "y": y0, "w": w, "h": h}}


HOURS = ["0", "2", "4", "6", "8", "10"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
GOALS = ["Steps Goal", "Workout Goal", "Calories Goal", "Distance Goal", "Active Minutes Goal"]


def line_chart(**kw):
    series = [
        {"type": "line", "name": "Steps", "data": [120, 80, 60, 950, 2200, 1800]},
        {"type": "line", "name": "Active Minutes", "data": [2, 1, 1, 10, 18, 15]},
    ]
    return chart("hourly", series, [{"type": "category", "data": HOURS}], [{"type": "value"}], **kw)


def bar_chart(stack=None, **kw):
    series = [
        {"type": "bar", "name": n, "stack": stack, "data": d}
        for n, d in (("Cardio", [2, 1, 2, 1, 2, 3, 1]), ("Strength", [1, 1, 0, 1, 1, 1, 0]))
    ]
    rect = (600, 100, 500, 360)
    return chart(
        "workouts",
        series,
        [{"type": "category", "data": DAYS}],
        [{"type": "value"}],
        rect=rect,
        **kw,
    )


def donut_chart(radius=("40%", "62%"), names=GOALS, values=(92, 75, 88, 81, 95), **kw):
    data = [{"name": n, "value": v} for n, v in zip(names, values, strict=True)]
    rect = (0, 600, 1100, 360)
    return chart("goals", [{"type": "pie", "radius": list(radius), "data": data}], rect=rect, **kw)


TITLES = [
    heading("Hourly Activity Intensity Today", (0, 60, 500, 25)),
    heading("Workout Types by Day", (600, 60, 500, 25)),
    heading("Goal Completion Breakdown", (0, 560, 1100, 25)),
]
TEXT = (
    "Total Steps This Week 74,215 Active Minutes 536 Workouts Completed 9 Calories Burned "
    "18 240 Distance Covered (km) 58.3 Alex R. 80120 Jamie K. 76950 Taylor S. 73210"
)


def facts(*charts, text=TEXT, blocks=TITLES) -> PageFacts:
    return PageFacts.model_validate({"text": text, "blocks": blocks, "charts": list(charts)})


def results(page: PageFacts, prompt: str = P147) -> dict:
    return {r.key: r for r in check_data(extract_data(prompt), page)}


def test_right_charts_pass_with_evidence():
    got = results(facts(line_chart(), bar_chart(), donut_chart()))
    for key, owner in (
        ("Hourly Activity Intensity Today", "hourly"),
        ("Workout Types by Day", "workouts"),
        ("Goal Completion Breakdown", "goals"),
    ):
        assert got[key].status == "pass", got[key].message
        assert got[key].element == owner
    ev = got["Goal Completion Breakdown"].evidence
    assert ev["expected_type"] == "donut" and ev["found_type"] == "donut"
    assert ev["category_share"] == 1.0 and ev["number_share"] == 1.0
    assert got["KPI Tiles"].status == "pass"  # "74,215", "18 240", "58.3"
    assert got["Friends Leaderboard (This Week)"].status == "pass"


def test_each_page_chart_is_matched_once_by_title_not_order():
    got = results(facts(donut_chart(), bar_chart(), line_chart()))
    assert got["Goal Completion Breakdown"].element == "goals"
    assert got["Hourly Activity Intensity Today"].element == "hourly"


@pytest.mark.parametrize(
    ("page_chart", "key", "words"),
    [
        (donut_chart(radius=(0, "70%")), "Goal Completion Breakdown", "should be a donut"),
        (bar_chart(stack="total"), "Workout Types by Day", "should be a grouped-bar"),
        (
            chart(
                "hourly",
                [{"type": "line", "data": [120, 80, 60, 950, 2200, 1800]}],
                [{"type": "category", "data": HOURS}],
            ),
            "Hourly Activity Intensity Today",
            "should be a multi-line",
        ),
        (
            chart(
                "hourly",
                [
                    {"type": "bar", "data": [120, 80, 60, 950, 2200, 1800]},
                    {"type": "bar", "data": [2, 1, 1, 10, 18, 15]},
                ],
                [{"type": "category", "data": HOURS}],
            ),
            "Hourly Activity Intensity Today",
            "the page draws grouped-bar",
        ),
    ],
)
def test_wrong_type_fails(page_chart, key, words):
    got = results(facts(page_chart))[key]
    assert got.status == "fail" and words in got.message, got.message


def test_made_up_data_fails_naming_what_is_missing():
    made_up = donut_chart(
        names=["Alpha", "Beta", "Gamma", "Delta", "Epsilon"], values=(1, 2, 3, 4, 5)
    )
    got = results(facts(made_up))["Goal Completion Breakdown"]
    assert got.status == "fail"
    assert "data not from the prompt" in got.message and "Steps Goal" in got.message
    assert "values differ" in got.message
    assert got.evidence["category_share"] == 0.0 and got.evidence["categories_extra"][0] == "Alpha"
    wrong_days = bar_chart()
    wrong_days.x_axis[0].data = ["Q1", "Q2", "Q3", "Q4", "Q5", "Q6", "Q7"]
    got = results(facts(wrong_days))["Workout Types by Day"]
    assert got.status == "fail" and "Monday" in got.message


def test_shares_and_scales_count_as_the_prompts_numbers():
    prompt = (
        "A donut chart titled “Viewing by Device Type”.\n\n**Viewing by Device Type**\n\n"
        "| Device | Hours |\n|---|---|\n| Smart TV | 16200 |\n| Mobile | 14580 |\n| Tablet | 5460 |"
    )
    shares = donut_chart(names=["Smart TV", "Mobile", "Tablet"], values=(44.1, 39.7, 14.9))
    blocks = [heading("Viewing by Device Type", (0, 560, 1100, 25))]
    assert results(facts(shares, blocks=blocks), prompt)["Viewing by Device Type"].status == "pass"
    thousands = donut_chart(names=["Smart TV", "Mobile", "Tablet"], values=(16.2, 14.58, 5.46))
    assert (
        results(facts(thousands, blocks=blocks), prompt)["Viewing by Device Type"].status == "pass"
    )


def test_missing_chart_fails_and_names_it():
    got = results(facts(line_chart(), bar_chart()))["Goal Completion Breakdown"]
    assert got.status == "fail"
    assert got.message == "missing chart “Goal Completion Breakdown” (donut)"
    assert got.element is None


def test_unreadable_chart_is_unchecked_not_failed():
    opaque = ChartFact.model_validate(
        {"owner": "goals", "readable": False, "rect": {"x": 0, "y": 600, "w": 1100, "h": 360}}
    )
    got = results(facts(line_chart(), bar_chart(), opaque))["Goal Completion Breakdown"]
    assert got.status == "unchecked" and got.element == "goals"
    assert "cannot be read" in got.message


def test_hidden_chart_fails():
    got = results(facts(donut_chart(shown=False)))["Goal Completion Breakdown"]
    assert got.status == "fail" and "not shown" in got.message


@pytest.mark.skipif("labels" not in ChartFact.model_fields, reason="facts without chart labels")
def test_radar_categories_are_its_indicators():
    series = [{"type": "radar", "data": [{"name": "Current Week", "value": [82, 76, 88]}]}]
    right = chart("radar", series, labels=["Engagement", "Monetization Depth", "Content Freshness"])
    rect = (0, 60, 500, 25)
    page = facts(right, blocks=[heading("Game Health Profile", rect)])
    assert results(page, P135)["Game Health Profile"].status == "pass"
    wrong = chart("radar", series, labels=["Speed", "Power", "Luck"])
    got = results(facts(wrong, blocks=[heading("Game Health Profile", rect)]), P135)
    assert (
        got["Game Health Profile"].status == "fail"
        and "Engagement" in got["Game Health Profile"].message
    )


def test_page_types_read_from_the_option():
    horizontal = chart(
        "h",
        [{"type": "bar", "data": [1, 2]}],
        [{"type": "value"}],
        [{"type": "category", "data": ["a", "b"]}],
    )
    assert "horizontal-bar" in page_types(horizontal)
    area = chart(
        "a",
        [
            {"type": "line", "areaStyle": True, "stack": "s", "data": [1]},
            {"type": "line", "areaStyle": True, "stack": "s", "data": [2]},
        ],
    )
    assert {"stacked-area", "multi-line"} <= page_types(area)
    assert page_types(donut_chart()) >= {"donut"} and "donut" not in page_types(
        donut_chart(radius=("0%", "70%"))
    )


def test_dataset_shown_or_not():
    got = results(facts(text="Total Steps This Week 74.2k Active Minutes 536 Calories Burned"))
    kpi = got["KPI Tiles"]
    assert kpi.status == "fail" and kpi.kind == "widget"
    assert "Workouts Completed" in kpi.message and "18240" in kpi.message
    assert kpi.evidence["share"] < 0.8
    devices = results(
        facts(
            chart(
                "dev",
                [{"type": "bar", "data": [1380, 990, 570]}],
                [{"type": "value"}],
                [
                    {
                        "type": "category",
                        "data": ["Phone Tracker", "Smartwatch Alpha", "Chest Strap Pro"],
                    }
                ],
            )
        )
    )
    assert devices["Last Hour Activity by Device"].status == "pass"  # drawn as a bar chart


def test_only_its_own_requirements_are_checked():
    from mmstudio.requirements.model import Requirement

    other = Requirement(id="copy-1", kind="copy", key="Hello", text="Copy “Hello”")
    assert check_data([other], facts()) == []


def test_a_chart_is_named_by_its_sections_heading():
    from mmstudio.render.base import Box
    from mmstudio.render.facts import ChartFact, PageFacts, SectionFact, Series, TextBlock
    from mmstudio.requirements.charts import check_data, extract_data

    brief = "A section titled “Flavour Notes by Origin” shows a bar chart comparing three origins."
    reqs = [r for r in extract_data(brief) if r.kind == "chart"]
    chart = ChartFact(owner="c1", section="charts", readable=True, rect=Box(y=900, w=600, h=300),
                      series=[Series(type="bar", name="Sweetness", data=[8, 7, 6])])  # fmt: skip
    note = TextBlock(tag="p", text="Scores from our cupping table", owner="c1")
    facts = PageFacts(
        charts=[chart], blocks=[note],
        sections=[SectionFact(id="charts", heading="Flavour Notes by Origin")],
    )  # fmt: skip
    assert [r.status for r in check_data(reqs, facts)] == ["pass"]


def test_an_untitled_chart_must_say_what_it_shows():
    """ "A bar chart of students per month (Jan 6, …)": the data alone is not enough when the
    chart reads "Chart" — a designer sees a placeholder title; "Students per month" passes."""
    brief = "A bar chart of students per month (Jan 6, Feb 8, Mar 10, Apr 12)."
    (req,) = [r for r in extract_data(brief) if r.kind == "chart"]
    assert (req.subject, req.values, req.numbers) == (
        "students per month", ["Jan", "Feb", "Mar", "Apr"], [6, 8, 10, 12],
    )  # fmt: skip
    months = [{"type": "category", "data": ["Jan", "Feb", "Mar", "Apr"]}]
    drawn = chart("c1", [{"type": "bar", "data": [6, 8, 10, 12]}], months, [{"type": "value"}])
    placeholder = facts(drawn, text="Chart", blocks=[heading("Chart", (0, 60, 500, 25))])
    (bad,) = check_data([req], placeholder)
    assert bad.status == "fail" and "says it shows students per month" in bad.message
    assert "“Chart”" in bad.message
    named = facts(drawn, text="", blocks=[heading("Students per month", (0, 60, 500, 25))])
    assert [r.status for r in check_data([req], named)] == ["pass"]


def test_the_one_chart_drawn_wrong_is_named_not_called_missing():
    """The brief asks one bar chart with its data; the page draws one line chart of made-up
    hours. The designer must be told that chart is wrong (type, data), on that chart — so the
    local refine can rebuild it — not that a chart is missing."""
    brief = "A bar chart titled “Repairs per month” with data Jan 40, Feb 52, Mar 61, Apr 75."
    (req,) = [r for r in extract_data(brief) if r.kind == "chart"]
    hours = [{"type": "category", "data": ["00:00", "02:00", "04:00", "06:00"]}]
    drawn = chart("made_up", [{"type": "line", "data": [20, 49, 26, 67]}], hours)
    (result,) = check_data([req], facts(drawn, text="", blocks=[]))
    assert result.status == "fail" and result.element == "made_up"
    assert "should be a bar chart" in result.message and "missing Jan" in result.message
    (alone,) = check_data([req], facts(text="", blocks=[]))
    assert alone.message.startswith("missing chart")
