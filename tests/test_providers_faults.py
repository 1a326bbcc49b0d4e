"""The OpenAI-compatible provider against the local test server: every fault of the error table
either recovers by retrying or ends in one classified, one-line ProviderError."""

from __future__ import annotations

import random
import socket
import time

import pytest
from openai_server import Reply, chat_reply, chat_stream, error, image_reply, video_job
from provider_fixtures import clean_env, fast_settings, no_network, server, tiny_png  # noqa: F401

from mmstudio.providers.base import DesignerError
from mmstudio.providers.errors import ProviderError, classify
from mmstudio.providers.openai_compat import OpenAIProvider, backoff_delay
from mmstudio.providers.protocols import Message

pytestmark = pytest.mark.usefixtures("no_network", "clean_env")

HELLO = [Message("user", "hello")]


@pytest.fixture
async def provider(server):  # noqa: F811
    made = OpenAIProvider(fast_settings(server))
    yield made
    await made.aclose()


async def ask(provider, **kwargs):
    return await provider.chat(HELLO, role="planner", stage="plan", **kwargs)


@pytest.mark.parametrize(
    "fault",
    [
        error(429, "slow down", retry_after=0.2),
        error(500),
        error(503),
        chat_reply("late", delay_s=1.0),  # past the 0.5 s timeout
        Reply(body=b'{"id": "x", "choices": [{"mess'),  # malformed JSON body
        chat_reply("x", choices=None),  # well-formed, wrong shape
        chat_reply("x", choices=[]),
    ],
    ids=["429", "500", "503", "timeout", "malformed", "choices-none", "choices-empty"],
)
async def test_a_transient_fault_is_retried_and_recovers(server, provider, fault):  # noqa: F811
    server.script("chat", fault, chat_reply("recovered"))
    reply = await ask(provider)
    assert reply.text == "recovered"
    assert len(server.log("chat")) == 2


async def test_retry_after_is_honoured(server, provider):  # noqa: F811
    server.script("chat", error(429, retry_after=0.3), chat_reply("ok"))
    started = time.perf_counter()
    await ask(provider)
    assert time.perf_counter() - started >= 0.3


async def test_a_truncated_stream_is_retried(server, provider):  # noqa: F811
    server.script("chat", chat_stream("<html>half", truncate=True), chat_stream("<html>all</html>"))
    reply = await ask(provider, stream=True)
    assert reply.text == "<html>all</html>"
    assert [r.json["stream"] for r in server.log("chat")] == [True, True]


@pytest.mark.parametrize(
    ("fault", "kind", "words"),
    [
        (error(500, "boom"), "server", "after 3 tries"),
        (chat_reply("late", delay_s=1.0), "timeout", "did not answer in time"),
        (Reply(body=b"<html>bad gateway"), "malformed", "not valid JSON"),
        (chat_reply("x", choices=None), "shape", "wrong shape"),
        (chat_stream("cut", truncate=True), "connection", "before the reply was complete"),
    ],
    ids=["500", "timeout", "malformed", "shape", "truncated"],
)
async def test_a_persistent_fault_is_one_line_error(server, provider, fault, kind, words):  # noqa: F811
    server.script("chat", fault, fault, fault)
    with pytest.raises(ProviderError) as caught:
        await ask(provider, stream=kind == "connection")
    assert caught.value.kind == kind
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)
    assert isinstance(caught.value, DesignerError)
    assert len(server.log("chat")) == 3  # 1 + max_retries


async def test_auth_failure_is_not_retried_and_says_how_to_fix(server, provider):  # noqa: F811
    server.script("chat", error(401, "Incorrect API key"))
    with pytest.raises(ProviderError, match="OPENAI_API_KEY") as caught:
        await ask(provider)
    assert caught.value.kind == "auth" and not caught.value.retryable
    assert len(server.log("chat")) == 1


async def test_unknown_model_names_the_model_and_the_endpoint(server, provider):  # noqa: F811
    server.script("chat", error(404, "The model `gpt-5.5` does not exist"))
    with pytest.raises(ProviderError) as caught:
        await ask(provider)
    assert (
        caught.value.kind == "model"
        and "'gpt-5.5'" in str(caught.value)
        and server.base_url in str(caught.value)
    )
    assert "--planner-model" in str(caught.value)
    assert len(server.log("chat")) == 1


async def test_a_retry_after_longer_than_allowed_fails_at_once(server):  # noqa: F811
    provider = OpenAIProvider(fast_settings(server, retry_after_max_s=1))
    server.script("chat", error(429, retry_after=3600))
    with pytest.raises(ProviderError, match="rate limited"):
        await ask(provider)
    assert len(server.log("chat")) == 1
    await provider.aclose()


async def test_an_unreachable_endpoint_says_so(server):  # noqa: F811
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # closed once the block ends: nothing listens there
    settings = fast_settings(server, base_url=f"http://127.0.0.1:{port}/v1", max_retries=1)
    provider = OpenAIProvider(settings)
    with pytest.raises(ProviderError, match="is the server running") as caught:
        await ask(provider)
    assert caught.value.kind == "connection"
    await provider.aclose()


async def test_the_official_endpoint_without_a_key_says_how_to_set_it():
    provider = OpenAIProvider(fast_settings_official())
    with pytest.raises(ProviderError, match="OPENAI_API_KEY"):
        await ask(provider)


def fast_settings_official():
    from mmstudio.providers.settings import Settings

    return Settings(max_retries=0)


