"""Choosing the refiners by provider name: the offline rules, or a model with the rules as its
per-call fallback (``mmstudio refine --provider``, the app's refine jobs, the reflection loop).

:class:`~mmstudio.studio.refining.RefineService` takes a :class:`Refiners`; without one it uses
:class:`RuleRefiners` (no model, no network)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from mmstudio.providers.registry import PROVIDERS
from mmstudio.providers.settings import Settings

from .loop import Target, propose
from .model import Change, RefineInput

if TYPE_CHECKING:
    from mmstudio.providers.models import Models


class Refiners(Protocol):
    """The local, context and global refiners behind one call."""

    name: str

    async def propose(self, target: Target, inp: RefineInput) -> list[Change]:
        """The Changes to try for ``target`` on ``inp``, in order (empty: nothing to do)."""
        ...

    async def aclose(self) -> None:
        """Release what the refiners hold (an HTTP client)."""
        ...


class RuleRefiners:
    """The offline rule-based refiners (:func:`mmstudio.refine.loop.propose`)."""

    name = "offline"

    async def propose(self, target: Target, inp: RefineInput) -> list[Change]:
        return await propose(target, inp)

    async def aclose(self) -> None:
        return None


def refiners_of(models: Models | None) -> Refiners:
    """The refiners of a model bundle: its refiner role's model with the rules standing in per
    call (:class:`~.llm.ModelRefiners`, sharing the bundle's client: closing them leaves it
    open), or the offline rules for None."""
    if models is None:
        return RuleRefiners()
    from .llm import ModelRefiners

    return ModelRefiners.of(models)


def get_refiners(
    provider: str = "offline", settings: Settings | None = None, *, models: Models | None = None
) -> Refiners:
    """The refiners of ``provider``: ``offline`` (rules) or ``openai`` (the model through any
    OpenAI-compatible endpoint: over ``models`` when given, else ``settings`` defaulting to the
    config file and environment; the rules stand in per call when the model fails). Raises
    ValueError for an unknown name or a bad setting."""
    if provider == "offline":
        return RuleRefiners()
    if provider == "openai" and models is not None:
        return refiners_of(models)
    if provider == "openai":
        from mmstudio.providers.settings import load_settings

        from .llm import ModelRefiners

        return ModelRefiners(settings or load_settings())
    raise ValueError(f"unknown provider {provider!r}; choose one of: {', '.join(PROVIDERS)}")
