"""``new_project(provider="openai")`` end to end against the local OpenAI-compatible server:
plan, HTML, images, video (webm + mp4) and charts all come through the provider path."""

from __future__ import annotations

import io
import json

import pytest
from openai_server import Reply, Request, chat_reply, chat_stream, error
from PIL import Image
from provider_fixtures import (  # noqa: F401
    SECRET,
    chart_option_json,
    clean_env,
    fast_env,
    fast_settings,
    make_plan,
    no_network,
    server,
    tiny_mp4,
    tiny_png,
)

from mmstudio.plan import slot_problems as plan_check
from mmstudio.project.export import hygiene_problems
from mmstudio.providers.base import DesignerError
from mmstudio.providers.llm.designer import LLMDesigner
from mmstudio.providers.llm.page import with_mp4_paths
from mmstudio.providers.offline import layout as offline_layout
from mmstudio.providers.registry import get_designer
from mmstudio.providers.transcode import mp4_to_webm
from mmstudio.studio import create
from mmstudio.studio.create import new_project

#: the slow layer: whole generations through the test server (see tests/conftest.py)
pytestmark = [pytest.mark.usefixtures("no_network", "clean_env"), pytest.mark.slow]

PROMPT = "A warm landing page for Ember Roasters with a hero photo, a pouring loop and a chart."


def page_html(plan, *, drop_chart: bool = False) -> str:
    """A plausible layout reply: the offline layout of the plan, with the mp4 second source."""
    html = offline_layout.render_page(with_mp4_paths(plan))
    assert '<source src="assets/pour-loop.mp4" type="video/mp4">' in html
    if drop_chart:
        html = html.replace('data-mm-id="sales-chart"', 'data-x="gone"')
    return html


def is_layout(request: Request) -> bool:
    return bool((request.json or {}).get("stream"))


def is_plan(request: Request) -> bool:
    return request.schema_name() == "DesignPlan"


def responder(plan, html: str):
    """Chat replies by request: the plan, the page (streamed) or the chart option."""

    def reply(request: Request) -> Reply:
        name = request.schema_name()
        if name == "DesignPlan":
            return chat_reply(plan.model_dump_json())
        if name == "ChartOption":
            return chat_reply(chart_option_json())
        if is_layout(request):
            return chat_stream(html, pieces=5)
        return error(500, "unexpected chat request")

    return reply


@pytest.fixture
async def env(monkeypatch, server):  # noqa: F811
    """The server, configured through the environment; designers made by ``new_project`` are
    closed after the test (``new_project`` does not close them yet)."""
    fast_env(monkeypatch, server)
    made = []

    def keep(name, settings=None):
        made.append(get_designer(name, settings))
        return made[-1]

    monkeypatch.setattr(create, "get_designer", keep)
    yield server
    for designer in made:
        await designer.aclose()


def first_error(exc: BaseException) -> BaseException:
    """The first leaf of an exception group (the pipeline's TaskGroup may wrap the error)."""
    while isinstance(exc, BaseExceptionGroup):
        exc = exc.exceptions[0]
    return exc


async def test_new_project_through_the_provider(tmp_path, env):
    plan = make_plan()
    env.chat_responder = responder(plan, page_html(plan))
    result = await new_project(tmp_path / "ember", PROMPT, provider="openai", evaluate=False)
    check_project(result, plan)
    check_requests(env)
    for path in (tmp_path / "ember").rglob("*"):  # the key never reaches the project
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def check_project(result, plan) -> None:
    """The project is complete and valid: every planned file, self-contained, slots match."""
    project = result.project
    site = project.site_dir
    assert result.plan == with_mp4_paths(plan)
    assert result.plan.videos[0].mp4_path == "assets/pour-loop.mp4"
    assert json.loads((project.root / "mmstudio.json").read_text())["provider"] == "openai"
    for path in ("index.html", "assets/hero-photo.webp", "assets/pour-loop.webm",
                 "assets/pour-loop.mp4", "assets/pour-loop-poster.webp",
                 "assets/sales-chart.html", "assets/sales-chart.json",
                 "vendor/echarts.min.js"):  # fmt: skip
        assert (site / path).is_file(), path
    assert (site / "assets/pour-loop.webm").read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # EBML
    with Image.open(site / "assets/hero-photo.webp") as image:
        assert image.format == "WEBP"
    assert hygiene_problems(site) == []  # self-contained: no external URLs, no missing files
    assert plan_check(result.plan, (site / "index.html").read_text()) == []
    option = json.loads((site / "assets/sales-chart.json").read_text())
    assert option["series"][0]["data"] == [120, 150, 170]
    assert option["grid"]["containLabel"] is True


