"""Choosing a designer by name (``--provider``)."""

from __future__ import annotations

from mmstudio.providers.base import Designer
from mmstudio.providers.settings import Settings

PROVIDERS = ("offline", "openai")


def get_designer(name: str = "offline", settings: Settings | None = None) -> Designer:
    """The designer called ``name``: ``offline`` (built in, no network) or ``openai`` (any
    OpenAI-compatible endpoint; ``settings`` default to :func:`~.settings.load_settings`, i.e.
    the config file and environment). Raises ValueError naming the known providers, or a bad
    setting."""
    if name == "offline":
        from mmstudio.providers.offline.designer import OfflineDesigner

        return OfflineDesigner()
    if name == "openai":
        from mmstudio.providers.llm.designer import LLMDesigner
        from mmstudio.providers.settings import load_settings

        return LLMDesigner(settings or load_settings())
    raise ValueError(f"unknown provider {name!r}; choose one of: {', '.join(PROVIDERS)}")
