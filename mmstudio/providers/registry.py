"""Choosing a designer by name (``--provider``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mmstudio.project.errors import InputError
from mmstudio.providers.base import Designer
from mmstudio.providers.settings import Settings

if TYPE_CHECKING:
    from mmstudio.providers.models import Models

PROVIDERS = ("offline", "openai")


def get_designer(
    name: str = "offline", settings: Settings | None = None, *, models: Models | None = None
) -> Designer:
    """The designer called ``name``: ``offline`` (built in, no network) or ``openai`` (any
    OpenAI-compatible endpoint: over ``models``, a :class:`~.models.Models` bundle, else one
    built from ``settings``, which default to :func:`~.settings.load_settings`, i.e. the config
    file and environment). Raises InputError (a ValueError) naming the known providers, or a
    bad setting."""
    if name == "offline":
        from mmstudio.providers.offline.designer import OfflineDesigner

        return OfflineDesigner()
    if name == "openai":
        from mmstudio.providers.models import Models

        bundle = models or Models.from_settings(settings)
        return bundle.new_designer()
    raise InputError(f"unknown provider {name!r}; choose one of: {', '.join(PROVIDERS)}")
