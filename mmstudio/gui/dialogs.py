"""Dialogs: new project from a prompt, and the version history with restore."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mmstudio.project.versions import Version
from mmstudio.providers.registry import PROVIDERS


class NewProjectDialog(QDialog):
    """Prompt editor, provider and the folder of the new project."""

    def __init__(self, parent=None, prompt: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("New from prompt")
        self.resize(720, 520)
        self.prompt = QPlainTextEdit(prompt, self)
        self.prompt.setPlaceholderText("Describe the page: sections, copy in quotes, colours…")
        self.provider = QComboBox(self)
        self.provider.addItems(PROVIDERS)
        self.folder = QLineEdit(str(Path.home() / "mmstudio-projects" / "new-page"), self)
        browse = QPushButton("Browse…", self)
        browse.clicked.connect(self._browse)
        row = QWidget(self)
        row_layout = QHBoxLayout(row)
        row_layout.setContentsMargins(0, 0, 0, 0)
        row_layout.addWidget(self.folder)
        row_layout.addWidget(browse)
        form = QFormLayout()
        form.addRow("Provider", self.provider)
        form.addRow("Project folder", row)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Generate")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.prompt)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def _browse(self) -> None:
        folder = QFileDialog.getSaveFileName(self, "New project folder", self.folder.text())[0]
        if folder:
            self.folder.setText(folder)

    def values(self) -> tuple[str, str, Path]:
        """(prompt, provider, project folder)."""
        return self.prompt.toPlainText(), self.provider.currentText(), Path(self.folder.text())


class HistoryDialog(QDialog):
    """The project's versions with scores; ``chosen`` is the version to restore (or None)."""

    def __init__(self, versions: list[Version], head: str | None, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("History")
        self.resize(720, 420)
        self.versions = versions
        self.chosen: str | None = None
        self.table = QTableWidget(len(versions), 4, self)
        self.table.setHorizontalHeaderLabels(["Version", "Time", "Overall", "Summary"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        for row, version in enumerate(reversed(versions)):
            overall = version.scores.get("overall")
            when = dt.datetime.fromtimestamp(version.created_at).strftime("%Y-%m-%d %H:%M:%S")
            cells = (
                ("● " if version.id == head else "") + version.id,
                when,
                "–" if overall is None else f"{overall:.2f}",
                version.summary,
            )
            for column, text in enumerate(cells):
                self.table.setItem(row, column, QTableWidgetItem(text))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        restore = buttons.addButton("Restore", QDialogButtonBox.ButtonRole.AcceptRole)
        restore.clicked.connect(self._restore)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.table)
        layout.addWidget(buttons)

    def _restore(self) -> None:
        rows = self.table.selectionModel().selectedRows()
        if rows:
            self.chosen = list(reversed(self.versions))[rows[0].row()].id
            self.accept()
