"""The model path against the five endpoint behaviours of the local test server (OpenAI, vLLM,
Ollama, LM Studio, llama.cpp) and the quirks of small local models: the structured-output ladder,
grammar-safe strict schemas, ``<think>`` and prose around the JSON, a base URL without ``/v1``,
errors inside a stream, ``/models`` of odd shapes, judge replies that cannot be read, and a page
whose image and video endpoints fail part-way."""

from __future__ import annotations

import json

import pytest
from openai_server import (
    Behaviour,
    OpenAITestServer,
    Reply,
    Request,
    _big_bound,
    behaviour,
    chat_reply,
    chat_stream,
    error,
)
from provider_fixtures import (  # noqa: F401
    chart_option_json,
    clean_env,
    fast_env,
    fast_settings,
    make_plan,
    no_network,
    tiny_mp4,
    tiny_png,
)

from mmstudio.plan import DesignPlan
from mmstudio.providers.doctor import endpoint_checks_async
from mmstudio.providers.errors import ProviderError
from mmstudio.providers.llm.designer import LLMDesigner
from mmstudio.providers.llm.judge import PageEvidence
from mmstudio.providers.llm.merge import merge_judgement
from mmstudio.providers.llm.page import with_mp4_paths
from mmstudio.providers.models import Models
from mmstudio.providers.offline import layout as offline_layout
from mmstudio.providers.openai_compat import forget_learned_rungs, learned_rung, rung_store
from mmstudio.providers.settings import Settings
from mmstudio.providers.structured import strict_problems
from mmstudio.report import Report, Scores
from mmstudio.studio.create import new_project

pytestmark = pytest.mark.usefixtures("no_network", "clean_env")

PROMPT = "A warm landing page for Ember Roasters with a hero photo, a pouring loop and a chart."
PROFILES = ("openai", "vllm", "ollama", "lmstudio", "llamacpp")


def started(kind: Behaviour | str) -> OpenAITestServer:
    forget_learned_rungs()
    server = OpenAITestServer(behaviour=kind).start()
    server.default_png = tiny_png()
    server.video_bytes = tiny_mp4()
    return server


@pytest.fixture
def servers():
    made: list[OpenAITestServer] = []

    def make(kind: Behaviour | str = "openai") -> OpenAITestServer:
        made.append(started(kind))
        return made[-1]

    yield make
    for server in made:
        server.stop()


def page_html(plan: DesignPlan) -> str:
    return offline_layout.render_page(with_mp4_paths(plan))


def by_text(plan: DesignPlan, html: str):
    """Chat replies chosen by the prompt's words (a rung without a schema has no schema name)."""

    def reply(request: Request) -> Reply:
        text = request.text()
        if (request.json or {}).get("stream"):
            return chat_stream(html, pieces=4)
        if "chart agent" in text:
            return chat_reply(chart_option_json())
        if "planner of a web design studio" in text:
            return chat_reply(plan.model_dump_json())
        return error(500, "unexpected chat request")

    return reply


def formats(server: OpenAITestServer) -> list[str | None]:
    """The response_format type of every chat request, in order (None: none sent)."""
    return [((r.json or {}).get("response_format") or {}).get("type") for r in server.log("chat")]


@pytest.mark.parametrize("profile", PROFILES)
async def test_new_finishes_against_each_endpoint_behaviour(servers, tmp_path, profile):
    server = servers(behaviour(profile, think=profile in ("ollama", "llamacpp")))
    plan = make_plan()
    server.chat_responder = by_text(plan, page_html(plan))
    settings = fast_settings(server)
    result = await new_project(
        tmp_path / profile, PROMPT, provider="openai", settings=settings, evaluate=False
    )
    site = result.project.site_dir
    for path in ("index.html", "assets/hero-photo.webp", "assets/pour-loop.webm",
                 "assets/sales-chart.json"):  # fmt: skip
        assert (site / path).is_file(), path
    assert result.notices == []
    assert all(r.json is None or "error" not in r.json for r in server.log("chat"))
    assert len(server.log("chat")) == 3  # plan, layout, chart: nothing refused, nothing repaired


