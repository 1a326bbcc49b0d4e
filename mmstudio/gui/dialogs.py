"""Dialogs: new project from a prompt and settings (forms from ``ui/``), and the version
history with restore."""

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
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
)

from mmstudio.gui.forms import child, load_form
from mmstudio.gui.icons import icon
from mmstudio.project.versions import Version
from mmstudio.providers.registry import PROVIDERS
from mmstudio.providers.settings import (
    CAPABILITIES,
    ROLES,
    Settings,
    config_path,
    load_settings,
)
from mmstudio.studio.create import check_prompt


class NewProjectDialog(QDialog):
    """Prompt editor, provider, reflection rounds and the folder of the new project (form:
    ``ui/new_project.ui``). Generate stays disabled, with the reason shown, while the prompt is
    empty or too long."""

    def __init__(self, parent=None, prompt: str = "", folder: Path | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("New from prompt")
        self.setWindowIcon(icon("new"))
        self.resize(720, 520)
        self.form = load_form("new_project.ui", self)
        self.prompt = child(self.form, QPlainTextEdit, "prompt")
        self.prompt.setPlainText(prompt)
        self.hint = child(self.form, QLabel, "prompt_hint")
        self.provider = child(self.form, QComboBox, "provider")
        self.provider.addItems(PROVIDERS)
        self.rounds = child(self.form, QSpinBox, "rounds")
        self.folder = child(self.form, QLineEdit, "folder")
        self.folder.setText(str(folder or free_folder(Path.home() / "mmstudio-projects")))
        child(self.form, QPushButton, "browse").clicked.connect(self._browse)
        buttons = child(self.form, QDialogButtonBox, "buttons")
        self.generate = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.generate.setText("Generate")
        self.generate.setIcon(icon("generate"))
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.form)
        self.prompt.textChanged.connect(self._check)
        self.folder.textChanged.connect(self._check)
        self.provider.currentTextChanged.connect(self._check)
        self._check()

    def _check(self) -> None:
        """Enable Generate only for a usable prompt and folder; say why otherwise."""
        reason = ""
        try:
            check_prompt(self.prompt.toPlainText())
        except ValueError as exc:
            reason = str(exc)
        if not reason and not self.folder.text().strip():
            reason = "choose a folder for the new project"
        if not reason:
            reason = provider_problem(self.provider.currentText()) or ""
        self.generate.setEnabled(not reason)
        self.generate.setToolTip(reason or "Plan, generate, evaluate and refine the page")
        chars = len(self.prompt.toPlainText().strip())
        self.hint.setText(reason.capitalize() if reason else f"{chars} characters")

    def _browse(self) -> None:
        folder = QFileDialog.getSaveFileName(self, "New project folder", self.folder.text())[0]
        if folder:
            self.folder.setText(folder)

    def values(self) -> tuple[str, str, Path]:
        """(prompt, provider, project folder); the rounds are ``self.rounds.value()``."""
        return self.prompt.toPlainText(), self.provider.currentText(), Path(self.folder.text())


def provider_problem(name: str) -> str | None:
    """Why the model provider ``name`` cannot run as configured (None: it can). The offline
    designer always can; OpenAI's own endpoint needs a key (a local server may not)."""
    if name == "offline":
        return None
    try:
        settings = load_settings()
    except ValueError as exc:
        return f"the settings file is invalid: {exc}"
    if "api.openai.com" in settings.base_url and not settings.api_key:
        return (
            "needs a model provider: set OPENAI_API_KEY, or point File › Settings at a local "
            "OpenAI-compatible endpoint, or choose offline"
        )
    return None


def free_folder(parent: Path, stem: str = "new-page", taken: set[Path] | None = None) -> Path:
    """``parent/stem``, or ``stem-2``, ``stem-3``… when that one is taken: on disk, being built
    there (a generation's hidden ``.<name>.building-*`` folder) or in ``taken`` (folders already
    proposed in this session) — a new project needs a new folder."""
    taken = taken or set()

    def used(candidate: Path) -> bool:
        building = any(parent.glob(f".{candidate.name}.building-*")) if parent.is_dir() else False
        return candidate.exists() or building or candidate in taken

    candidate, number = parent / stem, 1
    while used(candidate):
        number += 1
        candidate = parent / f"{stem}-{number}"
    return candidate


class HistoryDialog(QDialog):
    """The project's versions with scores; ``chosen`` is the version to restore (or None)."""

    def __init__(self, versions: list[Version], head: str | None, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("History")
        self.setWindowIcon(icon("history"))
        self.resize(720, 420)
        self.versions = versions
        self.chosen: str | None = None
        self.table = QTableWidget(len(versions), 4, self)
        self.table.setHorizontalHeaderLabels(["Version", "Time", "Overall", "Summary"])
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setSelectionBehavior(QTableWidget.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.setSelectionMode(QTableWidget.SelectionMode.SingleSelection)
        self.table.setWordWrap(False)
        self.table.verticalHeader().hide()
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
        self.table.resizeColumnsToContents()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        restore = buttons.addButton("Restore", QDialogButtonBox.ButtonRole.AcceptRole)
        restore.setIcon(icon("history"))
        restore.setEnabled(False)
        restore.setToolTip("Select a version first")
        restore.clicked.connect(self._restore)
        self.table.itemSelectionChanged.connect(
            lambda: restore.setEnabled(bool(self.table.selectionModel().selectedRows()))
        )
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
    preferences (default provider, reflection rounds, assets made at once); form:
    ``ui/settings.ui``."""

    def __init__(self, settings: Settings, prefs: dict, parent=None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.setWindowIcon(icon("settings"))
        self.settings = settings
        self.form = load_form("settings.ui", self)
        self.provider = child(self.form, QComboBox, "provider")
        self.provider.addItems(PROVIDERS)
        self.provider.setCurrentText(prefs.get("provider", "offline"))
        self.rounds = child(self.form, QSpinBox, "rounds")
        self.rounds.setValue(int(prefs.get("rounds", 3)))
        self.concurrency = child(self.form, QSpinBox, "concurrency")
        self.concurrency.setValue(int(prefs.get("concurrency", 2)))
        self.base_url = child(self.form, QLineEdit, "base_url")
        self.base_url.setText(settings.base_url)
        self.models = {r: child(self.form, QLineEdit, f"model_{r}") for r in ROLES}
        for role, edit in self.models.items():
            edit.setText(getattr(settings.models, role))
        self.capabilities = {n: child(self.form, QCheckBox, f"cap_{n}") for n in CAPABILITIES}
        for name, box in self.capabilities.items():
            box.setChecked(getattr(settings.capabilities, name))
        key = "found" if settings.api_key else "not set"
        child(self.form, QLabel, "api_key").setText(
            f"from OPENAI_API_KEY ({key}); never stored by MM Studio"
        )
        child(self.form, QLabel, "saved_to").setText(
            f"Saved to {config_path()}; preferences are kept with the app's settings."
        )
        buttons = child(self.form, QDialogButtonBox, "buttons")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(self.form)

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
