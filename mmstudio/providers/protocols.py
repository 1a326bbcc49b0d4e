"""The narrow protocols of model capabilities: chat (text + images in), image, video.

Stages never talk to an SDK: the model-backed designer and the judge take objects that satisfy
these protocols (the OpenAI-compatible provider does; a test fake can). Every method records its
usage under ``stage`` / ``element`` and raises :class:`~mmstudio.providers.errors.ProviderError`
(one line, classified) on failure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class Message:
    """One chat message: ``role`` (system | user | assistant), its ``text`` and attached
    ``images`` (encoded PNG/WebP/JPEG bytes, sent only to vision models)."""

    role: str
    text: str
    images: tuple[bytes, ...] = field(default=())


@dataclass(frozen=True)
class ChatReply:
    """A completed chat reply: the ``text`` and the ``finish_reason`` (stop, length, …)."""

    text: str
    finish_reason: str = "stop"


class ChatModel(Protocol):
    """Text (and images) in, text out; ``response_format`` is the OpenAI JSON object
    (``{"type": "json_schema", …}`` or ``{"type": "json_object"}``) or None for free text."""

    async def chat(
        self,
        messages: list[Message],
        *,
        role: str,
        stage: str,
        element: str = "",
        response_format: dict[str, Any] | None = None,
        stream: bool = False,
    ) -> ChatReply: ...


class ImageModel(Protocol):
    """Generate an image at ``size`` ("1536x1024" px) or edit one with an instruction; returns
    the encoded bytes the model sent (PNG for GPT Image models)."""

    async def generate_image(
        self, prompt: str, *, size: str, stage: str, element: str
    ) -> bytes: ...

    async def edit_image(
        self, image: bytes, instruction: str, *, size: str, stage: str, element: str
    ) -> bytes: ...


class VideoModel(Protocol):
    """Make a video: create a job, poll it until done or the deadline, download the mp4 bytes."""

    async def generate_video(
        self, prompt: str, *, seconds: int, size: str, stage: str, element: str
    ) -> bytes: ...
