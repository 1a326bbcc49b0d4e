"""Feedback turns end to end in the browser: every offline operation (turn recorded, requirement
passes, version committed), a forgetting scenario the critic catches and repairs, a later turn
that supersedes an earlier one, an annotated turn, and ``mmstudio feedback`` on the command line.
"""

from __future__ import annotations

import io
import json
import shutil

import pytest
from PIL import Image

from mmstudio.cli import main
from mmstudio.feedback import Annotation, FeedbackTurn, Shape, save
from mmstudio.pipeline import charts
from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.render import find_browser
from mmstudio.resources import vendor_file
from mmstudio.studio.feedback import FeedbackService

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Feedback</title>
<style>body{margin:0;font:18px/1.5 sans-serif;color:#222;background:#fff}
section{padding:40px 80px;background:#f4efe6} h1{font-size:48px;margin:0 0 16px}
img{display:block;width:480px;height:320px} footer{padding:30px 80px;background:#e9e2d6}</style>
</head><body>
<section data-mm-section="hero"><div class="wrap"><h1 id="hero--title">Roasted Slowly</h1>
<p>Every bag is roasted to order and shipped within two days.</p>
<figure><img data-mm-id="hero_image" src="assets/hero.png" alt="beans"></figure></div></section>
<section data-mm-section="story"><div class="wrap"><h2 id="story--title">Our Story</h2>
<p>Each batch is profiled by hand.</p></div></section>
<section data-mm-section="numbers"><div class="wrap"><h2 id="numbers--title">By the numbers</h2>
<figure class="chart-panel"><div class="chart-frame" style="height:300px"><iframe
 data-mm-id="sales_chart" src="assets/sales.html" title="Bags sold" loading="eager"
 style="width:640px;height:300px;border:0"></iframe></div></figure></div></section>
<footer data-mm-section="footer"><div class="wrap"><p>Fresh roast dates, every week.</p></div>
</footer>
</body></html>"""


needs_browser = pytest.mark.skipif(
    find_browser().executable is None, reason="no Chromium for Playwright"
)


PLAN = DesignPlan.model_validate(
    {
        "title": "Coffee",
        "layout": {
            "palette": [{"role": "background", "hex": "#F4EFE6"}],
            "typography": {"heading": "serif", "body": "sans-serif"},
        },
        "sections": [
            {"id": "hero", "kind": "hero", "element_ids": ["hero_image"]},
            {"id": "story", "kind": "content"},
            {"id": "numbers", "kind": "stats", "element_ids": ["sales_chart"]},
            {"id": "footer", "kind": "footer"},
        ],
        "charts": [
            {
                "id": "sales_chart",
                "save_path": "assets/sales.html",
                "context": {"section": "numbers", "role": "data"},
                "prompt": "bags sold per month",
                "title": "Bags sold",
                "display_width_px": 640,
                "display_height_px": 300,
                "attributes": {"chart_type": "bar"},
                "source_data": {
                    "columns": ["Month", "Bags"],
                    "rows": [["Jan", 120], ["Feb", 135], ["Mar", 160], ["Apr", 150]],
                },
            }
        ],
        "images": [
            {
                "id": "hero_image",
                "save_path": "assets/hero.png",
                "context": {"section": "hero", "role": "hero"},
                "prompt": "coffee beans",
                "display_width_px": 480,
                "display_height_px": 320,
            }
        ],
    }
)


def _png() -> bytes:
    image = Image.new("RGB", (480, 320))
    for x in range(480):
        for y in range(0, 320, 8):
            image.paste((90 + x // 4, 110, 150 - x // 8), (x, y, x + 1, y + 8))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def project(tmp_path):
    project = Project.create(tmp_path / "p", prompt="coffee", provider="offline", title="Coffee")
    install_page(project, PAGE)
    return project


def install_page(project: Project, page: str) -> None:
    """Install ``page`` with PLAN's hero image, chart files and ECharts; commit "first"."""
    site = project.staging_dir() / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text(page)
    (site / "assets" / "hero.png").write_bytes(_png())
    for path, text in charts.chart_files(PLAN.charts[0], PLAN).items():
        (site / path).write_text(text)
    (site / "vendor").mkdir()
    shutil.copyfile(vendor_file("echarts.min.js"), site / "vendor" / "echarts.min.js")
    project.install_site(site)
    project.write_plan(PLAN)
    project.commit("first")


def turn(project) -> FeedbackTurn:
    return FeedbackTurn(project, rescore=False)


def _verdicts(result) -> dict[str, bool | None]:
    return {v.requirement: v.passed for v in result.verdicts}


@pytest.mark.asyncio(loop_scope="session")
async def test_every_offline_operation_end_to_end(renderer, project):
    head = project.manifest.head
    text = (
        "change 'Every bag' to 'Roasted to order, shipped in 48 hours'; make the story title "
        "#1e3a5f; move the story section up; make the headline bigger; make the hero_image "
        "warmer; add a note 'Free shipping over 30 euros' to the footer; hide the hero_image"
    )
    result = await turn(project).run(text)
    ops = [(r.op, r.target) for r in result.requirements]
    assert ops == [
        ("text", "hero-p-1"), ("colour", "story--title"), ("move", "story"),
        ("resize", "hero--title"), ("tone", "hero_image"), ("add_text", "footer"),
        ("hide", "hero_image"),
    ]  # fmt: skip
    verdicts = _verdicts(result)
    # the image is hidden by the last clause, so its warmer tone cannot be seen any more
    assert verdicts.pop("t1.r5") is False
    assert all(verdicts.values()), result.verdicts
    # a requirement that still fails after the repair does not block the commit: it is reported
    assert result.version != head and project.manifest.head == result.version
    assert result.status == "failing" and [v.requirement for v in result.failing] == ["t1.r5"]
    assert result.as_dict()["failing"][0]["requirement"] == "t1.r5"
    page = (project.site_dir / "index.html").read_text()
    assert "Roasted to order, shipped in 48 hours" in page
    assert page.index('data-mm-section="story"') < page.index('data-mm-section="hero"')
    view = FeedbackService(project).turns()
    assert view["turns"][0]["version"] == result.version
    assert [r["status"] for r in view["turns"][0]["requirements"]].count("pass") == 6


@pytest.mark.asyncio(loop_scope="session")
async def test_a_later_turn_that_undoes_an_earlier_one_is_caught_and_repaired(renderer, project):
    first = await turn(project).run("make the headline red")
    assert _verdicts(first) == {"t1.r1": True}
    # a darker hero recolours all of its text for legibility — and with it the red headline
    second = await turn(project).run("make the hero section darker")
    assert second.forgetting == [
        {"requirement": "t1.r1", "detail": second.forgetting[0]["detail"], "repaired": True}
    ]
    assert "distance" in second.forgetting[0]["detail"]
    assert _verdicts(second) == {"t1.r1": True, "t2.r1": True}
    assert second.repaired == ["t1.r1"]
    page = (project.site_dir / "index.html").read_text()
    assert page.rindex('data-mm-patch="fb-repair"') > page.rindex('data-mm-patch="fb-t2"')
    view = FeedbackService(project).turns()
    assert view["forgetting"][0]["requirement"] == "t1.r1" and view["forgetting"][0]["repaired"]
    assert (view["pass_rate"], view["forgetting_rate"]) == (1.0, 0.0)  # the repair restored it
    # an explicit change of the same property later is not forgetting: it supersedes
    third = await turn(project).run("make the headline #ffffff")
    assert third.forgetting == [] and _verdicts(third) == {"t2.r1": True, "t3.r1": True}
    statuses = {r["id"]: r["status"] for t in FeedbackService(project).turns()["turns"]
                for r in t["requirements"]}  # fmt: skip
    assert statuses == {"t1.r1": "superseded", "t2.r1": "pass", "t3.r1": "pass"}
    assert len(project.history.list()) == 4


@pytest.mark.asyncio(loop_scope="session")
async def test_annotated_turn_resolves_marks_and_stores_vectors_and_png(
    renderer, project, tmp_path
):
    annotation = Annotation(
        png="shot.png",
        shapes=[
            Shape(id="s1", kind="rect", x=70, y=170, w=520, h=370),  # around the image
            Shape(id="n1", kind="text", x=620, y=200, w=120, h=20, text="cooler"),
            Shape(id="s2", kind="arrow", points=[(700, 60), (200, 70)]),  # at the headline
            Shape(id="n2", kind="text", x=720, y=40, text="'Slow Coffee'", attached_to="s2"),
        ],
    )
    path = save(annotation, tmp_path / "turn.json")
    (tmp_path / "shot.png").write_bytes(_png())
    result = await turn(project).run("", annotation, tmp_path / "shot.png")
    assert result.marks[0].startswith("mark 1: rectangle over the image `hero_image`")
    assert "note: 'cooler'" in result.marks[0]
    assert [(r.op, r.target, r.value) for r in result.requirements] == [
        ("tone", "hero_image", "cooler"),
        ("text", "hero--title", "Slow Coffee"),
    ]
    assert all(_verdicts(result).values()), result.verdicts
    record = FeedbackTurn(project).ledger.turns()[0]
    assert json.loads(record.annotation)["shapes"][0]["kind"] == "rect"
    assert project.objects.get(record.png) == (tmp_path / "shot.png").read_bytes()
    assert path.is_file()


@needs_browser
def test_cli_feedback(project, tmp_path, capsys):
    annotation = Annotation(shapes=[Shape(id="s1", kind="rect", x=-4, y=548, w=1290, h=220)])
    path = save(annotation, tmp_path / "a.json")
    code = main(["feedback", str(project.root), "--text", "hide this", "--annotations",
                 str(path), "--json"])  # fmt: skip
    out, _ = capsys.readouterr()
    result = json.loads(out)
    assert code == 0 and result["requirements"][0]["target"] == "story"
    assert result["passed"] == 1 and result["version"] == Project.open(project.root).manifest.head
    assert result["status"] == "ok" and result["failing"] == []
    # committed, but a requirement still fails after the repair: exit 3, listed in the JSON
    code = main(["feedback", str(project.root), "--text", "make the hero_image warmer; hide the "
                 "hero_image; frobnicate the story", "--json"])  # fmt: skip
    result = json.loads(capsys.readouterr().out)
    assert code == 3 and result["status"] == "failing"
    assert [v["requirement"] for v in result["failing"]] == ["t2.r1"]
    assert result["not_understood"] == ["t2.r3: frobnicate the story"]
    assert result["version"] == Project.open(project.root).manifest.head
    assert main(["feedback", str(project.root), "--text", "   "]) == 1
    assert "needs an instruction" in capsys.readouterr().err


def _order(page: str, *needles: str) -> list[int]:
    return [page.index(n) for n in needles]


@pytest.mark.asyncio(loop_scope="session")
async def test_change_chart_type_end_to_end(renderer, project):
    head = project.manifest.head
    result = await turn(project).run("make the chart a pie chart")
    assert [(r.op, r.target, r.value) for r in result.requirements] == [
        ("chart_type", "sales_chart", "pie")
    ]
    assert _verdicts(result) == {"t1.r1": True}, result.verdicts
    assert "assets/sales.json draws a pie chart" in result.verdicts[0].detail
    assert result.version != head and project.manifest.head == result.version
    assert project.read_plan().charts[0].attributes.chart_type == "pie"
    option = json.loads((project.site_dir / "assets" / "sales.json").read_text())
    assert option["series"][0]["type"] == "pie"
    assert charts.script_json(option) in (project.site_dir / "assets" / "sales.html").read_text()
    # a note on a marked chart works the same way, and the later type supersedes the earlier one
    chart = Shape(id="s1", kind="rect", x=70, y=0, w=660, h=10)  # placed below from the render
    elements = {e.id: e for e in (await _elements(project))}
    box = elements["sales_chart"].box
    chart = chart.model_copy(update={"x": box.x - 6, "y": box.y - 6, "w": box.w + 12,
                                     "h": box.h + 12})  # fmt: skip
    note = Shape(id="n1", kind="text", x=box.x + box.w + 20, y=box.y, text="line chart")
    second = await turn(project).run("", Annotation(shapes=[chart, note]))
    assert [(r.op, r.target, r.value) for r in second.requirements] == [
        ("chart_type", "sales_chart", "line")
    ]
    assert _verdicts(second) == {"t2.r1": True}
    statuses = {r["id"]: r["status"] for t in FeedbackService(project).turns()["turns"]
                for r in t["requirements"]}  # fmt: skip
    assert statuses == {"t1.r1": "superseded", "t2.r1": "pass"}


async def _elements(project):
    from mmstudio.feedback import page_elements

    render = await turn(project)._page_render(
        (project.site_dir / "index.html").read_text(), 1280, "probe"
    )
    return page_elements(render)


@pytest.mark.asyncio(loop_scope="session")
async def test_sketched_boxes_insert_image_chart_video_and_text(renderer, project):
    elements = {e.id: e for e in await _elements(project)}
    hero, story, footer = (elements[k].box for k in ("hero", "story", "footer"))
    bottom = footer.y + footer.h
    shapes = [  # boxes in free space, each with its label note just inside it
        Shape(id="s1", kind="rect", x=80, y=hero.y + hero.h - 30, w=480, h=50),  # hero | story
        Shape(id="n1", kind="text", x=90, y=hero.y + hero.h - 25, attached_to="s1",
              text="image: a lighthouse at dusk"),
        Shape(id="s2", kind="rect", x=80, y=story.y + story.h - 30, w=600, h=50),  # story end
        Shape(id="n2", kind="text", x=90, y=story.y + story.h - 25, attached_to="s2",
              text="Roasted every Tuesday and Friday."),
        Shape(id="s3", kind="rect", x=80, y=bottom + 20, w=560, h=300),  # below the page
        Shape(id="n3", kind="text", x=90, y=bottom + 30, text="chart: bags sold by month",
              attached_to="s3"),
        Shape(id="s4", kind="rect", x=700, y=bottom + 20, w=480, h=270),
        Shape(id="n4", kind="text", x=710, y=bottom + 30, text="video: waves", attached_to="s4"),
    ]  # fmt: skip
    result = await turn(project).run("", Annotation(sketch=True, shapes=shapes))
    got = [(r.op, r.value, r.target, r.place) for r in result.requirements]
    assert got == [
        ("insert", "image", "hero", "after:hero_image"),
        ("insert", "text", "story", "after:story-p-1"),
        ("insert", "chart", "footer", "end"),
        ("insert", "video", "footer", "end"),
    ]
    assert all(_verdicts(result).values()), result.verdicts
    assert result.not_applied == [] and project.manifest.head == result.version
    page = (project.site_dir / "index.html").read_text()
    image, chart, video = "fb_image_t1_r1", "fb_chart_t1_r3", "fb_video_t1_r4"
    assert _order(page, 'data-mm-id="hero_image"', f'data-mm-id="{image}"',
                  'data-mm-section="story"', "Each batch is profiled", 'id="fb-text-t1-r2"',
                  'data-mm-section="numbers"', f'data-mm-id="{chart}"',
                  f'data-mm-id="{video}"') == sorted(_order(
                      page, 'data-mm-id="hero_image"', f'data-mm-id="{image}"',
                      'data-mm-section="story"', "Each batch is profiled",
                      'id="fb-text-t1-r2"', 'data-mm-section="numbers"',
                      f'data-mm-id="{chart}"', f'data-mm-id="{video}"'))  # fmt: skip
    plan = project.read_plan()
    assert plan.section("hero").element_ids == ["hero_image", image]
    assert plan.section("footer").element_ids == [chart, video]
    assert plan.section("story").paragraphs == ["Roasted every Tuesday and Friday."]
    assert plan.element(chart).attributes.chart_type == "line"  # months read as a trend
    assert plan.element(image).alt == "a lighthouse at dusk"
    for element in (plan.element(image), plan.element(chart), plan.element(video)):
        assert (project.site_dir / element.save_path).stat().st_size > 0
    assert (project.site_dir / plan.element(chart).option_path).is_file()
    assert (project.site_dir / plan.element(video).poster_path).is_file()
    version = project.history.get(result.version)
    assert f"site/{plan.element(video).save_path}" in version.files


@pytest.mark.asyncio(loop_scope="session")
async def test_compound_clauses_are_never_dropped_and_patches_stay_idempotent(renderer, project):
    result = await turn(project).run("make the title red and hide the chart and xyzzy the footer")
    assert [(r.op, r.target) for r in result.requirements] == [
        ("colour", "hero--title"), ("hide", "sales_chart"), ("free", "footer"),
    ]  # fmt: skip
    assert _verdicts(result) == {"t1.r1": True, "t1.r2": True, "t1.r3": None}
    assert result.not_understood == ["t1.r3: xyzzy the footer"]
    assert result.as_dict()["status"] == "ok"
    view = FeedbackService(project).turns()
    assert [r["status"] for r in view["turns"][0]["requirements"]] == ["pass", "pass", "unchecked"]
    shown = await turn(project).run("show the chart; make the headline bigger")
    assert _verdicts(shown) == {"t1.r1": True, "t1.r3": None, "t2.r1": True, "t2.r2": True}
    again = await turn(project).run("make the headline bigger")  # the same property again
    assert _verdicts(again)["t3.r1"] is True
    page = (project.site_dir / "index.html").read_text()
    assert page.count('[id="hero--title"]{font-size') == 1  # replaced, not piled up
    assert page.count('[id="hero--title"]{color') == 1
    assert "display:none" not in page