async def test_lm_studio_refuses_json_mode_and_the_ladder_steps_down_once(servers):
    server = servers("lmstudio")
    plan = make_plan()
    server.chat_responder = by_text(plan, page_html(plan))
    settings = fast_settings(server, capabilities={"structured_outputs": False})
    designer = LLMDesigner(settings)
    await designer.plan(PROMPT)
    await designer.chart_option(plan.charts[0], plan)
    await designer.aclose()
    # json_object refused (400), then plain text with the schema in the prompt; learned: the
    # chart goes straight to plain text
    assert formats(server) == ["json_object", None, None]
    assert learned_rung(server.base_url) == "text"
    # remembered beside the config file: a later run starts at the rung that works
    assert json.loads(rung_store().read_text()) == {server.base_url: "text"}
    forget_learned_rungs()
    again = LLMDesigner(settings)
    await again.plan(PROMPT)
    await again.aclose()
    assert formats(server)[-1] is None and len(formats(server)) == 4


async def test_a_server_refusing_any_response_format_gets_plain_text(servers):
    server = servers(behaviour("vllm", reject_response_format=True))
    plan = make_plan()
    server.chat_responder = by_text(plan, page_html(plan))
    designer = LLMDesigner(fast_settings(server))
    assert (await designer.plan(PROMPT)).title == plan.title
    await designer.aclose()
    # strict, then the same schema loose, then JSON mode, then plain text (learned: once)
    assert formats(server) == ["json_schema", "json_schema", "json_object", None]


async def test_a_bad_request_that_is_not_about_the_format_is_not_stepped_down(servers):
    server = servers("openai")
    server.script("chat", error(400, "This model's maximum context length is 8192 tokens"))
    designer = LLMDesigner(fast_settings(server))
    with pytest.raises(ProviderError) as caught:
        await designer.plan(PROMPT)
    await designer.aclose()
    assert caught.value.kind == "bad-request" and formats(server) == ["json_schema"]


async def test_every_schema_sent_is_strict_valid_or_sent_as_not_strict(servers, tmp_path):
    server = servers("openai")  # refuses a strict schema that strict mode would not take
    plan = make_plan()
    server.chat_responder = by_text(plan, page_html(plan))
    await new_project(
        tmp_path / "p", PROMPT, provider="openai", settings=fast_settings(server), evaluate=False
    )
    sent = [r.json["response_format"]["json_schema"] for r in server.log("chat")
            if (r.json.get("response_format") or {}).get("type") == "json_schema"]  # fmt: skip
    assert {s["name"] for s in sent} == {"DesignPlan", "ChartOption"}
    for schema in sent:
        assert _big_bound(schema["schema"], 2000) is None, schema["name"]
        if schema["strict"]:
            assert strict_problems(schema["schema"]) == [], schema["name"]
    assert {s["name"] for s in sent if not s["strict"]} == {"ChartOption"}  # an open ECharts map


def test_every_reply_schema_of_the_model_path_is_strict_and_grammar_safe():
    from mmstudio.providers.llm import refine, verdicts
    from mmstudio.providers.structured import response_format

    models = [DesignPlan, verdicts.LayoutJudgement, verdicts.StyleJudgement,
              verdicts.AestheticsJudgement, verdicts.AssetJudgement, verdicts.VideoJudgement,
              refine.ContextPatch, refine.PagePatch, refine.AssetRevision]  # fmt: skip
    for model in models:
        sent = response_format(model, schema_supported=True)["json_schema"]
        assert sent["strict"] is True, model.__name__
        assert strict_problems(sent["schema"]) == [], model.__name__
        assert _big_bound(sent["schema"], 2000) is None
    # the schema as pydantic writes it would be refused by llama.cpp's converter: the check bites
    assert _big_bound(refine.PagePatch.model_json_schema(), 2000) is not None
    assert strict_problems(DesignPlan.model_json_schema()) != []


#: calls that send a reply schema: (function name, index of the reply model's argument)
_SENDERS = {"structured_chat": 2, "_ask": 1}
#: the pass-through parameters of the two ``_ask`` helpers (the judge's and the refiners')
_PASS_THROUGH = {"model", "reply"}


