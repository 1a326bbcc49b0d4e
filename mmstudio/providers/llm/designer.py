"""The model-backed designer: MM-WebAgent's planner, layout, image, video and chart agents.

Implements :class:`mmstudio.providers.base.Designer` over the provider protocols (chat, image,
video). Prompts come from ``prompts/`` (:mod:`..prompting`); structured replies go through
:func:`..structured.structured_chat` (schema → JSON mode → validate → one repair → failure).

The roles come from a :class:`~..models.Models` bundle. Per-role fallback: where the bundle's
image or video model is not available (the endpoint lacks the capability, or the ``openai`` SDK
says the model is shut down on api.openai.com), that role is done by the offline designer and a
notice is logged once and kept in :attr:`LLMDesigner.notices`. Per-element fallback: an image or
video call that fails (a moderation refusal, a timeout, a retired model, a video endpoint that is
gone) makes that one element with the offline maker, with a notice naming the element and the
reason — the run goes on and the paid plan, layout and other assets are kept. Plan, layout and
chart failures are errors (:class:`~..errors.ProviderError`, one line) that carry the usage spent
so far (``exc.usage``, a :meth:`~..usage.UsageLog.summary`).

Concurrency: safe to call concurrently for different elements (the pipeline does); the provider's
client is shared; ``notices`` is only appended to from the event loop thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError
from pydantic import BaseModel, ConfigDict, Field

from mmstudio.plan import ChartPlan, DesignPlan, ImagePlan, VideoPlan
from mmstudio.project import atomic
from mmstudio.providers import transcode
from mmstudio.providers.base import Designer, DesignerError
from mmstudio.providers.errors import ProviderError
from mmstudio.providers.llm.page import extract_html, mp4_path, page_problems, with_mp4_paths
from mmstudio.providers.models import Models
from mmstudio.providers.offline.art import encode_image
from mmstudio.providers.openai_compat import OpenAIProvider
from mmstudio.providers.prompting import render_prompt
from mmstudio.providers.protocols import ChatModel, ImageModel, Message, VideoModel
from mmstudio.providers.settings import Settings
from mmstudio.providers.structured import schema_text, structured_chat
from mmstudio.providers.usage import UsageLog
from mmstudio.threads import run_pure

log = logging.getLogger(__name__)


class ChartOption(BaseModel):
    """An ECharts option object as the chart model returns it: at least one series; every other
    ECharts key passes through unchanged."""

    model_config = ConfigDict(extra="allow")
    series: list[dict[str, Any]] = Field(min_length=1)


class LLMDesigner:
    """A :class:`~mmstudio.providers.base.Designer` backed by an OpenAI-compatible endpoint."""

    name = "openai"

    def __init__(
        self,
        settings: Settings,
        *,
        provider: OpenAIProvider | None = None,
        fallback: Designer | None = None,
        models: Models | None = None,
    ) -> None:
        self.settings = settings
        self.models = models or Models(settings, provider)
        self.provider = self.models.provider
        self.chat: ChatModel = self.provider
        self.images: ImageModel = self.provider
        self.videos: VideoModel = self.provider
        self._fallback = fallback
        self.notices: list[str] = []

    @property
    def usage(self) -> UsageLog:
        """Tokens, images, video seconds and cost of every call so far."""
        return self.provider.usage

    async def aclose(self) -> None:
        """Close the provider's HTTP client."""
        await self.provider.aclose()

    def notice(self, text: str) -> None:
        """Keep ``text`` in :attr:`notices` (once) and log it."""
        if text not in self.notices:
            self.notices.append(text)
            log.warning("%s", text)

    def fallback(self, role: str, capability: str) -> Designer:
        """The offline designer for ``role``, with a one-time notice that it stands in."""
        model = self.models.roles.get(role)
        if model is not None and model.retired:
            self.notice(f"{role}: {model.reason}; using the offline designer for this role")
        else:
            self.notice(
                f"{role}: the endpoint {self.settings.base_url} lacks {capability}; "
                "using the offline designer for this role"
            )
        return self._offline()

    def _offline(self) -> Designer:
        if self._fallback is None:
            from mmstudio.providers.offline.designer import OfflineDesigner

            self._fallback = OfflineDesigner()
        return self._fallback

    def _with_usage(self, exc: BaseException) -> BaseException:
        """``exc`` carrying the usage spent so far (``exc.usage``), for the one-line report."""
        with contextlib.suppress(AttributeError):
            exc.usage = self.usage.summary()  # type: ignore[attr-defined]
        return exc

    async def plan(self, prompt: str) -> DesignPlan:
        """The DesignPlan for ``prompt`` from the planner model (structured output)."""
        try:
            return await self._plan(prompt)
        except DesignerError as exc:
            raise self._with_usage(exc) from None

    async def _plan(self, prompt: str) -> DesignPlan:
        text = render_prompt("plan.md.j2", prompt=prompt, schema=schema_text(DesignPlan))
        plan = await structured_chat(
            self.chat, [Message("user", text)], DesignPlan, role="planner", stage="plan",
            schema_supported=self.settings.capabilities.structured_outputs,
        )  # fmt: skip
        # the video model's mp4 is kept as a second source: the plan names it (plan.json = files)
        return with_mp4_paths(plan) if self.models["video"].available else plan

    async def layout(self, plan: DesignPlan) -> str:
        """The page's HTML from the coder model, validated against the plan; one repair request
        quoting the problems; raises DesignerError when the repaired page still fails."""
        try:
            return await self._layout(plan)
        except DesignerError as exc:
            raise self._with_usage(exc) from None

    async def _layout(self, plan: DesignPlan) -> str:
        with_mp4 = self.models["video"].available
        text = render_prompt(
            "layout.md.j2",
            plan_json=plan.model_dump_json(indent=1, exclude_defaults=True),
            slots=_slots(plan, with_mp4=with_mp4),
        )
        messages = [Message("user", text)]
        html, problems = await self._page(messages, plan, "layout", with_mp4)
        if not problems:
            return html
        log.warning("layout: %d problems in the page; asking once for a repair", len(problems))
        repair = render_prompt("layout_repair.md.j2", problems=problems[:20])
        messages += [Message("assistant", html or "(no HTML document)"), Message("user", repair)]
        html, problems = await self._page(messages, plan, "layout-repair", with_mp4)
        if problems:
            raise DesignerError(f"layout: the page is still invalid after a repair: {problems[0]}")
        return html

    async def _page(
        self, messages: list[Message], plan: DesignPlan, stage: str, with_mp4: bool
    ) -> tuple[str, list[str]]:
        reply = await self.chat.chat(messages, role="coder", stage=stage, stream=True)
        html = extract_html(reply.text)
        if html is None:
            return reply.text[:2000], ["the reply is not one complete HTML document"]
        problems = page_problems(plan, html, with_mp4=with_mp4)
        if reply.finish_reason == "length":
            problems.insert(
                0,
                "the reply was cut off at the model's output limit (if this repeats, raise the "
                "server's output-token limit: max_tokens / n_predict / num_predict)",
            )
        return html, problems

    async def image(self, element: ImagePlan, plan: DesignPlan) -> bytes:
        """The image for ``element``, encoded for its ``save_path`` (offline without images)."""
        if not self.models["image"].available:
            return await self.fallback("image", "image generation").image(element, plan)
        try:
            return await self.model_image(element, plan)
        except DesignerError as exc:
            self.notice(f"image {element.id}: made by the offline maker: {exc}")
            return await self._offline().image(element, plan)

    async def model_image(
        self, element: ImagePlan, plan: DesignPlan, stage: str = "image"
    ) -> bytes:
        """The image for ``element`` from the image model only, encoded for its ``save_path``:
        no fallback (a refinement trial must fail, not turn offline). Raises ProviderError."""
        prompt = image_prompt(element, plan)
        data = await self.images.generate_image(
            prompt, size=element.size, stage=stage, element=element.id
        )
        return await run_pure(_reencode, data, element.save_path, element.id)

    async def edit_image(
        self, element: ImagePlan, plan: DesignPlan, current: bytes, instruction: str
    ) -> bytes:
        """``current`` (the encoded image) edited by ``instruction`` (a local-level refinement,
        MM-WebAgent §3.4), encoded for ``save_path``. Raises DesignerError when the bundle has
        no image model (the endpoint lacks images, or the model is retired; there is no offline
        edit), ProviderError when the call fails."""
        if not self.models["image"].available:
            reason = self.models["image"].reason
            raise DesignerError(f"image {element.id}: no image model to edit with: {reason}")
        png = await run_pure(_reencode, current, "edit.png", element.id)
        prompt = render_prompt(
            "image_edit.md.j2", element=element, instruction=instruction,
            section=plan.section(element.context.section),
        )  # fmt: skip
        data = await self.images.edit_image(
            png, prompt, size=element.size, stage="refine-image", element=element.id
        )
        return await run_pure(_reencode, data, element.save_path, element.id)

    async def video(self, element: VideoPlan, plan: DesignPlan, site_dir: Path) -> list[Path]:
        """Write the VP9 webm, the provider's mp4 beside it and the poster under ``site_dir``
        (offline without videos); returns the written paths, webm first."""
        if not self.models["video"].available:
            return await self._offline_video(
                self.fallback("video", "video generation"), element, plan, site_dir
            )
        try:
            return await self.model_video(element, plan, site_dir)
        except DesignerError as exc:
            self.notice(f"video {element.id}: made by the offline maker: {exc}")
            return await self._offline_video(self._offline(), element, plan, site_dir)

    async def model_video(
        self, element: VideoPlan, plan: DesignPlan, site_dir: Path, stage: str = "video"
    ) -> list[Path]:
        """The video files for ``element`` from the video model only (no fallback; see
        :meth:`model_image`). Raises ProviderError or DesignerError."""
        data = await self.videos.generate_video(
            video_prompt(element, plan), seconds=element.seconds, size=element.size,
            stage=stage, element=element.id,
        )  # fmt: skip
        return await asyncio.to_thread(_install_video, data, element, Path(site_dir))

    async def _offline_video(
        self, offline: Designer, element: VideoPlan, plan: DesignPlan, site_dir: Path
    ) -> list[Path]:
        written = await offline.video(element, plan, site_dir)
        if element.mp4_path:  # planned as a second source: make it from the webm
            written.append(await asyncio.to_thread(_h264_copy, element, Path(site_dir)))
        return written

    async def chart_option(self, element: ChartPlan, plan: DesignPlan) -> dict[str, Any]:
        """The ECharts option for ``element`` (structured output), adapted to its frame; a call
        that fails, or a reply that is no usable option even after its repair, makes the
        offline maker draw that chart from the plan's data, with a notice (the run goes on)."""
        try:
            return await self.model_chart_option(element, plan)
        except DesignerError as exc:
            self.notice(f"chart {element.id}: made by the offline maker: {exc}")
            return await self._offline().chart_option(element, plan)

    async def model_chart_option(self, element: ChartPlan, plan: DesignPlan) -> dict[str, Any]:
        """The ECharts option for ``element`` from the coder model only (no fallback). Raises
        ProviderError (StructuredOutputError for a reply that is no option)."""
        text = render_prompt(
            "chart.md.j2",
            element_json=element.model_dump_json(indent=1, exclude_defaults=True),
            palette=[c.model_dump() for c in plan.layout.palette],
            typography=plan.layout.typography.body,
        )
        try:
            reply = await structured_chat(
                self.chat, [Message("user", text)], ChartOption, role="coder", stage="chart",
                element=element.id, schema_supported=self.settings.capabilities.structured_outputs,
            )  # fmt: skip
        except DesignerError as exc:
            raise self._with_usage(exc) from None
        return adapt_option(reply.model_dump(mode="json"))


