"""Structured outputs: a chat reply parsed and validated into a pydantic model.

The ladder, in order: send the model's JSON schema (``response_format: json_schema``) when the
endpoint supports structured outputs, else JSON mode (``json_object``) with the schema in the
prompt; parse the reply with ``json.loads`` and validate it with pydantic; on failure send ONE
repair request that quotes the reply's problem (``prompts/repair_json.md.j2``); if that fails too,
raise :class:`~mmstudio.providers.errors.StructuredOutputError` with a one-line reason.

Nothing is stripped blindly: a reply is JSON, or — the only tolerance — exactly one fenced
``json`` block and nothing else, which is unwrapped whole. Anything else goes to the repair.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from mmstudio.providers.errors import StructuredOutputError
from mmstudio.providers.prompting import render_prompt
from mmstudio.providers.protocols import ChatModel, Message

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

_ONE_FENCED_BLOCK = re.compile(r"\A\s*```(?:json)?[ \t]*\n(?P<body>.*)\n```\s*\Z", re.DOTALL)
_MAX_QUOTE = 1500  # characters of the bad reply quoted back in the repair request


def response_format(model: type[BaseModel], *, schema_supported: bool) -> dict[str, Any]:
    """The OpenAI ``response_format`` for ``model``: its JSON schema, or JSON mode."""
    if not schema_supported:
        return {"type": "json_object"}
    return {
        "type": "json_schema",
        "json_schema": {
            "name": model.__name__,
            "schema": model.model_json_schema(),
            "strict": False,
        },
    }


def schema_text(model: type[BaseModel]) -> str:
    """The model's JSON schema, compact, for prompts."""
    return json.dumps(model.model_json_schema(), separators=(",", ":"))


def parse_reply(text: str, model: type[M]) -> M:
    """``text`` as a validated ``model``. Raises ValueError (json.JSONDecodeError or
    pydantic.ValidationError) saying what is wrong."""
    fenced = _ONE_FENCED_BLOCK.match(text)
    payload = fenced.group("body") if fenced else text
    return model.model_validate(json.loads(payload))


def problem(exc: Exception) -> str:
    """A short description of why a reply was rejected (first 8 validation errors)."""
    if isinstance(exc, ValidationError):
        lines = []
        for error in exc.errors()[:8]:
            where = ".".join(str(p) for p in error["loc"]) or "(top level)"
            lines.append(f"- {where}: {error['msg']}")
        more = exc.error_count() - len(lines)
        return "\n".join(lines + ([f"- … and {more} more"] if more > 0 else []))
    if isinstance(exc, json.JSONDecodeError):
        return f"- not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    return f"- {exc}"


async def structured_chat(
    chat: ChatModel,
    messages: list[Message],
    model: type[M],
    *,
    role: str,
    stage: str,
    element: str = "",
    schema_supported: bool = True,
) -> M:
    """Ask ``chat`` for a ``model`` object (see module docstring for the ladder).

    Raises StructuredOutputError after the one repair fails, ProviderError when a call fails."""
    fmt = response_format(model, schema_supported=schema_supported)
    reply = await chat.chat(messages, role=role, stage=stage, element=element, response_format=fmt)
    try:
        return parse_reply(reply.text, model)
    except ValueError as exc:
        first = exc
    log.warning("%s: reply is not a valid %s; asking once for a repair", stage, model.__name__)
    repair = render_prompt(
        "repair_json.md.j2",
        problems=problem(first),
        reply=reply.text[:_MAX_QUOTE],
        truncated=len(reply.text) > _MAX_QUOTE,
        schema=schema_text(model),
    )
    retry = [*messages, Message("assistant", reply.text[:_MAX_QUOTE]), Message("user", repair)]
    second = await chat.chat(
        retry, role=role, stage=f"{stage}-repair", element=element, response_format=fmt
    )
    try:
        return parse_reply(second.text, model)
    except ValueError as exc:
        reason = problem(exc).splitlines()[0].lstrip("- ")
        raise StructuredOutputError(
            f"{stage}: the model's reply is not a valid {model.__name__} even after a repair "
            f"request ({reason})"
        ) from None
