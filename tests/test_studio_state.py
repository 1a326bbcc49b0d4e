"""The app's evented state (mmstudio/studio/state.py) and the head check's statuses and crops,
without Qt: one read per refresh, the latest read wins, an operation's end refreshes every
listener at once, statuses describe the head, the check runs once per head."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

from PIL import Image

from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.report import ElementScore, Issue, Report, RequirementResult, Scores
from mmstudio.studio.head_check import (
    CROP_MAX,
    HeadCheck,
    cut_crops,
    evidence_ids,
    read_check,
    statuses_at_head,
)
from mmstudio.studio.jobs import JobManager
from mmstudio.studio.state import HeadView, StudioState, read_head

PLAN = {
    "title": "Hello page",
    "layout": {"palette": [{"role": "background", "hex": "#FFFFFF"}],
               "typography": {"heading": "serif", "body": "sans-serif"}},
    "sections": [{"id": "hero", "kind": "hero", "element_ids": ["hero_image"]}],
    "images": [
        {"id": "hero_image", "save_path": "assets/hero.png",
         "context": {"section": "hero", "role": "hero"}, "prompt": "a hero",
         "display_width_px": 200, "display_height_px": 100}
    ],
}  # fmt: skip


def _view(head: str, report: Report | None = None, turns: dict | None = None, check=None):
    return HeadView(
        root=Path("/p"), plan=DesignPlan.model_validate(PLAN), report=report, versions=[],
        head=head, can_undo=head != "v1", can_redo=False, turns=turns or {"turns": []},
        check=check,
    )  # fmt: skip


class FakeProject:
    root = Path("/p")


def _state(reader, checker=None) -> tuple[StudioState, list]:
    async def no_check(project, progress=None):
        return None

    state = StudioState(JobManager(), reader=reader, checker=checker or no_check)
    seen: list = []
    state.subscribe(lambda s, change: seen.append((change, s.head)))
    return state, seen


def test_no_qt_is_imported():
    code = "import sys, mmstudio.studio.state, mmstudio.studio.session\n"
    code += "print('PySide6' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_a_reload_publishes_one_change_with_everything_read_together():
    views = iter([_view("v1"), _view("v2", Report(scores=Scores(layout=0.5).with_overall()))])
    state, seen = _state(lambda project: next(views))

    async def run():
        state.set_project(FakeProject())
        await state.reload()
        seen.clear()
        await state.reload()

    asyncio.run(run())
    [(change, head)] = seen
    assert head == "v2" and {"head", "report", "evidence"} <= change.topics
    assert "plan" not in change  # the plan did not change
    assert state.report.scores.layout == 0.5


def test_the_latest_read_wins():
    slow = threading.Event()

    def reader(project):
        if not slow.is_set():
            slow.set()
            threading.Event().wait(0.3)  # the first read finishes last
            return _view("old")
        return _view("new")

    state, seen = _state(reader)

    async def run():
        state.set_project(FakeProject())
        first = asyncio.ensure_future(state.reload())
        await asyncio.sleep(0.05)
        second = await state.reload()
        return await first, second

    first, second = asyncio.run(run())
    assert first is None and second.head == "new" and state.head == "new"
    assert [head for _, head in seen if head] == ["new"]


def test_an_operation_that_finished_refreshes_the_state_once():
    heads = iter(["v1", "v2"])
    state, seen = _state(lambda project: _view(next(heads)))

    async def run():
        state.set_project(FakeProject())
        await state.reload()

        async def undo(ctx):
            return "v2"

        job = state.jobs.submit("undo", undo)
        await state.jobs.wait(job.id)
        await asyncio.sleep(0.2)  # the refresh the end of the job started
        return job

    job = asyncio.run(run())
    finished = [c for c, _ in seen if c.finished is not None]
    assert len(finished) == 1 and finished[0].finished.id == job.id
    assert "head" in finished[0] and state.head == "v2"
    assert [j.state for j in state.job_list.values()] == ["done"]


def test_flags_unknown_to_the_head_go_and_selection_follows():
    state, seen = _state(lambda project: _view("v1"))
    state.set_project(FakeProject())
    state.set_flags(["hero_image", "gone"])
    state.select("gone")
    state.apply(_view("v1"))
    assert state.flags == {"hero_image"} and state.selection is None
    seen.clear()
    assert state.toggle_flag("hero_image") is False
    assert [c.topics for c, _ in seen] == [frozenset({"flags"})]
    state.select("hero")
    assert state.selection == "hero" and not state.selected_is_element
    state.select("hero_image")
    assert state.selected_is_element


def test_another_project_forgets_flags_selection_and_finished_jobs():
    state, _ = _state(lambda project: _view("v1"))

    async def run():
        state.set_project(FakeProject())
        state.apply(_view("v1"))
        state.toggle_flag("hero_image")

        async def work(ctx):
            return None

        job = state.jobs.submit("export", work)
        await state.jobs.wait(job.id)

        class Other:
            root = Path("/q")

        state.set_project(Other())

    asyncio.run(run())
    assert state.flags == set() and state.job_list == {} and state.view is None


TURNS = {"turns": [
    {"turn": 1, "text": "darker hero", "version": "v2", "requirements": [
        {"id": "t1.r1", "text": "darker hero", "status": "pass", "detail": "L 40"}]},
    {"turn": 2, "text": "bigger title", "version": "v3", "requirements": [
        {"id": "t2.r1", "text": "bigger title", "status": "pass", "detail": ""}]},
]}  # fmt: skip
PARENTS = {"v1": None, "v2": "v1", "v3": "v2", "v4": "v2"}
FINALS = [
    {"requirement": req, "turn": turn, "version": version, "passed": True, "detail": ""}
    for req, turn, version in (("t1.r1", 1, "v2"), ("t1.r1", 2, "v3"), ("t2.r1", 2, "v3"))
]


def _statuses(view):
    return [r["status"] for t in view["turns"] for r in t["requirements"]]


def test_statuses_describe_the_head():
    assert _statuses(statuses_at_head(TURNS, "v3", PARENTS, FINALS)) == ["pass", "pass"]
    assert _statuses(statuses_at_head(TURNS, "v2", PARENTS, FINALS)) == ["pass", "undone"]
    at_v4 = statuses_at_head(TURNS, "v4", PARENTS, FINALS)  # a refine after turn 1
    assert _statuses(at_v4) == ["stale", "undone"]
    assert "not checked at this version" in at_v4["turns"][0]["requirements"][0]["detail"]
    check = HeadCheck("v4", verdicts={"t1.r1": {"passed": False, "detail": "L 70"}})
    checked = statuses_at_head(TURNS, "v4", PARENTS, FINALS, check)
    assert _statuses(checked) == ["fail", "undone"]
    assert checked["turns"][0]["requirements"][0]["checked_by"] == "check"
    other = HeadCheck("v3", verdicts={"t1.r1": {"passed": False, "detail": ""}})
    assert _statuses(statuses_at_head(TURNS, "v4", PARENTS, FINALS, other))[0] == "stale"


def test_a_stale_head_is_checked_once_and_read_again():
    calls: list[str] = []
    checked = HeadCheck("v4", verdicts={"t1.r1": {"passed": True, "detail": "L 38"}})

    def reader(project):
        check = checked if calls else None
        return _view("v4", turns=statuses_at_head(TURNS, "v4", PARENTS, FINALS, check),
                     check=check)  # fmt: skip

    async def checker(project, progress=None):
        calls.append("check")
        return checked

    state, seen = _state(reader, checker)

    async def run():
        state.set_project(FakeProject())
        await state.reload()
        assert state.checking
        await state.jobs.wait_all()
        await asyncio.sleep(0.2)
        await state.reload()  # the same head again: no second check

    asyncio.run(run())
    assert calls == ["check"] and not state.checking
    assert _statuses(state.view.turns) == ["pass", "undone"]
    assert any(c.finished is not None and c.finished.kind == "check" for c, _ in seen)


def test_evidence_is_wanted_for_failing_requirements_and_issues():
    report = Report(
        issues=[Issue(id="i1", element="hero_image", dimension="image", level="local",
                      message="blurry"),
                Issue(id="i2", dimension="layout", level="global", message="no services",
                      evidence={"target": "services"})],
        requirements=[RequirementResult(id="r1", kind="copy", key="k", text="x", status="fail",
                                        element="hero"),
                      RequirementResult(id="r2", kind="copy", key="k", text="y", status="pass",
                                        element="footer")],
    )  # fmt: skip
    assert evidence_ids(report) == {"hero_image", "services", "hero"}


def test_crops_are_small_pngs_cut_around_the_box(tmp_path):
    shot = tmp_path / "shot.png"
    picture = Image.new("RGB", (1280, 2000), "white")
    picture.paste((200, 30, 30), (100, 300, 900, 800))
    picture.save(shot)
    crops = cut_crops(shot, {"hero": [100, 300, 800, 500], "off": [5000, 0, 10, 10]}, tmp_path)
    assert set(crops) == {"hero"}
    with Image.open(crops["hero"]) as crop:
        assert crop.width <= CROP_MAX[0] and crop.height <= CROP_MAX[1]
        assert crop.getpixel((crop.width // 2, crop.height // 2)) == (200, 30, 30)
        assert crop.getpixel((0, 0)) == (255, 255, 255)  # the margin around the box
    strip = cut_crops(shot, {"nav": [0, 300, 1200, 40]}, tmp_path)  # 30:1 → cut 3:1
    with Image.open(strip["nav"]) as crop:
        assert crop.width / crop.height < 3.5


def test_read_head_of_a_real_project(tmp_path):
    project = Project.create(tmp_path / "p", prompt="hello", provider="offline", title="Hello")
    site = project.staging_dir() / "site"
    site.mkdir(parents=True)
    (site / "index.html").write_text("<section data-mm-section='hero'>hi</section>")
    project.install_site(site)
    project.write_plan(DesignPlan.model_validate(PLAN))
    project.write_report(
        Report(scores=Scores(image=0.6).with_overall(),
               elements=[ElementScore(id="hero_image", kind="image", score=0.6)])
    )  # fmt: skip
    project.commit("first")
    view = read_head(project)
    assert view.head == project.manifest.head and view.report.scores.image == 0.6
    assert [v.id for v in view.versions] == [view.head] and not view.can_undo
    assert view.turns["turns"] == [] and view.check is None and not view.wants_check
    assert read_check(project, view.head) is None