def sent_reply_models() -> dict[str, type]:
    """Every reply model the package passes to ``structured_chat`` (directly or through the
    judge's and the refiners' ``_ask``), found in the source: name → class."""
    import ast
    import importlib
    from pathlib import Path

    from pydantic import BaseModel

    import mmstudio

    root = Path(mmstudio.__file__).parent
    found: dict[str, type] = {}
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        module = None
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            if name not in _SENDERS or len(node.args) <= _SENDERS[name]:
                continue
            arg = node.args[_SENDERS[name]]
            where = f"{path.relative_to(root)}:{node.lineno}"
            assert isinstance(arg, ast.Name), f"{where}: a reply model that is not a name"
            if arg.id in _PASS_THROUGH:
                continue
            dotted = ".".join(("mmstudio", *path.relative_to(root).with_suffix("").parts))
            module = module or importlib.import_module(dotted.removesuffix(".__init__"))
            model = getattr(module, arg.id, None)
            assert isinstance(model, type) and issubclass(model, BaseModel), where
            found[model.__name__] = model
    return found


def test_every_reply_schema_sent_passes_the_strict_check_and_no_bound_reaches_2000():
    """All reply models found in the source (not a hand-kept list): each is sent strict and
    passes the strict-mode check (closed objects, every property required, supported keywords
    only), except the chart option (an open ECharts object, sent ``strict: false``); none
    carries a count or length bound ≥ 2000, on any rung."""
    from mmstudio.providers.structured import response_format

    models = sent_reply_models()
    expected = {"DesignPlan", "ChartOption", "LayoutJudgement", "StyleJudgement",
                "AestheticsJudgement", "AssetJudgement", "VideoJudgement", "ContextPatch",
                "PagePatch", "AssetRevision", "RequirementList", "JudgedList"}  # fmt: skip
    assert expected <= set(models), expected - set(models)
    for name, model in models.items():
        sent = response_format(model, schema_supported=True)["json_schema"]
        assert sent["name"] == name
        assert _big_bound(sent["schema"], 2000) is None, name
        assert not [p for p in strict_problems(sent["schema"]) if "too big" in p], name
        if name == "ChartOption":
            assert sent["strict"] is False
            continue
        assert sent["strict"] is True, name
        assert strict_problems(sent["schema"]) == [], (name, strict_problems(sent["schema"]))
        # the test server's own strict-mode reading (the openai behaviour) agrees
        from openai_server import _not_strict

        assert _not_strict(sent["schema"]) is None, name
        assert response_format(model, schema_supported=False) == {"type": "json_object"}


def test_the_strict_check_refuses_what_strict_mode_refuses():
    bad = {
        "type": "object",
        "properties": {"a": {"type": "string", "maxLength": 8000}, "b": {"type": "integer"}},
        "required": ["a"],
    }
    problems = strict_problems(bad)
    assert any("additionalProperties" in p for p in problems)
    assert any("not every property is required" in p for p in problems)
    assert any("unsupported keyword maxLength" in p for p in problems)
    listed = {"type": "object", "properties": {"xs": {"type": "array", "maxItems": 5000}},
              "required": ["xs"], "additionalProperties": False}  # fmt: skip
    assert any("maxItems 5000 is too big" in p for p in strict_problems(listed))


