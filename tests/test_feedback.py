"""Feedback core without a browser: annotation round trip, shape → element resolution on known
boxes, turn words, the offline requirement split, page operations, the ledger and the critic's
measured checks on a synthetic render."""

from __future__ import annotations

import pytest

from mmstudio.feedback import Annotation, Ledger, Shape, compose, load, resolve, save
from mmstudio.feedback import operations as ops
from mmstudio.feedback.critic import Measured, check
from mmstudio.feedback.elements import PageElement, page_elements
from mmstudio.feedback.ledger import TurnRecord, Verdict, rates
from mmstudio.feedback.requirements import Requirement, number, split_offline, supersede
from mmstudio.refine import guardrails
from mmstudio.render.model import Box, Render

ELEMENTS = [
    PageElement("hero", "section", Box(x=0, y=0, w=1280, h=600), "hero", "section"),
    PageElement("content", "section", Box(x=0, y=600, w=1280, h=800), "content", "section"),
    PageElement("hero_image", "image", Box(x=700, y=100, w=480, h=320), "hero", "img"),
    PageElement("hero--title", "text", Box(x=100, y=120, w=500, h=80), "hero", "h1",
                "Roasted Slowly", [20, 20, 20, 1], 48, html_id=True),
    PageElement("hero-p-1", "text", Box(x=100, y=240, w=500, h=50), "hero", "p",
                "Every bag is roasted to order", [20, 20, 20, 1], 18),
    PageElement("content_video", "video", Box(x=100, y=700, w=640, h=360), "content", "video"),
]  # fmt: skip

PAGE = """<!doctype html><html><head><title>t</title></head><body>
<section data-mm-section="hero"><div class="wrap"><h1 id="hero--title">Roasted Slowly</h1>
<p>Every bag is roasted to order</p>
<figure><img data-mm-id="hero_image" src="assets/hero.png" alt="hero"></figure></div></section>
<section data-mm-section="content"><div class="wrap"><h2>How</h2>
<video data-mm-id="content_video" src="assets/v.webm"></video></div></section>
</body></html>"""


def rect(sid, x, y, w, h, kind="rect", **kw) -> Shape:
    return Shape(id=sid, kind=kind, x=x, y=y, w=w, h=h, **kw)


def test_annotation_json_round_trip(tmp_path):
    annotation = Annotation(
        device_width=768,
        viewport=(768, 1024),
        scroll=(0, 340),
        png="turn.png",
        shapes=[
            rect("s1", 10, 20, 30, 40),
            Shape(id="s2", kind="arrow", points=[(0, 0), (50, 60)], colour="#00ff00"),
            Shape(id="s3", kind="pen", points=[(1, 1), (5, 9), (12, 3)], width=5),
            Shape(id="s4", kind="text", x=60, y=70, w=80, h=20, text="warmer", attached_to="s1"),
        ],
    )
    path = save(annotation, tmp_path / "a" / "turn.json")
    again = load(path)
    assert again == annotation
    assert again.shape("s2").tip() == (50, 60)
    assert again.shape("s3").bounds() == (1, 1, 11, 8)
    assert again.next_id() == "s5"
    (tmp_path / "bad.json").write_text("{nope")
    with pytest.raises(ValueError, match="not an annotation file"):
        load(tmp_path / "bad.json")
    (tmp_path / "shape.json").write_text('{"shapes": [{"id": "m1", "kind": "blob"}, {"id": 3}]}')
    with pytest.raises(
        ValueError, match=r"shapes\.0\.kind: Input should be 'pen'.*\(and \d+ more\)"
    ):
        load(tmp_path / "shape.json")  # names the field that is wrong


