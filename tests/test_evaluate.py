"""Evaluation: the broken-page corpus (tests/cases) gives exactly the expected issue, element, level
and score effect; scoring rules; routing; failures never score as good pages."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from case_plans import corpus_plan

from mmstudio.evaluate import CHECKS, build_report, evaluate, resolve_target
from mmstudio.evaluate.assets import visible_share
from mmstudio.evaluate.colour import contrast_ratio, relative_luminance
from mmstudio.evaluate.scoring import aesthetics, failed_scores, weighted
from mmstudio.render import Render, Renderer, Timeouts, find_browser
from mmstudio.report import Issue

requires_browser = pytest.mark.skipif(
    find_browser().executable is None,
    reason=f"no Chromium for Playwright: {find_browser().problem}",
)

# case: (check code, element, level, dimension, score name, score after the issue)
CORPUS = {
    "opacity-chart": ("invisible-default", "visits_chart", "context", "chart", "chart", 0.0),
    "vh-chart": ("chart-overflow", "visits_chart", "local", "chart", "chart", 0.8),
    "cover-portrait": ("cover-crop", "team_photo", "context", "image", "image", 0.8),
    "stretched-image": ("stretched", "product_shot", "context", "image", "image", 0.8),
    "pale-hero": ("low-contrast", "hero_title", "global", "style", "style", 0.9),
    "overflow-390": ("horizontal-overflow", "price_table", "global", "layout", "layout", 0.9),
    "missing-asset": ("missing-asset", "hero_image", "local", "image", "image", 0.5),
    "cdn-script": ("blocked-request", None, "global", "layout", "layout", 0.9),
    "alert-on-load": ("dialog", None, "global", "layout", "layout", 0.95),
    "infinite-loop": ("script-timeout", None, "global", "layout", "layout", 0.9),
    "location-change": ("navigation", None, "global", "layout", "layout", 0.9),
    "covered-image": ("covered", "hero_image", "context", "image", "image", 0.0),
    "text-overlap": ("text-overlap", "hero_title", "global", "layout", "layout", 0.95),
    "text-spill": ("text-overflow", "hero_cta", "global", "layout", "layout", 0.95),
    "short-frame": ("frame-too-short", "visits_chart", "context", "chart", "chart", 0.8),
}


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("case", sorted(CORPUS))
async def test_broken_page_gives_exactly_its_issue(renderer, cases: Path, tmp_path, case):
    code, element, level, dimension, score_name, expected = CORPUS[case]
    report = await evaluate(cases / case, out_dir=tmp_path)
    assert [i.code for i in report.issues] == [code], [i.message for i in report.issues]
    issue = report.issues[0]
    assert (issue.element, issue.level, issue.dimension) == (element, level, dimension)
    assert issue.source == "measured" and issue.message and issue.evidence
    assert getattr(report.scores, score_name) == pytest.approx(expected)
    assert report.scores.overall is not None and report.scores.overall < 1.0
    assert Path(report.render.screenshot).is_file()


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_good_page_scores_full_marks(renderer, cases: Path, tmp_path):
    report = await evaluate(cases / "good", out_dir=tmp_path)
    assert report.issues == []
    assert report.scores.model_dump() == {
        "layout": 1.0,
        "style": 1.0,
        "aesthetics": 1.0,
        "image": 1.0,
        "video": None,
        "chart": 1.0,
        "overall": 1.0,
    }
    assert {(e.id, e.kind, e.path) for e in report.elements} == {
        ("hero_image", "image", "assets/hero.png"),
        ("visits_chart", "chart", "assets/visits_chart.html"),
    }


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_accessibility_violations_become_issues(renderer, cases: Path, tmp_path):
    report = await evaluate(cases / "a11y", out_dir=tmp_path)
    found = {(i.code, i.element, i.level, i.evidence.get("rule")) for i in report.issues}
    assert found == {
        ("a11y", None, "global", "heading-order"),
        ("a11y", "menu_button", "global", "button-name"),
        ("missing-alt", "hero_image", "context", None),
    }
    assert report.scores.image == pytest.approx(0.8)
    assert report.scores.layout == pytest.approx(1 - 0.5 * (0.1 + 0.1))


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_assets_clashing_with_the_plan_palette_drift(renderer, cases: Path, tmp_path):
    plan = corpus_plan()
    plan.layout.palette[0].hex, plan.layout.palette[1].hex = "#ff00aa", "#00cc44"
    report = await evaluate(cases / "good", out_dir=tmp_path, plan=plan)
    drift = {(i.code, i.element, i.level, i.dimension) for i in report.issues}
    assert ("palette-drift", "hero_image", "local", "style") in drift
    assert all(i.code == "palette-drift" for i in report.issues)
    assert report.scores.style == pytest.approx(1 - 0.5 * 0.1 * len(report.issues))
    assert report.scores.image == 1.0  # a style issue does not cost the image its score


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_crop_path_is_in_evidence(renderer, cases: Path, tmp_path):
    report = await evaluate(cases / "cover-portrait", out_dir=tmp_path)
    crop = Path(report.issues[0].evidence["crop"])
    assert crop.is_file() and crop.parent == tmp_path / "crops"


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_discovered_elements_get_stable_ids(renderer, cases: Path, tmp_path):
    site = tmp_path / "site"
    shutil.copytree(cases / "good", site)
    html = (site / "index.html").read_text()
    html = html.replace('data-mm-id="hero_image" ', "").replace('data-mm-id="visits_chart" ', "")
    (site / "index.html").write_text(html)
    first = await evaluate(site, out_dir=tmp_path / "a")
    second = await evaluate(site, out_dir=tmp_path / "b")
    ids = [(e.id, e.kind, e.path) for e in first.elements]
    assert ids == [
        ("img-hero", "image", "assets/hero.png"),
        ("chart-visits-chart", "chart", "assets/visits_chart.html"),
    ]
    assert ids == [(e.id, e.kind, e.path) for e in second.elements]


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_page_against_its_plan(renderer, cases: Path, tmp_path):
    good = await evaluate(cases / "good", out_dir=tmp_path, plan=corpus_plan())
    assert good.issues == [] and good.scores.layout == 1.0
    plan = corpus_plan(
        sections=[
            {"id": "stats", "kind": "charts", "element_ids": ["visits_chart"]},
            {"id": "hero", "kind": "hero", "element_ids": ["hero_image", "team_photo"]},
            {"id": "footer", "kind": "footer"},
        ],
        images=[
            corpus_plan().images[0].model_dump(),
            {
                **corpus_plan().images[0].model_dump(),
                "id": "team_photo",
                "save_path": "assets/t.png",
            },
        ],
    )
    report = await evaluate(cases / "good", out_dir=tmp_path, plan=plan)
    codes = sorted(i.code for i in report.issues)
    assert codes == ["element-missing", "section-missing-minor", "section-order"]
    missing = next(e for e in report.elements if e.id == "team_photo")
    assert missing.score == 0.0 and missing.issues == ["element-missing@team_photo"]
    assert report.scores.layout == pytest.approx(max(0, 1 - 0.5 * (0.5 + 0.3 + 0.2)))
    assert report.scores.image == pytest.approx(0.5)


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_project_folder_resolves_to_site_and_plan(renderer, cases: Path, tmp_path):
    project = tmp_path / "project"
    shutil.copytree(cases / "good", project / "site")
    (project / "plan.json").write_text(corpus_plan().model_dump_json())
    site, page, plan = resolve_target(project)
    assert (site, page, plan) == (project / "site", "index.html", corpus_plan())
    report = await evaluate(project, out_dir=tmp_path / "renders")
    assert report.issues == [] and report.target.endswith("site/index.html")


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_a_page_that_never_yields_is_a_failed_evaluation(cases: Path, tmp_path):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        "<h1>Busy</h1><script>setInterval(function () { for (;;) {} }, 0);</script>"
    )
    quick = Timeouts(load_s=0.5, step_s=0.7, settle_assets_s=0.2, total_s=8)
    async with Renderer(timeouts=quick) as private:
        started = time.monotonic()
        render = await private.render(site, out_dir=tmp_path)
    assert time.monotonic() - started < 12
    assert render.failure
    report = build_report(render)
    assert [i.code for i in report.issues] == ["render-failed"]
    assert report.issues[0].severity == "critical" and "failed" in report.issues[0].message
    assert report.scores.overall == 0.0 and report.scores.layout == 0.0


def test_failed_render_is_never_scored_good():
    render = Render(site_dir="/x", page="index.html", failure="render timed out (probe)")
    report = build_report(render)
    assert report.scores.overall == 0.0
    assert report.issues[0].code == "render-failed"
    assert failed_scores({"image", "chart"}).model_dump() == {
        "layout": 0.0,
        "style": 0.0,
        "aesthetics": 0.0,
        "image": 0.0,
        "video": None,
        "chart": 0.0,
        "overall": 0.0,
    }


def test_resolve_target_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        resolve_target(tmp_path / "nope")
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(ValueError):
        resolve_target(tmp_path / "notes.txt")
    with pytest.raises(FileNotFoundError, match=r"no index\.html"):
        resolve_target(tmp_path)
    (tmp_path / "about.html").write_text("<p>x</p>")
    assert resolve_target(tmp_path / "about.html") == (tmp_path, "about.html", None)


def _issue(code: str, severity: str | None = None, dimension: str | None = None) -> Issue:
    row = CHECKS[code]
    return Issue(
        id=code,
        dimension=dimension or ("image" if row.dimension == "element" else row.dimension),
        level=row.level,
        severity=severity or row.severity,
        code=code,
        message=code,
    )


def test_layout_and_style_follow_mm_webagent_weights():
    issues = [_issue("element-missing"), _issue("section-order"), _issue("low-contrast")]
    assert weighted(issues, "layout") == pytest.approx(1 - 0.5 * (0.5 + 0.2))
    assert weighted(issues, "style") == pytest.approx(1 - 0.5 * 0.2)
    assert weighted([_issue("render-failed")] * 3, "layout") == 0.0


def test_every_check_routes_to_a_level_and_dimension():
    element_side = {c for c, row in CHECKS.items() if row.dimension == "element"}
    assert {CHECKS[c].level for c in element_side} == {"local", "context"}
    assert all(row.level == "global" for c, row in CHECKS.items() if row.dimension == "layout")


def test_aesthetics_is_a_mean_of_five_grades():
    value, grades = aesthetics([])
    assert value == 1.0 and set(grades) == {"balance", "typography", "colour", "polish", "overall"}
    value, grades = aesthetics([_issue("horizontal-overflow")] * 5)
    assert grades["balance"] == 0.2 and 0.2 <= value < 1.0
    assert all(g in (0.2, 0.4, 0.6, 0.8, 1.0) for g in grades.values())


def test_contrast_and_crop_arithmetic():
    white, black = relative_luminance(
        pytest.importorskip("numpy").array([[255, 255, 255], [0, 0, 0]])
    )
    assert float(contrast_ratio(white, black)) == pytest.approx(21.0)
    assert visible_share(1200, 300, 600, 900) == pytest.approx(1 / 6)
    assert visible_share(400, 250, 800, 500) == pytest.approx(1.0)


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_contrast_is_measured_where_sticky_text_is_drawn(renderer, tmp_path):
    """White links on a dark sticky bar stay readable even though measuring a photo far below
    scrolls the page (the bar moves with the scroll; the screenshot is taken at the top), and
    white on amber — the FronTalk "Wasted Talent" header — is caught."""
    from PIL import Image

    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    Image.new("RGB", (400, 300), (40, 90, 160)).save(site / "assets" / "photo.png")
    (site / "index.html").write_text(
        """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sticky</title>
