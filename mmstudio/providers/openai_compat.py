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
import logging
import random
import time
import warnings
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import openai

from mmstudio.providers.errors import (
    ProviderError,
    ResponseShapeError,
    classify,
    is_provider_failure,
    redact,
)
from mmstudio.providers.protocols import ChatReply, Message
from mmstudio.providers.settings import DEFAULT_BASE_URL, Settings
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


def _quiet(method: Callable[..., Awaitable[T]], **kwargs: Any) -> Awaitable[T]:
    """Call an SDK method marked deprecated (the videos API) without its DeprecationWarning.

    The warning fires when the coroutine is created, synchronously, so the filter change cannot
    leak into other tasks."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return method(**kwargs)


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
        return getattr(self.settings.models, role)

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
        """One chat completion with the ``role``'s model (planner | coder | judge). Raises
        ProviderError (classified, after retries)."""
        model = self._model(role)
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": m.role, "content": _content(m)} for m in messages],
        }
        if response_format is not None:
            body["response_format"] = response_format
        use_stream = stream and self.settings.capabilities.streaming
        once = self._chat_stream if use_stream else self._chat_once
        reply = await with_retries(
            lambda: once(body, stage, element),
            self.settings,
            what=f"{stage} ({model})",
            model=model,
            role=role,
        )
        return reply

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
        not (gpt-image-1 rejects it and always answers base64)."""

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
            lambda: _quiet(client.videos.create, model=model, prompt=prompt,
                           seconds=str(seconds), size=size),
            self.settings, what=what, model=model, role="video",
        )  # fmt: skip
        job = await self._poll(client, job, what, model)
        content = await with_retries(
            lambda: _quiet(client.videos.download_content, video_id=job.id),
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
                lambda job_id=job.id: _quiet(client.videos.retrieve, video_id=job_id),
                self.settings, what=what, model=model, role="video",
            )  # fmt: skip
        if job.status == "failed":
            reason = getattr(getattr(job, "error", None), "message", None) or "no reason given"
            raise ProviderError(f"{what}: video {job.id} failed: {reason}", kind="video-failed")
        return job

    async def list_models(self) -> list[str]:
        """The model ids the endpoint lists (``GET /models``)."""

        async def once() -> list[str]:
            client = await self.client()
            page = await client.models.list()
            return [m.id for m in page.data]

        return await with_retries(once, self.settings, what="listing models")
