"""A project folder on disk (the layout is DESIGN.md's contract):

```
<project>/mmstudio.json   manifest: format version, title, prompt, provider, head version id
<project>/plan.json       the current DesignPlan
<project>/site/           the current site (index.html, assets/, vendor/)
<project>/report.json     the latest Report
<project>/history.sqlite  versions
<project>/objects/        content-addressed blobs backing versions
```

Invariants:
- Every file is written atomically; a new site is built in a staging folder beside ``site/`` and
  swapped in by two renames (``site`` → ``site.old``, staging → ``site``), so ``site/`` is always a
  complete site.
- A version's rows name only blobs already on disk; the manifest's head names only a version
  already in the history (blobs → row → manifest, each step durable before the next).
- A checkout (restore, undo, redo) or a staged commit (:meth:`Project.commit_staged`) first
  writes everything it needs into a staging folder (blobs and history row first, for a commit)
  and then a ``checkout.json`` marker holding the new manifest; then the manifest is written
  (the decision) and only renames follow. Opening the project rolls a marked checkout forward and
  deletes unmarked staging folders, so a crash at any point leaves the old version or the new
  one, never a mix; a disk error before the decision leaves the old version.
- Recovery runs only when no other process holds the writer lock (its staging folders are live)
  and skips the staging folders and temp files of the opening process itself; it also deletes
  the temp files of atomic writes a killed process left (anywhere in the project, ``objects/``
  and ``site/`` included, so none is ever committed or exported).
- A disk error (no space, I/O, a read-only folder) becomes one ProjectError line; the project
  keeps its last saved version and the in-memory manifest matches the one on disk.
- Within a process, every write (commit, checkout, staged commit, plan, report, site, recovery)
  holds the project's thread lock (a ``threading.RLock`` per RESOLVED project folder, owned by
  :mod:`mmstudio.project.workspace`), so writes may run in worker threads — the app runs them
  off its event loop — and still never interleave, whatever path names the folder.
- Changes to a project that has versions come through its
  :class:`~mmstudio.project.workspace.Workspace` (the edit transaction and checkouts), which
  calls :meth:`Project.commit_staged`, :meth:`Project.restore`, :meth:`Project.undo` and
  :meth:`Project.redo` here; :meth:`Project.install_site` only seeds a project that has no
  version yet. ``proceed`` (those methods' last argument) is asked right before the point of
  no return; when it says no, :class:`~mmstudio.project.errors.Withdrawn` is raised and nothing
  was recorded or installed.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import logging
import os
import re
import shutil
import sqlite3
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, TypeVar

from pydantic import BaseModel, ValidationError

from mmstudio import __version__
from mmstudio.plan import DesignPlan
from mmstudio.project import atomic
from mmstudio.project.errors import ProjectError, Withdrawn, disk_reason, first_line, saving
from mmstudio.project.versions import History, ObjectStore, Version, new_version, snapshot
from mmstudio.project.workspace import locks_for
from mmstudio.report import Report

log = logging.getLogger(__name__)

MANIFEST = "mmstudio.json"
CHECKOUT_MARKER = "checkout.json"  # inside a staging folder: the checkout is ready to install
_TRACKED = ["plan.json", "report.json", "site"]
_ROOT_FILES = ("plan.json", "report.json")


class Manifest(BaseModel):
    """``mmstudio.json``: what the project is and which version is current."""

    format_version: int = 1
    app_version: str = __version__
    title: str
    prompt: str
    provider: str
    head: str | None = None
    redo: list[str] = []  # version ids undone from the head, most recent last
    created_at: str
    updated_at: str


class _Checkout(BaseModel):
    """``checkout.json``: the manifest a staged checkout installs and the root files it removes."""

    manifest: Manifest
    remove: list[str] = []


P = ParamSpec("P")
T = TypeVar("T")


def _writes(method: Callable[Concatenate[Project, P], T]) -> Callable[Concatenate[Project, P], T]:
    """Run ``method`` holding the project's write lock (see the module docstring)."""

    @functools.wraps(method)
    def locked(self: Project, *args: P.args, **kwargs: P.kwargs) -> T:
        with self._writing:
            return method(self, *args, **kwargs)

    return locked


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def check_new_root(root: Path) -> Path:
    """``root`` made absolute; raises ProjectError if it exists and is not an empty folder."""
    root = root.expanduser().absolute()
    if root.exists() and (not root.is_dir() or any(root.iterdir())):
        raise ProjectError(f"{root} already exists and is not empty; choose a new folder")
    existing = next(p for p in (root, *root.parents) if p.exists())
    if not existing.is_dir() or not os.access(existing, os.W_OK | os.X_OK):
        raise ProjectError(f"cannot create {root}: {existing} is not a writable folder")
    return root


