"""Right dock: the selected element's issues (level, message, evidence crop, source) and a plot
of the page's scores across versions."""

from __future__ import annotations

from pathlib import Path

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from mmstudio.project.versions import Version
from mmstudio.report import DIMENSIONS, Report

_LEVEL_MARK = {"local": "LOCAL", "context": "CONTEXT", "global": "GLOBAL"}


class IssuesPanel(QWidget):
    """Lists the issues of one element (or of the page) from the latest report, with the refine
    actions: ``refine_requested(level)``, ``flag_requested()``, ``refine_flagged_requested()``."""

    refine_requested = Signal(str)
    flag_requested = Signal()
    refine_flagged_requested = Signal()

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.heading = QLabel("Select an element")
        self.heading.setWordWrap(True)
        self.heading.setObjectName("issues-heading")
        self.list = QListWidget(self)
        self.list.setIconSize(QSize(96, 64))
        self.list.setWordWrap(True)
        self.plot = ScorePlot(self)
        self.buttons: dict[str, QPushButton] = {}
        actions = QGridLayout()
        for index, level in enumerate(("local", "context", "global")):
            button = QPushButton(f"Refine {level}", self)
            button.clicked.connect(lambda _=False, lv=level: self.refine_requested.emit(lv))
            self.buttons[level] = button
            actions.addWidget(button, 0, index)
        self.buttons["flag"] = QPushButton("Flag", self)
        self.buttons["flag"].clicked.connect(self.flag_requested)
        self.buttons["flagged"] = QPushButton("Refine all flagged", self)
        self.buttons["flagged"].clicked.connect(self.refine_flagged_requested)
        actions.addWidget(self.buttons["flag"], 1, 0)
        actions.addWidget(self.buttons["flagged"], 1, 1, 1, 2)
        layout = QVBoxLayout(self)
        layout.addWidget(self.heading)
        layout.addLayout(actions)
        layout.addWidget(self.list, stretch=3)
        layout.addWidget(QLabel("Scores across versions"))
        layout.addWidget(self.plot, stretch=2)
        self.report: Report | None = None

    def show_issues(
        self, report: Report | None, element_id: str | None, flagged: bool = False
    ) -> None:
        """Show the issues of ``element_id`` (None: page-level issues)."""
        self.report = report
        self.buttons["flag"].setText("Unflag" if flagged else "Flag")
        for level in ("local", "context"):
            self.buttons[level].setEnabled(element_id is not None)
        self.buttons["flag"].setEnabled(element_id is not None)
        self.list.clear()
        name = element_id or "the page"
        if report is None:
            self.heading.setText(f"{name}: not evaluated yet")
            return
        issues = report.issues_for(element_id)
        score = next((e.score for e in report.elements if e.id == element_id), None)
        scored = "" if score is None else f" · score {score:.2f}"
        self.heading.setText(f"{name}{scored} · {len(issues)} issue(s)")
        for issue in issues:
            text = (
                f"[{_LEVEL_MARK[issue.level]} · {issue.severity} · {issue.dimension} · "
                f"{issue.source}]\n{issue.message}"
            )
            item = QListWidgetItem(text)
            crop = issue.evidence.get("crop") if isinstance(issue.evidence, dict) else None
            if crop and Path(crop).is_file():
                item.setIcon(QIcon(QPixmap(crop)))
            item.setData(Qt.ItemDataRole.UserRole, issue.id)
            self.list.addItem(item)


class ScorePlot(FigureCanvasQTAgg):
    """Overall and per-dimension scores (0–1) of each version, oldest first."""

    def __init__(self, parent=None) -> None:
        self.figure = Figure(figsize=(3.2, 2.0), tight_layout=True)
        super().__init__(self.figure)
        self.setParent(parent)
        self.axes = self.figure.add_subplot()

    def show_versions(self, versions: list[Version]) -> None:
        self.axes.clear()
        xs = list(range(1, len(versions) + 1))
        for name in ("overall", *DIMENSIONS):
            ys = [v.scores.get(name) for v in versions]
            if any(y is not None for y in ys):
                width = 2.2 if name == "overall" else 1.0
                self.axes.plot(
                    xs,
                    [float("nan") if y is None else y for y in ys],
                    marker="o",
                    linewidth=width,
                    label=name,
                )
        self.axes.set_ylim(0, 1.05)
        self.axes.set_xticks(xs)
        self.axes.set_xlabel("version", fontsize=8)
        self.axes.tick_params(labelsize=7)
        if self.axes.lines:
            self.axes.legend(fontsize=6, loc="lower right")
        self.draw_idle()