def check_requests(server) -> None:  # noqa: F811
    """One request per stage, in the real wire format."""
    chats = server.log("chat")
    assert sorted(r.schema_name() or "layout" for r in chats) == [
        "ChartOption", "DesignPlan", "layout"
    ]  # fmt: skip
    image = server.log("images.generate")[0].json
    assert image["size"] == "1536x1024" and "response_format" not in image
    assert "golden hour" in image["prompt"] and "hero photo" in image["prompt"]
    video = server.log("videos.create")[0].form
    assert video["seconds"] == "4" and video["size"] == "1280x720"
    assert len(server.log("videos.content")) == 1


async def test_a_page_missing_a_slot_is_repaired(env):
    plan = make_plan()
    good = page_html(plan)
    env.chat_responder = responder(plan, good)
    env.script("chat", chat_stream(page_html(plan, drop_chart=True), when=is_layout))
    designer = get_designer("openai")
    assert (await designer.layout(plan)).strip() == good.strip()
    await designer.aclose()
    layout = env.log("chat")
    assert len(layout) == 2
    repair = layout[1].json["messages"]
    assert repair[1]["role"] == "assistant" and 'data-x="gone"' in repair[1]["content"]
    assert "'sales-chart' has 0 slots" in repair[2]["content"]


async def test_a_page_still_invalid_after_repair_stops_with_nothing_on_disk(tmp_path, env):
    plan = make_plan()
    bad = page_html(plan).replace("assets/hero-photo.webp", "https://cdn.example.com/a.webp")
    env.chat_responder = responder(plan, bad)
    with pytest.raises(BaseException) as caught:
        await new_project(tmp_path / "ember", PROMPT, provider="openai")
    failure = first_error(caught.value)
    assert isinstance(failure, DesignerError)
    assert "still invalid after a repair" in str(failure) and "cdn.example.com" in str(failure)
    assert list(tmp_path.iterdir()) == []


async def test_a_provider_failure_mid_build_leaves_nothing_on_disk(tmp_path, env):
    plan = make_plan()
    env.chat_responder = responder(plan, page_html(plan))
    page = lambda r: bool((r.json or {}).get("stream"))  # noqa: E731  the layout's streamed page
    env.script("chat", *[error(500, "layout backend down", when=page)] * 3)
    with pytest.raises(BaseException) as caught:
        await new_project(tmp_path / "ember", PROMPT, provider="openai")
    failure = first_error(caught.value)
    assert isinstance(failure, DesignerError)
    assert "layout backend down" in str(failure) and "after 3 tries" in str(failure)
    assert "\n" not in str(failure)
    assert failure.usage["by_stage"]["plan"]["calls"] == 1  # what was spent, for the report
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "fault",
    [error(500, "chart backend down"), chat_reply("[1, 2, 3]")],
    ids=["server error", "no option even after the repair"],
)
async def test_a_failed_chart_is_drawn_offline_and_the_run_goes_on(tmp_path, env, fault):
    plan = make_plan()
    env.chat_responder = responder(plan, page_html(plan))
    chart = lambda r: r.schema_name() == "ChartOption"  # noqa: E731
    env.script("chat", *[Reply(**{**fault.__dict__, "when": chart})] * 3)
    result = await new_project(tmp_path / "ember", PROMPT, provider="openai", evaluate=False)
    site = result.project.site_dir
    option = json.loads((site / plan.charts[0].option_path).read_text())
    assert option.get("series"), option  # the offline maker's option, from the plan's data
    [notice] = [n for n in result.notices if n.startswith("chart sales-chart")]
    assert "made by the offline maker" in notice
    assert ("chart backend down" in notice) or ("not a valid ChartOption" in notice)
    assert len(env.log("images.generate")) == 1  # the paid image is kept, not redone


