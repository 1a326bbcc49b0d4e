"""The LLM judge over the local server: structured verdicts → Issues (source judge) → merged with
the measured Report, measured certainties first; and the endpoint rows of ``doctor``."""

from __future__ import annotations

import json

import pytest
from openai_server import Reply, Request, chat_reply, error
from provider_fixtures import (  # noqa: F401
    clean_env,
    fast_settings,
    make_plan,
    no_network,
    server,
    tiny_mp4,
    tiny_png,
)

from mmstudio.providers.doctor import endpoint_checks_async
from mmstudio.providers.llm.judge import Judge, Judgement, PageEvidence
from mmstudio.providers.llm.merge import merge_judgement
from mmstudio.providers.llm.review import judge_site
from mmstudio.providers.openai_compat import OpenAIProvider
from mmstudio.providers.transcode import sample_frames
from mmstudio.report import ElementScore, Issue, Report, Scores

pytestmark = pytest.mark.usefixtures("no_network", "clean_env")

VERDICTS = {
    "LayoutJudgement": {"penalties": [
        {"kind": "misplaced", "element": "hero-photo", "message": "The photo sits below the fold"},
        {"kind": "visual-detail", "element": "craft", "message": "Uneven gap above Roasted"},
    ]},
    "StyleJudgement": {"penalties": [
        {"kind": "minor", "section": "sales", "message": "The chart's blue is off-palette"},
    ]},
    "AestheticsJudgement": {
        "balance_spacing": 0.8, "typography": 0.6, "colour": 0.8, "clarity_polish": 0.8,
        "overall": 0.8, "notes": ["Headings are too small for the hero"],
    },
    "image": {"issues": [
        {"side": "asset", "severity": "major", "message": "Beans look plastic"},
        {"side": "page", "severity": "minor", "message": "Cover crop cuts the cup"},
    ]},
    "chart": {"issues": []},
    "VideoJudgement": {"score": 0.7, "issues": [
        {"side": "asset", "message": "A visible jump at the loop point"},
    ]},
}  # fmt: skip


def verdict(request: Request) -> Reply:
    name = request.schema_name()
    if name == "AssetJudgement":
        name = "image" if "image evaluator" in request.text() else "chart"
    return chat_reply(json.dumps(VERDICTS[name]))


def measured_report() -> Report:
    """A measured report: an invisible chart (certain 0), a fine image, a decent video."""
    return Report(
        scores=Scores(layout=0.9, image=1.0, video=0.9, chart=0.0).with_overall(),
        elements=[
            ElementScore(id="hero-photo", kind="image", score=1.0),
            ElementScore(id="pour-loop", kind="video", score=0.9),
            ElementScore(id="sales-chart", kind="chart", score=0.0, issues=["m1"]),
        ],
        issues=[
            Issue(
                id="m1",
                element="sales-chart",
                dimension="chart",
                level="context",
                severity="critical",
                code="invisible-default",
                message="Chart is invisible",
            ),
        ],
    )


def evidence(tmp_path) -> PageEvidence:
    video = tmp_path / "v.mp4"
    video.write_bytes(tiny_mp4())
    return PageEvidence(
        html="<html><body data-mm-section='hero'></body></html>",
        screenshot=tiny_png(),
        crops={"hero-photo": tiny_png(), "sales-chart": tiny_png()},
        video_frames={"pour-loop": sample_frames(video, 3)},
    )


@pytest.fixture
async def judge(server):  # noqa: F811
    server.chat_responder = verdict
    provider = OpenAIProvider(fast_settings(server))
    yield Judge(provider.settings, provider)
    await provider.aclose()


