"""The model bundle: every role's model, built once from settings and handed to every service.

:meth:`Models.from_settings` reads :class:`~.settings.Settings` once and makes one
:class:`~.openai_compat.OpenAIProvider` (one HTTP client, one usage log) and one
:class:`RoleModel` per role — planner, coder, judge, image, video, and the two roles that reuse a
chat model: ``refiner`` (the coder's model, for model refinements) and ``splitter`` (the
judge's, for splitting a feedback turn into requirements, as :mod:`mmstudio.feedback.provider`
asks it). Each role says what its model can
do (``capabilities``), whether it is ``available``, and why not (``reason``): a capability the
endpoint lacks, or a model the ``openai`` SDK says is shut down on ``api.openai.com``
(:mod:`.lifecycle`). Services ask the bundle, never the provider's name: the designer, judge and
refiners below take a bundle (:meth:`new_designer`, :meth:`new_judge`, :meth:`new_refiner`).

Close it once with :meth:`aclose` (idempotent); the services it made share its client.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from mmstudio.providers.lifecycle import Lifecycle, lifecycle
from mmstudio.providers.openai_compat import OpenAIProvider, learned_rung
from mmstudio.providers.settings import DEFAULT_BASE_URL, Settings
from mmstudio.providers.usage import UsageLog

if TYPE_CHECKING:
    from mmstudio.providers.llm.designer import LLMDesigner
    from mmstudio.providers.llm.judge import Judge
    from mmstudio.providers.llm.refine import LLMRefiner

CHAT_ROLES = ("planner", "coder", "judge", "refiner", "splitter")
ALL_ROLES = (*CHAT_ROLES, "image", "video")
_NAME_OF = {"refiner": "coder", "splitter": "judge"}
_CAPABILITY = {"image": "images", "video": "videos"}


@dataclass(frozen=True)
class RoleModel:
    """One role's model: ``role``, model ``name``, its ``capabilities`` (a subset of
    structured_outputs, vision, streaming, images, image_edits, videos), ``available`` and,
    when it is not, the one-line ``reason``; ``lifecycle`` is the SDK's word on the model."""

    role: str
    name: str
    capabilities: frozenset[str] = frozenset()
    available: bool = True
    reason: str = ""
    lifecycle: Lifecycle = field(default_factory=lambda: Lifecycle(""))

    @property
    def retired(self) -> bool:
        """Whether the SDK says the model is shut down (on api.openai.com)."""
        return self.lifecycle.state == "retired"

    def can(self, capability: str) -> bool:
        """Whether the model has ``capability``."""
        return capability in self.capabilities


def edits_images(name: str) -> bool:
    """Whether the image model ``name`` takes ``images.edit``: the SDK's docs say the endpoint
    serves GPT Image models (``gpt-image-*``, ``chatgpt-image-latest``); DALL·E 3 never edited
    and DALL·E 2 is retired. A model of another family (a local server's) is assumed to edit
    unless ``capabilities.image_edits`` is off."""
    return not name.startswith("dall-e")


def official(settings: Settings) -> bool:
    """Whether the endpoint is OpenAI's own API (where the SDK's lifecycle notes apply)."""
    return settings.base_url.rstrip("/") == DEFAULT_BASE_URL


def role_model(settings: Settings, role: str, today: dt.date | None = None) -> RoleModel:
    """The :class:`RoleModel` of ``role`` (one of :data:`ALL_ROLES`) under ``settings``."""
    name = getattr(settings.models, _NAME_OF.get(role, role))
    caps = settings.capabilities
    state = lifecycle(name, role, today) if official(settings) else Lifecycle(name)
    if role in _CAPABILITY:
        capability = _CAPABILITY[role]
        have = frozenset({capability}) if getattr(caps, capability) else frozenset()
        if not have:
            reason = f"the endpoint {settings.base_url} lacks {capability} (settings)"
            return RoleModel(role, name, have, False, reason, state)
        if state.state == "retired":
            return RoleModel(role, name, frozenset(), False, state.describe(), state)
        if role == "image" and caps.image_edits and edits_images(name):
            have |= {"image_edits"}
        return RoleModel(role, name, have, True, "", state)
    chat = {"structured_outputs", "streaming"} | ({"vision"} if role == "judge" else set())
    have = frozenset(c for c in chat if getattr(caps, c))
    if state.state == "retired":
        return RoleModel(role, name, have, False, state.describe(), state)
    return RoleModel(role, name, have, True, "", state)


class Models:
    """The bundle (see the module docstring). ``roles`` maps every role of :data:`ALL_ROLES`
    to its :class:`RoleModel`; ``provider`` is the one client they share."""

    def __init__(
        self, settings: Settings, provider: OpenAIProvider | None = None,
        *, today: dt.date | None = None,
    ) -> None:  # fmt: skip
        self.settings = settings
        self.provider = provider or OpenAIProvider(settings)
        self.roles = {role: role_model(settings, role, today) for role in ALL_ROLES}

    @classmethod
    def from_settings(
        cls, settings: Settings | None = None, *, usage: UsageLog | None = None
    ) -> Models:
        """The bundle of ``settings`` (default :func:`~.settings.load_settings`)."""
        from mmstudio.providers.settings import load_settings

        settings = settings or load_settings()
        return cls(settings, OpenAIProvider(settings, usage))

    def __getitem__(self, role: str) -> RoleModel:
        """The :class:`RoleModel` of ``role``; raises KeyError for an unknown role."""
        return self.roles[role]

    @property
    def usage(self) -> UsageLog:
        """Every call's usage, all roles together."""
        return self.provider.usage

    def notices(self) -> list[str]:
        """One line per role that will not use its model, and per deprecated model."""
        lines = []
        for role in ("planner", "coder", "judge", "image", "video"):
            model = self.roles[role]
            if not model.available:
                maker = "made by the offline maker" if role in _CAPABILITY else "unavailable"
                lines.append(f"{role}: {model.reason}; {maker}")
            elif model.lifecycle.state == "deprecated":
                lines.append(f"{role}: {model.lifecycle.describe()}")
        return lines

    def structured_rung(self) -> str:
        """The structured-output rung the endpoint takes: json_schema, json_object or text."""
        if not self.settings.capabilities.structured_outputs:
            return learned_rung(self.settings.base_url) or "json_object"
        return learned_rung(self.settings.base_url) or "json_schema"

    def new_designer(self) -> LLMDesigner:
        """A model-backed designer over this bundle."""
        from mmstudio.providers.llm.designer import LLMDesigner

        return LLMDesigner(self.settings, models=self)

    def new_judge(self) -> Judge:
        """The judge over this bundle's judge model."""
        from mmstudio.providers.llm.judge import Judge

        return Judge(self.settings, self.provider, models=self)

    def new_refiner(self) -> LLMRefiner:
        """Model refinements over this bundle (the refiner role's model)."""
        from mmstudio.providers.llm.refine import LLMRefiner

        return LLMRefiner(self.settings, designer=self.new_designer())

    async def aclose(self) -> None:
        """Close the shared HTTP client (idempotent)."""
        await self.provider.aclose()