async def test_the_key_is_sent_as_a_bearer_token_only(server, provider):  # noqa: F811
    server.script("chat", chat_reply("ok"))
    await ask(provider)
    request = server.log("chat")[0]
    assert request.headers["authorization"] == "Bearer sk-test-SECRET-0123456789"
    assert "SECRET" not in request.raw.decode()


async def test_usage_is_recorded_per_stage_and_element(server):  # noqa: F811
    # a priced model for the planner; the default coder model is not in the price table
    provider = OpenAIProvider(fast_settings(server, models={"planner": "gpt-5.1"}))
    server.script("chat", chat_reply("a"), chat_reply("b"))
    await ask(provider)
    await provider.chat(HELLO, role="coder", stage="layout", element="hero")
    summary = provider.usage.summary()
    assert summary["calls"] == 2
    assert summary["by_stage"]["plan"]["input_tokens"] == 120
    assert summary["total"]["output_tokens"] == 160
    assert summary["by_stage"]["plan"]["cost_usd"] > 0
    assert summary["by_stage"]["layout"]["unpriced"] == 1  # never a guessed price
    await provider.aclose()


async def test_images_send_size_and_no_response_format(server, provider):  # noqa: F811
    server.script("images.generate", image_reply(tiny_png()))
    data = await provider.generate_image("beans", size="1536x1024", stage="image", element="h")
    assert data == tiny_png()
    body = server.log("images.generate")[0].json
    assert body["size"] == "1536x1024" and body["model"] == "gpt-image-2.5-sunburst"
    assert "response_format" not in body
    assert provider.usage.records()[0].images == 1


async def test_image_edit_sends_the_image_as_multipart(server, provider):  # noqa: F811
    data = await provider.edit_image(
        tiny_png(), "warmer", size="1024x1024", stage="refine", element="h"
    )
    assert data == tiny_png()
    request = server.log("images.edit")[0]
    assert request.files["image"] == tiny_png()
    assert request.form["size"] == "1024x1024" and "response_format" not in request.form


async def test_an_image_response_without_data_is_a_shape_error(server, provider):  # noqa: F811
    bad = Reply(json={"created": 1, "data": []})
    server.script("images.generate", bad, bad, bad)
    with pytest.raises(ProviderError, match="wrong shape"):
        await provider.generate_image("x", size="1024x1024", stage="image", element="h")


async def test_video_is_created_polled_and_downloaded(server, provider):  # noqa: F811
    server.script(
        "videos.retrieve",
        video_job("video_1", "in_progress", progress=40),
        error(500),
        video_job("video_1", "completed", progress=100),
    )
    data = await provider.generate_video(
        "pour", seconds=4, size="1280x720", stage="video", element="v"
    )
    assert data == server.video_bytes
    assert server.log("videos.create")[0].form == {
        "prompt": "pour", "model": "sora-2", "seconds": "4", "size": "1280x720"
    }  # fmt: skip
    assert len(server.log("videos.retrieve")) == 3
    assert provider.usage.records()[-1].video_seconds == 4


async def test_video_polling_stops_at_the_deadline(server):  # noqa: F811
    provider = OpenAIProvider(fast_settings(server, video_deadline_s=0.2, video_poll_s=0.05))
    server.script("videos.retrieve", *[video_job("video_1", "in_progress")] * 20)
    with pytest.raises(ProviderError, match=r"not ready after 0\.2 s") as caught:
        await provider.generate_video("x", seconds=4, size="1280x720", stage="video", element="v")
    assert caught.value.kind == "deadline"
    await provider.aclose()


async def test_a_failed_video_job_is_reported(server, provider):  # noqa: F811
    server.script("videos.retrieve", video_job("video_1", "failed"))
    with pytest.raises(ProviderError, match="failed: scripted failure"):
        await provider.generate_video("x", seconds=4, size="1280x720", stage="video", element="v")


async def test_models_are_listed(server, provider):  # noqa: F811
    assert await provider.list_models() == ["gpt-5.5", "gpt-image-2.5-sunburst", "sora-2"]


def test_backoff_is_capped_jittered_and_respects_retry_after(server):  # noqa: F811
    settings = fast_settings(server, backoff_base_s=1.0, backoff_max_s=4.0)
    rng = random.Random(7)
    delays = [backoff_delay(attempt, settings, None, rng) for attempt in range(10)]
    assert all(0 <= d <= 4.0 for d in delays)
    assert len(set(delays)) == len(delays)  # jitter
    assert backoff_delay(0, settings, 9.0, rng) == 9.0


def test_classify_refuses_foreign_exceptions():
    with pytest.raises(TypeError):
        classify(KeyError("x"), base_url="http://127.0.0.1")


async def test_a_stream_that_trickles_past_its_deadline_stops(server):  # noqa: F811
    provider = OpenAIProvider(fast_settings(server, stream_deadline_s=0.3, max_retries=0))
    slow = chat_stream("x" * 40, pieces=40)
    slow.event_delay_s = 0.05  # 40 events x 50 ms > 0.3 s, each read well inside the timeout
    server.script("chat", slow)
    with pytest.raises(ProviderError, match=r"longer than 0\.3 s") as caught:
        await ask(provider, stream=True)
    assert caught.value.kind == "timeout"
    await provider.aclose()


async def test_a_key_echoed_by_the_server_is_redacted(server, provider, caplog):  # noqa: F811
    server.script("chat", error(401, "bad key sk-test-SECRET-0123456789 for this org"))
    with pytest.raises(ProviderError) as caught:
        await ask(provider)
    assert "SECRET" not in str(caught.value) and "sk-…redacted" in str(caught.value)
    assert "SECRET" not in caplog.text
