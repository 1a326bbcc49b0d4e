"""The session service the app uses: generate, evaluate, export and restore run as jobs."""

from __future__ import annotations

import pytest

from mmstudio.render import find_browser
from mmstudio.resources import resource
from mmstudio.studio.session import Session

PROMPT = resource("demo", "prompt.txt").read_text(encoding="utf-8")


async def test_generate_export_restore_as_jobs(tmp_path, monkeypatch):
    monkeypatch.setattr("mmstudio.studio.create.evaluate_first", _no_evaluation)
    session = Session()
    job = session.generate(tmp_path / "p", PROMPT)
    await session.jobs.wait(job.id)
    assert job.state == "done", job.error
    assert session.project is not None and session.project.manifest.head
    exported = session.export(tmp_path / "out")
    await session.jobs.wait(exported.id)
    assert exported.state == "done" and (tmp_path / "out" / "index.html").is_file()
    again = session.export(tmp_path / "out")
    await session.jobs.wait(again.id)
    assert again.state == "failed" and "--force" in again.error
    head = session.project.manifest.head
    restored = session.restore(head[:8])
    await session.jobs.wait(restored.id)
    assert restored.state == "done" and restored.result.id == head


async def test_closing_during_an_undo_keeps_the_lock_until_its_write_is_done(tmp_path, monkeypatch):
    """The undo writes in a worker thread: closing the project cancels the job, the write runs to
    its end, and the writer lock is let go only then."""
    import asyncio
    import time

    from mmstudio.project import Project
    from mmstudio.project import lock as project_lock

    project = Project.create(tmp_path / "p", prompt="x", provider="offline")
    project.site_dir.mkdir()
    for text in ("one", "two"):
        (project.site_dir / "index.html").write_text(f"<h1>{text}</h1>")
        project.commit(text)
    session = Session()
    session.open(project.root)
    real_undo = Project.undo
    monkeypatch.setattr(Project, "undo", lambda self, go: time.sleep(0.3) or real_undo(self, go))
    job = session.undo()
    await asyncio.sleep(0.05)
    session.close()
    assert project.root.resolve() in project_lock._held  # the undo's thread is still writing
    await session.jobs.wait(job.id)
    await asyncio.sleep(0.05)
    assert job.state == "cancelled" and project.root.resolve() not in project_lock._held
    reopened = Project.open(project.root)
    # the cancel landed before the undo was decided: it was called off, the head stayed
    assert reopened.manifest.head == reopened.history.list()[1].id


async def test_actions_need_an_open_project():
    with pytest.raises(ValueError, match="no project is open"):
        Session().evaluate()


@pytest.mark.skipif(find_browser().executable is None, reason="no Chromium for Playwright")
@pytest.mark.asyncio(loop_scope="session")
async def test_evaluate_job_writes_the_report(tmp_path, monkeypatch, renderer):
    monkeypatch.setattr("mmstudio.studio.create.evaluate_first", _no_evaluation)
    session = Session()
    await session.jobs.wait(session.generate(tmp_path / "p", PROMPT).id)
    assert session.project.read_report() is None
    job = session.evaluate()
    await session.jobs.wait(job.id)
    assert job.state == "done", job.error
    assert session.project.read_report().scores.overall is not None


async def _no_evaluation(page, plan, out_dir, brief):
    return None


@pytest.mark.skipif(find_browser().executable is None, reason="no Chromium for Playwright")
@pytest.mark.asyncio(loop_scope="session")
async def test_refine_all_flagged_fixes_the_flagged_element(tmp_path, renderer):
    session = Session()
    await session.jobs.wait(session.generate(tmp_path / "p", PROMPT).id)
    project = session.project
    chart = project.read_plan().charts[0].id
    index = project.site_dir / "index.html"
    html = index.read_text(encoding="utf-8")
    hidden = f'<style>[data-mm-id="{chart}"] {{ opacity: 0; }}</style></head>'
    index.write_text(html.replace("</head>", hidden, 1), encoding="utf-8")
    project.commit("hid the chart by hand")
    await session.jobs.wait(session.evaluate().id)
    assert any(i.code == "invisible-default" for i in project.read_report().issues_for(chart))
    assert session.toggle_flag(chart)
    outcomes = await session.refine_flagged()
    assert any(o.outcome == "accepted" for o in outcomes)
    assert not any(i.code == "invisible-default" for i in project.read_report().issues_for(chart))
