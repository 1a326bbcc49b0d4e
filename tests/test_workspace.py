"""The edit transaction (:mod:`mmstudio.project.workspace`): one Workspace's locks per resolved
folder, drafts that leave nothing behind when they fail or are cancelled, commits that never
overwrite a change they did not see — and a feedback turn cancelled at each of its stages, then
another turn committed: the site is exactly the one the second turn alone makes (issue 19,
finding 1: a cancelled turn's patch resurfaced in the next turn's version); the same for a refine
job."""

from __future__ import annotations

import asyncio
import shutil
import threading
import time
from pathlib import Path

import pytest
from refine_fixtures import fake_evaluator, fake_report, grid_site, project_from
from test_feedback_turns import PAGE, install_page, needs_browser

import mmstudio.project.store as store
from mmstudio.feedback import FeedbackTurn, Ledger
from mmstudio.project import Project, ProjectError
from mmstudio.project.check import consistency_problems, leftovers, working_files
from mmstudio.project.versions import History
from mmstudio.project.workspace import RebaseError, Workspace, locks_for
from mmstudio.refine import SiteEditor, route
from mmstudio.studio.refining import RefineService


def _site_project(root: Path, page: str = "<h1>one</h1><p>two</p>") -> Project:
    project = Project.create(root, prompt="p", provider="offline", title="T")
    site = project.staging_dir() / "site"
    site.mkdir()
    (site / "index.html").write_text(page)
    project.install_site(site)
    project.write_report(fake_report(page))
    project.commit("first")
    return project


def _state(project: Project) -> tuple[str | None, dict[str, str], int, int]:
    """Head, tracked files, versions and attempts: what a discarded draft must not change."""
    project = Project.open(project.root)
    return (
        project.manifest.head,
        working_files(project),
        len(project.history.list()),
        len(project.history.attempts()),
    )


async def _scored(page: Path, plan, out_dir: Path):
    return fake_report(page.read_text())


# -- locks ------------------------------------------------------------------------------------
def test_every_path_to_a_project_shares_its_locks(tmp_path):
    project = _site_project(tmp_path / "real")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    other = Project.open(tmp_path / "link")
    assert locks_for(tmp_path / "link") is locks_for(tmp_path / "real")
    assert other._writing is project._writing  # the thread lock: once keyed by the raw path
    assert Workspace.of(other).locks is Workspace.of(project).locks
    assert Workspace.of(project) is Workspace.of(project)


async def test_drafts_of_two_loops_each_get_their_loop_s_lock(tmp_path):
    """An asyncio lock belongs to one loop: a second loop (a thread's) gets its own."""
    project = _site_project(tmp_path / "p")
    locks = Workspace.of(project).locks
    here = locks.edit()
    there = await asyncio.to_thread(lambda: asyncio.run(_edit_lock(locks)))
    assert here is locks.edit() and there is not here


async def _edit_lock(locks):
    return locks.edit()


# -- a draft that ends without a commit -------------------------------------------------------
async def test_a_failed_draft_leaves_nothing(tmp_path):
    project = _site_project(tmp_path / "p")
    before = _state(project)
    with pytest.raises(RuntimeError, match="refiner broke"):
        async with Workspace.of(project).edit("j1") as draft:
            draft.write_text("index.html", "<h1>changed</h1>")
            draft.write_bytes("assets/new.png", b"png")
            await draft.verify(_scored)
            raise RuntimeError("refiner broke")
    assert _state(project) == before and leftovers(project.root) == []
    assert (project.site_dir / "index.html").read_text() == "<h1>one</h1><p>two</p>"


