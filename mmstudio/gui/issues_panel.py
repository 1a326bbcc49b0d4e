"""Right dock: the selected element's issues (level, message, evidence crop, source) and a plot
of the page's scores across versions."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QAction, QIcon, QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmstudio.gui.score_plot import ScorePlot
from mmstudio.report import Report

_LEVEL_MARK = {"local": "LOCAL", "context": "CONTEXT", "global": "GLOBAL"}
# (button key, grid row, column, column span) and the window action each button triggers
_BUTTONS = (
    ("local", 0, 0, 1), ("context", 0, 1, 1), ("global", 0, 2, 1),
    ("flag", 1, 0, 1), ("flagged", 1, 1, 2),
)  # fmt: skip
_ACTION_OF = {
    "local": "refine-local", "context": "refine-context", "global": "refine-global",
    "flag": "flag", "flagged": "refine-flagged",
}  # fmt: skip


class IssuesPanel(QWidget):
    """Lists the issues of one element (or of the page) from the latest report, with buttons
    for the window's refine and flag actions (see :meth:`bind`)."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.heading = QLabel("Select an element")
        self.heading.setWordWrap(True)
        self.heading.setObjectName("issues-heading")
        self.list = QListWidget(self)
        self.list.setIconSize(QSize(96, 64))
        self.list.setWordWrap(True)
        self.plot = ScorePlot(self)
        self.buttons: dict[str, QToolButton] = {}
        actions = QGridLayout()
        for key, row, column, span in _BUTTONS:
            button = QToolButton(self)
            button.setObjectName(f"issues-{key}")
            button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
            button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
            self.buttons[key] = button
            actions.addWidget(button, row, column, 1, span)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(actions)
        layout.addWidget(self.list, stretch=3)
        layout.addWidget(QLabel("Scores across versions"))
        layout.addWidget(self.plot, stretch=2)
        self.report: Report | None = None
        self._crops: dict[tuple[str, float], QIcon] = {}

    def bind(self, actions: dict[str, QAction]) -> None:
        """Make the buttons trigger (and follow the enabled state and reason of) the window's
        actions: refine-local / -context / -global, flag, refine-flagged."""
        for key, button in self.buttons.items():
            button.setDefaultAction(actions[_ACTION_OF[key]])

    def show_issues(
        self, report: Report | None, element_id: str | None, flagged: bool = False
    ) -> None:
        """Show the issues of ``element_id`` (None: page-level issues)."""
        self.report = report
        self.list.clear()
        name = element_id or "the page"
        if report is None:
            self.heading.setText(f"{name}: not evaluated yet")
            return
        issues = report.issues_for(element_id)
        score = next((e.score for e in report.elements if e.id == element_id), None)
        scored = "" if score is None else f" · score {score:.2f}"
        mark = " · ⚑ flagged" if flagged else ""
        brief = ""
        if element_id is None and report.requirement_share is not None:
            checked = [r for r in report.requirements if r.status != "unchecked"]
            passed = sum(r.status == "pass" for r in checked)
            brief = f" · brief {passed}/{len(checked)} met"
        self.heading.setText(f"{name}{scored} · {len(issues)} issue(s){brief}{mark}")
        if not issues:
            empty = QListWidgetItem(f"No issues for {name} in the latest evaluation")
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.list.addItem(empty)
        for issue in issues:
            text = (
                f"[{_LEVEL_MARK[issue.level]} · {issue.severity} · {issue.dimension} · "
                f"{issue.source}]\n{issue.message}"
            )
            asked = issue.evidence.get("span") if isinstance(issue.evidence, dict) else None
            if issue.source == "requirement" and asked:
                text += f"\nThe brief: “{str(asked).strip('“”')}”"
            item = QListWidgetItem(text)
            crop = issue.evidence.get("crop") if isinstance(issue.evidence, dict) else None
            if crop:
                item.setIcon(self._crop(crop))
            item.setData(Qt.ItemDataRole.UserRole, issue.id)
            self.list.addItem(item)

    def _crop(self, path: str) -> QIcon:
        """The evidence crop as a list icon, cached by path and modification time."""
        try:
            key = (path, Path(path).stat().st_mtime)
        except OSError:
            return QIcon()
        if key not in self._crops:
            pixmap = QPixmap(path)
            scaled = pixmap.scaled(
                self.list.iconSize(),
                Qt.AspectRatioMode.KeepAspectRatio,
                Qt.TransformationMode.SmoothTransformation,
            )
            self._crops[key] = QIcon(scaled)
        return self._crops[key]