def test_rect_resolves_to_enclosed_or_mostly_overlapped_elements():
    around_image = rect("s1", 690, 90, 500, 340)
    inside_image = rect("s2", 800, 150, 100, 100)
    whole_hero = rect("s3", -5, -5, 1290, 610)
    marks = resolve(Annotation(shapes=[around_image, inside_image, whole_hero]), ELEMENTS)
    assert marks[1].targets == ["hero_image"]  # the element that mostly covers the shape
    assert marks[2].targets == ["hero"]  # an enclosed section stands for its children
    two_texts = rect("s4", 90, 110, 520, 190)
    assert resolve(Annotation(shapes=[two_texts]), ELEMENTS)[0].targets == [
        "hero--title",
        "hero-p-1",
    ]


def test_ellipse_arrow_pen_and_notes():
    ellipse = rect("s1", 60, 90, 580, 140, kind="ellipse")  # the title, not the paragraph
    arrow = Shape(id="s2", kind="arrow", points=[(300, 900), (400, 800)])
    pen = Shape(id="s3", kind="pen", points=[(680, 80), (1200, 90), (1190, 440), (690, 430)])
    note = Shape(id="n1", kind="text", x=380, y=920, w=80, h=20, text="calmer")
    attached = Shape(id="n2", kind="text", x=10, y=10, w=50, h=20, text="'Hi'", attached_to="s1")
    lonely = Annotation(shapes=[Shape(id="n3", kind="text", x=150, y=250, text="bigger")])
    marks = resolve(Annotation(shapes=[ellipse, arrow, pen, note, attached]), ELEMENTS)
    assert [m.targets for m in marks] == [["hero--title"], ["content_video"], ["hero_image"]]
    assert marks[1].notes == ["calmer"] and marks[0].notes == ["'Hi'"]
    only = resolve(lonely, ELEMENTS)
    assert only[0].targets == ["hero-p-1"] and only[0].notes == ["bigger"]


def test_turn_words_name_every_mark_and_note():
    marks = resolve(
        Annotation(
            shapes=[
                rect("s1", 690, 90, 500, 340),
                Shape(id="n1", kind="text", x=700, y=450, text="warmer, less busy"),
            ]
        ),
        ELEMENTS,
    )
    words = compose("make it feel like morning", marks, ELEMENTS)
    assert "mark 1: rectangle over the image `hero_image` in the hero section" in words
    assert "note: 'warmer, less busy'" in words


def test_offline_split_one_requirement_per_operation():
    text = (
        "make the headline red; hide the video; move the content section up. "
        "change 'Every bag' to 'Fresh every week'; add a note 'Free shipping' to the hero"
    )
    reqs = number(split_offline(text, [], ELEMENTS), 3)
    got = [(r.id, r.op, r.target, r.value) for r in reqs]
    assert got == [
        ("t3.r1", "colour", "hero--title", "#c0392b"),
        ("t3.r2", "hide", "content_video", ""),
        ("t3.r3", "move", "content", "up"),
        ("t3.r4", "text", "hero-p-1", "Fresh every week"),
        ("t3.r5", "add_text", "hero", "Free shipping"),
    ]
    marks = resolve(Annotation(shapes=[rect("s1", 690, 90, 500, 340)]), ELEMENTS)
    marks[0].notes = ["warmer", "make it less busy"]
    noted = split_offline("", marks, ELEMENTS)
    assert [(r.op, r.target) for r in noted] == [("tone", "hero_image"), ("free", "hero_image")]
    assert not noted[1].structural
    sketch = resolve(Annotation(sketch=True, shapes=[rect("s1", 40, 1200, 600, 120),
                     Shape(id="n1", kind="text", x=50, y=1210, text="text: Open 8–18 daily")]),
                     ELEMENTS)  # fmt: skip
    label = split_offline("", sketch, ELEMENTS)  # a labelled box in free space: a new block
    assert [(r.op, r.target, r.value, r.content, r.place) for r in label] == [
        ("insert", "content", "text", "Open 8–18 daily", "after:content_video")
    ]


