"""Structured outputs: a chat reply parsed and validated into a pydantic model.

The ladder, in order: send the model's JSON schema (``response_format: json_schema``) when the
endpoint supports structured outputs, else JSON mode (``json_object``) with the schema in the
prompt; parse the reply and validate it with pydantic; on failure send ONE repair request that
quotes the reply's problem (``prompts/repair_json.md.j2``); if that fails too, raise
:class:`~mmstudio.providers.errors.StructuredOutputError` with a one-line reason. An endpoint
that rejects a rung (LM Studio refuses ``json_object``, llama.cpp a schema it cannot turn into a
grammar) is stepped down by the provider (:mod:`.openai_compat`), not here.

The schema sent (:func:`wire_schema`) is the pydantic schema without the keywords OpenAI's strict
mode and llama.cpp's grammar converter refuse (string lengths, ``default``, big ``maxItems``);
pydantic still enforces every bound when the reply is validated. Where the schema can be made
strict (:func:`strict_schema`: every object closed, every property required, no open maps) it is
sent with ``strict: true``; otherwise with ``strict: false``.

Extraction (:func:`extract_json`) is tolerant of what small local models wrap around the JSON: a
leading ``<think>…</think>`` block (qwen3, deepseek-r1), a code fence, prose before or after. It
takes the first complete JSON object in the reply; anything it cannot find goes to the repair.
"""

from __future__ import annotations

import json
import logging
import re
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from mmstudio.providers.errors import StructuredOutputError
from mmstudio.providers.prompting import render_prompt
from mmstudio.providers.protocols import ChatModel, Message

log = logging.getLogger(__name__)

M = TypeVar("M", bound=BaseModel)

_THINK = re.compile(r"\A\s*<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```(?:json|JSON)?[ \t]*\n(?P<body>.*?)\n[ \t]*```", re.DOTALL)
_MAX_QUOTE = 1500  # characters of the bad reply quoted back in the repair request

# Bounds at or above this are left out of the wire schema: llama.cpp's grammar converter unrolls
# a bound into that many rules and refuses big ones. Small ones (maxItems 20) stay.
BOUND_LIMIT = 100
# Keywords OpenAI's strict mode does not accept (and that grammar converters often refuse).
_DROPPED = {"default", "minLength", "maxLength", "examples", "discriminator", "title"}
_COUNT_BOUNDS = ("maxItems", "minItems", "maxProperties", "minProperties")
_STRICT_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4",
                   "ipv6", "uuid"}  # fmt: skip
_UNSUPPORTED_STRICT = {"patternProperties", "unevaluatedProperties", "propertyNames", "allOf",
                       "oneOf", "not", "if", "then", "else", "dependentRequired",
                       "dependentSchemas", "contains", "minLength", "maxLength", "default",
                       "discriminator"}  # fmt: skip


