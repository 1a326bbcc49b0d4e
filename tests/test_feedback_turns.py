"""Feedback turns end to end in the browser: every offline operation (turn recorded, requirement
passes, version committed), a forgetting scenario the critic catches and repairs, a later turn
that supersedes an earlier one, an annotated turn, and ``mmstudio feedback`` on the command line.
"""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from mmstudio.cli import main
from mmstudio.feedback import Annotation, FeedbackTurn, Shape, save
from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.render import find_browser
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
            {"id": "footer", "kind": "footer"},
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
    site = project.staging_dir() / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text(PAGE)
    (site / "assets" / "hero.png").write_bytes(_png())
    project.install_site(site)
    project.write_plan(PLAN)
    project.commit("first")
    return project


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
    assert result.version != head and project.manifest.head == result.version
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
    assert main(["feedback", str(project.root), "--text", "   "]) == 1
    assert "needs an instruction" in capsys.readouterr().err