async def test_a_cancelled_draft_leaves_nothing(tmp_path):
    project = _site_project(tmp_path / "p")
    before = _state(project)
    verifying = asyncio.Event()

    async def slow(page: Path, plan, out_dir: Path):
        verifying.set()
        await asyncio.sleep(3600)

    async def edit() -> None:
        async with Workspace.of(project).edit() as draft:
            draft.write_text("index.html", "<h1>changed</h1>")
            await draft.verify(slow)
            await draft.commit("never")

    task = asyncio.ensure_future(edit())
    await asyncio.wait_for(verifying.wait(), 5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _state(project) == before and leftovers(project.root) == []


async def test_a_draft_writes_only_inside_its_site(tmp_path):
    project = _site_project(tmp_path / "p")
    (project.site_dir / "out").symlink_to(tmp_path)
    project.commit("with a link out")
    async with Workspace.of(project).edit() as draft:
        for path in ("../mmstudio.json", "/etc/x", "out/x.png"):
            with pytest.raises(ProjectError, match="outside the site"):
                draft.write_bytes(path, b"x")
    assert not (tmp_path / "x.png").exists()


async def test_a_committed_draft_cannot_be_committed_again(tmp_path):
    project = _site_project(tmp_path / "p")
    async with Workspace.of(project).edit("j7") as draft:
        draft.write_text("index.html", "<h1>new</h1>")
        await draft.verify(_scored)
        version = await draft.commit("new page", element="e1", level="local")
        with pytest.raises(ProjectError, match="already committed"):
            await draft.commit("again")
    assert Project.open(project.root).manifest.head == version.id
    assert (version.job, version.element, version.level) == ("j7", "e1", "local")
    assert (project.site_dir / "index.html").read_text() == "<h1>new</h1>"
    assert consistency_problems(Project.open(project.root)) == []


# -- concurrent drafts ------------------------------------------------------------------------
async def test_a_draft_never_overwrites_a_change_it_did_not_see(tmp_path):
    project = _site_project(tmp_path / "p")
    workspace = Workspace.of(project)
    before = _state(project)
    async with workspace.edit() as late, workspace.edit() as early:
        early.write_text("index.html", "<h1>one</h1><p>EARLY</p>")
        await early.commit("early")
        late.write_text("index.html", "<h1>LATE</h1><p>two</p>")
        with pytest.raises(ProjectError, match="changed while"):
            await late.commit("late")
    assert (project.site_dir / "index.html").read_text() == "<h1>one</h1><p>EARLY</p>"
    assert _state(project)[2] == before[2] + 1 and leftovers(project.root) == []


async def test_a_rebased_draft_composes_with_the_change_before_it(tmp_path):
    project = _site_project(tmp_path / "p")
    workspace = Workspace.of(project)
    async with workspace.edit() as late, workspace.edit() as early:
        early.write_text("index.html", "<h1>one</h1><p>EARLY</p>")
        early.write_bytes("assets/a.png", b"a")
        await early.commit("early")
        late.write_text("index.html", "<h1>LATE</h1><p>two</p>")
        late.write_bytes("assets/b.png", b"b")
        await late.commit("late", rebase=lambda page: page.replace("<h1>one", "<h1>LATE"))
    assert (project.site_dir / "index.html").read_text() == "<h1>LATE</h1><p>EARLY</p>"
    assert (project.site_dir / "assets" / "a.png").read_bytes() == b"a"
    assert (project.site_dir / "assets" / "b.png").read_bytes() == b"b"
    assert consistency_problems(Project.open(project.root)) == []


async def test_a_rebase_that_no_longer_applies_saves_nothing(tmp_path):
    project = _site_project(tmp_path / "p")
    workspace = Workspace.of(project)

    def refuse(page: str) -> str:
        raise RebaseError("the patch no longer applies to the latest page: gone")

    async with workspace.edit() as late, workspace.edit() as early:
        early.write_text("index.html", "<h1>EARLY</h1>")
        await early.commit("early")
        after_early = _state(project)
        late.write_text("index.html", "<h1>LATE</h1>")
        with pytest.raises(RebaseError):
            await late.commit("late", rebase=refuse)
    assert _state(project) == after_early and leftovers(project.root) == []


async def test_a_head_moved_by_a_new_report_only_is_no_conflict(tmp_path):
    project = _site_project(tmp_path / "p")
    workspace = Workspace.of(project)
    async with workspace.edit() as draft:
        draft.write_text("index.html", "<h1>mine</h1>")
        report = fake_report("<h1>one</h1><p>two</p><img>")
        report.scores.overall = 0.123
        await workspace.write_report(report)
        await workspace.commit_current("re-evaluated")
        await draft.commit("mine")
    assert (project.site_dir / "index.html").read_text() == "<h1>mine</h1>"
    assert Project.open(project.root).read_report().scores.overall == 0.123


# -- checkouts --------------------------------------------------------------------------------
async def test_a_checkout_cancelled_before_its_decision_changes_nothing(tmp_path, monkeypatch):
    project = _site_project(tmp_path / "p")
    async with Workspace.of(project).edit() as draft:
        draft.write_text("index.html", "<h1>second</h1>")
        await draft.commit("second")
    before = _state(project)
    staging = threading.Event()
    real = Project._verify

    def slow_verify(self, *args):
        staging.set()
        time.sleep(0.3)
        return real(self, *args)

    monkeypatch.setattr(Project, "_verify", slow_verify)
    task = asyncio.ensure_future(Workspace.of(project).undo())
    while not staging.is_set():
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert _state(project) == before and leftovers(project.root) == []
    monkeypatch.undo()
    await Workspace.of(project).undo()
    assert (project.site_dir / "index.html").read_text() == "<h1>one</h1><p>two</p>"


# -- a feedback turn cancelled at each stage, then another turn -------------------------------
FIRST = "make the story title #1e3a5f"  # the turn that is cancelled
SECOND = "change 'Our Story' to 'How We Roast'"  # the turn committed after it


class _Gate:
    """Blocks a turn at one stage until the test has cancelled it."""

    def __init__(self) -> None:
        self.reached = threading.Event()  # set from the loop or a worker thread
        self.release = threading.Event()

    async def hold(self) -> None:
        self.reached.set()
        await asyncio.sleep(3600)  # the cancellation ends it

    def hold_thread(self) -> None:
        self.reached.set()
        self.release.wait(10)


def _turn(project: Project, gate: _Gate | None, stage: str | None) -> FeedbackTurn:
    from mmstudio.feedback.turn import default_render

    async def render(site: Path, width: int, out_dir: Path):
        if gate is not None and stage == "before trial" and out_dir.name.endswith("-before"):
            await gate.hold()
        if gate is not None and stage == "critic" and out_dir.name.endswith("-trial"):
            await gate.hold()
        return await default_render(site, width, out_dir)

    turn = FeedbackTurn(project, render=render)

    async def score(page: Path, plan, out_dir: Path):
        if gate is not None and stage == "verify":
            await gate.hold()
        return fake_report(page.read_text())

    turn._score = score  # the final page's evaluation (fast and deterministic here)
    return turn


def _site(project: Project) -> dict[str, bytes]:
    return {
        p.relative_to(project.site_dir).as_posix(): p.read_bytes()
        for p in project.site_dir.rglob("*")
        if p.is_file()
    }


@needs_browser
@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize(
    "stage", ["before trial", "critic", "verify", "commit", "after the decision"]
)
async def test_a_cancelled_turn_never_resurfaces(renderer, tmp_path, monkeypatch, stage):
    base = Project.create(tmp_path / "base", prompt="coffee", provider="offline", title="C")
    install_page(base, PAGE)
    shutil.copytree(base.root, tmp_path / "expected")
    shutil.copytree(base.root, tmp_path / "p")
    project = Project.open(tmp_path / "p")
    before = _state(project)

    gate = _Gate()
    if stage in ("commit", "after the decision"):  # inside the commit's worker thread
        target, name = (store, "snapshot") if stage == "commit" else (History, "add")
        real = getattr(target, name)

        def gated(*args, **kwargs):
            gate.hold_thread()
            return real(*args, **kwargs)

        monkeypatch.setattr(target, name, gated)
    task = asyncio.ensure_future(_turn(project, gate, stage).run(FIRST))
    while not gate.reached.is_set():
        assert not task.done(), task.exception()
        await asyncio.sleep(0.01)
    task.cancel()
    gate.release.set()
    with pytest.raises(asyncio.CancelledError):
        await task
    monkeypatch.undo()
    ledger = Ledger(project.root / "history.sqlite")
    assert leftovers(project.root) == []
    if stage == "after the decision":  # too late to call off: a whole turn with its rows
        assert len(ledger.turns()) == 1 and ledger.turns()[0].version == project.manifest.head
        assert "#1e3a5f" in (project.site_dir / "index.html").read_text()
        return
    assert _state(project) == before  # head, files, versions, attempts
    assert ledger.turns() == [] and ledger.requirements() == []
    assert ledger.latest_verdicts() == {}

    result = await _turn(project, None, None).run(SECOND)
    expected = Project.open(tmp_path / "expected")
    await _turn(expected, None, None).run(SECOND)
    assert _site(project) == _site(expected)  # byte for byte: nothing of the first turn
    assert result.version == project.manifest.head
    assert "#1e3a5f" not in (project.site_dir / "index.html").read_text()
    assert "How We Roast" in (project.site_dir / "index.html").read_text()
    assert [t.text for t in ledger.turns()] == [SECOND]
    assert consistency_problems(Project.open(project.root)) == []


# -- a refine job cancelled at each stage, then another refine --------------------------------
_REFINE_STAGES = ["queued", "trial", "verify", "commit", "after the decision"]


@pytest.mark.parametrize("stage", _REFINE_STAGES)
async def test_a_cancelled_refine_never_resurfaces(tmp_path, monkeypatch, stage):
    """Cancelled while queued (before it starts), applying its patch in the trial copy, while
    its trial is scored, while the commit stores it, or once the commit has decided (too late:
    the version is made whole, then the job ends cancelled); then an e1 refine: the site is
    byte for byte the one of the same refines without the cancelled one (or with it, whole,
    after the decision)."""
    base = project_from(grid_site(tmp_path / "site", 3), tmp_path / "base")
    base.write_report(fake_report((base.site_dir / "index.html").read_text()))
    base.commit("start")
    shutil.copytree(base.root, tmp_path / "expected")
    shutil.copytree(base.root, tmp_path / "p")
    project = Project.open(tmp_path / "p")
    before = _state(project)
    gate = _Gate()

    async def gated_evaluator(page: Path, plan, out_dir: Path):
        if stage == "verify":
            await gate.hold()
        return await fake_evaluator(page, plan, out_dir)

    threaded = {"trial": (SiteEditor, "_prepare"), "commit": (store, "snapshot"),
                "after the decision": (History, "add")}  # fmt: skip
    if stage in threaded:  # in a worker thread: applying the change, storing it, recording it
        target, name = threaded[stage]
        real = getattr(target, name)

        def gated(*args, **kwargs):
            gate.hold_thread()
            return real(*args, **kwargs)

        monkeypatch.setattr(target, name, gated)
    service = RefineService(project, evaluator=gated_evaluator)
    report = project.read_report()
    job = service.submit(route(report, level="context", element="e0")[0], report)
    if stage == "queued":
        assert job.state == "queued"  # submitted, not yet started by the loop
    else:
        while not gate.reached.is_set():
            assert job.state in ("queued", "running"), job
            await asyncio.sleep(0.005)
    service.jobs.cancel(job.id)
    gate.release.set()
    await service.jobs.wait(job.id)
    monkeypatch.undo()
    assert job.state == "cancelled"
    assert leftovers(project.root) == []
    if stage == "after the decision":  # the commit and its rows finished together
        made = Project.open(project.root)
        assert made.manifest.head != before[0]
        assert "e0" in {v.element for v in made.history.list()}
        assert consistency_problems(made) == []
        first = await RefineService(Project.open(tmp_path / "expected"),
                                    evaluator=fake_evaluator).refine("context", "e0")  # fmt: skip
        assert [o.outcome for o in first] == ["accepted"]
    else:
        assert _state(project) == before

    for root in (project.root, tmp_path / "expected"):
        outcomes = await RefineService(Project.open(root), evaluator=fake_evaluator).refine(
            "context", "e1"
        )
        assert [o.outcome for o in outcomes] == ["accepted"]
    expected = Project.open(tmp_path / "expected")
    assert _site(project) == _site(expected)  # nothing of the e0 patch, or all of it
    elements = {v.element for v in Project.open(project.root).history.list()}
    assert ("e0" in elements) == (stage == "after the decision")
    assert consistency_problems(Project.open(project.root)) == []


async def test_job_managers_of_one_project_share_its_job_locks(tmp_path):
    """A feedback turn (a page job) of one service never overlaps an element refine of another
    service on the same project, whatever their job managers."""
    from mmstudio.studio.feedback import FeedbackService

    project = _site_project(tmp_path / "p")
    refine = RefineService(project)
    feedback = FeedbackService(Project.open(tmp_path / "p"))
    assert refine.jobs is not feedback.jobs
    order: list[str] = []
    release = asyncio.Event()

    async def element_job(ctx) -> None:
        order.append("element started")
        await release.wait()
        order.append("element done")

    async def page_job(ctx) -> None:
        order.append("page started")

    first = refine.jobs.submit("refine-context", element_job, element="e0")
    await asyncio.sleep(0.01)
    second = feedback.jobs.submit("feedback", page_job)
    await asyncio.sleep(0.05)
    assert order == ["element started"] and second.state == "queued"
    release.set()
    await feedback.jobs.wait(second.id)
    assert first.state == second.state == "done"
    assert order == ["element started", "element done", "page started"]


def _screenshot_writer(content: bytes):
    """A verify step that writes ``content`` as the draft's 1280 px screenshot and reports it."""

    async def shot(page: Path, plan, out_dir: Path):
        out_dir.mkdir(parents=True, exist_ok=True)
        (out_dir / "screenshot-1280.png").write_bytes(content)
        report = fake_report(page.read_text())
        report.render.screenshot = str(out_dir / "screenshot-1280.png")
        return report

    return shot


async def test_an_accepted_trial_s_screenshots_become_the_head_s(tmp_path):
    """The report a commit writes names screenshots that exist: a trial rendered under
    ``renders/trials/<draft>`` moves into ``renders/`` with the commit (the trial folder is
    removed when a change is reverted, so the report had pointed at deleted files)."""
    project = _site_project(tmp_path / "p")
    trial = project.renders_dir / "trials" / "t1"

    shot = _screenshot_writer(b"new")

    async with Workspace.of(project).edit() as draft:
        draft.write_text("index.html", "<h1>new</h1>")
        await draft.verify(shot, trial)
        await draft.commit("new page")
    head = Project.open(project.root).read_report()
    assert head.render.screenshot == str(project.renders_dir / "screenshot-1280.png")
    assert Path(head.render.screenshot).read_bytes() == b"new"
    assert not trial.exists()


async def test_a_discarded_draft_s_renders_leave_with_it(tmp_path):
    """A draft verified and then discarded (a turn the critic refused, a cancelled refine)
    leaves no screenshots behind, and the head's stay as they were."""
    project = _site_project(tmp_path / "p")
    project.renders_dir.mkdir(parents=True, exist_ok=True)
    (project.renders_dir / "screenshot-1280.png").write_bytes(b"head")

    shot = _screenshot_writer(b"trial")

    async with Workspace.of(project).edit() as draft:
        draft.write_text("index.html", "<h1>not kept</h1>")
        await draft.verify(shot)
    assert (project.renders_dir / "screenshot-1280.png").read_bytes() == b"head"
    assert list((project.renders_dir / "trials").iterdir()) == []