def wire_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema of ``model`` as sent to an endpoint: unsupported keywords and bounds ≥
    :data:`BOUND_LIMIT` removed, ``oneOf`` turned into ``anyOf``, one-item ``allOf`` inlined."""
    return _clean(model.model_json_schema())


def _clean(node: Any) -> Any:
    if isinstance(node, list):
        return [_clean(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED:
            continue
        if key in _COUNT_BOUNDS and isinstance(value, int) and value >= BOUND_LIMIT:
            continue
        if key == "format" and value not in _STRICT_FORMATS:
            continue
        if key == "oneOf":
            key = "anyOf"
        if key in ("properties", "$defs"):
            out[key] = {name: _clean(sub) for name, sub in value.items()}
        else:
            out[key] = _clean(value)
    if isinstance(out.get("allOf"), list) and len(out["allOf"]) == 1:
        inner = out.pop("allOf")[0]
        out = {**inner, **out}
    return out


def strict_schema(schema: dict[str, Any]) -> dict[str, Any] | None:
    """``schema`` (a :func:`wire_schema`) made valid for OpenAI's strict mode — every object
    closed (``additionalProperties: false``) with all its properties required — or None when it
    cannot be (an open map, an untyped value, a root that is not an object)."""
    if schema.get("type") != "object":
        return None
    try:
        return _strict(schema)
    except _NotStrict:
        return None


class _NotStrict(Exception):
    pass


def _strict(node: Any) -> Any:
    if isinstance(node, list):
        return [_strict(item) for item in node]
    if not isinstance(node, dict):
        return node
    if not ({"type", "anyOf", "$ref", "enum", "const"} & node.keys()):
        raise _NotStrict("an untyped value")
    out = {k: (_strict_map(v) if k in ("properties", "$defs") else _strict(v))
           for k, v in node.items()}  # fmt: skip
    types = out.get("type")
    is_object = types == "object" or (isinstance(types, list) and "object" in types)
    if is_object:
        extra = out.get("additionalProperties", False)
        if extra is not False or not out.get("properties"):
            raise _NotStrict("an open map")
        out["additionalProperties"] = False
        out["required"] = list(out["properties"])
    if (types == "array" or (isinstance(types, list) and "array" in types)) and "items" not in out:
        raise _NotStrict("an array of anything")
    return out


def _strict_map(value: dict[str, Any]) -> dict[str, Any]:
    return {name: _strict(sub) for name, sub in value.items()}


def strict_problems(schema: dict[str, Any]) -> list[str]:
    """Why ``schema`` would be refused by OpenAI's strict mode or a grammar converter (empty when
    it would not): open or partly-required objects, unsupported keywords, bounds ≥ 2000."""
    problems: list[str] = []
    if schema.get("type") != "object":
        problems.append("the root is not an object")
    _check(schema, "$", problems)
    return problems


def _check(node: Any, where: str, problems: list[str]) -> None:
    if isinstance(node, list):
        for i, item in enumerate(node):
            _check(item, f"{where}[{i}]", problems)
        return
    if not isinstance(node, dict):
        return
    for key in sorted(_UNSUPPORTED_STRICT & node.keys()):
        problems.append(f"{where}: unsupported keyword {key}")
    for key in _COUNT_BOUNDS:
        if isinstance(node.get(key), int) and node[key] >= 2000:
            problems.append(f"{where}: {key} {node[key]} is too big for a grammar")
    if "properties" in node:
        if node.get("additionalProperties") is not False:
            problems.append(f"{where}: additionalProperties is not false")
        if sorted(node.get("required", [])) != sorted(node["properties"]):
            problems.append(f"{where}: not every property is required")
    for key, value in node.items():
        if key in ("properties", "$defs") and isinstance(value, dict):
            for name, sub in value.items():
                _check(sub, f"{where}.{name}", problems)
        elif isinstance(value, dict | list):
            _check(value, f"{where}.{key}", problems)


@cache
def response_format(model: type[BaseModel], *, schema_supported: bool) -> dict[str, Any]:
    """The OpenAI ``response_format`` for ``model``: its wire schema (strict where it can be),
    or JSON mode. Cached per model: callers must not change the dict."""
    if not schema_supported:
        return {"type": "json_object"}
    schema = wire_schema(model)
    strict = strict_schema(schema)
    return {
        "type": "json_schema",
        "json_schema": {"name": model.__name__, "schema": strict or schema, "strict": bool(strict)},
    }


@cache
def schema_text(model: type[BaseModel]) -> str:
    """The model's JSON schema, compact, for prompts (with its bounds: they are instructions)."""
    return json.dumps(model.model_json_schema(), separators=(",", ":"))


def strip_thinking(text: str) -> str:
    """``text`` without a leading ``<think>…</think>`` block (or an unclosed one's opening: a
    reply that only ``</think>`` ends is cut after it)."""
    text = _THINK.sub("", text, count=1)
    head, marker, tail = text.partition("</think>")
    # a server that put the opening tag in the prompt sends only the closing one; a reply that
    # starts with the answer itself (JSON, a document) is left alone
    if marker and not head.lstrip().startswith(("{", "[", "<!", "<html", "```")):
        return tail
    return text


def extract_json(text: str) -> Any:
    """The JSON value of a reply: the whole text, else the first fenced block that parses, else
    the first complete JSON object in the text (prose around it ignored). Raises
    json.JSONDecodeError (the whole text's error) when there is none."""
    text = strip_thinking(text).strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        first = exc
    for fence in _FENCE.finditer(text):
        try:
            return json.loads(fence.group("body"))
        except json.JSONDecodeError:
            continue
    decoder = json.JSONDecoder()
    for match in re.finditer(r"[{\[]", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict) or (isinstance(value, list) and value):
            return value
    raise first


def parse_reply(text: str, model: type[M]) -> M:
    """``text`` as a validated ``model`` (JSON found by :func:`extract_json`). Raises ValueError
    (json.JSONDecodeError or pydantic.ValidationError) saying what is wrong."""
    return model.model_validate(extract_json(text))


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


_CUT_OFF = "the reply was cut off at the model's output limit"
_CUT_OFF_FIX = "raise the server's output-token limit (max_tokens / n_predict / num_predict)"


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

    Raises StructuredOutputError after the one repair fails (saying so when the reply was cut
    off at the output limit), ProviderError when a call fails."""
    fmt = response_format(model, schema_supported=schema_supported)
    reply = await chat.chat(messages, role=role, stage=stage, element=element, response_format=fmt)
    try:
        return parse_reply(reply.text, model)
    except ValueError as exc:
        first = exc
    log.warning("%s: reply is not a valid %s; asking once for a repair", stage, model.__name__)
    cut = reply.finish_reason == "length"
    problems = problem(first) + (f"\n- {_CUT_OFF}: answer more briefly" if cut else "")
    repair = render_prompt(
        "repair_json.md.j2",
        problems=problems,
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
        if second.finish_reason == "length":
            raise StructuredOutputError(
                f"{stage}: {_CUT_OFF}, even after a repair request; {_CUT_OFF_FIX}"
            ) from None
        reason = problem(exc).splitlines()[0].lstrip("- ")
        raise StructuredOutputError(
            f"{stage}: the model's reply is not a valid {model.__name__} even after a repair "
            f"request ({reason})"
        ) from None
