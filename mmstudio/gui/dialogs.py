"""Dialogs: new project from a prompt, and the version history with restore."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from pydantic import ValidationError
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from mmstudio.project.versions import Version
from mmstudio.providers.registry import PROVIDERS
from mmstudio.providers.settings import CAPABILITIES, ROLES, Settings


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


class SettingsDialog(QDialog):
    """Provider settings (written to the user config file, never the key) and generation
    preferences (default provider, reflection rounds, assets made at once)."""

    def __init__(self, settings: Settings, prefs: dict, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.settings = settings
        self.provider = QComboBox(self)
        self.provider.addItems(PROVIDERS)
        self.provider.setCurrentText(prefs.get("provider", "offline"))
        self.rounds = _spin(0, 10, prefs.get("rounds", 3), self)
        self.concurrency = _spin(1, 8, prefs.get("concurrency", 2), self)
        self.base_url = QLineEdit(settings.base_url, self)
        self.models = {r: QLineEdit(getattr(settings.models, r), self) for r in ROLES}
        self.capabilities = {}
        form = QFormLayout()
        form.addRow("Default provider", self.provider)
        form.addRow("Reflection rounds", self.rounds)
        form.addRow("Assets made at once", self.concurrency)
        form.addRow("Endpoint (base URL)", self.base_url)
        for role, edit in self.models.items():
            form.addRow(f"{role.capitalize()} model", edit)
        for name in CAPABILITIES:
            box = QCheckBox(name.replace("_", " "), self)
            box.setChecked(getattr(settings.capabilities, name))
            self.capabilities[name] = box
            form.addRow("Endpoint offers" if name == CAPABILITIES[0] else "", box)
        key = "found" if settings.api_key else "not set"
        form.addRow("API key", QLabel(f"from OPENAI_API_KEY ({key}); never stored by MM Studio"))
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel, self
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(buttons)

    def values(self) -> tuple[Settings, dict]:
        """The edited settings (raises ValueError for an invalid value) and preferences."""
        data = self.settings.model_dump()
        data["base_url"] = self.base_url.text().strip()
        data["models"] = {r: e.text().strip() for r, e in self.models.items()}
        data["capabilities"] = {n: b.isChecked() for n, b in self.capabilities.items()}
        try:
            settings = Settings.model_validate(data)
        except ValidationError as exc:
            raise ValueError(str(exc.errors()[0]["msg"])) from None
        prefs = {
            "provider": self.provider.currentText(),
            "rounds": self.rounds.value(),
            "concurrency": self.concurrency.value(),
        }
        return settings, prefs


def _spin(low: int, high: int, value, parent) -> QSpinBox:
    spin = QSpinBox(parent)
    spin.setRange(low, high)
    spin.setValue(int(value))
    return spin