def post_chat(server: OpenAITestServer, response_format: dict) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    body = json.dumps({"model": "m", "messages": [], "response_format": response_format})
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions", body.encode(),
        {"content-type": "application/json"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return reply.status, reply.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_llamacpp_would_refuse_the_raw_schema_but_takes_the_wire_one(servers):
    from mmstudio.providers.llm.refine import PagePatch
    from mmstudio.providers.structured import response_format

    server = servers("llamacpp")
    server.chat_responder = lambda request: chat_reply("{}")
    schema = PagePatch.model_json_schema()
    raw = {"type": "json_schema", "json_schema": {"name": "PagePatch", "schema": schema}}
    status, text = post_chat(server, raw)
    assert status == 400 and "JSON schema conversion failed" in text
    status, _ = post_chat(server, response_format(PagePatch, schema_supported=True))
    assert status == 200


@pytest.mark.parametrize(
    "flags", [{"think": True}, {"prose": True}, {"think": True, "prose": True}]
)
async def test_thinking_and_prose_around_the_json_and_the_page_are_ignored(servers, flags):
    server = servers(behaviour("llamacpp", **flags))
    plan = make_plan()
    html = page_html(plan)
    server.chat_responder = by_text(plan, html)
    designer = LLMDesigner(fast_settings(server))
    assert await designer.plan(PROMPT) == with_mp4_paths(plan)
    assert (await designer.layout(with_mp4_paths(plan))).strip() == html.strip()
    assert (await designer.chart_option(plan.charts[0], plan))["series"][0]["type"] == "bar"
    await designer.aclose()
    assert len(server.log("chat")) == 3  # no repair request was needed


async def test_a_base_url_without_v1_is_diagnosed_as_such(servers):
    server = servers("lmstudio")
    settings = fast_settings(server, base_url=server.root_url)
    designer = LLMDesigner(settings)
    with pytest.raises(ProviderError) as caught:
        await designer.plan(PROMPT)
    await designer.aclose()
    message = str(caught.value)
    assert caught.value.kind == "base-url" and "lacks /v1" in message
    assert f"--base-url {server.root_url}/v1" in message and "not found at" not in message
    rows = {row["name"]: row for row in await endpoint_checks_async(settings)}
    assert not rows["models"]["ok"] and "lacks /v1" in rows["models"]["detail"]


async def test_an_error_event_inside_the_stream_is_one_line(servers):
    server = servers(behaviour("vllm", stream_error="CUDA out of memory"))
    plan = with_mp4_paths(make_plan())
    server.chat_responder = by_text(plan, page_html(plan))
    designer = LLMDesigner(fast_settings(server))
    with pytest.raises(ProviderError) as caught:
        await designer.layout(plan)
    await designer.aclose()
    assert caught.value.kind == "stream-error" and "CUDA out of memory" in str(caught.value)
    assert "\n" not in str(caught.value) and len(server.log("chat")) == 1  # not retried


@pytest.mark.parametrize(
    "body, ok, words",
    [
        ({"object": "list", "data": "nope"}, False, "wrong shape"),
        ({"object": "list"}, False, "wrong shape"),
        ([1, 2], False, "wrong shape"),
        ({"models": [{"name": "gpt-5.5:latest"}]}, True, "gpt-5.5:latest"),  # Ollama's own
    ],
)
async def test_doctor_reads_odd_model_lists_without_a_traceback(servers, body, ok, words):
    server = servers("ollama")
    server.script("models", *[Reply(json=body)] * 3)  # retried: a shape error may pass
    rows = {row["name"]: row for row in await endpoint_checks_async(fast_settings(server))}
    assert rows["models"]["ok"] is ok and words in rows["models"]["detail"]


async def test_doctor_says_what_is_shut_down(servers):
    server = servers("openai")
    data = [{"id": "gpt-5.5", "object": "model", "created": 0, "owned_by": "x",
             "shutdown_date": "2026-01-01"},
            {"id": "gpt-image-2.5-sunburst", "object": "model", "created": 0, "owned_by": "x"},
            {"id": "sora-2", "object": "model", "created": 0, "owned_by": "x"}]  # fmt: skip
    server.script("models", Reply(json={"object": "list", "data": data}))
    rows = {row["name"]: row for row in await endpoint_checks_async(fast_settings(server))}
    assert not rows["planner model"]["ok"]
    assert "the endpoint says it shut down on 2026-01-01" in rows["planner model"]["detail"]
    assert rows["image model"]["ok"] and rows["video model"]["ok"]


def test_on_api_openai_com_retired_models_are_not_called(tmp_path):
    import datetime as dt

    settings = Settings(api_key="sk-test", models={"image": "gpt-image-1"})
    models = Models(settings, today=dt.date(2026, 12, 2))
    assert not models["image"].available and "gpt-image-2.5-sunburst" in models["image"].reason
    assert not models["video"].available and "2026-09-24" in models["video"].reason
    assert models["planner"].available and models["judge"].can("vision")
    notices = models.notices()
    assert any(n.startswith("image: gpt-image-1 shut down on 2026-10-23") for n in notices)
    assert any(n.startswith("video: sora-2 shut down on 2026-09-24") for n in notices)
    # a local server's "sora-2" is whatever it is: the SDK's notes are about OpenAI's API
    local = Models(Settings(base_url="http://127.0.0.1:9/v1"), today=dt.date(2026, 12, 2))
    assert local["video"].available and local["image"].available


async def test_a_retired_video_model_is_made_offline_without_a_request(tmp_path):
    from provider_fixtures import make_plan as plan_of

    plan = with_mp4_paths(plan_of())
    designer = LLMDesigner(Settings(api_key="sk-test"))  # api.openai.com: no call may leave
    written = await designer.video(plan.videos[0], plan, tmp_path)
    await designer.aclose()
    assert (tmp_path / plan.videos[0].save_path).is_file() and len(written) >= 2
    assert "sora-2 shut down on 2026-09-24" in designer.notices[0]


def judge_evidence() -> PageEvidence:
    return PageEvidence(
        html="<html></html>", screenshot=tiny_png(), crops={"hero-photo": tiny_png()}
    )


@pytest.mark.parametrize("text", ["The page looks great to me!", "{}", '{"penalties": "none"}'])
async def test_a_judge_reply_that_cannot_be_read_is_not_judged_never_a_clean_score(servers, text):
    server = servers("vllm")
    server.chat_responder = lambda request: chat_reply(text)
    settings = fast_settings(server)
    models = Models(settings)
    judgement = await models.new_judge().judge(make_plan(), judge_evidence())
    await models.aclose()
    assert sorted(judgement.not_judged) == ["aesthetics", "hero-photo", "layout", "style"]
    assert judgement.scores == {} and judgement.element_scores == {}
    measured = Report(scores=Scores(layout=0.9).with_overall())
    merged = merge_judgement(measured, judgement)
    assert merged.scores.layout == 0.9 and merged.scores.aesthetics is None  # not 1.0
    assert sum("not judged" in n for n in merged.notices) == 4


def seven_image_plan() -> DesignPlan:
    data = make_plan().model_dump(mode="json")
    base = data["images"][0]
    for n in range(2, 8):
        extra = {**base, "id": f"photo-{n}", "save_path": f"assets/photo-{n}.webp",
                 "prompt": f"Subject number {n}: a cup of coffee, angle {n}"}  # fmt: skip
        data["images"].append(extra)
        data["sections"][0]["element_ids"].append(f"photo-{n}")
    return DesignPlan.model_validate(data)


def test_a_refused_image_and_a_gone_video_endpoint_become_offline_assets(
    tmp_path, monkeypatch, capsys, servers
):
    from mmstudio.cli import main

    server = servers("openai")
    plan = seven_image_plan()
    server.chat_responder = by_text(plan, page_html(plan))
    refused = lambda r: "Subject number 4" in (r.json or {}).get("prompt", "")  # noqa: E731
    server.script("images.generate", error(400, "Your request was rejected by the safety system",
                                           when=refused))  # fmt: skip
    server.script("videos.create", error(404, "Not found: /v1/videos is gone"))
    fast_env(monkeypatch, server)
    code = main(["new", str(tmp_path / "seven"), "--provider", "openai", "--no-evaluate",
                 "--prompt", PROMPT])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 0, err
    site = tmp_path / "seven" / "site"
    assert all((site / image.save_path).is_file() for image in plan.images)
    assert (site / "assets/pour-loop.webm").is_file()
    made = [r for r in server.log("images.generate") if not refused(r)]
    assert len(made) == 6 and len(server.log("images.generate")) == 7
    notices = [line for line in err.splitlines() if line.startswith("notice:")]
    assert len(notices) == 2
    assert any("image photo-4: made by the offline maker" in n and "safety" in n for n in notices)
    assert any("video pour-loop: made by the offline maker" in n for n in notices)
    usage = next(line for line in out.splitlines() if "usage:" in line)
    assert "images 6" in usage and "calls" in usage
    # the cost is printed, and what it cannot include is named (no price is guessed)
    assert "cost_usd 0," in usage
    assert "(gpt-5.5, gpt-image-2.5-sunburst: not in prices.json)" in usage
    assert "video_seconds" not in usage  # the gone video endpoint billed nothing
    assert "Traceback" not in err
    json.dumps(err)  # plain text only


async def test_one_bundle_serves_the_designer_judge_and_refiner_with_one_client(servers):
    from mmstudio.providers.registry import get_designer

    server = servers("vllm")
    plan = make_plan()
    server.chat_responder = by_text(plan, page_html(plan))
    models = Models(fast_settings(server))
    designer = get_designer("openai", models=models)
    refiner = models.new_refiner()
    judge = models.new_judge()
    assert designer.provider is models.provider is refiner.designer.provider
    assert judge.chat is models.provider and refiner.model == models["refiner"].name == "gpt-5.5"
    await designer.plan(PROMPT)
    await refiner.image(plan.images[0], plan)
    assert [r.stage for r in models.usage.records()] == ["plan", "refine-image"]
    await models.aclose()


async def test_a_failed_refine_image_raises_and_never_turns_offline(servers):
    server = servers("vllm")
    server.script("images.generate", *[error(500, "image backend down")] * 3)
    models = Models(fast_settings(server))
    refiner = models.new_refiner()
    plan = make_plan()
    with pytest.raises(ProviderError, match="image backend down"):
        await refiner.image(plan.images[0], plan)
    assert refiner.designer.notices == []
    await models.aclose()


async def test_a_local_image_refine_edits_the_image_with_the_judges_fixes(servers):
    from mmstudio.report import Issue

    server = servers("vllm")
    models = Models(fast_settings(server))
    plan = make_plan()
    issue = Issue(id="judge-image-1", element="hero-photo", dimension="image", level="local",
                  message="Beans look plastic", source="judge")  # fmt: skip
    data = await models.new_refiner().edit_image(
        plan.images[0], plan, tiny_png(), [issue], "warmer light"
    )
    await models.aclose()
    assert data[:4] == b"RIFF"  # re-encoded for the planned .webp
    [edit] = server.log("images.edit")
    assert "Beans look plastic" in edit.form["prompt"] and "warmer light" in edit.form["prompt"]
    assert edit.files["image"][:4] == b"\x89PNG"


async def test_the_judge_sends_strict_schemas_that_openai_takes(servers):
    server = servers("openai")  # a strict schema strict mode refuses would be a 400 here
    server.chat_responder = lambda request: chat_reply(
        json.dumps({"LayoutJudgement": {"penalties": []}, "StyleJudgement": {"penalties": []},
                    "AssetJudgement": {"issues": []},
                    "AestheticsJudgement": dict.fromkeys(
                        ("balance_spacing", "typography", "colour", "clarity_polish",
                         "overall"), 0.8) | {"notes": []}}[request.schema_name()])
    )  # fmt: skip
    models = Models(fast_settings(server))
    judgement = await models.new_judge().judge(make_plan(), judge_evidence())
    await models.aclose()
    assert judgement.not_judged == [] and judgement.scores["layout"] == 1.0
    assert set(formats(server)) == {"json_schema"}  # nothing was refused and stepped down
    sent = [r.json["response_format"]["json_schema"] for r in server.log("chat")]
    assert all(s["strict"] and strict_problems(s["schema"]) == [] for s in sent)


@pytest.mark.parametrize(
    "profile, status, message, kind",
    [
        ("vllm", 404, "The model `gpt-5.5` does not exist.", "model"),
        ("ollama", 404, 'model "gpt-5.5" not found, try pulling it first', "model"),
        ("vllm", 400, "This model's maximum context length is 4096 tokens", "bad-request"),
        ("llamacpp", 503, "Loading model", "server"),
        ("lmstudio", 401, "Invalid API key", "auth"),
    ],
)
async def test_each_servers_error_bodies_become_one_classified_line(
    servers, profile, status, message, kind
):
    server = servers(profile)
    server.script("chat", *[error(status, message)] * 3)
    designer = LLMDesigner(fast_settings(server))
    with pytest.raises(ProviderError) as caught:
        await designer.plan(PROMPT)
    await designer.aclose()
    assert caught.value.kind == kind and message.split("`")[0][:20] in str(caught.value)
    assert "\n" not in str(caught.value) and server.base_url in str(caught.value)


def test_doctor_rows_for_retired_and_deprecated_models_on_api_openai_com():
    import datetime as dt

    from mmstudio.providers.doctor import _model_row

    today = dt.date(2026, 12, 2)
    settings = Settings(api_key="sk-test", models={"image": "gpt-image-1", "planner": "gpt-5.1"})
    models = Models(settings, today=today)
    catalog = [{"id": name, "shutdown_date": None} for name in ("gpt-image-1", "gpt-5.1")]
    image = _model_row(models["image"], settings, catalog, today)
    assert not image["ok"] and "gpt-image-1 shut down on 2026-10-23" in image["detail"]
    assert "use gpt-image-2.5-sunburst" in image["detail"] and "made offline" in image["detail"]
    planner = _model_row(models["planner"], settings, catalog, today)
    assert planner["ok"] and "gpt-5.1 shuts down on 2027-04-01" in planner["detail"]
    video = _model_row(models["video"], settings, catalog, today)
    assert not video["ok"] and "sora-2 shut down on 2026-09-24" in video["detail"]


async def test_the_judged_evaluator_merges_the_judge_into_each_trials_report(servers, tmp_path):
    from mmstudio.providers.llm.review import judged_evaluator
    from mmstudio.report import ElementScore, RenderInfo

    server = servers("vllm")
    server.chat_responder = lambda request: chat_reply(json.dumps(
        {"LayoutJudgement": {"penalties": [{"kind": "misplaced", "element": "hero-photo",
                                            "message": "The photo sits below the fold"}]},
         "StyleJudgement": {"penalties": []},
         "AssetJudgement": {"issues": [{"side": "asset", "message": "Beans look plastic"}]},
         "AestheticsJudgement": dict.fromkeys(("balance_spacing", "typography", "colour",
                                               "clarity_polish", "overall"), 0.6),
         }[request.schema_name()]))  # fmt: skip
    site = tmp_path / "site"
    (site / "crops").mkdir(parents=True)
    (site / "index.html").write_text("<!DOCTYPE html><html></html>")
    (site / "shot.png").write_bytes(tiny_png())
    (site / "crops" / "hero-photo.png").write_bytes(tiny_png())
    calls = []

    async def measure(page, plan, out):
        calls.append(page)
        return Report(
            scores=Scores(layout=1.0, image=1.0).with_overall(),
            elements=[ElementScore(id="hero-photo", kind="image", score=1.0)],
            render=RenderInfo(screenshot=str(site / "shot.png")),
        )

    models = Models(fast_settings(server))
    evaluate = judged_evaluator(models, measure)
    plan = make_plan()
    report = await evaluate(site / "index.html", plan, tmp_path / "out")
    again = await evaluate(site / "index.html", plan, tmp_path / "out")  # the client stays open
    await models.aclose()
    assert len(calls) == 2 and again.scores == report.scores
    assert report.scores.layout == 0.925 and report.scores.image == 0.8
    levels = {(i.dimension, i.element, i.level) for i in report.issues if i.source == "judge"}
    assert ("layout", "hero-photo", "global") in levels and (
        "image",
        "hero-photo",
        "local",
    ) in levels
    assert models.usage.summary()["calls"] == 8  # 4 judge calls per evaluation


async def test_a_refused_strict_schema_is_retried_loose_and_not_learned(servers):
    server = servers("vllm")
    plan = make_plan()
    server.chat_responder = by_text(plan, page_html(plan))
    strict = lambda r: ((r.json or {}).get("response_format") or {}).get(  # noqa: E731
        "json_schema", {}).get("strict") is True  # fmt: skip
    server.script("chat", error(400, "Invalid schema for response_format 'DesignPlan'",
                                when=strict))  # fmt: skip
    designer = LLMDesigner(fast_settings(server))
    assert (await designer.plan(PROMPT)).title == plan.title
    await designer.aclose()
    sent = [r.json["response_format"]["json_schema"]["strict"] for r in server.log("chat")]
    assert sent == [True, False] and learned_rung(server.base_url) is None
