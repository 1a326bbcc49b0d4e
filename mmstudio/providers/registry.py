"""Choosing a designer by name (``--provider``)."""

from __future__ import annotations

from mmstudio.providers.base import Designer

PROVIDERS = ("offline",)


def get_designer(name: str = "offline") -> Designer:
    """The designer called ``name``; raises ValueError naming the known providers."""
    if name == "offline":
        from mmstudio.providers.offline.designer import OfflineDesigner

        return OfflineDesigner()
    raise ValueError(f"unknown provider {name!r}; choose one of: {', '.join(PROVIDERS)}")
