"""The app's icons: hand-drawn 24 px stroke SVGs in ``resources/icons/`` (one per action)."""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QIcon

from mmstudio.resources import resource

ICON_NAMES = (
    "new", "open", "open-site", "export", "undo", "redo", "evaluate", "generate", "history",
    "settings", "annotate", "sketch", "refine", "flag", "cancel", "reload",
)  # fmt: skip


@cache
def icon(name: str) -> QIcon:
    """The icon ``resources/icons/<name>.svg`` (an empty QIcon when the file is missing)."""
    path = resource("icons", f"{name}.svg")
    return QIcon(str(path)) if path.is_file() else QIcon()


def app_icon() -> QIcon:
    """The application's window icon (``resources/icons/app.svg``)."""
    return icon("app")