def test_later_turn_on_same_property_supersedes_not_forgets():
    first = number(split_offline("make the headline red", [], ELEMENTS), 1)
    second = number(split_offline("make the headline navy; hide the video", [], ELEMENTS), 2)
    retired = supersede(first, second)
    assert [r.id for r in retired] == ["t1.r1"] and first[0].superseded_by == "t2.r1"


def req(op, target, kind, value="", **kw) -> Requirement:
    return Requirement(id="t1.r1", turn=1, text=op, op=op, target=target, target_kind=kind,
                       value=value, **kw)  # fmt: skip


def test_operations_edit_only_their_element_and_pass_guardrails():
    page = ops.apply(PAGE, req("hide", "content_video", "video"), "fb-t1")
    assert '[data-mm-id="content_video"]{display:none!important}' in page
    shown = ops.apply(page, req("show", "content_video", "video"), "fb-t2")
    assert "display:none" not in shown
    text = ops.apply(PAGE, req("text", "hero-p-1", "text", "New <words>", anchor="Every bag"), "k")
    assert '<p id="hero-p-1">New &lt;words&gt;</p>' in text
    moved = ops.apply(PAGE, req("move", "content", "section", "up"), "k")
    assert moved.index('data-mm-section="content"') < moved.index('data-mm-section="hero"')
    noted = ops.apply(PAGE, req("add_text", "hero", "section", "Free shipping"), "k")
    assert '<p id="fb-note-t1-r1" class="mm-note">Free shipping</p>' in noted
    for candidate in (page, shown, text, moved, noted):
        assert guardrails.page_problems(PAGE, candidate) == []
    repaired = ops.apply(page, req("colour", "hero", "section", "#112233"), ops.REPAIR_KEY,
                         repair=True)  # fmt: skip
    assert ':root:root [data-mm-section="hero"]{background-color:#112233!important}' in repaired
    later = ops.move_block_last(ops.apply(repaired, req("hide", "hero", "section"), "fb-t9"),
                                ops.REPAIR_KEY)  # fmt: skip
    assert later.index('data-mm-patch="fb-t9"') < later.index('data-mm-patch="fb-repair"')


def test_ledger_round_trip(tmp_path):
    ledger = Ledger(tmp_path / "history.sqlite")
    assert ledger.next_turn() == 1
    reqs = number(split_offline("hide the video; make the headline red", [], ELEMENTS), 1)
    ledger.add_turn(TurnRecord(1, "t", "w", None, None, None, "v1", "targeted", "s"), reqs)
    ledger.add_verdicts([Verdict("t1.r1", True, "hidden"), Verdict("t1.r2", False, "x")], 1,
                        "v1", "final")  # fmt: skip
    ledger.add_forgetting("t1.r1", 2, "still visible", True)
    assert ledger.next_turn() == 2
    assert [r.id for r in ledger.requirements()] == ["t1.r1", "t1.r2"]
    assert ledger.ever_passed() == {"t1.r1"}
    assert ledger.latest_verdicts()["t1.r2"].passed is False
    assert ledger.forgetting()[0]["repaired"] is True
    # FronTalk: forgetting = 1 − passes now / passes at the turn each test was introduced
    ledger.add_turn(TurnRecord(2, "t", "w", None, None, "v1", "v2", "global", "s"), [])
    ledger.add_verdicts([Verdict("t1.r1", False, "shown"), Verdict("t1.r2", True, "ok")], 2,
                        "v2", "final")  # fmt: skip
    assert rates(ledger) == {"pass_rate": 0.5, "forgetting_rate": 1.0}


def _render(texts, sections) -> Render:
    return Render.model_validate(
        {
            "site_dir": "/x",
            "page": "index.html",
            "probe": {
                "page": {"viewportW": 1280, "viewportH": 800, "scrollW": 1280, "scrollH": 2000},
                "sections": sections,
                "texts": texts,
            },
        }
    )


