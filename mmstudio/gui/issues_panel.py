"""Right dock: the selected element's issues (level, message, evidence crop, source), the
instruction box that changes it in the designer's words, and a plot of the page's scores across
versions.

Bound to the app's :class:`~mmstudio.studio.state.StudioState` (:meth:`IssuesPanel.bind_state`):
the head's report, the selection, the flags, the versions. A failed requirement of the brief
shows the words of the brief it was read from and an evidence crop: the small PNG the head check
cut around the element it is about (:mod:`mmstudio.studio.head_check`, made off the GUI
thread); the panel never decodes the full-page screenshot."""

from __future__ import annotations

import html
from pathlib import Path

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QAction, QIcon, QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from mmstudio.gui.plan_tree import issue_target, row_badge, row_issues
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


#: the marks around a brief excerpt ("“Services”,"), dropped before it is quoted again
_QUOTE_MARKS = " “”\"'‘’,.;:"


class IssuesPanel(QWidget):
    """Lists the issues of one element (or of the page) from the latest report, with buttons
    for the window's refine and flag actions (see :meth:`bind`) and an instruction box:
    ``instruction_given(text)`` fires when the designer asks for a change in words."""

    instruction_given = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.heading = QLabel("Select an element")
        self.heading.setWordWrap(True)
        self.heading.setObjectName("issues-heading")
        self.list = QListWidget(self)
        self.list.setIconSize(QSize(128, 80))
        self.list.setWordWrap(True)
        self.list.setSpacing(3)  # one issue from the next
        self.list.setAlternatingRowColors(True)
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
        self.instruction = QLineEdit(self)
        self.instruction.setObjectName("issues-instruction")
        self.instruction.returnPressed.connect(self._instruct)
        self.change = QPushButton("Change", self)
        self.change.setObjectName("issues-change")
        self.change.clicked.connect(self._instruct)
        self.instruction.textChanged.connect(lambda _: self._enable_change())
        ask = QHBoxLayout()
        ask.addWidget(self.instruction, stretch=1)
        ask.addWidget(self.change)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(actions)
        layout.addLayout(ask)
        layout.addWidget(self.list, stretch=3)
        layout.addWidget(QLabel("Scores across versions"))
        layout.addWidget(self.plot, stretch=2)
        self.report: Report | None = None
        self.element: str | None = None
        self.can_change = False  # a project is open (the window says)
        self.crops: dict[str, str] = {}  # element or section id → evidence crop PNG
        self._crops: dict[tuple, QIcon] = {}
        self._describe_instruction()

    def bind_state(self, state) -> None:
        """Follow a :class:`~mmstudio.studio.state.StudioState`: its report, selection, flags
        and evidence crops (the issues), its versions (the plot), whether a project is open
        (the instruction box)."""
        state.subscribe(self._state_changed)

    def _state_changed(self, state, change) -> None:
        if change.touches("project"):
            self.set_changeable(state.project is not None)
        if change.touches("project", "report", "selection", "flags", "evidence"):
            check = state.view.check if state.view is not None else None
            flagged = state.selection is not None and state.selection in state.flags
            self.show_issues(state.report, state.selection, flagged,
                             check.crops if check is not None else {})  # fmt: skip
        if change.touches("project", "versions"):
            self.plot.show_versions(state.view.versions if state.view is not None else [])

    def set_changeable(self, able: bool) -> None:
        """Whether the instruction box can run (a project is open, not a site folder)."""
        self.can_change = able
        self._describe_instruction()

    def _describe_instruction(self) -> None:
        name = self.element or "the page"
        self.instruction.setPlaceholderText(f"What should change in {name}? e.g. make it warmer")
        self.instruction.setEnabled(self.can_change)
        self.instruction.setToolTip(
            f"Your words run as a feedback turn on {name} (offline rules, or the model set in "
            "Settings): a job in the Jobs dock and a new version, undoable"
            if self.can_change
            else "Open a project first: a site folder is evaluated, never changed"
        )
        self._enable_change()

    def _enable_change(self) -> None:
        ready = self.can_change and bool(self.instruction.text().strip())
        self.change.setEnabled(ready)
        self.change.setToolTip(
            f"Change {self.element or 'the page'} as written"
            if ready
            else "Write what should change first"
            if self.can_change
            else self.instruction.toolTip()
        )

    def _instruct(self) -> None:
        text = self.instruction.text().strip()
        if text and self.can_change:
            self.instruction.clear()
            self.instruction_given.emit(text)

    def bind(self, actions: dict[str, QAction]) -> None:
        """Make the buttons trigger (and follow the enabled state and reason of) the window's
        actions: refine-local / -context / -global, flag, refine-flagged."""
        for key, button in self.buttons.items():
            button.setDefaultAction(actions[_ACTION_OF[key]])

    def show_issues(
        self,
        report: Report | None,
        element_id: str | None,
        flagged: bool = False,
        crops: dict[str, str] | None = None,
    ) -> None:
        """Show the issues of ``element_id`` (None: page-level issues); ``crops``: element or
        section id → evidence crop PNG (the head check's)."""
        self.report = report
        self.element = element_id
        self.crops = dict(crops or {})
        self._describe_instruction()
        self.list.clear()
        name = element_id or "the page"
        if report is None:
            self.heading.setText(f"{name}: not evaluated yet")
            return
        issues = row_issues(report, element_id)
        measured = next((e.score for e in report.elements if e.id == element_id), None)
        score = row_badge(report, element_id, measured)[0] if element_id else None
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
                text += f"\nThe brief: “{str(asked).strip(_QUOTE_MARKS)}”"
            if element_id is None and issue_target(issue):
                text += f"\n(about {issue_target(issue)})"
            item = QListWidgetItem(text)
            crop = issue.evidence.get("crop") if isinstance(issue.evidence, dict) else None
            crop = (
                crop
                or self.crops.get(issue.element or "")
                or self.crops.get(issue_target(issue) or "")
            )
            item.setData(Qt.ItemDataRole.UserRole + 1, crop or "")  # never None (none_guard)
            if crop:
                item.setIcon(self._crop(crop))
                words = html.escape(text).replace("\n", "<br>")
                item.setToolTip(f'<img src="{html.escape(crop)}"><br>{words}')
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
