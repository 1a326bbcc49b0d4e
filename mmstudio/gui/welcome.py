"""The first thing a new user sees: what the app does, the three ways in, and recent projects."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmstudio.gui.icons import app_icon

_BLURB = (
    "Describe a page; MM Studio plans it, generates its layout, images, video and charts, "
    "renders and scores it, and refines what is weak. Steer it with words, annotations and "
    "sketches."
)


class Welcome(QWidget):
    """Big buttons for the window's New / Open / Open Site actions and the recent projects;
    ``recent_chosen(path)`` fires on a double-click (or Enter) in the list."""

    recent_chosen = Signal(str)

    def __init__(self, actions: list[QAction], parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        logo = QLabel(self)
        logo.setPixmap(app_icon().pixmap(72, 72))
        title = QLabel("MM Studio", self)
        title.setObjectName("welcome-title")
        blurb = QLabel(_BLURB, self)
        blurb.setWordWrap(True)
        blurb.setObjectName("welcome-blurb")
        row = QHBoxLayout()
        for action in actions:
            button = QToolButton(self)
            button.setDefaultAction(action)
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextUnderIcon)
            button.setIconSize(QSize(32, 32))
            button.setMinimumSize(150, 84)
            button.setObjectName("welcome-button")
            row.addWidget(button)
        row.addStretch(1)
        self.recent = QListWidget(self)
        self.recent.setObjectName("welcome-recent")
        self.recent.setMaximumHeight(180)
        self.recent.itemActivated.connect(lambda item: self.recent_chosen.emit(item.text()))
        self.recent_label = QLabel("Recent projects (double-click to open)", self)
        column = QVBoxLayout()
        column.addWidget(logo)
        column.addWidget(title)
        column.addWidget(blurb)
        column.addSpacing(16)
        column.addLayout(row)
        column.addSpacing(16)
        column.addWidget(self.recent_label)
        column.addWidget(self.recent)
        column.addStretch(1)
        outer = QHBoxLayout(self)
        outer.addStretch(1)
        outer.addLayout(column, stretch=4)
        outer.addStretch(1)

    def show_recent(self, paths: list[str]) -> None:
        """List the recent project folders that still exist (newest first)."""
        self.recent.clear()
        existing = [p for p in paths if Path(p).is_dir()]
        self.recent.addItems(existing)
        self.recent.setVisible(bool(existing))
        self.recent_label.setVisible(bool(existing))
