"""The window's commands on the open project: the New / Settings / History dialogs (opened
with ``open()``, never ``exec()``: a nested event loop inside qasync's loop re-enters asyncio
tasks), Evaluate, Export, Undo / Redo, Refine, Flag, Annotate. Mixed into
:class:`~mmstudio.gui.main_window.MainWindow`; each one starts a job on the session's JobManager
or opens a dialog that does."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog

from mmstudio.gui.dialogs import HistoryDialog, NewProjectDialog, SettingsDialog, free_folder
from mmstudio.providers.settings import load_settings, save_config
from mmstudio.report import Report

log = logging.getLogger("mmstudio.gui.commands")
_LEVEL_WORDS = {
    "local": "its own file (regenerate or repair the asset)",
    "context": "how the page embeds it (its CSS and container)",
    "global": "the page's layout and style",
}


def routed(report: Report | None, level: str, element: str | None) -> list:
    """The issues a ``level`` refine of ``element`` (None: the page) would work on."""
    if report is None:
        return []
    from mmstudio.refine import route

    return [i for t in route(report, level=level, element=element) for i in t.issues]


def nothing_to_refine(level: str, element: str | None) -> str:
    """The notice for a refine with no issue to work on, and the way forward."""
    what = element or "the page"
    where = "" if element else "select the Page row and "
    return (
        f"No issues at the {level} level for {what}: nothing to refine. To change it anyway, "
        f"{where}say what should change in the Issues dock's instruction box (or annotate it)."
    )


def outcome_line(level: str, element: str | None, outcomes: list) -> str:
    """One line on what a refine did: the changes kept, and why the others were not."""
    what = element or "the page"
    if not outcomes:
        return f"{level.capitalize()} refine of {what}: no rule applies; nothing changed"
    kept = [o for o in outcomes if o.outcome == "accepted"]
    others = [f"{o.outcome} ({o.reason})" if o.reason else o.outcome for o in outcomes
              if o.outcome != "accepted"]  # fmt: skip
    line = f"{level.capitalize()} refine of {what}: {len(kept)} of {len(outcomes)} change(s) kept"
    return line + (f"; {'; '.join(others[:3])}" if others else "")


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
        # a fresh folder each time: not one on disk, being generated or proposed in this session
        folder = free_folder(Path.home() / "mmstudio-projects", taken=self.proposed_folders)
        self.proposed_folders.add(folder)
        dialog = NewProjectDialog(self, prompt, folder)
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

    def export(self, folder: Path | None = None):
        """Ask for a folder (a folder dialog) and export the site as a job: into the folder when
        it is empty, else into a new ``<project>-site`` folder inside it. Returns the job."""
        project = self.session.project
        if project is None:
            return None
        if folder is None:
            chosen = QFileDialog.getExistingDirectory(
                self, "Export the site into a folder (an empty one, or one to hold it)"
            )
            if not chosen:
                return None
            folder = Path(chosen)
        dest = folder
        if folder.exists() and any(folder.iterdir()):
            dest = free_folder(folder, f"{project.root.name}-site")
        self.notify("info", f"Exporting the site to {dest}")
        return self.session.export(dest)

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
        """Refine the selected element at ``level`` (global: the page). With no issue at that
        level there is nothing to refine: a notice (and a log line) says so and how to change
        it anyway (None returned); otherwise the jobs run and a notice says what they did."""
        if self.session.project is None:
            return None
        element = None if level == "global" else self.selected
        if not routed(self.report, level, element):
            message = nothing_to_refine(level, element)
            log.info("%s", message)
            self.notify("info", message)
            return None
        task = self.session.refine(level, element)  # type: ignore[arg-type]
        task.add_done_callback(self._task_failed)
        task.add_done_callback(lambda t: self._refine_done(t, [(level, element)]))
        self.statusBar().showMessage(f"Refining {element or 'the page'} ({level})…", 5000)
        return task

    def _refine_done(self, task: asyncio.Task, what: list[tuple[str, str | None]]) -> None:
        if task.cancelled() or task.exception() is not None:
            return
        outcomes = task.result()
        lines = []
        for level, element in what:
            mine = (
                [
                    o
                    for o in outcomes
                    if getattr(o, "element", element) == element
                    and getattr(o, "level", level) == level
                ]
                if len(what) > 1
                else outcomes
            )
            lines.append(outcome_line(level, element, mine))
        message = " · ".join(lines)
        log.info("%s", message)
        self.notify("info", message)

    def toggle_flag(self) -> None:
        """Flag or unflag the selected element for Refine All Flagged (remembered with the
        project)."""
        if self.selected and self.session.project is not None:
            self.session.toggle_flag(self.selected)  # the state tells the panels
            self.save_project_state()

    def refine_flagged(self) -> asyncio.Task | None:
        """One refine per flagged element at the levels its issues are routed to; the flagged
        elements with no issue are named in a notice (all of them: no job runs)."""
        if self.session.project is None or not self.session.flagged:
            return None
        levels = {
            element: [lv for lv in ("local", "context") if routed(self.report, lv, element)]
            for element in sorted(self.session.flagged)
        }
        idle = [e for e, found in levels.items() if not found]
        if idle:
            message = (
                f"No local or context issues for {', '.join(idle)}: nothing to refine there. "
                "To change one anyway, select it and say what should change in the Issues "
                "dock's instruction box."
            )
            log.info("%s", message)
            self.notify("info", message)
        if len(idle) == len(levels):
            return None
        task = self.session.refine_flagged()
        task.add_done_callback(self._task_failed)
        work = [(lv, e) for e, found in levels.items() for lv in found]
        task.add_done_callback(lambda t: self._refine_done(t, work))
        self.statusBar().showMessage(f"Refining {len(levels) - len(idle)} flagged", 5000)
        return task

    def instruct(self, text: str, element: str | None = None):
        """Run the designer's words on ``element`` (None: the selection; no selection: the
        page) as a feedback turn — a ``feedback`` job, offline rules or the model — marking the
        element with a box around it as the preview shows it. The job starts once the preview
        has answered where the element is (``self.instructed`` maps its id to the element).
        Returns whether it will start (False: nothing to do; a notice says why)."""
        from mmstudio.feedback import Annotation
        from mmstudio.feedback.annotation import Shape

        project = self.session.project
        text = text.strip()
        element = element or self.selected
        if project is None or not text:
            self.notify("info", "Write what should change first")
            return False
        width = self.device_width

        def submit(box) -> None:
            if self.session.project is not project:
                return
            if element is not None and not box:  # never widen an element's change to the page
                self.notify(
                    "warning",
                    f"{element} is not visible in the preview, so it cannot be marked; "
                    "reload the preview or select another element",
                )
                return
            annotation = Annotation(device_width=width, viewport=(width, 800))
            if box:
                x, y, w, h = (float(box[k]) for k in ("x", "y", "w", "h"))
                annotation.shapes.append(
                    Shape(id="s1", kind="rect", x=x - 4, y=y - 4, w=w + 8, h=h + 8)
                )
            service = self.session.feedback()  # the project's model bundle, if it has one
            job = service.submit(text, annotation if annotation.shapes else None)
            self.instructed[job.id] = element
            log.info("instruction for %s: %s (%s)", element or "the page", text, job.id)
            self.statusBar().showMessage(f"Changing {element or 'the page'}: {text}", 5000)

        if element is None:
            submit(None)
        else:
            self.preview.element_box(element, submit)
        return True

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