async def test_verdicts_become_judge_issues_with_levels_and_scores(judge, tmp_path, server):  # noqa: F811
    result = await judge.judge(make_plan(), evidence(tmp_path))
    assert result.notices == []
    assert result.scores == {"layout": 0.875, "style": 0.95, "aesthetics": 0.76}
    assert result.element_scores == {"hero-photo": 0.6, "sales-chart": 1.0, "pour-loop": 0.7}
    assert {i.source for i in result.issues} == {"judge"}
    levels = {(i.dimension, i.element, i.level) for i in result.issues}
    assert ("image", "hero-photo", "local") in levels  # asset side
    assert ("image", "hero-photo", "context") in levels  # page side
    assert ("layout", "hero-photo", "global") in levels
    assert ("layout", None, "global") in levels  # a section id is not an element
    assert ("video", "pour-loop", "local") in levels
    video_request = next(r for r in server.log("chat") if r.schema_name() == "VideoJudgement")
    parts = video_request.json["messages"][0]["content"]
    assert [p["type"] for p in parts] == ["text", "image_url", "image_url", "image_url"]


async def test_merge_keeps_measured_certainties(judge, tmp_path):
    result = await judge.judge(make_plan(), evidence(tmp_path))
    merged = merge_judgement(measured_report(), result, seconds=1.5)
    scores = merged.scores
    assert scores.layout == 0.875 and scores.style == 0.95 and scores.aesthetics == 0.76
    assert scores.image == 0.6 and scores.video == 0.7
    assert scores.chart == 0.0  # invisible is 0 whatever the judge says
    assert scores.overall == pytest.approx((0.875 + 0.95 + 0.76 + 0.6 + 0.7 + 0.0) / 6, abs=1e-4)
    hero = next(e for e in merged.elements if e.id == "hero-photo")
    assert sorted(hero.issues) == ["judge-image-1", "judge-image-2", "judge-layout-1"]
    assert merged.issues[0].id == "m1" and merged.timings["judge"] == 1.5
    assert Report.model_validate_json(merged.model_dump_json()) == merged  # schema unchanged


def test_a_certain_element_keeps_its_score_and_judge_issues_are_marked():
    result = Judgement(element_scores={"sales-chart": 0.8}, element_kinds={"sales-chart": "chart"})
    result.add_issue("chart", "local", "minor", "Labels are small", "sales-chart")
    merged = merge_judgement(measured_report(), result)
    chart = next(e for e in merged.elements if e.id == "sales-chart")
    assert chart.score == 0.0 and chart.issues == ["m1", "judge-chart-1"]
    assert merged.issues[-1].evidence == {"superseded_by_measured": True}


async def test_a_failing_judge_call_leaves_a_notice_not_a_failure(judge, tmp_path, server):  # noqa: F811
    down = error(500, "judge down", when=lambda r: r.schema_name() == "LayoutJudgement")
    server.script("chat", down, down, down)
    result = await judge.judge(make_plan(), evidence(tmp_path))
    assert "layout" not in result.scores and "style" in result.scores
    assert any("layout not judged" in n and "judge down" in n for n in result.notices)
    assert merge_judgement(measured_report(), result).scores.layout == 0.9


async def test_without_vision_only_layout_and_style_are_judged_from_html(server, tmp_path):  # noqa: F811
    server.chat_responder = verdict
    provider = OpenAIProvider(fast_settings(server, capabilities={"vision": False}))
    result = await Judge(provider.settings, provider).judge(make_plan(), evidence(tmp_path))
    await provider.aclose()
    assert set(result.scores) == {"layout", "style"} and result.element_scores == {}
    requests = server.log("chat")
    assert len(requests) == 2
    assert all(isinstance(r.json["messages"][0]["content"], str) for r in requests)
    assert "data-mm-section='hero'" in requests[0].text()
    assert "lacks vision" in result.notices[0]