class Project:
    """An open project folder. Create with :meth:`create`, open with :meth:`open`."""

    def __init__(self, root: Path, manifest: Manifest) -> None:
        self.root = root
        self.manifest = manifest
        self.objects = ObjectStore(root / "objects")
        self.history = History(root / "history.sqlite")
        self._pending: list[Path] = []  # marked checkouts a disk error left half installed
        self._writing: threading.RLock = locks_for(root).files

    # -- paths -----------------------------------------------------------------------------
    @property
    def site_dir(self) -> Path:
        return self.root / "site"

    @property
    def plan_path(self) -> Path:
        return self.root / "plan.json"

    @property
    def report_path(self) -> Path:
        return self.root / "report.json"

    @property
    def renders_dir(self) -> Path:
        """Screenshots and crops of the latest evaluation (not versioned)."""
        return self.root / "renders"

    # -- lifecycle -------------------------------------------------------------------------
    @classmethod
    def create(cls, root: Path, *, prompt: str, provider: str, title: str = "Untitled") -> Project:
        """Make a new project folder at ``root``; raises ProjectError if ``root`` is a file or a
        non-empty folder."""
        root = check_new_root(root)
        created = not root.exists()
        now = _now()
        manifest = Manifest(
            title=title, prompt=prompt, provider=provider, created_at=now, updated_at=now
        )
        try:
            with saving("the new project", "nothing was created"):
                root.mkdir(parents=True, exist_ok=True)
                project = cls(root, manifest)
                project.save_manifest()
        except BaseException:
            if created:
                shutil.rmtree(root, ignore_errors=True)
            else:  # it was an empty folder: leave it empty
                for child in list(root.iterdir()):
                    shutil.rmtree(child) if child.is_dir() else child.unlink()
            raise
        return project

    @classmethod
    def open(cls, root: Path) -> Project:
        """Open the project at ``root``, finishing or undoing whatever a crash interrupted (see
        the module docstring); raises ProjectError."""
        root = root.expanduser().absolute()
        path = root / MANIFEST
        if not path.is_file():
            raise ProjectError(f"{root} is not an MM Studio project (no {MANIFEST})")
        try:
            manifest = Manifest.model_validate_json(path.read_bytes())
        except (ValidationError, ValueError) as exc:
            raise ProjectError(f"{path} is damaged: {first_line(exc)}") from None
        try:
            project = cls(root, manifest)
        except sqlite3.Error as exc:
            raise ProjectError(f"{root / 'history.sqlite'} cannot be opened: {exc}") from None
        project.recover()
        return project

    @_writes
    def recover(self) -> None:
        """Finish a checkout a crash interrupted, undo a half-done site swap and delete dead
        staging folders — unless another process holds the writer lock (it may be using them).
        A disk error while recovering is logged; the next open tries again."""
        from mmstudio.project.lock import writer_lock

        try:
            with writer_lock(self.root, "opening the project"):
                self._recover()
        except ProjectError:
            log.info("%s is being changed by another process; recovery skipped", self.root)
        except OSError as exc:
            log.warning("could not finish recovering %s: %s", self.root, disk_reason(exc))

    def _recover(self) -> None:
        for staging in sorted(self.root.glob(".staging-*")):
            if (staging / CHECKOUT_MARKER).is_file():  # decided: roll forward (idempotent)
                log.warning("finishing a checkout interrupted in %s", self.root)
                self._finish_checkout(staging)
        old = self.root / "site.old"
        if old.is_dir() and not self.site_dir.exists():
            log.warning("restoring %s after an interrupted site swap", self.site_dir)
            old.rename(self.site_dir)
        shutil.rmtree(old, ignore_errors=True)
        own = re.compile(rf"^\.staging-(?:[a-z]+-)?{os.getpid()}-")
        for staging in self.root.glob(".staging-*"):
            if not own.match(staging.name):  # this process's own may be in use
                shutil.rmtree(staging, ignore_errors=True)
        for temp in atomic.dead_temp_files(self.root):  # a killed atomic write's temp file
            log.warning("removing %s left by an interrupted write", temp.relative_to(self.root))
            temp.unlink(missing_ok=True)

    @_writes
    def save_manifest(self) -> None:
        """Write the manifest as it is in memory (atomically)."""
        self.manifest.updated_at = _now()
        atomic.write_text(self.root / MANIFEST, self.manifest.model_dump_json(indent=2) + "\n")

    @_writes
    def refresh(self) -> None:
        """Re-read the manifest from disk (another Project object of the same folder in this
        process may have moved the head); a manifest that cannot be read leaves this one."""
        try:
            self.manifest = Manifest.model_validate_json((self.root / MANIFEST).read_bytes())
        except (OSError, ValidationError, ValueError) as exc:
            log.warning("kept the manifest in memory: %s", first_line(exc))

    def _save_head(self, head: str | None, redo: list[str]) -> None:
        """Write a manifest with ``head`` and ``redo``; the one in memory changes only once the
        file is on disk, so a failed write leaves both as they were."""
        update = {"head": head, "redo": redo, "updated_at": _now()}
        manifest = self.manifest.model_copy(update=update)
        atomic.write_text(self.root / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
        self.manifest = manifest

    # -- content ---------------------------------------------------------------------------
    def staging_dir(self) -> Path:
        """A fresh folder inside the project to build a site in before :meth:`install_site`
        (named after this process, so that its recovery never deletes a live one)."""
        return Path(tempfile.mkdtemp(prefix=f".staging-{os.getpid()}-", dir=self.root))

    @_writes
    def install_site(self, staged_site: Path) -> None:
        """Seed a project that has no version yet with ``staged_site`` as its ``site/`` (two
        renames; see the module docstring) and delete the staging folder holding it, installed
        or not; raises ProjectError on a disk error (the old site stays) and when the project
        already has a version (then only its Workspace changes the site)."""
        holder = staged_site.parent
        try:
            if self.manifest.head is not None:
                raise ProjectError(
                    "the project has versions: change its site through its workspace's edit"
                )
            with saving("the site"):
                self._swap_site(staged_site)
        finally:
            if holder.parent == self.root and holder.name.startswith(".staging-"):
                shutil.rmtree(holder, ignore_errors=True)

    def _swap_site(self, staged_site: Path) -> None:
        old = self.root / "site.old"
        shutil.rmtree(old, ignore_errors=True)
        if self.site_dir.exists():
            self.site_dir.rename(old)
        try:
            staged_site.rename(self.site_dir)
        except BaseException:
            if old.is_dir() and not self.site_dir.exists():
                old.rename(self.site_dir)
            raise
        shutil.rmtree(old, ignore_errors=True)

    def read_plan(self) -> DesignPlan:
        """The current plan; raises ProjectError if missing or invalid."""
        try:
            return DesignPlan.model_validate_json(self.plan_path.read_bytes())
        except FileNotFoundError:
            raise ProjectError(f"{self.root} has no plan.json yet") from None
        except (ValidationError, ValueError) as exc:
            raise ProjectError(f"{self.plan_path} is invalid: {first_line(exc)}") from None

    @_writes
    def write_plan(self, plan: DesignPlan) -> None:
        """Write ``plan.json`` atomically; raises ProjectError on a disk error."""
        with saving("the plan"):
            atomic.write_text(self.plan_path, plan.model_dump_json(indent=2) + "\n")

    def read_report(self) -> Report | None:
        """The latest report, or None if the project was never evaluated (or it is damaged)."""
        try:
            return Report.model_validate_json(self.report_path.read_bytes())
        except (FileNotFoundError, ValidationError, ValueError):
            return None

    @_writes
    def write_report(self, report: Report) -> None:
        """Write ``report.json`` atomically; raises ProjectError on a disk error."""
        with saving("the report"):
            atomic.write_text(self.report_path, report.model_dump_json(indent=2) + "\n")

    # -- versions --------------------------------------------------------------------------
    @_writes
    def commit(
        self,
        summary: str,
        *,
        job: str | None = None,
        element: str | None = None,
        level: str | None = None,
    ) -> Version:
        """Record the current plan, report and site as a version and make it the head (tagged
        with the job, element and level that made it); clears the redo stack. Raises
        ProjectError on a disk error (blobs already written stay, unreferenced; no row or head
        names a missing blob)."""
        with saving("the version"):
            self._finish_pending()
            tracked = [t for t in _TRACKED if (self.root / t).exists()]
            files = snapshot(self.root, self.objects, tracked)
            report = self.read_report()
            scores = report.scores.model_dump() if report else {}
            tags = {"job": job, "element": element, "level": level}
            version = new_version(files, self.manifest.head, summary, scores, **tags)
            self.history.add(version)
            self._save_head(version.id, [])
        return version

    @_writes
    def undo(self, proceed: Callable[[], bool] | None = None) -> Version:
        """Move the head to its parent (the site, plan and report follow); raises ProjectError
        when there is nothing to undo (``proceed``: see the module docstring)."""
        head = self.manifest.head
        try:
            parent = self.history.get(head).parent if head else None
        except KeyError:
            parent = None
        if not head or not parent:  # no head has no parent either
            raise ProjectError("nothing to undo: the current version is the first one")
        return self._checkout(parent, [*self.manifest.redo, head], proceed)

    @_writes
    def redo(self, proceed: Callable[[], bool] | None = None) -> Version:
        """Move the head forward to the version last undone; raises ProjectError when none."""
        if not self.manifest.redo:
            raise ProjectError("nothing to redo")
        *rest, target = self.manifest.redo
        return self._checkout(target, rest, proceed)

    @_writes
    def restore(self, version_id: str, proceed: Callable[[], bool] | None = None) -> Version:
        """Make version ``version_id`` (a unique prefix) current again, byte for byte; raises
        ProjectError for an unknown id, a missing/corrupted blob or a disk error (the project is
        unchanged). A restore starts a new branch: the redo stack is cleared."""
        return self._checkout(version_id, [], proceed)

    def _checkout(
        self, version_id: str, redo: list[str], proceed: Callable[[], bool] | None = None
    ) -> Version:
        """Put version ``version_id`` back (redo stack ``redo``), verified against its hashes:
        stage every file and the new manifest, then rename them in (module docstring)."""
        try:
            version = self.history.get(version_id)
            blobs = {path: self.objects.get(digest) for path, digest in version.files.items()}
        except (KeyError, FileNotFoundError, ValueError, sqlite3.Error) as exc:
            raise ProjectError(f"cannot restore {version_id}: {first_line(exc)}") from None
        with saving(f"version {version.id}"):
            self._finish_pending()
            staging = self.staging_dir()
            try:
                for path, data in blobs.items():
                    atomic.write_bytes(staging / path, data)
                self._verify(staging, version.files)
                if proceed is not None and not proceed():
                    raise Withdrawn(f"the checkout of {version.id} was called off")
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            remove = [name for name in _ROOT_FILES if name not in blobs]
            self._install_staged(staging, version.id, redo, remove)
        return version

    @_writes
    def commit_staged(
        self,
        staging: Path,
        summary: str,
        *,
        job: str | None = None,
        element: str | None = None,
        level: str | None = None,
        proceed: Callable[[], bool] | None = None,
    ) -> Version:
        """Install and commit, as ONE step, a change built in ``staging`` (a folder from
        :meth:`staging_dir` holding a complete ``site/`` and, where they change, ``plan.json``
        and ``report.json``): a crash or a full disk at any point leaves the old version (site,
        plan, report and head) or the new one, never a site without its version. ``staging`` is
        consumed. Raises ProjectError on a disk error."""
        with saving("the version"):
            try:
                self._finish_pending()
                for name in _ROOT_FILES:  # unchanged ones: the current file (a hard link)
                    if not (staging / name).exists() and (self.root / name).is_file():
                        atomic.link_or_copy(self.root / name, staging / name)
                tracked = [t for t in _TRACKED if (staging / t).exists()]
                files = snapshot(staging, self.objects, tracked)
                report = _read_report(staging / "report.json")
                scores = report.scores.model_dump() if report else {}
                tags = {"job": job, "element": element, "level": level}
                version = new_version(files, self.manifest.head, summary, scores, **tags)
                if proceed is not None and not proceed():
                    raise Withdrawn("the change was called off before it was recorded")
                self.history.add(version)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
            self._install_staged(staging, version.id, [], [])
        return version

    def _install_staged(self, staging: Path, head: str, redo: list[str], remove: list[str]) -> None:
        """Mark ``staging`` with the new manifest, write the manifest (the decision: before it
        the old version stands, after it only renames remain — finished here, or by the next
        open after a crash) and rename the staged files in; ``remove``: root files to delete."""
        manifest = self.manifest.model_copy(
            update={"head": head, "redo": redo, "updated_at": _now()}
        )
        try:
            marker = _Checkout(manifest=manifest, remove=remove)
            atomic.write_text(staging / CHECKOUT_MARKER, marker.model_dump_json())
            atomic.write_text(self.root / MANIFEST, manifest.model_dump_json(indent=2) + "\n")
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        self.manifest = manifest
        self._pending.append(staging)
        try:
            self._finish_pending()
        except OSError:  # a rename refused: try once more before giving up
            self._finish_pending()

    def _finish_pending(self) -> None:
        while self._pending:
            self._finish_checkout(self._pending[0], write_manifest=False)
            self._pending.pop(0)

    def _finish_checkout(self, staging: Path, *, write_manifest: bool = True) -> None:
        """Install a marked staging folder (idempotent: a step already done is skipped; a folder
        already finished and removed is nothing to do)."""
        try:
            marker = _Checkout.model_validate_json((staging / CHECKOUT_MARKER).read_bytes())
        except FileNotFoundError:
            return
        if write_manifest:
            text = marker.manifest.model_dump_json(indent=2) + "\n"
            atomic.write_text(self.root / MANIFEST, text)
            self.manifest = marker.manifest
        if (staging / "site").is_dir():
            self._swap_site(staging / "site")
        for name in _ROOT_FILES:
            if (staging / name).exists():
                os.replace(staging / name, self.root / name)
            elif name in marker.remove:
                (self.root / name).unlink(missing_ok=True)
        (staging / CHECKOUT_MARKER).unlink()
        shutil.rmtree(staging, ignore_errors=True)

    def _verify(self, staging: Path, files: dict[str, str]) -> None:
        """Raise ProjectError unless ``staging`` holds exactly ``files``."""
        found = {p.relative_to(staging).as_posix(): p for p in staging.rglob("*") if p.is_file()}
        bad = sorted(set(found) ^ set(files))
        bad += [p for p, d in files.items() if p in found and _sha256(found[p]) != d]
        if bad:
            raise ProjectError(f"restore did not reproduce {bad[0]}; the project is unchanged")

    def summary(self) -> ProjectSummary:
        """What the project is now: root, title, provider, head, site and report paths."""
        return ProjectSummary(
            project=str(self.root),
            title=self.manifest.title,
            provider=self.manifest.provider,
            head=self.manifest.head,
            site=str(self.site_dir / "index.html"),
            report=str(self.report_path) if self.report_path.exists() else None,
        )


@dataclass(frozen=True)
class ProjectSummary:
    """A project as :meth:`Project.summary` describes it: ``project`` its root folder,
    ``title``, ``provider`` (the designer's name), ``head`` (version id, None before the first
    commit), ``site`` the path of ``site/index.html``, ``report`` the path of ``report.json``
    (None when not evaluated)."""

    project: str
    title: str
    provider: str
    head: str | None
    site: str
    report: str | None

    def to_json(self) -> dict[str, Any]:
        """The JSON object (keys in the field order above)."""
        return {
            "project": self.project, "title": self.title, "provider": self.provider,
            "head": self.head, "site": self.site, "report": self.report,
        }  # fmt: skip


def _read_report(path: Path) -> Report | None:
    try:
        return Report.model_validate_json(path.read_bytes())
    except (FileNotFoundError, ValidationError, ValueError):
        return None


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()