async def test_a_failed_image_is_made_offline_and_the_paid_steps_are_kept(tmp_path, env):
    plan = make_plan()
    env.chat_responder = responder(plan, page_html(plan))
    env.script("images.generate", *[error(500, "image backend down")] * 3)
    result = await new_project(tmp_path / "ember", PROMPT, provider="openai")
    site = result.project.site_dir
    with Image.open(site / "assets/hero-photo.webp") as image:
        assert image.format == "WEBP"
    [notice] = [n for n in result.notices if n.startswith("image hero-photo")]
    assert "made by the offline maker" in notice and "image backend down" in notice
    assert result.usage["by_stage"]["plan"]["calls"] == 1
    assert len(env.log("videos.content")) == 1  # the other assets still came from the models


async def test_a_plan_that_fails_validation_is_repaired_once(env):
    plan = make_plan()
    env.chat_responder = responder(plan, page_html(plan))
    broken = plan.model_dump(mode="json")
    broken["sections"][2]["element_ids"] = []  # the chart is placed nowhere
    env.script("chat", chat_reply(json.dumps(broken), when=is_plan))
    designer = get_designer("openai")
    assert await designer.plan(PROMPT) == with_mp4_paths(plan)
    await designer.aclose()
    repair = env.log("chat")[1]
    assert repair.schema_name() == "DesignPlan"
    assert "sales-chart" in repair.text() and "must be listed in section" in repair.text()


class StandIn:
    """An offline designer stand-in that records which roles it was asked to do."""

    name = "offline"

    def __init__(self) -> None:
        self.calls: list[str] = []

    async def image(self, element, plan):
        self.calls.append(f"image {element.id}")
        return b"offline image"

    async def video(self, element, plan, site_dir):
        self.calls.append(f"video {element.id}")
        return []


async def test_missing_capabilities_fall_back_offline_with_a_notice(server, tmp_path, caplog):  # noqa: F811
    settings = fast_settings(server, capabilities={"images": False, "videos": False})
    stand_in = StandIn()
    designer = LLMDesigner(settings, fallback=stand_in)
    plan = make_plan()
    assert await designer.image(plan.images[0], plan) == b"offline image"
    assert await designer.video(plan.videos[0], plan, tmp_path) == []
    await designer.image(plan.images[0], plan)
    assert stand_in.calls == ["image hero-photo", "video pour-loop", "image hero-photo"]
    assert server.requests == []
    assert len(designer.notices) == 2  # once per role, not per call
    assert "image: the endpoint" in caplog.text and "lacks image generation" in caplog.text
    assert "lacks video generation; using the offline designer" in designer.notices[1]
    await designer.aclose()


async def test_without_videos_the_layout_is_not_told_about_an_mp4(tmp_path, env, monkeypatch):
    monkeypatch.setenv("MMSTUDIO_DISABLE", "videos")
    plan = make_plan()
    env.chat_responder = responder(plan, offline_layout.render_page(plan))
    designer = get_designer("openai")
    await designer.layout(plan)
    prompt = env.log("chat")[0].text()
    assert "assets/pour-loop.webm" in prompt and "pour-loop.mp4" not in prompt
    await designer.aclose()


def test_get_designer_reads_settings_from_the_environment(env):
    designer = get_designer("openai")
    assert designer.name == "openai"
    assert designer.settings.base_url == env.base_url
    assert designer.settings.timeout_s == 0.5
    assert SECRET not in repr(designer.settings)


def test_the_cli_makes_a_project_through_the_provider(tmp_path, server, monkeypatch, capsys):  # noqa: F811
    """``mmstudio new --provider openai`` with the endpoint from the environment."""
    from mmstudio.cli import main

    fast_env(monkeypatch, server)
    plan = make_plan()
    server.chat_responder = responder(plan, page_html(plan))
    code = main(["new", str(tmp_path / "cli"), "--provider", "openai", "--prompt", PROMPT])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "cli" / "site" / "assets" / "pour-loop.mp4").is_file()


