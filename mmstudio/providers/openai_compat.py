"""The OpenAI-compatible provider: chat, images and videos through the ``openai`` async client.

One :class:`OpenAIProvider` serves OpenAI and self-hosted servers (vLLM, Ollama, LM Studio,
llama.cpp) through ``settings.base_url``. It implements the protocols of
:mod:`mmstudio.providers.protocols`.

Concurrency invariants: the SDK client is created lazily, once, under a lock, and closed by
:meth:`OpenAIProvider.aclose` (callers close it in ``finally``); calls from many tasks share it
(httpx pools connections). The SDK's own retries are off (``max_retries=0``): every call goes
through :func:`with_retries`, the one place that retries, so the error table of
:mod:`.errors` decides. Every request has the client timeout (``timeout_s``, images
``image_timeout_s``); a streamed reply ends by ``stream_deadline_s`` however slowly it trickles;
video polling stops at ``video_deadline_s``. Usage records are appended to
a thread-safe :class:`~.usage.UsageLog`.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import json
import logging
import random
import re
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar, cast

import openai

from mmstudio.providers.errors import (
    ProviderError,
    ResponseShapeError,
    classify,
    is_provider_failure,
    redact,
)
from mmstudio.providers.protocols import ChatReply, Message
from mmstudio.providers.settings import DEFAULT_BASE_URL, Settings, config_path
from mmstudio.providers.usage import UsageLog, UsageRecord, cost

log = logging.getLogger(__name__)

T = TypeVar("T")


def backoff_delay(
    attempt: int, settings: Settings, retry_after: float | None, rng: random.Random
) -> float:
    """Seconds to wait before retry number ``attempt`` (0-based): full jitter over a capped
    exponential (``backoff_base_s · 2^attempt`` ≤ ``backoff_max_s``), never less than the
    server's ``Retry-After``."""
    ceiling = min(settings.backoff_max_s, settings.backoff_base_s * (2**attempt))
    delay = rng.uniform(0, ceiling)
    return max(delay, retry_after or 0.0)


async def with_retries(
    call: Callable[[], Awaitable[T]],
    settings: Settings,
    *,
    what: str,
    model: str = "",
    role: str = "",
    rng: random.Random | None = None,
) -> T:
    """``await call()``, retrying retryable provider failures up to ``settings.max_retries``
    times. Raises the classified :class:`ProviderError` (one line, prefixed by ``what``) when the
    failure is not retryable, the retries are spent, or the server asks to wait longer than
    ``retry_after_max_s``. Exceptions the table does not know propagate unchanged."""
    rng = rng or random.Random()
    attempt = 0
    while True:
        try:
            return await call()
        except Exception as exc:
            if not is_provider_failure(exc):
                raise
            error = classify(exc, base_url=settings.base_url, model=model, role=role)
            reason = redact(str(error), settings.key())
            waited_too_long = (error.retry_after or 0) > settings.retry_after_max_s
            if not error.retryable or attempt >= settings.max_retries or waited_too_long:
                tries = f" after {attempt + 1} tries" if attempt else ""
                raise ProviderError(
                    f"{what}{tries}: {reason}", kind=error.kind, retryable=error.retryable
                ) from None
            delay = backoff_delay(attempt, settings, error.retry_after, rng)
            log.warning("%s: %s; retry %d in %.2f s", what, error.kind, attempt + 1, delay)
            await asyncio.sleep(delay)
            attempt += 1


def _content(message: Message) -> str | list[dict[str, Any]]:
    """The OpenAI ``content`` of ``message``: plain text, or text + data-URL image parts."""
    if not message.images:
        return message.text
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.text}]
    for data in message.images:
        url = f"data:{_mime(data)};base64,{base64.b64encode(data).decode('ascii')}"
        parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def _mime(data: bytes) -> str:
    if data.startswith(b"\x89PNG"):
        return "image/png"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "image/jpeg"


