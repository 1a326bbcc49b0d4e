"""Versions under refinement: concurrent patches (none lost, history consistent), a SIGKILL in the
middle of a refine (project opens, last version restores byte-identical), storage of 200 versions
with a 10 MB video, undo / redo, and the ``refine`` / ``undo`` / ``redo`` commands."""

from __future__ import annotations

import asyncio
import hashlib
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from refine_fixtures import (
    N_ELEMENTS,
    fake_evaluator,
    fake_report,
    grid_site,
    project_from,
    site_files,
)

from mmstudio.cli import main
from mmstudio.project import Project, ProjectError
from mmstudio.refine import html_edit
from mmstudio.report import Report
from mmstudio.studio.refining import RefineService

#: the slow layer: the CLI end to end in subprocesses (see tests/conftest.py)
pytestmark = pytest.mark.slow


async def test_concurrent_context_refines_and_a_global_one_lose_nothing(tmp_path):
    project = project_from(grid_site(tmp_path / "site"), tmp_path / "p")
    service = RefineService(project, evaluator=fake_evaluator)
    report = await service.evaluate()
    project.commit("start")
    from mmstudio.refine import route

    targets = route(report)
    assert len(targets) == N_ELEMENTS + 1
    jobs = [service.submit(t, report) for t in targets]  # all started together
    await service.jobs.wait_all()
    assert [j.state for j in jobs] == ["done"] * len(jobs)
    assert [[o.outcome for o in j.result] for j in jobs] == [["accepted"]] * len(jobs)
    html = (project.site_dir / "index.html").read_text()
    for i in range(N_ELEMENTS):
        assert html_edit.patch_css(html, f"e{i}").startswith(f'[data-mm-id="e{i}"]')
    assert html_edit.patch_css(html, "page")
    versions = project.history.list()
    assert len(versions) == 1 + len(jobs)
    for parent, child in itertools.pairwise(versions):
        assert child.parent == parent.id  # one linear chain, every commit on the latest
    assert versions[-1].id == project.manifest.head
    head_html = project.objects.get(versions[-1].files["site/index.html"]).decode()
    assert head_html == html
    assert {v.element for v in versions[1:]} == {f"e{i}" for i in range(N_ELEMENTS)} | {None}
    assert len([a for a in project.history.attempts() if a.outcome == "accepted"]) == len(jobs)


CHILD = textwrap.dedent(
    """
    import asyncio, os, sys
    from pathlib import Path
    from mmstudio.project import Project
    from mmstudio.refine import Change, html_edit
    from mmstudio.report import Report, Issue, Scores
    from mmstudio.studio.refining import RefineService

    async def accept(page, plan, out_dir):
        return Report(scores=Scores(overall=1.0))

    async def main():
        project = Project.open(Path(sys.argv[1]))
        service = RefineService(project, evaluator=accept)
        base = Report(scores=Scores(overall=0.5), issues=[
            Issue(id="1", element="e0", dimension="image", level="local", code="x", message="m")])
        for n in range(100000):
            css = f'[data-mm-id="e0"]{{outline:{n}px solid red}}'
            change = Change("local", "e0", ["x"], f"step {n}",
                            page=lambda h, css=css: html_edit.set_patch_block(h, "e0", css),
                            files={"assets/big.bin": os.urandom(3_000_000)})
            await service.editor.attempt(change, base)
            print(n, flush=True)

    asyncio.run(main())
    """
)


def test_sigkill_mid_refine_leaves_a_restorable_project(tmp_path):
    project = project_from(grid_site(tmp_path / "site", 2), tmp_path / "p")
    project.commit("start")
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(project.root)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[1])},
    )
    assert child.stdout.readline()  # at least one refine committed
    time.sleep(random.uniform(0.2, 0.6))
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert child.returncode == -signal.SIGKILL
    reopened = Project.open(project.root)
    assert not list(reopened.root.glob(".staging-*"))
    versions = reopened.history.list()
    assert len(versions) >= 2
    for version in (versions[-1], reopened.history.get(reopened.manifest.head)):
        reopened.restore(version.id)
        site = {f"site/{p}": data for p, data in site_files(reopened).items()}
        expected = {p: d for p, d in version.files.items() if p.startswith("site/")}
        assert {p: hashlib.sha256(b).hexdigest() for p, b in site.items()} == expected