def test_critic_measures_text_colour_order_and_visibility():
    box = {"x": 0, "y": 10, "w": 300, "h": 40}
    text = {"selector": "h1#hero--title", "section": "hero", "tag": "h1", "snippet": "Fresh",
            "rect": {}, "box": box, "color": [192, 57, 43, 1]}  # fmt: skip
    sections = [
        {"id": "content", "rect": {"x": 0, "y": 0, "w": 1280, "h": 500}},
        {"id": "hero", "rect": {"x": 0, "y": 500, "w": 1280, "h": 500}},
        {"id": "footer", "rect": {"x": 0, "y": 1000, "w": 1280, "h": 0}},
    ]
    m = Measured.of(_render([text], sections))
    assert {e.id for e in page_elements(m.render)} == {"hero--title", "content", "hero", "footer"}
    assert check(req("colour", "hero--title", "text", "#c0392b"), m).passed
    assert not check(req("colour", "hero--title", "text", "#1e3a5f"), m).passed
    assert check(req("text", "hero--title", "text", "fresh"), m).passed
    assert check(req("move", "content", "section", "up", other="hero"), m).passed
    assert check(req("hide", "footer", "section"), m).passed
    assert not check(req("show", "footer", "section"), m).passed
    assert check(req("free", None, "page"), m).passed is None


class QueuedChat:
    """A fake ChatModel answering from a queue of reply texts; records the messages."""

    def __init__(self, *replies: str) -> None:
        self.replies, self.calls = list(replies), []

    async def chat(self, messages, **kwargs):
        from mmstudio.providers.protocols import ChatReply

        self.calls.append((messages, kwargs))
        return ChatReply(self.replies.pop(0))


async def test_model_split_is_validated_and_judge_answers_free_requirements(tmp_path):
    import json

    from mmstudio.feedback.provider import model_judge, model_splitter

    split = json.dumps({"requirements": [
        {"text": "The headline is navy", "op": "colour", "target": "hero--title", "value": "navy"},
        {"text": "Hide the ghost", "op": "hide", "target": "no_such_id"},
        {"text": "The image is twice as big", "op": "resize", "target": "hero_image",
         "value": "huge"},
        {"text": "The hero feels calmer", "op": "free", "target": "hero"},
    ]})  # fmt: skip
    chat = QueuedChat(split, "not json", json.dumps({"verdicts": [
        {"id": "t1.r4", "passed": True, "detail": "soft palette"},
        {"id": "t9.r9", "passed": False}]}))  # fmt: skip
    marks = resolve(Annotation(shapes=[rect("s1", 690, 90, 500, 340)]), ELEMENTS)
    words = compose("calmer hero, navy headline", marks, ELEMENTS)
    reqs = number(await model_splitter(chat)("", marks, ELEMENTS, words), 1)
    assert [(r.op, r.target, r.value) for r in reqs] == [
        ("colour", "hero--title", "#1e3a5f"), ("free", None, ""),
        ("free", "hero_image", "huge"), ("free", "hero", ""),
    ]  # fmt: skip
    assert "mark 1: rectangle over the image `hero_image`" in chat.calls[0][0][0].text
    shot = tmp_path / "shot.png"
    shot.write_bytes(b"\x89PNG\r\n\x1a\n")
    render = Render(site_dir="/x", page="index.html", screenshot=str(shot))
    verdicts = await model_judge(chat)([reqs[3]], render)
    assert [(v.requirement, v.passed) for v in verdicts] == [("t1.r4", True)]
    assert chat.calls[-1][0][0].images == (shot.read_bytes(),)  # the repair request kept it


CHARTED = [
    *ELEMENTS,
    PageElement("sales_chart", "chart", Box(x=100, y=1100, w=640, h=280), "content", "iframe"),
]