<style>body{margin:0;font-family:Arial,sans-serif;background:#fff;color:#222}
header{background:#f8b400;padding:20px} header h1{color:#fff;margin:0;font-size:32px}
nav{position:sticky;top:0;background:#333;z-index:5} nav a{color:#fff;display:inline-block;
padding:14px 16px;text-decoration:none} .tall{height:2600px}</style></head><body>
<header><h1>Wasted Talent</h1></header>
<nav><a href="#a">Featured Comic</a><a href="#b">Archive</a></nav>
<section class="tall"><p>Long read.</p></section>
<section><img data-mm-id="photo" src="assets/photo.png" alt="A blue photo" width="400"></section>
</body></html>""",
        encoding="utf-8",
    )
    report = await evaluate(site, out_dir=tmp_path / "out")
    contrast = [i for i in report.issues if i.code.startswith("low-contrast")]
    assert [i.evidence["selector"].split(" > ")[-1] for i in contrast] == ["h1"], [
        i.message for i in contrast
    ]
    measured = bytes.fromhex(contrast[0].evidence["background"][1:])
    assert max(abs(a - b) for a, b in zip(measured, (0xF8, 0xB4, 0x00), strict=True)) <= 6


def test_a_section_scores_its_weakest_element_and_its_own_issues():
    from mmstudio.evaluate.scoring import section_score
    from mmstudio.report import ElementScore, Report, Scores

    report = Report(
        scores=Scores(layout=0.9, image=0.8).with_overall(),
        elements=[ElementScore(id="photo", kind="image", score=0.8)],
        issues=[
            Issue(
                id="c",
                element="hero",
                dimension="style",
                level="global",
                code="low-contrast",
                message="pale title",
            )
        ],
    )
    assert section_score(report, "hero", []) == pytest.approx(0.9)  # 1 − 0.5 · 0.2
    assert section_score(report, "hero", ["photo"]) == pytest.approx(0.8)
    assert section_score(report, "footer", []) == pytest.approx(1.0)
    assert section_score(Report(), "hero", ["photo"]) is None  # not evaluated


def test_a_contrast_ratio_never_reads_as_its_threshold():
    from mmstudio.evaluate.colour import _ratio_text

    assert _ratio_text(4.47, 4.5) == "4.47"
    assert _ratio_text(1.82, 3.0) == "1.8"
    assert _ratio_text(4.4999, 4.5) == "4.499"


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_an_element_the_designer_hid_is_left_out_not_reported(renderer, cases, tmp_path):
    """A feedback turn's "hide" (a display:none rule in an fb-* patch block) is the designer's
    wish: no invisible issue, no score, so no refine undoes it. The same rule anywhere else is
    a broken page."""
    rule = '[data-mm-id="visits_chart"]{display:none!important}'
    reports = {}
    for key in ("fb-t1", "theme"):
        site = tmp_path / key
        shutil.copytree(cases / "good", site)
        page = site / "index.html"
        block = f'<style data-mm-patch="{key}">\n{rule}\n</style>\n</head>'
        page.write_text(page.read_text(encoding="utf-8").replace("</head>", block, 1))
        reports[key] = await evaluate(site, out_dir=tmp_path / f"out-{key}")
    assert [i.code for i in reports["fb-t1"].issues] == []
    assert "visits_chart" not in {e.id for e in reports["fb-t1"].elements}
    assert reports["fb-t1"].scores.chart is None
    assert "visits_chart" in {i.element for i in reports["theme"].issues}


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_a_picture_with_no_motif_for_its_subject_is_reported(renderer, cases: Path, tmp_path):
    """The offline painter's record "no motif for …" reaches the report as a local issue on
    that picture (issue 15); a picture whose motif matched has none."""
    image = corpus_plan().images[0].model_dump()
    note = "no motif for 'sourdough crumb'; drew a generic bakery scene"
    matched = corpus_plan(
        images=[{**image, "motifs": {"motifs": ["noto:bread"], "words": ["bread"]}}]
    )
    report = await evaluate(cases / "good", out_dir=tmp_path, plan=matched)
    assert [i.code for i in report.issues] == []
    unmatched = corpus_plan(images=[{**image, "motifs": {"note": note}}])
    report = await evaluate(cases / "good", out_dir=tmp_path, plan=unmatched)
    (issue,) = report.issues
    assert issue.code == "subject-unmatched" and issue.level == "local"
    assert issue.element == image["id"] and note in issue.message
