"""Words of a widget, video or section that name something else in their sentence: furniture in
a photo, a binder clip, a navigation menu, a negated list, "not a video" (real dev-prompt
excerpts from ../shared/data/bench/mm_webgen_dev.jsonl; fast: no browser)."""

from __future__ import annotations

import pytest

from mmstudio.requirements import extract


def _kinds(text: str) -> set[tuple[str, str]]:
    return {(r.kind, r.key) for r in extract(text)}


# prompt 127: a photo card's description; prompt 086: an illustration's foreground
@pytest.mark.parametrize(
    "excerpt",
    [
        "The third shows a café table with a sketchbook, a watch placed on top, a small ceramic "
        "cup of espresso, and a folded linen napkin. Caption: “Ideas between sips”.",
        "The foreground shows the silhouette of a figure reading a book, their back turned to "
        "the viewer, sitting at a low table with scattered glowing book spines.",
        "The photograph is taken from a perspective near the back of the room, looking toward a "
        "long table with designers seated, their backs partially visible.",
    ],
)
def test_a_table_in_a_picture_is_furniture_not_a_table_widget(excerpt: str) -> None:
    assert ("widget", "table") not in _kinds(excerpt)


def test_a_data_table_is_still_a_table() -> None:
    text = "Below the chart sits a summary table with three columns: region, viewers, share."
    assert ("widget", "table") in _kinds(text)


# prompt 031
def test_navigation_menu_items_are_no_menu_section() -> None:
    text = (
        "The font is a clean sans-serif, medium weight, in a muted dark gray; when hovered "
        "(described visually), the menu items gain a rounded pill background in pastel yellow."
    )
    assert ("section", "menu") not in _kinds(text)
    assert ("section", "menu") in _kinds("Below the hero, a menu section lists the pastries.")


# prompt 031
def test_a_binder_clip_is_no_video_clip() -> None:
    text = (
        "Another is a torn-edge white note clipped by a tiny illustrated binder clip at the top, "
        "reading: “Call for Collaborators: ‘Playful Surveys in Serious Spaces’ – Click to "
        "learn more.”"
    )
    assert not any(kind == "video" for kind, _ in _kinds(text))
    assert ("video", "video") in _kinds("The hero plays a short looping clip of the harbour.")


# prompt 043
def test_a_negated_list_forbids_each_of_its_items() -> None:
    text = (
        "Throughout the entire page, there are no animations, videos, or motion elements at "
        "all—everything is static, structurally precise."
    )
    kinds = _kinds(text)
    assert ("video", "video") not in kinds
    assert ("prohibition", "video") in kinds


def test_a_comma_after_a_negated_word_does_not_negate_the_next_sentence_part() -> None:
    text = "The cards have no border, images fill the top half of each card."
    assert ("image", "images") in _kinds(text)


def test_not_a_video_asks_for_no_video() -> None:
    text = "The hero background is a still, softly lit illustration, not a video."
    assert ("video", "video") not in _kinds(text)


# prompt 089: tick labels and an axis name drawn on the chart's canvas
CHART_089 = (
    "The chart takes up most of the width. The X-axis is a straight, bold black line with 7 tick "
    "labels: “Mon”, “Tue”, “Wed”, “Thu”, “Fri”, “Sat”, “Sun” in small uppercase. The Y-axis is "
    "labeled “Minutes” with horizontal grid lines every 20 minutes."
)


def _chart_facts(**kw):
    from mmstudio.render.facts import Axis, ChartFact, PageFacts, Series

    chart = ChartFact(
        owner="chart_week", readable=True,
        x_axis=[Axis(type="category", data=["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"])],
        y_axis=[Axis(type="value", name="Minutes")],
        series=[Series(type="bar", name="Talk time", data=[30, 45, 70, 20, 55, 60, 40])],
    )  # fmt: skip
    return PageFacts(text="Weekly rhythm A week of conversations", charts=[chart], **kw)


