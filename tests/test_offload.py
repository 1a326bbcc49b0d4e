"""The desktop app's worker processes (issue 19): with the jobs' CPU-heavy steps offloaded
(:func:`mmstudio.threads.offload_to_processes`, as ``create_application`` does), a session makes
the same project as in threads, refines it, and a cancelled generate leaves nothing."""

from __future__ import annotations

import asyncio
import hashlib
from pathlib import Path

import pytest

from mmstudio.evaluate import core
from mmstudio.render import find_browser
from mmstudio.studio.session import Session
from mmstudio.threads import offload_to_processes, offloading, run_pure, stop_offloading

PROMPT = "A landing page for a small coffee roaster: a hero photo, a pour video and a price chart"

pytestmark = [
    pytest.mark.skipif(find_browser().executable is None, reason="no Chromium for Playwright"),
    pytest.mark.asyncio(loop_scope="session"),
]


def _files(site: Path) -> dict[str, str]:
    """path → sha256 of the site's files (videos left out: VP9's encoder threads make their
    bytes differ from run to run, in one process or another)."""
    return {
        p.relative_to(site).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(site.rglob("*"))
        if p.is_file() and p.suffix not in (".webm", ".mp4")
    }


async def _generate(root: Path) -> Session:
    session = Session()
    job = session.generate(root, PROMPT, rounds=0)
    await session.jobs.wait(job.id)
    assert job.state == "done", job.error
    return session


async def test_offloaded_generate_and_refine_match_the_threaded_ones(tmp_path, renderer):
    threaded = await _generate(tmp_path / "threaded")
    offload_to_processes(2)
    try:
        assert offloading()
        offloaded = await _generate(tmp_path / "offloaded")
        assert _files(offloaded.project.site_dir) == _files(threaded.project.site_dir)
        assert offloaded.project.read_report().scores.overall is not None
        outcomes = await offloaded.refine("local")
        assert all(o.outcome in ("accepted", "reverted", "skipped", "rejected") for o in outcomes)
    finally:
        stop_offloading()
        for session in (threaded, offloaded):
            session.close()


async def test_the_measured_checks_give_the_same_report_in_a_worker_process(
    tmp_path, renderer, cases
):
    """One render (two renders of a page may differ on a loaded machine), its report built
    here and in a worker process from the data the app sends."""
    site = cases / "good"
    brief = "A page titled “Good page” with a hero photo and a contact button"
    requirements, _ = await core.read_requirements(brief)
    render = await renderer.render(site, "index.html", 1280, tmp_path / "shots")
    here = core.build_report(render, None, set(), requirements)
    offload_to_processes(1)
    try:
        sent = core._sendable(render)
        assert isinstance(sent, dict)
        there = await run_pure(core._page_report, sent, site / "index.html", None, requirements)
    finally:
        stop_offloading()
    assert there == here
    assert here.requirements  # the brief's requirements were checked, in both


async def test_an_offloaded_generate_cancelled_midway_leaves_nothing(tmp_path, renderer):
    offload_to_processes(2)
    session = Session()
    try:
        job = session.generate(tmp_path / "p", PROMPT, rounds=0)
        while job.stage not in ("assets", "evaluate"):  # a worker process is painting / scoring
            assert job.state in ("queued", "running"), job
            await asyncio.sleep(0.01)
        session.jobs.cancel(job.id)
        await session.jobs.wait(job.id)
    finally:
        stop_offloading()
    assert job.state == "cancelled"
    assert not (tmp_path / "p").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # no building folder either
