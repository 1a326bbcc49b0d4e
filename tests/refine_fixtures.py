"""Helpers shared by the refine and history tests: a project made from a site folder, its files."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.render import find_browser

requires_browser = pytest.mark.skipif(
    find_browser().executable is None,
    reason=f"no Chromium for Playwright: {find_browser().problem}",
)


def project_from(folder: Path, root: Path, plan: DesignPlan | None = None) -> Project:
    """A project whose site is a copy of ``folder`` (and whose plan is ``plan``)."""
    project = Project.create(root, prompt="test", provider="offline", title="T")
    staged = project.staging_dir() / "site"
    shutil.copytree(folder, staged)
    project.install_site(staged)
    if plan is not None:
        project.write_plan(plan)
    return project


def site_files(project: Project) -> dict[str, bytes]:
    """Site-relative path → bytes of every file of the project's site."""
    return {
        p.relative_to(project.site_dir).as_posix(): p.read_bytes()
        for p in project.site_dir.rglob("*")
        if p.is_file()
    }