# The structured-output rungs, best first; an endpoint that rejects one is stepped down once and
# remembered (per base URL) for the process and in ``endpoints.json`` beside the config file:
# LM Studio rejects json_object, llama.cpp a schema it cannot turn into a grammar, some servers
# any response_format.
RUNGS = ("json_schema", "json_object", "text")
_FORMAT_WORDS = re.compile(
    r"response_format|json_schema|json_object|json schema|grammar|schema|structured output",
    re.IGNORECASE,
)
_ROLE_NAMES = {"refiner": "coder", "splitter": "judge"}
_learned: dict[str, str] = {}
_learned_from: list[Path] = []  # the store file _learned was read from (the config may move)
_learned_lock = threading.Lock()


def rung_store() -> Path:
    """The file that remembers each endpoint's rung: ``endpoints.json`` beside the config."""
    return config_path().with_name("endpoints.json")


def _load(store: Path) -> None:
    """Read ``store`` into the memory once per store path (lock held); a damaged file is
    ignored (the ladder learns again)."""
    if _learned_from and _learned_from[0] == store:
        return
    _learned.clear()
    _learned_from[:] = [store]
    try:
        data = json.loads(store.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    if isinstance(data, dict):
        _learned.update({k: v for k, v in data.items() if isinstance(k, str) and v in RUNGS})


def learned_rung(base_url: str) -> str | None:
    """The structured-output rung learned for ``base_url`` (None: never stepped down)."""
    with _learned_lock:
        _load(rung_store())
        return _learned.get(base_url.rstrip("/"))


def _learn(base_url: str, rung: str) -> None:
    from mmstudio.project import atomic

    with _learned_lock:
        store = rung_store()
        _load(store)
        key = base_url.rstrip("/")
        if RUNGS.index(rung) <= RUNGS.index(_learned.get(key, RUNGS[0])):
            return
        _learned[key] = rung
        try:
            atomic.write_text(store, json.dumps(_learned, indent=1, sort_keys=True))
        except OSError as exc:  # remembered for this process only
            log.warning("cannot remember %s's structured-output rung in %s: %s", key, store, exc)


def forget_learned_rungs() -> None:
    """Forget every learned rung in memory (tests; the store file is left as it is)."""
    with _learned_lock:
        _learned.clear()
        _learned_from.clear()


def _rung_of(response_format: dict[str, Any] | None) -> str:
    return (response_format or {}).get("type", "text") if response_format else "text"


def _label(rung: str, response_format: dict[str, Any] | None) -> str:
    """A rung as the log names it: ``json_schema (strict)`` / ``json_schema (not strict)``."""
    schema = (response_format or {}).get("json_schema")
    if rung != "json_schema" or not isinstance(schema, dict):
        return rung
    return f"json_schema ({'strict' if schema.get('strict') else 'not strict'})"


def _rejects_format(error: ProviderError) -> bool:
    """Whether a failed call is the endpoint refusing the ``response_format`` itself."""
    return error.kind in ("bad-request", "status") and bool(_FORMAT_WORDS.search(str(error)))


class OpenAIProvider:
    """Chat, image and video models at one OpenAI-compatible endpoint (see module docstring)."""

    def __init__(self, settings: Settings, usage: UsageLog | None = None) -> None:
        self.settings = settings
        self.usage = usage or UsageLog()
        self._client: openai.AsyncOpenAI | None = None
        self._lock = asyncio.Lock()

    async def client(self) -> openai.AsyncOpenAI:
        """The SDK client, created on first use. Raises ProviderError when OpenAI itself is the
        endpoint and no key is set."""
        async with self._lock:
            if self._client is None:
                self._client = openai.AsyncOpenAI(
                    api_key=self._key(),
                    base_url=self.settings.base_url,
                    max_retries=0,
                    timeout=self.settings.timeout_s,
                )
            return self._client

    def _key(self) -> str:
        key = self.settings.key()
        if key:
            return key
        if self.settings.base_url.rstrip("/") == DEFAULT_BASE_URL:
            raise ProviderError(
                "no API key for api.openai.com: set OPENAI_API_KEY (or api_key in "
                "the MM Studio config file)",
                kind="auth",
            )
        return "no-key"  # self-hosted servers usually ignore the key, but the SDK needs one

    async def aclose(self) -> None:
        """Close the HTTP client (idempotent)."""
        async with self._lock:
            if self._client is not None:
                await self._client.close()
                self._client = None

    def _model(self, role: str) -> str:
        """The model name of ``role``: a settings role, or one that reuses one (the refiner
        uses the coder's model, the feedback splitter the judge's)."""
        return getattr(self.settings.models, _ROLE_NAMES.get(role, role))

    async def chat(
        self,
        messages: list[Message],
        *,
        role: str,
        stage: str,
        element: str = "",
        response_format: dict[str, Any] | None = None,
        stream: bool = False,
    ) -> ChatReply:
        """One chat completion with the ``role``'s model (planner | coder | judge | refiner |
        splitter). A ``response_format`` the endpoint refuses (a 400 about the format) is
        stepped down the :data:`RUNGS` once and the step remembered (:func:`learned_rung`).
        Raises ProviderError (classified, after retries; kind ``stream-error`` for an error
        event inside a streamed reply)."""
        model = self._model(role)
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": m.role, "content": _content(m)} for m in messages],
        }
        use_stream = stream and self.settings.capabilities.streaming
        once = self._chat_stream if use_stream else self._chat_once
        rungs = self._attempts(response_format)
        for index, (rung, fmt) in enumerate(rungs):
            attempt = dict(body)
            if fmt is not None:
                attempt["response_format"] = fmt
            try:
                return await with_retries(
                    functools.partial(once, attempt, stage, element),
                    self.settings,
                    what=f"{stage} ({model})",
                    model=model,
                    role=role,
                )
            except ProviderError as exc:
                if index + 1 >= len(rungs) or not _rejects_format(exc):
                    raise
                step = rungs[index + 1][0]
                asked, next_ = _label(rung, fmt), _label(step, rungs[index + 1][1])
                log.warning(
                    "%s: %s refused response_format %s; trying %s (%s)",
                    stage, self.settings.base_url, asked, next_, exc,
                )  # fmt: skip
                if step != rung:  # a strict schema refused is retried loose, not learned
                    _learn(self.settings.base_url, step)
        raise AssertionError("unreachable")  # pragma: no cover

    def _attempts(
        self, response_format: dict[str, Any] | None
    ) -> list[tuple[str, dict[str, Any] | None]]:
        """The (rung, response_format) pairs to try for ``response_format``: from the rung asked
        (or the lower one this endpoint was found to need) down to plain text; a strict schema
        is tried once more without ``strict`` before JSON mode. ``[("text", None)]`` for free
        text."""
        if response_format is None:
            return [("text", None)]
        asked = RUNGS.index(_rung_of(response_format))
        known = learned_rung(self.settings.base_url)
        start = max(asked, RUNGS.index(known) if known else 0)
        attempts: list[tuple[str, dict[str, Any] | None]] = []
        for rung in RUNGS[start:]:
            if rung == "json_schema":
                attempts.append((rung, response_format))
                schema = response_format.get("json_schema") or {}
                if schema.get("strict"):
                    loose = {**response_format, "json_schema": {**schema, "strict": False}}
                    attempts.append((rung, loose))
            elif rung == "json_object":
                attempts.append((rung, {"type": "json_object"}))
            else:
                attempts.append((rung, None))
        return attempts

    async def _chat_once(self, body: dict[str, Any], stage: str, element: str) -> ChatReply:
        client = await self.client()
        completion = await client.chat.completions.create(**body)
        choices = getattr(completion, "choices", None)
        if not choices or getattr(choices[0], "message", None) is None:
            raise ResponseShapeError("chat completion without choices")
        message = choices[0].message
        if message.content is None:
            refusal = getattr(message, "refusal", None)
            if refusal:
                raise ProviderError(f"the model refused: {refusal[:200]}", kind="refusal")
            raise ResponseShapeError("chat completion without content")
        self._record_tokens(stage, element, body["model"], getattr(completion, "usage", None))
        return ChatReply(message.content, choices[0].finish_reason or "stop")

    async def _chat_stream(self, body: dict[str, Any], stage: str, element: str) -> ChatReply:
        client = await self.client()
        stream = await client.chat.completions.create(
            **body, stream=True, stream_options={"include_usage": True}
        )
        pieces: list[str] = []
        finish: str | None = None
        usage = None
        deadline = self.settings.stream_deadline_s
        try:
            async with asyncio.timeout(deadline):
                async for chunk in stream:
                    usage = getattr(chunk, "usage", None) or usage
                    for choice in getattr(chunk, "choices", None) or []:
                        if choice.delta is not None and choice.delta.content:
                            pieces.append(choice.delta.content)
                        finish = choice.finish_reason or finish
        except TimeoutError:
            await stream.close()
            raise ProviderError(
                f"the streamed reply took longer than {deadline:g} s", kind="timeout"
            ) from None
        if finish is None:
            raise ResponseShapeError("the stream ended before the reply finished")
        self._record_tokens(stage, element, body["model"], usage)
        return ChatReply("".join(pieces), finish)

    def _record_tokens(self, stage: str, element: str, model: str, usage: Any) -> None:
        tokens_in = int(
            getattr(usage, "prompt_tokens", 0) or getattr(usage, "input_tokens", 0) or 0
        )
        tokens_out = int(
            getattr(usage, "completion_tokens", 0) or getattr(usage, "output_tokens", 0) or 0
        )
        usd = cost(model, input_tokens=tokens_in, output_tokens=tokens_out)
        self.usage.add(UsageRecord(stage, element, model, tokens_in, tokens_out, cost_usd=usd))

    async def generate_image(self, prompt: str, *, size: str, stage: str, element: str) -> bytes:
        """A generated image (PNG bytes) at ``size`` px. ``size`` is sent, ``response_format`` is
        not (GPT Image models reject it and always answer base64)."""

        async def once() -> bytes:
            client = await self.client()
            result = await client.images.generate(
                model=self._model("image"), prompt=prompt, size=size,
                timeout=self.settings.image_timeout_s,
            )  # fmt: skip
            return self._image_bytes(result, stage, element, size)

        return await self._retry_image(once, stage)

    async def edit_image(
        self, image: bytes, instruction: str, *, size: str, stage: str, element: str
    ) -> bytes:
        """``image`` edited by ``instruction`` (PNG bytes at ``size`` px)."""

        async def once() -> bytes:
            client = await self.client()
            result = await client.images.edit(
                model=self._model("image"), image=("image.png", image, _mime(image)),
                prompt=instruction, size=size, timeout=self.settings.image_timeout_s,
            )  # fmt: skip
            return self._image_bytes(result, stage, element, size)

        return await self._retry_image(once, stage)

    async def _retry_image(self, once: Callable[[], Awaitable[bytes]], stage: str) -> bytes:
        model = self._model("image")
        return await with_retries(
            once, self.settings, what=f"{stage} ({model})", model=model, role="image"
        )

    def _image_bytes(self, result: Any, stage: str, element: str, size: str) -> bytes:
        data = getattr(result, "data", None)
        encoded = getattr(data[0], "b64_json", None) if data else None
        if not encoded:
            raise ResponseShapeError("image response without b64_json data")
        try:
            image = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            raise ResponseShapeError("image response with invalid base64") from None
        model = self._model("image")
        usage = getattr(result, "usage", None)
        tokens_in = int(getattr(usage, "input_tokens", 0) or 0)
        tokens_out = int(getattr(usage, "output_tokens", 0) or 0)
        usd = cost(model, input_tokens=tokens_in, output_tokens=tokens_out, images=1,
                   image_size=size)  # fmt: skip
        self.usage.add(UsageRecord(stage, element, model, tokens_in, tokens_out, 1, cost_usd=usd))
        return image

    async def generate_video(
        self, prompt: str, *, seconds: int, size: str, stage: str, element: str
    ) -> bytes:
        """Create a video job, poll it every ``video_poll_s`` until it completes, download the
        mp4. Raises ProviderError when the job fails or ``video_deadline_s`` passes."""
        model = self._model("video")
        what = f"{stage} ({model})"
        client = await self.client()
        job = await with_retries(
            lambda: client.videos.create(
                model=model, prompt=prompt, seconds=cast(Any, str(seconds)), size=cast(Any, size)
            ),
            self.settings, what=what, model=model, role="video",
        )  # fmt: skip
        job = await self._poll(client, job, what, model)
        content = await with_retries(
            lambda: client.videos.download_content(video_id=job.id),
            self.settings, what=what, model=model, role="video",
        )  # fmt: skip
        data = content.content
        if not data:
            raise ProviderError(f"{what}: the video {job.id} downloaded empty", kind="shape")
        usd = cost(model, video_seconds=float(seconds))
        self.usage.add(UsageRecord(stage, element, model, video_seconds=seconds, cost_usd=usd))
        return data

    async def _poll(self, client: openai.AsyncOpenAI, job: Any, what: str, model: str) -> Any:
        deadline = time.monotonic() + self.settings.video_deadline_s
        while job.status not in ("completed", "failed"):
            if time.monotonic() + self.settings.video_poll_s > deadline:
                raise ProviderError(
                    f"{what}: video {job.id} not ready after "
                    f"{self.settings.video_deadline_s:g} s (status {job.status})",
                    kind="deadline",
                )
            await asyncio.sleep(self.settings.video_poll_s)
            job = await with_retries(
                functools.partial(client.videos.retrieve, video_id=job.id),
                self.settings, what=what, model=model, role="video",
            )  # fmt: skip
        if job.status == "failed":
            reason = getattr(getattr(job, "error", None), "message", None) or "no reason given"
            raise ProviderError(f"{what}: video {job.id} failed: {reason}", kind="video-failed")
        return job

    async def list_models(self) -> list[str]:
        """The model ids the endpoint lists (``GET /models``). Raises ProviderError, also for a
        reply of the wrong shape."""
        return [entry["id"] for entry in await self.model_catalog()]

    async def model_catalog(self) -> list[dict[str, Any]]:
        """``[{id, shutdown_date}]`` of ``GET /models`` (``shutdown_date`` an ISO date or None).
        Reads the OpenAI shape (``{"data": [{"id": …}]}``) and Ollama's native one
        (``{"models": [{"name": …}]}``); raises ProviderError (kind ``shape``) for anything
        else."""

        async def once() -> list[dict[str, Any]]:
            client = await self.client()
            body = await client.get("/models", cast_to=object)
            return _catalog(body)

        return await with_retries(once, self.settings, what="listing models")


def _catalog(body: Any) -> list[dict[str, Any]]:
    """The model entries of a ``/models`` body (see :meth:`OpenAIProvider.model_catalog`)."""
    entries = None
    if isinstance(body, dict):
        entries = body.get("data", body.get("models"))
    elif isinstance(body, list):
        entries = body
    if not isinstance(entries, list):
        raise ResponseShapeError("the /models reply has no list of models")
    catalog = []
    for entry in entries:
        name = entry.get("id") or entry.get("name") if isinstance(entry, dict) else entry
        if not isinstance(name, str) or not name:
            raise ResponseShapeError("a /models entry without an id")
        shutdown = entry.get("shutdown_date") if isinstance(entry, dict) else None
        catalog.append(
            {"id": name, "shutdown_date": shutdown if isinstance(shutdown, str) else None}
        )
    return catalog
