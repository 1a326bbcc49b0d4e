"""Refiners that need the plan (chart rebuild, image regenerate, section order) and the
reflection loop: route → local ∥ context → global → re-evaluate → stop, keeping the best."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from case_plans import corpus_plan
from PIL import Image
from refine_fixtures import project_from, requires_browser

from mmstudio.project import Project
from mmstudio.refine import RefineInput, Target, propose, route
from mmstudio.refine.context import fitted_slot
from mmstudio.refine.local import closest_size, compact_option
from mmstudio.report import Issue, Report
from mmstudio.studio.refining import RefineService


def test_routing_by_level_and_element():
    issues = [
        Issue(
            id="1", element="a", dimension="image", level="context", code="stretched", message="m"
        ),
        Issue(
            id="2",
            element="a",
            dimension="style",
            level="local",
            code="palette-drift",
            severity="minor",
            message="m",
        ),
        Issue(
            id="3",
            element="b",
            dimension="chart",
            level="local",
            code="chart-overflow",
            message="m",
        ),
        Issue(
            id="4",
            element=None,
            dimension="layout",
            level="global",
            code="horizontal-overflow",
            message="m",
        ),
        Issue(id="5", element="c", dimension="layout", level="global", code="dialog", message="m"),
    ]
    report = Report(issues=issues)
    got = {(t.level, t.element, tuple(i.id for i in t.issues)) for t in route(report)}
    assert got == {
        ("local", "a", ("2",)),
        ("local", "b", ("3",)),
        ("context", "a", ("1",)),
        ("global", None, ("4",)),
    }
    assert [t.level for t in route(report, min_severity="major")] == ["local", "context", "global"]
    explicit = route(report, level="local", element="a")
    assert [(t.element, [i.id for i in t.issues]) for t in explicit] == [("a", ["1", "2"])]


def test_pure_rules():
    assert fitted_slot([400, 400], [800, 400]) == (400, 200)
    assert fitted_slot([1200, 300], [600, 900]) == (200, 300)
    assert closest_size([1200, 300]) == "1536x1024" and closest_size([300, 500]) == "1024x1536"
    option = {
        "title": {"text": "T"},
        "grid": {"top": 60},
        "textStyle": {"fontSize": 14},
        "series": [{"label": {"fontSize": 16}}],
    }
    small = compact_option(option)
    assert "title" not in small and small["grid"]["top"] == 30 and small["grid"]["containLabel"]
    assert small["textStyle"]["fontSize"] == 11 and small["series"][0]["label"]["fontSize"] == 11


def _vh_chart_site(cases: Path, tmp: Path) -> Path:
    site = tmp / "site"
    shutil.copytree(cases / "good", site)
    shutil.copyfile(
        cases / "vh-chart" / "assets" / "visits_chart.html", site / "assets" / "visits_chart.html"
    )
    html = (site / "index.html").read_text()
    (site / "index.html").write_text(html.replace("iframe{height:320px}", "iframe{height:240px}"))
    return site


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_local_chart_rebuild_and_image_regenerate(renderer, cases: Path, tmp_path):
    plan = corpus_plan()
    plan.layout.palette[0].hex, plan.layout.palette[1].hex = "#ff00aa", "#00cc44"
    project = project_from(_vh_chart_site(cases, tmp_path), tmp_path / "p", plan)
    service = RefineService(project)
    before = await service.evaluate()
    assert {"chart-overflow", "palette-drift"} <= {i.code for i in before.issues}
    hero_before = (project.site_dir / "assets/hero.png").read_bytes()
    outcomes = await service.refine("local")
    assert {(o.element, o.outcome) for o in outcomes} == {
        ("visits_chart", "accepted"),
        ("hero_image", "accepted"),
    }
    after = project.read_report()
    assert "chart-overflow" not in {i.code for i in after.issues}
    assert after.scores.overall >= before.scores.overall
    page = (project.site_dir / "assets/visits_chart.html").read_text()
    assert "100vh" not in page and (project.site_dir / "vendor/echarts.min.js").is_file()
    option = json.loads((project.site_dir / "assets/visits_chart.json").read_text())
    assert "title" not in option and option["grid"]["containLabel"]
    image = next(o for o in outcomes if o.element == "hero_image")
    assert image.outcome == "accepted"  # regenerated with the page palette: the drift is gone
    assert (project.site_dir / "assets/hero.png").read_bytes() != hero_before
    assert ("palette-drift", "hero_image") not in {(i.code, i.element) for i in after.issues}
    assert Image.open(project.site_dir / "assets/hero.png").size == (1536, 1024)


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_global_section_order_against_the_plan(renderer, cases: Path, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(cases / "good", site)
    html = (site / "index.html").read_text()
    plan = corpus_plan(
        sections=[
            {"id": "stats", "kind": "charts", "element_ids": ["visits_chart"]},
            {"id": "hero", "kind": "hero", "element_ids": ["hero_image"]},
        ]
    )
    project = project_from(site, tmp_path / "p", plan)
    service = RefineService(project)
    before = await service.evaluate()
    assert "section-order" in {i.code for i in before.issues}
    outcomes = await service.refine("global")
    assert [o.outcome for o in outcomes] == ["accepted"]
    after = project.read_report()
    assert "section-order" not in {i.code for i in after.issues}
    new = (project.site_dir / "index.html").read_text()
    assert new.index('data-mm-section="stats"') < new.index('data-mm-section="hero"')
    assert sorted(new) == sorted(html)  # the same markup, only moved


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_reflection_loop_fixes_context_and_global_and_stops(renderer, cases: Path, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(cases / "short-frame", site)
    html = (site / "index.html").read_text()
    (site / "index.html").write_text(
        html.replace("iframe{height:120px}", "iframe{height:120px} h1{color:#f6f6f6}")
    )
    project = project_from(site, tmp_path / "p")
    service = RefineService(project)
    first = await service.evaluate()
    project.commit("broken")
    assert {i.code for i in first.issues} == {"frame-too-short", "low-contrast"}
    result = await service.reflect(rounds=3)
    assert result.before == first.scores.overall and result.after == 1.0
    assert (result.issues_before, result.issues_after) == (2, 0)
    assert result.rounds == 1 and result.stopped == "no issue above the threshold"
    assert {(o.level, o.outcome) for o in result.outcomes} == {
        ("context", "accepted"),
        ("global", "accepted"),
    }
    levels = [v.level for v in project.history.list()]
    assert levels == [None, "context", "global"]
    assert result.kept == project.manifest.head


@pytest.mark.asyncio
async def test_loop_stops_when_a_round_gains_nothing(tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        '<html><head></head><body><p data-mm-id="x">t</p></body></html>'
    )
    project = project_from(site, tmp_path / "p")
    stuck = Issue(
        id="1",
        element=None,
        dimension="layout",
        level="global",
        code="horizontal-overflow",
        message="m",
        evidence={"culprits": ["p"]},
    )

    async def never_better(page, plan, out_dir):
        return Report(issues=[stuck], scores={"layout": 0.9, "overall": 0.9})

    service = RefineService(project, evaluator=never_better)
    result = await service.reflect(rounds=3)
    assert result.stopped == "a round gained nothing" and result.rounds == 1
    assert [a.outcome for a in project.history.attempts()] == ["reverted"]
    assert "data-mm-patch" not in (project.site_dir / "index.html").read_text()
    versions = Project.open(project.root).history.list()
    assert [v.summary for v in versions] == ["Before refinement"]  # the revert added nothing


async def test_local_video_regenerates_webm_and_adds_its_source(tmp_path):
    plan = corpus_plan(
        sections=[
            {"id": "hero", "kind": "hero", "element_ids": ["hero_image", "loop"]},
            {"id": "stats", "kind": "charts", "element_ids": ["visits_chart"]},
        ],
        videos=[
            {
                "id": "loop",
                "save_path": "assets/loop.webm",
                "poster_path": "assets/loop.png",
                "context": {"section": "hero", "role": "background"},
                "prompt": "waves",
                "display_width_px": 640,
                "display_height_px": 360,
            }
        ],
    )
    video = '<video data-mm-id="loop" src="assets/loop.mp4"></video>'
    html = f"<html><head></head><body>{video}</body></html>"
    issue = Issue(
        id="1", element="loop", dimension="video", level="local", code="video-format", message="m"
    )
    report = Report(
        issues=[issue], elements=[{"id": "loop", "kind": "video", "path": "assets/loop.mp4"}]
    )
    inp = RefineInput("local", "loop", [issue], report, plan, tmp_path, html)
    [change] = await propose(Target("local", "loop", [issue]), inp)
    assert set(change.files) == {"assets/loop.webm", "assets/loop.png"}
    assert change.files["assets/loop.webm"][:4] == b"\x1a\x45\xdf\xa3"  # EBML: a webm file
    edited = change.page(html)
    assert '<video data-mm-id="loop" src="assets/loop.mp4"><source src="assets/loop.webm"' in edited
    assert change.page(edited) == edited  # applying twice adds nothing


def test_verdict_keeps_only_changes_that_gain_and_do_not_score_worse():
    from mmstudio.refine import Change
    from mmstudio.refine.verdict import judge

    def report(overall, *issues):
        return Report(scores={"overall": overall}, issues=list(issues))

    def contrast(code, blocks, severity="major"):
        return Issue(
            id=code,
            dimension="style",
            level="global",
            code=code,
            message="m",
            severity=severity,
            evidence={"blocks": blocks},
        )

    change = Change("global", None, ["low-contrast"], "ink")
    base = report(0.9, contrast("low-contrast", 3))
    assert judge(base, report(0.95), change)[0]
    assert judge(base, report(0.9, contrast("low-contrast-minor", 3, "minor")), change)[0]
    assert judge(base, report(0.9, contrast("low-contrast", 1)), change)[0]
    assert not judge(base, report(0.9, contrast("low-contrast", 3)), change)[0]
    assert "fell" in judge(base, report(0.8), change)[1]
    worse = report(0.9, contrast("low-contrast", 1), contrast("horizontal-overflow", 1))
    assert "introduces horizontal-overflow" in judge(base, worse, change)[1]
