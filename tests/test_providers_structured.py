"""Structured outputs: schema → JSON mode → validate → one repair quoting the error → failure."""

from __future__ import annotations

import json

import pytest
from openai_server import chat_reply
from provider_fixtures import clean_env, fast_settings, no_network, server  # noqa: F401
from pydantic import BaseModel, Field

from mmstudio.providers.errors import StructuredOutputError
from mmstudio.providers.openai_compat import OpenAIProvider
from mmstudio.providers.protocols import ChatReply, Message
from mmstudio.providers.structured import parse_reply, strict_problems, structured_chat

pytestmark = pytest.mark.usefixtures("no_network", "clean_env")


class Answer(BaseModel):
    title: str = Field(min_length=1)
    count: int


class FakeChat:
    """A ChatModel that answers from a queue and keeps every call."""

    def __init__(self, *texts: str) -> None:
        self.texts = list(texts)
        self.calls: list[dict] = []

    async def chat(self, messages, **kwargs) -> ChatReply:
        self.calls.append({"messages": messages, **kwargs})
        return ChatReply(self.texts.pop(0))


async def ask(chat, **kwargs):
    return await structured_chat(
        chat, [Message("user", "q")], Answer, role="planner", stage="plan", **kwargs
    )


async def test_a_valid_reply_needs_one_call_with_the_schema():
    chat = FakeChat('{"title": "A", "count": 2}')
    assert await ask(chat) == Answer(title="A", count=2)
    fmt = chat.calls[0]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["name"] == "Answer"
    assert fmt["json_schema"]["schema"]["properties"]["count"]["type"] == "integer"


async def test_without_structured_outputs_json_mode_is_used():
    chat = FakeChat('{"title": "A", "count": 2}')
    await ask(chat, schema_supported=False)
    assert chat.calls[0]["response_format"] == {"type": "json_object"}


async def test_an_invalid_reply_gets_one_repair_quoting_the_error():
    chat = FakeChat('{"title": "", "count": "many"}', '{"title": "A", "count": 3}')
    assert (await ask(chat)).count == 3
    repair = chat.calls[1]
    assert repair["stage"] == "plan-repair"
    assert repair["messages"][1] == Message("assistant", '{"title": "", "count": "many"}')
    text = repair["messages"][2].text
    assert "- title: String should have at least 1 character" in text
    assert "- count: Input should be a valid integer" in text


async def test_a_reply_still_invalid_after_the_repair_is_a_clear_failure():
    chat = FakeChat("Sure! Here is the JSON you asked for:", "{not json")
    with pytest.raises(StructuredOutputError) as caught:
        await ask(chat)
    message = str(caught.value)
    assert "not a valid Answer even after a repair request" in message
    assert "not valid JSON" in message and "\n" not in message
    assert len(chat.calls) == 2


@pytest.mark.parametrize(
    "reply",
    [
        '```json\n{"title": "A", "count": 1}\n```',
        'Here:\n```json\n{"title": "A", "count": 1}\n```\nHope that helps!',
        '<think>\nThe user wants {a title}. Let me count: 1.\n</think>\n{"title": "A", "count": 1}',
        '<think>{"title": "wrong", "count": 9}</think>\n\n```json\n{"title": "A", "count": 1}\n```',
        'Sure! The object is {"title": "A", "count": 1} as asked.',
        'Reasoning first... then the answer.</think>{"title": "A", "count": 1}',
    ],
)
def test_the_json_is_found_inside_thinking_fences_and_prose(reply):
    answer = parse_reply(reply, Answer)
    assert (answer.title, answer.count) == ("A", 1)


def test_a_reply_without_a_json_object_is_still_rejected():
    with pytest.raises(ValueError):
        parse_reply("<think>hmm</think>I cannot do that.", Answer)
    with pytest.raises(ValueError):  # found, but not an Answer: validation decides
        parse_reply('Here: {"title": "", "count": "many"}', Answer)


async def test_the_wire_request_carries_the_json_schema(server):  # noqa: F811
    provider = OpenAIProvider(fast_settings(server))
    server.script("chat", chat_reply('{"title": "A", "count": 1}'))
    await ask(provider)
    body = server.log("chat")[0].json
    sent = body["response_format"]["json_schema"]
    assert sent["name"] == "Answer" and sent["strict"] is True
    assert sent["schema"]["required"] == ["title", "count"]
    assert "minLength" not in json.dumps(sent["schema"])  # pydantic still checks it
    assert strict_problems(sent["schema"]) == []
    assert body["model"] == "gpt-5.5" and body["messages"][0]["content"] == "q"
    await provider.aclose()


async def test_images_in_messages_go_as_data_urls(server):  # noqa: F811
    provider = OpenAIProvider(fast_settings(server))
    server.script("chat", chat_reply("ok"))
    png = b"\x89PNG\r\n\x1a\nrest"
    await provider.chat([Message("user", "look", (png,))], role="judge", stage="judge")
    content = server.log("chat")[0].json["messages"][0]["content"]
    assert content[0] == {"type": "text", "text": "look"}
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGg")
    await provider.aclose()
