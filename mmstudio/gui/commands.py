"""The window's commands on the open project: the New / Settings / History dialogs (opened
with ``open()``, never ``exec()``: a nested event loop inside qasync's loop re-enters asyncio
tasks), Evaluate, Export, Undo / Redo, Refine, Flag, Annotate. Mixed into
:class:`~mmstudio.gui.main_window.MainWindow`; each one starts a job on the session's JobManager
or opens a dialog that does."""

from __future__ import annotations

import asyncio
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from mmstudio.gui.dialogs import HistoryDialog, NewProjectDialog, SettingsDialog
from mmstudio.providers.settings import load_settings, save_config


class ProjectCommands:
    """The slots of the window's actions (``self`` is the MainWindow)."""

    def prefs(self) -> dict:
        """Generation preferences: default provider, reflection rounds, assets at once."""
        return {
            "provider": self.state.value("provider", "offline"),
            "rounds": int(self.state.value("rounds", 3)),
            "concurrency": int(self.state.value("concurrency", 2)),
        }

    def new_from_prompt(self, prompt: str = "") -> NewProjectDialog:
        """Ask for a prompt, provider, rounds and folder (a window-modal sheet that does not
        block the event loop); Generate starts the project as a job. Returns the dialog."""
        prefs = self.prefs()
        dialog = NewProjectDialog(self, prompt)
        dialog.provider.setCurrentText(prefs["provider"])
        dialog.rounds.setValue(prefs["rounds"])

        def accepted() -> None:
            text, provider, folder = dialog.values()
            rounds, concurrency = dialog.rounds.value(), prefs["concurrency"]
            self.session.generate(folder, text, provider, rounds=rounds, concurrency=concurrency)
            self.notify("info", f"Generating {folder.name}: follow it in the Jobs dock")

        return self._open_dialog(dialog, accepted)

    def _open_dialog(self, dialog, accepted):
        # open(), not exec(): a nested event loop inside qasync's loop re-enters asyncio tasks
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(accepted)
        self.dialog = dialog
        dialog.open()
        return dialog

    def generate_again(self) -> None:
        """New from Prompt, prefilled with the open project's prompt."""
        project = self.session.project
        if project is not None:
            self.new_from_prompt(project.manifest.prompt)

    def edit_settings(self) -> SettingsDialog | None:
        """Edit provider settings (config file, never the key) and generation preferences."""
        try:
            settings = load_settings()
        except ValueError as exc:
            self.notify("error", f"The settings file cannot be read: {exc}", str(exc))
            return None
        dialog = SettingsDialog(settings, self.prefs(), self)

        def accepted() -> None:
            try:
                edited, prefs = dialog.values()
                path = save_config(edited)
            except (ValueError, OSError) as exc:
                self.notify("error", f"Settings not saved: {exc}")
                return
            for key, value in prefs.items():
                self.state.setValue(key, value)
            self.notify("info", f"Settings saved to {path}")

        return self._open_dialog(dialog, accepted)

    def evaluate(self) -> None:
        """Render and score the open project (or evaluate the open site folder again)."""
        if self.session.project is not None:
            self.session.evaluate()
        elif self.site_only is not None:
            self.open_site(self.site_only)

    def export(self) -> None:
        """Ask for a new folder (or a .zip name) and export the site to it as a job."""
        if self.session.project is None:
            return
        dest, chosen = QFileDialog.getSaveFileName(
            self, "Export the site to a new folder (or a .zip)", "", "Folder (*);;Zip (*.zip)"
        )
        if dest:
            as_zip = dest.endswith(".zip") or chosen.startswith("Zip")
            self.session.export(Path(dest), as_zip=as_zip)

    def annotate(self, sketch: bool = False):
        """Draw over a screenshot of the page (or a blank sketch canvas) and send a feedback
        turn; returns the capture job (None without a project)."""
        from mmstudio.gui.annotate import open_annotator

        return open_annotator(self, sketch=sketch)

    def undo(self) -> None:
        """Go back to the previous version (a job; the preview reloads when it is done)."""
        if self.session.project is not None:
            self.session.undo()

    def redo(self) -> None:
        """Go forward to the version last undone."""
        if self.session.project is not None:
            self.session.redo()

    def refine(self, level: str) -> asyncio.Task | None:
        """Refine the selected element at ``level`` (global: the page)."""
        if self.session.project is None:
            return None
        element = None if level == "global" else self.selected
        task = self.session.refine(level, element)  # type: ignore[arg-type]
        task.add_done_callback(self._task_failed)
        self.statusBar().showMessage(f"Refining {element or 'the page'} ({level})…", 5000)
        return task

    def toggle_flag(self) -> None:
        """Flag or unflag the selected element for Refine All Flagged."""
        if self.selected and self.session.project is not None:
            self.session.toggle_flag(self.selected)
            self.tree.show_flags(self.session.flagged)
            self._show_issues()
            self.update_actions()

    def refine_flagged(self) -> asyncio.Task | None:
        """One refine per flagged element at the levels its issues are routed to."""
        if self.session.project is None or not self.session.flagged:
            return None
        task = self.session.refine_flagged()
        task.add_done_callback(self._task_failed)
        self.statusBar().showMessage(f"Refining {len(self.session.flagged)} flagged", 5000)
        return task

    def show_history(self) -> HistoryDialog | None:
        """The versions with scores and summaries; Restore makes the chosen one current."""
        project = self.session.project
        if project is None:
            return None
        versions = self.snapshot.versions if self.snapshot else project.history.list()
        dialog = HistoryDialog(versions, project.manifest.head, self)

        def accepted() -> None:
            if dialog.chosen and self.session.project is project:
                self.session.restore(dialog.chosen)

        return self._open_dialog(dialog, accepted)
