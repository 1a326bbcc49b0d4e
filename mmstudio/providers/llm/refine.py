"""The model side of refinement (MM-WebAgent §3.4): one structured request per level.

- **local**: the element's plan (prompt, attributes, size; a chart's current option), its
  asset-side issues and the user's instruction → :class:`AssetRevision` (a revised prompt and
  attributes, or a chart option patch); the asset is then made again through the designer's own
  asset path (:meth:`LLMDesigner.image`, :meth:`LLMDesigner.video`, :func:`adapt_option`).
- **context**: only the element's bounded excerpt (:class:`ContextExcerpt`: its markup or its
  wrapper's, the CSS rules that select them, its box) and the page-side issues →
  :class:`ContextPatch` (replacement markup and/or element-scoped CSS rules).
- **global**: the whole page and the page issues → :class:`PagePatch` (a revised page, or page
  CSS).

Every call goes through the provider's :class:`~..protocols.ChatModel` (retries, usage and cost
records) and :func:`~..structured.structured_chat` (schema, one repair). Replies are untrusted:
this module only parses and shape-checks them; the refine layer validates what they would do to
the page (guardrails) before anything is applied. Errors: :class:`~..errors.ProviderError` (the
call failed), :class:`~..errors.StructuredOutputError` (no valid reply), ValueError (a reply
that does not fit the element: a bad size, a chart option without series).
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, field_validator

from mmstudio.plan import ChartPlan, DesignPlan, ImagePlan, VideoPlan
from mmstudio.providers.llm.designer import ChartOption, LLMDesigner, adapt_option
from mmstudio.providers.models import Models
from mmstudio.providers.prompting import render_prompt
from mmstudio.providers.protocols import Message
from mmstudio.providers.settings import Settings
from mmstudio.providers.structured import schema_text, structured_chat
from mmstudio.providers.usage import UsageLog
from mmstudio.report import Issue

ElementPlan = ImagePlan | VideoPlan | ChartPlan
MAX_EVIDENCE_CHARS = 400  # per issue, in prompts
MAX_OPTION_CHARS = 6000  # a chart's current option, in the local prompt


class CssRule(BaseModel):
    """One CSS rule of a context patch: a selector that names the element (or a descendant of
    it, or an ancestor through ``:has()``) and its declarations (``prop:value;…``)."""

    model_config = ConfigDict(extra="forbid")
    selector: str = Field(max_length=300)
    declarations: str = Field(max_length=2000)


class ContextPatch(BaseModel):
    """A context-level fix: ``markup`` replaces the excerpt's editable span ("" keeps it), and
    ``css`` rules go to the element's ``<style data-mm-patch>`` block."""

    model_config = ConfigDict(extra="forbid")
    markup: str = Field(default="", max_length=20_000)
    css: list[CssRule] = Field(default_factory=list, max_length=12)
    summary: str = Field(default="", max_length=300)


class PagePatch(BaseModel):
    """A global fix: ``html`` is the whole revised page ("" keeps it) and ``css`` page-wide rules
    for the page's ``<style data-mm-patch="page">`` block ("" adds none)."""

    model_config = ConfigDict(extra="forbid")
    html: str = Field(default="", max_length=2_000_000)
    css: str = Field(default="", max_length=20_000)
    summary: str = Field(default="", max_length=300)


_PAIRS_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
        "required": ["name", "value"],
        "additionalProperties": False,
    },
}
_PATCH_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "properties": {"key": {"type": "string"}, "value_json": {"type": "string"}},
        "required": ["key", "value_json"],
        "additionalProperties": False,
    },
}