def _slots(plan: DesignPlan, *, with_mp4: bool) -> list[dict[str, Any]]:
    """One row per planned element for the layout prompt: id, kind, section, paths, size."""
    rows = []
    for element in plan.elements():
        row = {
            "id": element.id, "kind": element.kind, "section": element.context.section,
            "path": element.save_path, "width": element.display_width_px,
            "height": element.display_height_px, "alt": element.alt, "mp4": "", "poster": "",
        }  # fmt: skip
        if isinstance(element, VideoPlan):
            row["mp4"] = mp4_path(element) if with_mp4 or element.mp4_path else ""
            row["poster"] = element.poster_path or ""
        rows.append(row)
    return rows


def image_prompt(element: ImagePlan, plan: DesignPlan) -> str:
    """The image model's prompt, composed from the element's prompt, context (section, role,
    page style) and attributes (visual style, colour tone, composition, lighting)."""
    return render_prompt(
        "image.md.j2", element=element, section=plan.section(element.context.section), plan=plan
    )


def video_prompt(element: VideoPlan, plan: DesignPlan) -> str:
    """The video model's prompt: element prompt, context, visual style, motion, camera, loop."""
    return render_prompt(
        "video.md.j2", element=element, section=plan.section(element.context.section), plan=plan
    )


def adapt_option(option: dict[str, Any]) -> dict[str, Any]:
    """The option made to fit its frame and be visible without interaction (MM-WebAgent §3.3):
    transparent background, a compact grid containing its labels, no zero-opacity series."""
    option = dict(option)
    option["backgroundColor"] = "transparent"
    grid = option.get("grid")
    if isinstance(grid, dict):
        option["grid"] = {"containLabel": True, **grid}
    elif grid is None:
        option["grid"] = {"left": 8, "right": 8, "top": 32, "bottom": 8, "containLabel": True}
    for series in option.get("series", []):
        for key in ("itemStyle", "lineStyle", "areaStyle"):
            style = series.get(key)
            if isinstance(style, dict) and style.get("opacity") == 0:
                style.pop("opacity")
    return option