def test_the_cli_stops_with_one_line_on_a_provider_error(tmp_path, server, monkeypatch, capsys):  # noqa: F811
    from mmstudio.cli import main

    fast_env(monkeypatch, server)
    plan = make_plan()
    server.chat_responder = responder(plan, page_html(plan))
    server.script("chat", error(401, "Incorrect API key"))
    code = main(["new", str(tmp_path / "cli2"), "--provider", "openai", "--prompt", PROMPT])
    err = capsys.readouterr().err.strip().splitlines()
    assert code != 0 and not (tmp_path / "cli2").exists()
    assert err[-1].startswith("mmstudio: error:") and "OPENAI_API_KEY" in err[-1]


async def test_an_image_is_edited_with_an_instruction(server):  # noqa: F811
    designer = LLMDesigner(fast_settings(server))
    plan = make_plan()
    edited = await designer.edit_image(plan.images[0], plan, tiny_png(), "make it warmer")
    with Image.open(io.BytesIO(edited)) as image:
        assert image.format == "WEBP"
    request = server.log("images.edit")[0]
    assert request.files["image"][:4] == b"\x89PNG" and request.form["size"] == "1536x1024"
    assert request.form["prompt"].startswith("Edit this image: make it warmer")
    assert designer.usage.records()[0].stage == "refine-image"
    await designer.aclose()


async def test_a_planned_mp4_is_encoded_when_videos_fall_back(server, tmp_path):  # noqa: F811
    source = tmp_path / "source.mp4"
    source.write_bytes(tiny_mp4())

    class WebmStandIn:
        name = "offline"

        async def video(self, element, plan, site_dir):
            target = site_dir / element.save_path
            target.parent.mkdir(parents=True, exist_ok=True)
            mp4_to_webm(source, target)
            return [target]

    settings = fast_settings(server, capabilities={"videos": False})
    designer = LLMDesigner(settings, fallback=WebmStandIn())
    plan = with_mp4_paths(make_plan())
    site = tmp_path / "site"
    written = await designer.video(plan.videos[0], plan, site)
    assert [p.relative_to(site).as_posix() for p in written] == [
        "assets/pour-loop.webm", "assets/pour-loop.mp4"
    ]  # fmt: skip
    assert (site / "assets/pour-loop.mp4").read_bytes()[4:8] == b"ftyp"
    assert server.requests == []
    await designer.aclose()


async def test_new_judges_the_first_version_and_reflects_with_the_model(tmp_path, env):
    """With a model designer the first version is judged (the judge's issues in report.json)
    and reflection trials are judged the same way and refined by the model, the rules standing
    in for a refine call the endpoint fails."""
    from test_providers_judge import verdict

    plan = make_plan()
    made = responder(plan, page_html(plan))

    def reply(request):
        name = request.schema_name() or ""
        if name.endswith("Judgement"):
            return verdict(request)
        return made(request)

    env.chat_responder = reply
    result = await new_project(tmp_path / "ember", PROMPT, provider="openai", rounds=1)
    report = result.project.read_report()
    assert report is not None and any(i.source == "judge" for i in report.issues)
    names = [r.schema_name() or "text" for r in env.log("chat")]
    assert names.count("LayoutJudgement") >= 1 and "DesignPlan" in names
    first_judge = names.index("LayoutJudgement")
    refines = [n for n in names[first_judge:] if not n.endswith("Judgement")]
    assert refines, names  # the judge's issues went to the model refiners
    assert result.reflection is not None and result.reflection["rounds"] == 1


def test_bytes_that_are_not_an_image_are_named_by_what_came():
    from mmstudio.providers.errors import ProviderError
    from mmstudio.providers.llm.designer import _reencode

    with pytest.raises(ProviderError) as caught:
        _reencode(b"GIF89a not really", "assets/hero.webp", "hero")
    message = str(caught.value)
    assert message == (
        "image hero: the provider's data is not an image (17 bytes starting b'GIF89a n')"
    )
    assert caught.value.kind == "shape"