def test_words_drawn_in_a_chart_are_not_missing_copy() -> None:
    from mmstudio.requirements import check_all

    reqs = [r for r in extract(CHART_089) if r.kind in ("copy", "label")]
    assert "Minutes" in {r.label for r in reqs}
    results = check_all(reqs, _chart_facts())
    assert all(r.status == "pass" for r in results), [(r.key, r.message) for r in results]


def test_chart_text_no_chart_draws_fails_and_ticks_stay_unchecked() -> None:
    from mmstudio.requirements import check_all

    text = (
        "The Y-axis (left) has black text labels: “0”, “100”, “200”, “300”, “400”, “500” "
        "stacked vertically. The legend reads “Streams (k)”."
    )
    reqs = [r for r in extract(text) if r.kind == "copy"]
    status = {r.key: r.status for r in check_all(reqs, _chart_facts())}
    assert status["Streams (k)"] == "fail"
    assert status["100"] == "unchecked"  # ECharts picks its own ticks
    # with the chart's frame unread, nothing is failed
    facts = _chart_facts(widgets={"unread_charts": ["chart_streams"]})
    assert {r.status for r in check_all(reqs, facts)} == {"unchecked"}


def test_a_chart_frame_left_without_its_instance_by_an_interrupted_load_is_unread() -> None:
    from mmstudio.evaluate.frames import checkable_facts, unread_chart_frames
    from mmstudio.render import Render
    from mmstudio.render.model import MediaProbe, Probe
    from mmstudio.requirements import check_all
    from mmstudio.requirements.charts import extract_data

    frames = [MediaProbe(id="chart_genres", explicit=True, tag="iframe")]
    facts = _chart_facts().model_copy(update={"charts": []})
    render = Render(site_dir="/x", page="index.html", probe=Probe.model_construct(media=frames),
                    facts=facts)  # fmt: skip
    assert unread_chart_frames(render) == []  # no interrupted script: a frame without a chart
    render.script_timeouts = [{"stage": "load", "at_ms": 0}]
    assert unread_chart_frames(render) == ["chart_genres"]
    brief = "A section titled “Top Genres” shows a donut chart of viewers per genre."
    reqs = [r for r in extract_data(brief) if r.kind == "chart"]
    assert [r.status for r in check_all(reqs, render.facts)] == ["fail"]
    assert [r.status for r in check_all(reqs, checkable_facts(render))] == ["unchecked"]


# prompt 111 (tests/calibration/pages/111/prompt.txt)
def test_a_quoted_look_or_layout_part_is_no_copy_and_printing_it_is_a_leak() -> None:
    from mmstudio.render.facts import PageFacts, TextBlock

    text = (
        "Below location, place a subtle FAQ-like segment with a “Holographic Accordion” feel. "
        "The section heading, centered, reads “Before you arrive” in white.\n"
        "Finally, create a prominent “Tickets & Call to Action” section towards the bottom."
    )
    reqs = extract(text)
    assert {r.label for r in reqs if r.kind == "copy"} == {"Before you arrive"}
    titles = ("Before you arrive", "Holographic Accordion", "Tickets & Call to Action")
    blocks = [TextBlock(tag="h3", text=t, heading=True) for t in titles]
    facts = PageFacts(text=" ".join(titles), blocks=blocks)
    from mmstudio.requirements import check_all

    [stray] = [r for r in check_all(reqs, facts) if r.key == "stray words"]
    assert stray.status == "fail"
    assert stray.evidence["leaked"] == ["Holographic Accordion", "Tickets & Call to Action"]


def test_a_leaked_name_shown_by_a_heading_and_its_card_is_one_finding() -> None:
    from mmstudio.render.facts import PageFacts, TextBlock
    from mmstudio.requirements import check_all

    text = "Below the location, place a subtle FAQ-like segment with three questions."
    blocks = [
        TextBlock(tag="h3", text="Holographic Accordion", heading=True),
        TextBlock(tag="div", text="Holographic Accordion"),
    ]
    facts = PageFacts(text="Holographic Accordion", blocks=blocks)
    [stray] = [r for r in check_all(extract(text), facts) if r.key == "stray words"]
    assert stray.evidence["leaked"] == ["Holographic Accordion"]
