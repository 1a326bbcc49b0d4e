"""Non-modal notifications: a banner stack at the top of the main window.

Every expected failure (a job failed, the project is locked by another process, a folder is not
a project, a page could not be rendered) and every unexpected exception shows here as one line
with a "Details" expander holding the full text — never a modal dialog. Info notices hide
themselves after :data:`INFO_HIDE_MS`; warnings and errors stay until closed. At most
:data:`MAX_SHOWN` notices are shown; a new one pushes the oldest out.
"""

from __future__ import annotations

from typing import Literal

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmstudio.gui.icons import icon

Severity = Literal["info", "warning", "error"]
INFO_HIDE_MS = 6000
MAX_SHOWN = 3
_MARK = {"info": "ℹ", "warning": "⚠", "error": "⚠"}  # colour tells warning from error


class Notice(QFrame):
    """One banner: a mark, a one-line ``message``, a Details toggle (when ``details`` is given)
    and a close button. ``closed`` fires once when it goes away (closed, timed out, replaced)."""

    closed = Signal(object)

    def __init__(self, severity: Severity, message: str, details: str = "", parent=None) -> None:
        super().__init__(parent)
        self.severity = severity
        self.setObjectName("notice")
        self.setProperty("severity", severity)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        first = (message.strip().splitlines() or [""])[0]
        self.message = QLabel(f"{_MARK[severity]}  {first}", self)
        self.message.setObjectName("notice-message")
        self.message.setToolTip(message)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        full = details.strip() or (message.strip() if "\n" in message.strip() else "")
        self.details = QPlainTextEdit(full, self)
        self.details.setReadOnly(True)
        self.details.setObjectName("notice-details")
        self.details.setMaximumHeight(160)
        self.details.hide()
        self.toggle = QToolButton(self)
        self.toggle.setText("Details")
        self.toggle.setCheckable(True)
        self.toggle.setVisible(bool(full))
        self.toggle.toggled.connect(self._show_details)
        self.close_button = QToolButton(self)
        self.close_button.setIcon(icon("cancel"))
        self.close_button.setToolTip("Dismiss")
        self.close_button.setAutoRaise(True)
        self.close_button.clicked.connect(self.dismiss)
        row = QHBoxLayout()
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.message, stretch=1)
        row.addWidget(self.toggle)
        row.addWidget(self.close_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 4, 6, 4)
        layout.addLayout(row)
        layout.addWidget(self.details)
        self.timer: QTimer | None = None
        if severity == "info":
            self.timer = QTimer(self)
            self.timer.setSingleShot(True)
            self.timer.timeout.connect(self.dismiss)
            self.timer.start(INFO_HIDE_MS)
        self._gone = False

    def _show_details(self, shown: bool) -> None:
        self.details.setVisible(shown)
        if self.timer is not None:  # someone is reading: keep it
            self.timer.stop()

    def dismiss(self) -> None:
        """Remove the notice (idempotent)."""
        if self._gone:
            return
        self._gone = True
        if self.timer is not None:
            self.timer.stop()
        self.hide()
        self.closed.emit(self)
        self.deleteLater()


class NotificationArea(QWidget):
    """The stack of notices shown above the preview; ``notify`` adds one."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setObjectName("notifications")
        self._layout = QVBoxLayout(self)
        self._layout.setContentsMargins(8, 4, 8, 0)
        self._layout.setSpacing(4)
        self.notices: list[Notice] = []
        self.hide()

    def notify(self, severity: Severity, message: str, details: str = "") -> Notice:
        """Show ``message`` (its first line; the rest and ``details`` behind "Details")."""
        notice = Notice(severity, message, details, self)
        notice.closed.connect(self._closed)
        self.notices.append(notice)
        self._layout.addWidget(notice)
        while len(self.notices) > MAX_SHOWN:
            self.notices[0].dismiss()
        self.show()
        return notice

    def _closed(self, notice: Notice) -> None:
        if notice in self.notices:
            self.notices.remove(notice)
        self._layout.removeWidget(notice)
        self.setVisible(bool(self.notices))

    def clear(self) -> None:
        """Dismiss every notice."""
        for notice in list(self.notices):
            notice.dismiss()
