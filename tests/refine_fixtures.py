"""Helpers shared by the refine and history tests: a project made from a site folder, its files."""

from __future__ import annotations

import asyncio
import io
import random
import shutil
from pathlib import Path

import pytest

from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.refine import html_edit
from mmstudio.render import find_browser
from mmstudio.report import ElementScore, Issue, Report, Scores

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


# -- a grid page and its fake evaluation (refine, history, fault and kill tests; the soak) -------

N_ELEMENTS = 20


def grid_site(
    folder: Path, n: int = N_ELEMENTS, *, title: str = "", real_images: bool = False
) -> Path:
    """A page with ``n`` 800×400 images each squeezed into a 200×200 slot (stretched): the
    images are stand-in bytes, or real PNGs with ``real_images``; ``title`` adds an ``<h1>``."""
    (folder / "assets").mkdir(parents=True)
    cells = []
    for i in range(n):
        (folder / "assets" / f"e{i}.png").write_bytes(_png(i) if real_images else b"image %d" % i)
        cells.append(
            f'<img data-mm-id="e{i}" src="assets/e{i}.png" width="200" height="200" alt="">'
        )
    heading = f"<h1>{title}</h1>" if title else ""
    body = heading + '<section data-mm-section="grid">' + "\n".join(cells) + "</section>"
    html = f"<!doctype html><html><head><title>g</title></head><body>{body}</body></html>"
    (folder / "index.html").write_text(html)
    return folder


def _png(i: int) -> bytes:
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (800, 400), (40 + 20 * i % 200, 90, 160)).save(buffer, "PNG")
    return buffer.getvalue()


def fake_report(html: str) -> Report:
    """A report of ``html``: element ``e<i>`` is stretched until its patch block exists, and the
    page has a contrast issue until the page block exists. Score: 1 − 0.01 per issue."""
    n = html.count('<img data-mm-id="e')
    fixed = {i for i in range(n) if html_edit.patch_css(html, f"e{i}")}
    issues = [
        Issue(
            id=f"s{i}",
            element=f"e{i}",
            dimension="image",
            level="context",
            code="stretched",
            message="stretched",
            evidence={"slot_px": [200, 200], "asset_px": [800, 400]},
        )
        for i in range(n)
        if i not in fixed
    ]
    if not html_edit.patch_css(html, "page"):
        issues.append(
            Issue(
                id="c",
                element=None,
                dimension="style",
                level="global",
                code="low-contrast",
                message="pale",
                evidence={"selector": "h1", "background": "#ffffff", "needed": 4.5},
            )
        )
    elements = [
        ElementScore(
            id=f"e{i}", kind="image", path=f"assets/e{i}.png", score=1.0 if i in fixed else 0.8
        )
        for i in range(n)
    ]
    overall = round(1 - 0.01 * len(issues), 4)
    return Report(scores=Scores(image=overall, overall=overall), elements=elements, issues=issues)


async def fake_evaluator(page: Path, plan, out_dir: Path, max_s: float = 0.02) -> Report:
    """The refiners' evaluator: a random 0–``max_s`` s "render" (jobs interleave), then
    :func:`fake_report` of the page."""
    await asyncio.sleep(random.uniform(0, max_s))
    return fake_report(page.read_text(encoding="utf-8"))
