"""A project folder on disk (the layout is DESIGN.md's contract):

```
<project>/mmstudio.json   manifest: format version, title, prompt, provider, head version id
<project>/plan.json       the current DesignPlan
<project>/site/           the current site (index.html, assets/, vendor/)
<project>/report.json     the latest Report
<project>/history.sqlite  versions
<project>/objects/        content-addressed blobs backing versions
```

Invariants: every file is written atomically; a new site is built in a staging folder beside
``site/`` and swapped in by two renames (``site`` → ``site.old``, staging → ``site``); opening a
project finishes or undoes a swap a crash interrupted, so ``site/`` is always a complete site.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import logging
import os
import shutil
import tempfile
from pathlib import Path

from pydantic import BaseModel, ValidationError

from mmstudio import __version__
from mmstudio.plan import DesignPlan
from mmstudio.project import atomic
from mmstudio.project.versions import History, ObjectStore, Version, new_version, snapshot
from mmstudio.report import Report

log = logging.getLogger(__name__)

MANIFEST = "mmstudio.json"
_TRACKED = ["plan.json", "report.json", "site"]


class ProjectError(Exception):
    """A project cannot be created, opened or changed; the message is one line for the user."""


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
        root.mkdir(parents=True, exist_ok=True)
        now = _now()
        manifest = Manifest(
            title=title, prompt=prompt, provider=provider, created_at=now, updated_at=now
        )
        project = cls(root, manifest)
        project.save_manifest()
        return project

    @classmethod
    def open(cls, root: Path) -> Project:
        """Open the project at ``root``, repairing an interrupted site swap; raises ProjectError."""
        root = root.expanduser().absolute()
        path = root / MANIFEST
        if not path.is_file():
            raise ProjectError(f"{root} is not an MM Studio project (no {MANIFEST})")
        try:
            manifest = Manifest.model_validate_json(path.read_bytes())
        except (ValidationError, ValueError) as exc:
            raise ProjectError(f"{path} is damaged: {_first_line(exc)}") from None
        project = cls(root, manifest)
        project._recover()
        return project

    def _recover(self) -> None:
        old = self.root / "site.old"
        if old.is_dir() and not self.site_dir.exists():
            log.warning("restoring %s after an interrupted site swap", self.site_dir)
            old.rename(self.site_dir)
        shutil.rmtree(old, ignore_errors=True)
        for staging in self.root.glob(".staging-*"):
            shutil.rmtree(staging, ignore_errors=True)

    def save_manifest(self) -> None:
        self.manifest.updated_at = _now()
        atomic.write_text(self.root / MANIFEST, self.manifest.model_dump_json(indent=2) + "\n")

    # -- content ---------------------------------------------------------------------------
    def staging_dir(self) -> Path:
        """A fresh folder inside the project to build a site in before :meth:`install_site`."""
        return Path(tempfile.mkdtemp(prefix=".staging-", dir=self.root))

    def install_site(self, staged_site: Path) -> None:
        """Make ``staged_site`` the project's ``site/`` (two renames; see the module docstring)."""
        old = self.root / "site.old"
        shutil.rmtree(old, ignore_errors=True)
        if self.site_dir.exists():
            self.site_dir.rename(old)
        staged_site.rename(self.site_dir)
        shutil.rmtree(old, ignore_errors=True)
        holder = staged_site.parent
        if holder.parent == self.root and holder.name.startswith(".staging-"):
            shutil.rmtree(holder, ignore_errors=True)

    def read_plan(self) -> DesignPlan:
        """The current plan; raises ProjectError if missing or invalid."""
        try:
            return DesignPlan.model_validate_json(self.plan_path.read_bytes())
        except FileNotFoundError:
            raise ProjectError(f"{self.root} has no plan.json yet") from None
        except (ValidationError, ValueError) as exc:
            raise ProjectError(f"{self.plan_path} is invalid: {_first_line(exc)}") from None

    def write_plan(self, plan: DesignPlan) -> None:
        atomic.write_text(self.plan_path, plan.model_dump_json(indent=2) + "\n")

    def read_report(self) -> Report | None:
        """The latest report, or None if the project was never evaluated (or it is damaged)."""
        try:
            return Report.model_validate_json(self.report_path.read_bytes())
        except (FileNotFoundError, ValidationError, ValueError):
            return None

    def write_report(self, report: Report) -> None:
        atomic.write_text(self.report_path, report.model_dump_json(indent=2) + "\n")

    # -- versions --------------------------------------------------------------------------
    def commit(
        self,
        summary: str,
        *,
        job: str | None = None,
        element: str | None = None,
        level: str | None = None,
    ) -> Version:
        """Record the current plan, report and site as a version and make it the head (tagged
        with the job, element and level that made it); clears the redo stack."""
        files = snapshot(self.root, self.objects, [t for t in _TRACKED if (self.root / t).exists()])
        report = self.read_report()
        scores = report.scores.model_dump() if report else {}
        tags = {"job": job, "element": element, "level": level}
        version = new_version(files, self.manifest.head, summary, scores, **tags)
        self.history.add(version)
        self.manifest.head = version.id
        self.manifest.redo = []
        self.save_manifest()
        return version

    def undo(self) -> Version:
        """Move the head to its parent (the site, plan and report follow); raises ProjectError
        when there is nothing to undo."""
        head = self.manifest.head
        try:
            parent = self.history.get(head).parent if head else None
        except KeyError:
            parent = None
        if not parent:
            raise ProjectError("nothing to undo: the current version is the first one")
        version = self._checkout(parent)
        self.manifest.redo = [*self.manifest.redo, head]
        self.save_manifest()
        return version

    def redo(self) -> Version:
        """Move the head forward to the version last undone; raises ProjectError when none."""
        if not self.manifest.redo:
            raise ProjectError("nothing to redo")
        *rest, target = self.manifest.redo
        version = self._checkout(target)
        self.manifest.redo = rest
        self.save_manifest()
        return version

    def restore(self, version_id: str) -> Version:
        """Make version ``version_id`` (a unique prefix) current again, byte for byte; raises
        ProjectError for an unknown id or a missing/corrupted blob (the project is unchanged).
        A restore starts a new branch: the redo stack is cleared."""
        version = self._checkout(version_id)
        self.manifest.redo = []
        self.save_manifest()
        return version

    def _checkout(self, version_id: str) -> Version:
        """Put version ``version_id`` back and verify every restored file against its hash."""
        try:
            version = self.history.get(version_id)
            blobs = {path: self.objects.get(digest) for path, digest in version.files.items()}
        except (KeyError, FileNotFoundError, ValueError) as exc:
            raise ProjectError(f"cannot restore {version_id}: {_first_line(exc)}") from None
        staging = self.staging_dir()
        for path, data in blobs.items():
            if path.startswith("site/"):
                atomic.write_bytes(staging / path, data)
        self._verify(staging, {p: d for p, d in version.files.items() if p.startswith("site/")})
        self.install_site(staging / "site")
        for name in ("plan.json", "report.json"):
            if name in blobs:
                atomic.write_bytes(self.root / name, blobs[name])
            else:
                (self.root / name).unlink(missing_ok=True)
        self.manifest.head = version.id
        self.save_manifest()
        return version

    def _verify(self, staging: Path, files: dict[str, str]) -> None:
        """Raise ProjectError (removing ``staging``) unless ``staging`` holds exactly ``files``."""
        found = {p.relative_to(staging).as_posix(): p for p in staging.rglob("*") if p.is_file()}
        bad = sorted(set(found) ^ set(files))
        bad += [p for p, d in files.items() if p in found and _sha256(found[p]) != d]
        if bad:
            shutil.rmtree(staging, ignore_errors=True)
            raise ProjectError(f"restore did not reproduce {bad[0]}; the project is unchanged")

    def summary(self) -> dict:
        """A JSON-ready description: root, title, provider, head, site and report paths."""
        return {
            "project": str(self.root),
            "title": self.manifest.title,
            "provider": self.manifest.provider,
            "head": self.manifest.head,
            "site": str(self.site_dir / "index.html"),
            "report": str(self.report_path) if self.report_path.exists() else None,
        }


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _first_line(exc: BaseException) -> str:
    if isinstance(exc, ValidationError) and exc.errors():
        # "where: what", never pydantic's echo of the (possibly huge) input or its help URL
        first = exc.errors(include_url=False, include_input=False)[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}" if where else first["msg"]
    text = str(exc.args[0] if isinstance(exc, KeyError) and exc.args else exc)
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__