class AssetRevision(BaseModel):
    """A local fix: a revised ``prompt`` ("" keeps it), changed ``attributes`` (names of the
    element's attributes → values), a new generated ``size`` ("" keeps it) and, for a chart,
    ``option_patch``: ECharts keys merged into the current option (objects merged, lists and
    values replaced).

    On the wire both maps are lists (strict structured outputs allow no open maps):
    ``attributes`` as ``[{name, value}]`` and ``option_patch`` as ``[{key, value_json}]`` with
    each value JSON-encoded (``"null"`` removes the key); a plain object is accepted too."""

    model_config = ConfigDict(extra="forbid")
    prompt: str = Field(default="", max_length=4000)
    attributes: Annotated[dict[str, Any], WithJsonSchema(_PAIRS_SCHEMA)] = Field(
        default_factory=dict
    )
    size: str = Field(default="", max_length=20)
    option_patch: Annotated[dict[str, Any], WithJsonSchema(_PATCH_SCHEMA)] = Field(
        default_factory=dict
    )
    summary: str = Field(default="", max_length=300)

    @field_validator("attributes", mode="before")
    @classmethod
    def _pairs(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        pairs: dict[str, Any] = {}
        for item in value:
            if not isinstance(item, dict) or not isinstance(item.get("name"), str):
                raise ValueError("each attribute must be {name, value}")
            pairs[item["name"]] = item.get("value")
        return pairs

    @field_validator("option_patch", mode="before")
    @classmethod
    def _patch(cls, value: Any) -> Any:
        if not isinstance(value, list):
            return value
        patch: dict[str, Any] = {}
        for item in value:
            if not isinstance(item, dict) or not isinstance(item.get("key"), str):
                raise ValueError("each option_patch entry must be {key, value_json}")
            try:
                patch[item["key"]] = json.loads(item.get("value_json") or "null")
            except json.JSONDecodeError as exc:
                key = item["key"]
                raise ValueError(
                    f"option_patch {key}: value_json is not JSON ({exc.msg})"
                ) from None
        return patch


@dataclass(frozen=True)
class ContextExcerpt:
    """What a context refine may see of the page: the element's ``selector``, its ``ancestors``
    (a path of start-tag summaries, outermost first), ``markup`` (the editable span: the element
    or its wrapper; ``editable`` says which, or "none" when the span was too long and was cut),
    the ``css`` rules that select the element or its wrapper, and ``box`` (sizes in px)."""

    element: str
    kind: str
    selector: str
    markup: str
    editable: str
    ancestors: str = ""
    css: list[str] = field(default_factory=list)
    box: dict[str, Any] = field(default_factory=dict)


def issue_rows(issues: list[Issue]) -> list[dict[str, Any]]:
    """The issues as compact rows for a prompt: code, severity, message, bounded evidence."""
    rows = []
    for issue in issues:
        evidence = json.dumps(issue.evidence, separators=(",", ":"), default=str)
        rows.append(
            {
                "code": issue.code or issue.dimension,
                "severity": issue.severity,
                "message": issue.message[:300],
                "evidence": evidence[:MAX_EVIDENCE_CHARS],
            }
        )
    return rows


def merge_option(option: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """``option`` with ``patch`` merged in: objects merged key by key, anything else replaced; a
    ``None`` value removes the key. Returns a new dict."""
    merged = json.loads(json.dumps(option))
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = merge_option(merged[key], value)
        else:
            merged[key] = value
    return merged


def revised_spec(spec: ElementPlan, revision: AssetRevision) -> ElementPlan:
    """``spec`` with the revision's prompt, attributes and size; raises ValueError (pydantic)
    when the result is not a valid element plan (an unknown size, a bad attribute value)."""
    data = spec.model_dump(mode="json")
    if revision.prompt.strip():
        data["prompt"] = revision.prompt.strip()
    known = set(data.get("attributes") or {})
    data["attributes"] = {
        **(data.get("attributes") or {}),
        **{k: v for k, v in revision.attributes.items() if k in known},
    }
    if revision.size and not isinstance(spec, ChartPlan):
        data["size"] = revision.size
    return type(spec).model_validate(data)


class LLMRefiner:
    """Refinement requests to one OpenAI-compatible endpoint (see the module docstring). Safe to
    call concurrently for different elements; close with :meth:`aclose`."""

    def __init__(
        self, settings: Settings, *, designer: LLMDesigner | None = None,
        models: Models | None = None,
    ) -> None:  # fmt: skip
        self.settings = settings
        self.designer = designer or LLMDesigner(settings, models=models)
        self.models = self.designer.models
        self.chat = self.designer.chat

    @property
    def usage(self) -> UsageLog:
        """Tokens, images and cost of every call so far."""
        return self.designer.usage

    @property
    def model(self) -> str:
        """The model that writes refinements (the bundle's refiner role: the coder's model)."""
        return self.models["refiner"].name

    async def aclose(self) -> None:
        """Close the provider's HTTP client."""
        await self.designer.aclose()

    async def _ask(self, template: str, reply: type[BaseModel], stage: str, element: str,
                   **values: Any) -> Any:  # fmt: skip
        text = render_prompt(template, schema=schema_text(reply), **values)
        return await structured_chat(
            self.chat, [Message("user", text)], reply, role="coder", stage=stage,
            element=element, schema_supported=self.settings.capabilities.structured_outputs,
        )  # fmt: skip

    async def revise_asset(
        self,
        spec: ElementPlan,
        issues: list[Issue],
        instruction: str = "",
        option: dict[str, Any] | None = None,
    ) -> AssetRevision:
        """The model's revision of ``spec`` for its asset-side ``issues`` (``option``: a chart's
        current ECharts option)."""
        option_json = json.dumps(option, separators=(",", ":"))[:MAX_OPTION_CHARS] if option else ""
        return await self._ask(
            "refine_local.md.j2", AssetRevision, "refine-local", spec.id,
            kind=spec.kind, element_json=spec.model_dump_json(exclude_defaults=True),
            issues=issue_rows(issues), instruction=instruction, option_json=option_json,
        )  # fmt: skip

    async def image(self, spec: ImagePlan, plan: DesignPlan) -> bytes:
        """The image made again through the designer: the image model when the bundle has one
        (a failure raises ProviderError: the trial fails, it never turns offline), else the
        offline maker."""
        if not self.models["image"].available:
            return await self.designer.image(spec, plan)
        return await self.designer.model_image(spec, plan, stage="refine-image")

    async def edit_image(
        self, spec: ImagePlan, plan: DesignPlan, current: bytes, issues: list[Issue],
        instruction: str = "",
    ) -> bytes:  # fmt: skip
        """``current`` (the element's encoded image) edited by the image model (``images.edit``)
        with the asset-side ``issues``' fixes and the user's ``instruction`` — MM-WebAgent's
        local refinement of an image that is mostly right. Raises DesignerError when the bundle
        has no image model, ProviderError when the call fails."""
        fixes = "; ".join(i.message[:200] for i in issues)
        words = " ".join(part for part in (instruction.strip(), f"Fix: {fixes}." if fixes else "")
                         if part)  # fmt: skip
        return await self.designer.edit_image(spec, plan, current, words or "Improve it.")

    async def video(self, spec: VideoPlan, plan: DesignPlan) -> dict[str, bytes]:
        """The video (webm, mp4, poster) made again through the designer: path → bytes (the
        video model's when the bundle has one, without fallback; else the offline maker's)."""
        with tempfile.TemporaryDirectory(prefix="mmstudio-refine-video-") as tmp:
            if self.models["video"].available:
                written = await self.designer.model_video(spec, plan, Path(tmp), "refine-video")
            else:
                written = await self.designer.video(spec, plan, Path(tmp))
            return {p.relative_to(tmp).as_posix(): p.read_bytes() for p in written}

    @staticmethod
    def chart_option(option: dict[str, Any], revision: AssetRevision) -> dict[str, Any]:
        """``option`` with the revision's patch, validated (≥ 1 series) and adapted to its frame
        like a generated option; raises ValueError (pydantic) when it is not a chart option."""
        merged = merge_option(option, revision.option_patch)
        return adapt_option(ChartOption.model_validate(merged).model_dump(mode="json"))

    async def patch_context(
        self, excerpt: ContextExcerpt, issues: list[Issue], instruction: str = ""
    ) -> ContextPatch:
        """The model's context patch for the element of ``excerpt``."""
        return await self._ask(
            "refine_context.md.j2", ContextPatch, "refine-context", excerpt.element,
            e=excerpt, box_json=json.dumps(excerpt.box, separators=(",", ":")),
            issues=issue_rows(issues), instruction=instruction,
        )  # fmt: skip

    async def patch_page(self, html: str, issues: list[Issue], instruction: str = "") -> PagePatch:
        """The model's page-level fix of ``html`` for the global ``issues``."""
        return await self._ask(
            "refine_global.md.j2", PagePatch, "refine-global", "",
            html=html, issues=issue_rows(issues), instruction=instruction,
        )  # fmt: skip
