"""A project's consistency check: what the fault tests and the soak script assert after every
crash, disk error or cancellation.

A project is consistent when its manifest's head and redo stack name versions in the history,
every version's files are blobs present in ``objects/`` with the right SHA-256, every parent is
a known version, no staging folder, half-swapped ``site.old`` or atomic-write temp file is left
behind, and ``site/index.html`` exists. :func:`restore_problems` also restores versions and
compares every file byte for byte.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from mmstudio.project.store import _TRACKED, Project, ProjectError

LEFTOVER_GLOBS = (".staging-*", "site.old")


def working_files(project: Project) -> dict[str, str]:
    """Project-relative path → SHA-256 of the tracked files as they are now (plan, report,
    every file under ``site/``)."""
    files: dict[str, str] = {}
    for name in _TRACKED:
        top = project.root / name
        paths = sorted(p for p in top.rglob("*") if p.is_file()) if top.is_dir() else [top]
        for path in paths:
            if path.is_file():
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
                files[path.relative_to(project.root).as_posix()] = digest
    return files


def leftovers(root: Path) -> list[str]:
    """Staging folders, ``site.old`` and atomic-write temp files (``.<name>.*.tmp``) under the
    project folder ``root``, as project-relative paths (empty when clean)."""
    found = [p for pattern in LEFTOVER_GLOBS for p in root.glob(pattern)]
    found += [p for p in root.rglob(".*.tmp") if p.is_file()]
    return sorted(p.relative_to(root).as_posix() for p in found)


def consistency_problems(project: Project) -> list[str]:
    """One line per inconsistency of ``project`` (empty when consistent); reads only."""
    problems = [f"left behind: {name}" for name in leftovers(project.root)]
    versions = {v.id: v for v in project.history.list()}
    head = project.manifest.head
    if head is None and versions:
        problems.append("the manifest has no head but the history has versions")
    if head is not None and head not in versions:
        problems.append(f"the head {head} is not in the history")
    problems += [
        f"redo names unknown version {v}" for v in project.manifest.redo if v not in versions
    ]
    for version in versions.values():
        if version.parent is not None and version.parent not in versions:
            problems.append(f"version {version.id} has unknown parent {version.parent}")
        for path, digest in version.files.items():
            try:
                project.objects.get(digest)
            except (FileNotFoundError, ValueError) as exc:
                problems.append(f"version {version.id} {path}: {exc or 'missing object'}")
    if not (project.site_dir / "index.html").is_file():
        problems.append("site/index.html is missing")
    return problems


def restore_problems(project: Project, version_ids: list[str]) -> list[str]:
    """Restore each version of ``version_ids`` in turn and compare the tracked files with the
    version's map; one line per version that does not come back byte-identical. Changes the
    head (use a copy of the project when that matters)."""
    problems = []
    for version_id in version_ids:
        try:
            version = project.restore(version_id)
        except ProjectError as exc:
            problems.append(f"version {version_id} cannot be restored: {exc}")
            continue
        found = working_files(project)
        if found != version.files:
            differing = sorted(set(found.items()) ^ set(version.files.items()))
            problems.append(f"version {version_id} restores differently: {differing[0][0]}")
    return problems