def test_200_versions_of_a_10mb_video_take_one_copy(tmp_path):
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "assets" / "clip.webm").write_bytes(os.urandom(10_000_000))
    (site / "index.html").write_text('<video data-mm-id="v" src="assets/clip.webm"></video>')
    project = project_from(site, tmp_path / "p")
    for n in range(200):
        page = project.site_dir / "index.html"
        page.write_text(html_edit.set_patch_block(page.read_text(), "v", f"video{{margin:{n}px}}"))
        project.commit(f"step {n}", job=f"job-{n}", element="v", level="context")
    used = sum(p.stat().st_size for p in (project.root / "objects").rglob("*") if p.is_file())
    assert len(project.history.list()) == 200
    assert used <= 1.5 * 10_000_000, used
    assert project.history.list()[-1].level == "context"


def test_undo_and_redo_move_the_head(tmp_path):
    project = project_from(grid_site(tmp_path / "site", 1), tmp_path / "p")
    first = project.commit("first")
    page = project.site_dir / "index.html"
    page.write_text(page.read_text() + "<!-- two -->")
    second = project.commit("second")
    assert project.undo().id == first.id and "two" not in page.read_text()
    with pytest.raises(ProjectError, match="nothing to undo"):
        project.undo()
    assert project.redo().id == second.id and "two" in page.read_text()
    with pytest.raises(ProjectError, match="nothing to redo"):
        project.redo()
    project.undo()
    project.commit("branch")  # a new commit clears the redo stack
    with pytest.raises(ProjectError, match="nothing to redo"):
        Project.open(project.root).redo()


def test_cli_refine_undo_redo(tmp_path, capsys, monkeypatch):
    project = project_from(grid_site(tmp_path / "site", 2), tmp_path / "p")
    project.write_report(fake_report((project.site_dir / "index.html").read_text()))
    project.commit("start")
    monkeypatch.setattr("mmstudio.refine.apply.render_and_score", fake_evaluator)
    monkeypatch.setattr("mmstudio.studio.evaluation.close_renderer", _no_close)
    args = ["refine", str(project.root), "--element", "e1", "--level", "context", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert [(o["element"], o["outcome"]) for o in out["outcomes"]] == [("e1", "accepted")]
    assert main(["undo", str(project.root), "--json"]) == 0
    assert "e1" not in (project.site_dir / "index.html").read_text().split("<body>")[0]
    assert main(["redo", str(project.root)]) == 0
    assert main(["redo", str(project.root)]) == 1
    assert "nothing to redo" in capsys.readouterr().err
    assert main(["refine", str(project.root), "--element", "nope", "--level", "local"]) == 1


async def _no_close() -> None:
    return None


async def test_cancelled_refine_leaves_no_partial_file(tmp_path):
    project = project_from(grid_site(tmp_path / "site", 2), tmp_path / "p")
    started = asyncio.Event()

    async def slow(page: Path, plan, out_dir: Path) -> Report:
        if "data-mm-patch" in page.read_text():
            started.set()
            await asyncio.sleep(3600)
        return fake_report(page.read_text())

    service = RefineService(project, evaluator=slow)
    report = await service.evaluate()
    project.commit("start")
    before = site_files(project)
    from mmstudio.refine import route

    job = service.submit(route(report, level="context")[0], report)
    await asyncio.wait_for(started.wait(), 5)
    assert list(project.root.glob(".staging-trial-*"))
    service.jobs.cancel(job.id)
    await service.jobs.wait(job.id)
    assert job.state == "cancelled"
    assert not list(project.root.glob(".staging-*"))
    assert site_files(project) == before and len(project.history.list()) == 1