async def test_judge_site_reads_the_render_files(server, tmp_path):  # noqa: F811
    server.chat_responder = verdict
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text("<!DOCTYPE html><html></html>")
    (site / "assets" / "pour-loop.webm").write_bytes(tiny_mp4())  # ffmpeg reads either
    render = tmp_path / "render"
    (render / "crops").mkdir(parents=True)
    (render / "screenshot-1280.png").write_bytes(tiny_png())
    (render / "crops" / "hero-photo.png").write_bytes(tiny_png())
    report = measured_report()
    report.render.screenshot = str(render / "screenshot-1280.png")
    review = await judge_site(report, make_plan(), site, fast_settings(server))
    kinds = sorted(r.schema_name() for r in server.log("chat"))
    assert kinds == ["AestheticsJudgement", "AssetJudgement", "LayoutJudgement",
                     "StyleJudgement", "VideoJudgement"]  # fmt: skip
    assert review.report.scores.image == 0.6 and review.notices == []
    assert review.usage.summary()["calls"] == 5


async def test_doctor_rows_for_a_working_endpoint(server):  # noqa: F811
    settings = fast_settings(server, capabilities={"videos": False, "vision": False})
    rows = {row["name"]: row for row in await endpoint_checks_async(settings)}
    assert rows["endpoint"]["ok"] and "API key set" in rows["endpoint"]["detail"]
    assert "SECRET" not in json.dumps(list(rows.values()))
    assert rows["models"]["ok"] and "gpt-5.5" in rows["models"]["detail"]
    assert rows["planner model"]["ok"] and rows["image model"]["ok"]
    assert "made offline" in rows["video model"]["detail"]
    assert "video made by the offline designer" in rows["fallbacks"]["detail"]
    assert "no vision" in rows["fallbacks"]["detail"]


async def test_doctor_rows_for_a_missing_model_and_a_dead_endpoint(server):  # noqa: F811
    settings = fast_settings(server, models={"planner": "nope-1"})
    rows = {row["name"]: row for row in await endpoint_checks_async(settings)}
    planner = rows["planner model"]
    assert not planner["ok"] and "nope-1 not listed" in planner["detail"]
    server.script("models", *[error(503)] * 3)
    rows = {row["name"]: row for row in await endpoint_checks_async(settings)}
    assert not rows["models"]["ok"] and "server error" in rows["models"]["detail"]


async def test_doctor_without_any_endpoint_configured_makes_no_request():
    from mmstudio.providers.settings import Settings

    rows = await endpoint_checks_async(Settings())
    assert len(rows) == 1 and rows[0]["ok"] and "not configured" in rows[0]["detail"]


async def test_a_site_without_a_plan_is_judged_by_what_the_report_found(server, tmp_path):  # noqa: F811
    server.chat_responder = verdict
    site = tmp_path / "site"
    (site / "media").mkdir(parents=True)
    (site / "index.html").write_text("<!DOCTYPE html><html></html>")
    (site / "media" / "clip.webm").write_bytes(tiny_mp4())
    (tmp_path / "crops").mkdir()
    (tmp_path / "shot.png").write_bytes(tiny_png())
    (tmp_path / "crops" / "photo-1.png").write_bytes(tiny_png())
    report = Report(
        scores=Scores(image=1.0, video=1.0).with_overall(),
        elements=[
            ElementScore(id="photo-1", kind="image", path="media/photo.jpg", score=1.0),
            ElementScore(id="clip", kind="video", path="media/clip.webm", score=1.0),
        ],
    )
    report.render.screenshot = str(tmp_path / "shot.png")
    review = await judge_site(report, None, site, fast_settings(server))
    kinds = sorted(r.schema_name() for r in server.log("chat"))
    assert kinds == ["AestheticsJudgement", "AssetJudgement", "VideoJudgement"]
    image_request = next(r for r in server.log("chat") if r.schema_name() == "AssetJudgement")
    assert "The page has no plan" in image_request.text()
    assert review.notices == ["judge: no plan; layout and style left to the measured checks"]
    assert review.report.scores.image == 0.6 and review.report.scores.video == 0.7
    assert review.report.scores.layout is None