def test_compound_instruction_keeps_every_clause():
    reqs = split_offline("make the title red and hide the video and xyzzy the footer", [], ELEMENTS)
    assert [(r.op, r.target, r.text) for r in reqs] == [
        ("colour", "hero--title", "make the title red"),
        ("hide", "content_video", "hide the video"),
        ("free", None, "xyzzy the footer"),  # not understood: kept, never dropped
    ]
    both = split_offline("make the headline red and bigger", [], ELEMENTS)
    assert [(r.op, r.target, r.value) for r in both] == [
        ("colour", "hero--title", "#c0392b"), ("resize", "hero--title", "bigger"),
    ]  # fmt: skip
    same = split_offline("make the hero background red and white", [], ELEMENTS)
    assert [(r.op, r.target) for r in same] == [("colour", "hero")]
    quoted = split_offline("change 'Every bag' to 'Salt and pepper and hide it'", [], ELEMENTS)
    assert [(r.op, r.value) for r in quoted] == [("text", "Salt and pepper and hide it")]


def test_chart_type_words_on_a_marked_or_named_chart():
    reqs = split_offline("turn the chart into a doughnut; show the chart as bars", [], CHARTED)
    assert [(r.op, r.target, r.value) for r in reqs] == [
        ("chart_type", "sales_chart", "donut"), ("chart_type", "sales_chart", "bar"),
    ]  # fmt: skip
    marks = resolve(Annotation(shapes=[rect("s1", 90, 1090, 660, 300)]), CHARTED)
    marks[0].notes = ["line chart"]
    assert [(r.op, r.value) for r in split_offline("", marks, CHARTED)] == [("chart_type", "line")]
    assert split_offline("hide the bar chart", [], CHARTED)[0].op == "hide"
    assert split_offline("make it a pie chart", [], ELEMENTS)[0].op == "free"  # no chart here


def test_free_space_boxes_become_inserts_in_page_order():
    between = rect("s1", 100, 580, 500, 60)  # over the hero | content boundary
    below = rect("s2", 100, 1500, 400, 300)  # under the last section
    on_image = rect("s3", 690, 90, 500, 340)
    notes = [
        Shape(id="n1", kind="text", x=110, y=590, text="image: a lighthouse at dusk"),
        Shape(id="n2", kind="text", x=110, y=1510, text="Open every day"),
        Shape(id="n3", kind="text", x=700, y=100, text="Open every day"),
    ]
    marks = resolve(Annotation(shapes=[between, below, on_image, *notes]), ELEMENTS)
    assert [m.free for m in marks] == [True, True, False]
    reqs = split_offline("", marks, ELEMENTS)
    assert [(r.op, r.value, r.target, r.place, r.content) for r in reqs] == [
        ("insert", "image", "content", "before:content_video", "a lighthouse at dusk"),
        ("insert", "text", "content", "end", "Open every day"),
        ("free", "", "hero_image", "", ""),  # a plain note on an element is not an insert
    ]
    assert reqs[0].box == [100, 580, 500, 60]


def test_insert_places_markup_before_or_after_the_anchor_block():
    from mmstudio.feedback.placement import place

    before = Requirement(id="t1.r1", text="x", op="insert", value="text", target="content",
                         place="before:content_video")  # fmt: skip
    page = place(PAGE, before, "<p id='new'>New</p>")
    assert page.index("<h2>How</h2>") < page.index("id='new'") < page.index("<video")
    after = before.model_copy(update={"target": "hero", "place": "after:hero_image"})
    page = place(PAGE, after, "<p id='new'>New</p>")
    assert page.index("</figure>") < page.index("id='new'") < page.index("</div></section>")
    by_text = before.model_copy(
        update={"target": "hero", "place": "before:hero-p-1", "anchor": "Every bag is roasted"}
    )
    page = place(PAGE, by_text, "<p id='new'>New</p>")
    assert page.index("</h1>") < page.index("id='new'") < page.index("<p>Every bag")
    end = before.model_copy(update={"place": "end"})
    page = place(PAGE, end, "<p id='new'>New</p>")
    assert page.index("</video>") < page.index("id='new'") < page.index("</div></section>\n</body>")
    assert guardrails.page_problems(PAGE, page) == []