def _reencode(data: bytes, save_path: str, element_id: str) -> bytes:
    """The provider's image re-encoded for ``save_path`` (.webp/.png); raises ProviderError when
    the bytes are not an image."""
    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            converted = image.convert("RGBA" if image.mode in ("RGBA", "LA", "P") else "RGB")
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        # a bomb (a header claiming gigapixels) is refused before decoding, like any non-image;
        # for bytes it cannot identify, PIL's own words name a BytesIO object: say what came
        if isinstance(exc, UnidentifiedImageError):
            why = f"{len(data)} bytes starting {data[:8]!r}"
        else:
            why = str(exc)
        raise ProviderError(
            f"image {element_id}: the provider's data is not an image ({why})", kind="shape"
        ) from None
    return encode_image(converted, save_path)


def _h264_copy(element: VideoPlan, site_dir: Path) -> Path:
    """The planned mp4 (H.264) encoded from the video's webm; raises DesignerError."""
    target = site_dir / mp4_path(element)
    try:
        transcode.to_h264(site_dir / element.save_path, target)
    except RuntimeError as exc:
        raise DesignerError(f"video {element.id}: no mp4 second source: {exc}") from None
    return target


def _install_video(data: bytes, element: VideoPlan, site_dir: Path) -> list[Path]:
    """Write the mp4, transcode it to the planned webm and cut the poster; raises DesignerError
    when ffmpeg cannot read the provider's video."""
    webm = site_dir / element.save_path
    mp4 = site_dir / mp4_path(element)
    webm.parent.mkdir(parents=True, exist_ok=True)
    atomic.write_bytes(mp4, data)
    try:
        transcode.mp4_to_webm(mp4, webm)
        written = [webm, mp4]
        if element.poster_path:
            poster = site_dir / element.poster_path
            poster.parent.mkdir(parents=True, exist_ok=True)
            still = transcode.frame_at(mp4)
            atomic.write_bytes(poster, encode_image(still, element.poster_path))
            written.append(poster)
    except RuntimeError as exc:
        raise DesignerError(
            f"video {element.id}: the provider's video is unusable: {exc}"
        ) from None
    return written