def test_repeated_and_repaired_rules_replace_each_other():
    big = req("resize", "hero--title", "text", "bigger")
    page = ops.apply(PAGE, big, "fb-t1", font_px=40)
    page = ops.apply(page, big, "fb-t2", font_px=50)  # a retry on the same element
    page = ops.apply(page, big, ops.REPAIR_KEY, font_px=50, repair=True)
    assert page.count("font-size") == 1
    assert ':root:root [id="hero--title"]{font-size:62.5px!important}' in page
    red = req("colour", "hero", "section", "#c0392b")
    page = ops.apply(ops.apply(page, red, "fb-t3"), red, "fb-t3")
    assert page.count("background-color") == 1
    grow = req("resize", "hero_image", "image", "bigger", baseline=[480, 320])
    page = ops.apply(page, grow, "fb-t4")
    page = ops.apply(page, req("resize", "hero_image", "image", "smaller", baseline=[480, 320]),
                     "fb-t5")  # fmt: skip
    assert page.count('[data-mm-id="hero_image"]{width:') == 1 and "width:384px" in page
    assert guardrails.page_problems(PAGE, page) == []


def test_option_kind_reads_back_every_chart_type():
    from mmstudio.pipeline import charts
    from mmstudio.pipeline.chart_types import option_kind
    from mmstudio.plan import ChartPlan, DesignPlan

    plan = DesignPlan.model_validate({
        "title": "t", "layout": {"palette": [{"role": "background", "hex": "#ffffff"}],
                                 "typography": {"heading": "serif", "body": "sans-serif"}},
        "sections": [{"id": "s", "kind": "content", "element_ids": ["c"]}],
        "charts": [{"id": "c", "save_path": "assets/c.html", "context": {"section": "s",
                    "role": "data"}, "prompt": "p", "display_width_px": 600,
                    "display_height_px": 300, "source_data": {"columns": ["k", "a", "b"],
                    "rows": [["x", 1, 2], ["y", 3, 4], ["z", 5, 6]]}}],
    })  # fmt: skip
    chart: ChartPlan = plan.charts[0]
    for kind in charts.CHART_TYPES:
        element = chart.model_copy(update={"attributes": chart.attributes.model_copy(
            update={"chart_type": kind})})  # fmt: skip
        expected = "bar" if kind == "grouped-bar" else kind
        assert option_kind(charts.build_option(element, plan)) == expected, kind


def test_legacy_behaviour_rows_load_with_their_aspect(tmp_path):
    import sqlite3

    from mmstudio.feedback.functional import is_functional

    ledger = Ledger(tmp_path / "history.sqlite")
    old = '{"id": "t1.r1", "turn": 1, "text": "Menu", "op": "free", "target_kind": "function"}'
    with sqlite3.connect(tmp_path / "history.sqlite") as db:  # a row written before ``aspect``
        db.execute("INSERT INTO feedback_requirements VALUES ('t1.r1', 1, ?, NULL)", (old,))
    (req,) = ledger.requirements()
    assert (req.aspect, req.target_kind, req.check_only) == ("behaviour", "page", False)
    assert is_functional(req)
    assert not is_functional(Requirement(text="x", target_kind="page"))
    again = Requirement.model_validate_json(req.model_dump_json())
    assert again.aspect == "behaviour" and is_functional(again)


def test_model_calls_take_the_narrowest_level_per_target():
    from mmstudio.feedback.refiners import Scene, plan_calls
    from mmstudio.report import Report

    scene = Scene(ELEMENTS, Report(), {None: ["mark 1: …"], "hero_image": ["mark 1: …"]})
    reqs = number([
        Requirement(text="The photo has softer edges", target="hero_image", target_kind="image"),
        Requirement(text="The photo shows a latte", target="hero_image", target_kind="image",
                    aspect="asset"),
        Requirement(text="The headline feels premium", target="hero--title", target_kind="text"),
        Requirement(text="The photo has a shadow", target="hero_image", target_kind="image"),
        Requirement(text="The page feels calm"),
    ], 1)  # fmt: skip
    calls = plan_calls(reqs, scene, {"t1.r5": "judge: still loud"})
    assert [(c.level, c.element, [r.id for r in c.requirements]) for c in calls] == [
        ("context", "hero_image", ["t1.r1", "t1.r4"]),
        ("local", "hero_image", ["t1.r2"]),
        ("global", None, ["t1.r3", "t1.r5"]),
    ]
    assert calls[0].instruction == (
        "- The photo has softer edges\n  mark 1: …\n- The photo has a shadow\n  mark 1: …"
    )
    assert calls[2].lines[0] == (
        "- The headline feels premium (only the h1 text “Roasted Slowly” `hero--title` in the "
        'hero section, CSS selector `[id="hero--title"]`)'
    )
    assert calls[2].lines[1] == (
        "- The page feels calm\n  mark 1: …\n  A reviewer checked the page: it is still not met "
        "(judge: still loud). Fix it."
    )


def test_a_section_made_darker_starts_from_its_own_colour():
    """A footer that is already dark (#2b1d14) gets darker still — not the fixed dark brown,
    which is lighter than it — and its text stays legible."""

    def tone(word: str, rgb: list[float]) -> tuple[str, str]:
        req = Requirement(
            id="t1.r1", turn=1, text=f"make the footer {word}", op="tone", value=word,
            target="footer", target_kind="section", baseline=rgb,
        )  # fmt: skip
        return ops._section_tone(req)

    bg, fg = tone("darker", [43, 29, 20])
    assert bg == "#1a110c" and fg == ops.DARK_TEXT
    bg, fg = tone("brighter", [43, 29, 20])
    assert int(bg[1:3], 16) > 43 and fg in (ops.DARK_TEXT, ops.LIGHT_TEXT)
    assert tone("darker", [250, 250, 250]) == ("#969696", ops.LIGHT_TEXT)
    assert tone("darker", []) == (ops.DARK_BG, ops.DARK_TEXT)


def test_rates_count_a_judged_free_requirement_and_never_an_unchecked_one(tmp_path):
    """`mmstudio turns` showed "pass rate 1.00" next to a FAIL: a free requirement the rules or
    the model decided counts like a measured one; one nobody could check never counts."""
    ledger = Ledger(tmp_path / "history.sqlite")
    reqs = number(split_offline("hide the video", [], ELEMENTS), 1)
    free = [Requirement(text="add an FAQ accordion", op="free"),
            Requirement(text="make it feel premium", op="free")]  # fmt: skip
    reqs = [*reqs, *free]
    for n, r in enumerate(reqs, start=1):
        r.id = f"t1.r{n}"
    ledger.add_turn(TurnRecord(1, "t", "w", None, None, None, "v1", "targeted", "s"), reqs)
    ledger.add_verdicts(
        [Verdict("t1.r1", True, "hidden"), Verdict("t1.r2", False, "rules: no accordion"),
         Verdict("t1.r3", None, "no rule reads this condition")], 1, "v1", "final",
    )  # fmt: skip
    assert rates(ledger) == {"pass_rate": 0.5, "forgetting_rate": 0.0}


def test_a_designer_s_colour_names_are_understood():
    """ "make the headline terracotta" was "not understood" (only hex and 16 names worked)."""
    from mmstudio.feedback.requirements import parse_op

    assert parse_op("make the headline terracotta") == ("colour", "#e2725b")
    assert parse_op("make the button forest green") == ("colour", "#228b22")
    assert parse_op("make the headline red") == ("colour", "#c0392b")  # the tuned table first
    assert parse_op("add a mint leaf icon") is None
