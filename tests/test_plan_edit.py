"""Plan edits (mmstudio.studio.plan_edit): an element's subject, a chart's type or title, a
section's title, a palette colour — only what the edit touches is made again, committed as a
version through the project's edit transaction, undoable."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest

from mmstudio.project import Project
from mmstudio.project.workspace import Workspace
from mmstudio.report import Report, Scores
from mmstudio.studio import plan_edit
from mmstudio.studio.jobs import JobManager
from mmstudio.studio.plan_edit import PlanEditError

PROMPT = (
    "A landing page for a small coffee roastery: a hero photo of roasted beans, a section "
    "'Our process' with a short video of pouring coffee, and a bar chart of monthly sales."
)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> Path:
    """One offline project (image, video, chart), made once for the module (no evaluation)."""
    from mmstudio.studio.create import new_project

    root = tmp_path_factory.mktemp("made") / "roastery"
    asyncio.run(new_project(root, PROMPT, evaluate=False, rounds=0))
    return root


@pytest.fixture
def project(made, tmp_path) -> Project:
    root = tmp_path / "roastery"
    shutil.copytree(made, root, symlinks=True)
    return Project.open(root)


class Evaluations:
    """A fast evaluator that records the pages it was given (no browser)."""

    def __init__(self) -> None:
        self.pages: list[str] = []

    async def __call__(self, page: Path, plan, out_dir: Path) -> Report:
        self.pages.append(page.read_text(encoding="utf-8"))
        return Report(scores=Scores(layout=0.9).with_overall())


def site(project: Project) -> dict[str, bytes]:
    return {
        p.relative_to(project.site_dir).as_posix(): p.read_bytes()
        for p in project.site_dir.rglob("*")
        if p.is_file()
    }


def plan_json(project: Project) -> dict:
    return json.loads(project.plan_path.read_text())


def ids(project: Project) -> dict[str, str]:
    plan = project.read_plan()
    return {
        "image": plan.images[0].id,
        "video": plan.videos[0].id,
        "chart": plan.charts[0].id,
    }


async def test_editing_an_image_subject_regenerates_that_image_alone(project):
    evaluate = Evaluations()
    before, head = site(project), project.manifest.head
    image = project.read_plan().images[0]
    version = await plan_edit.edit_element(
        project, image.id, prompt="a red bicycle leaning on a wall", evaluator=evaluate
    )
    after = site(project)
    assert after[image.save_path] != before[image.save_path]
    changed = {p for p in before if before[p] != after.get(p)}
    assert changed == {image.save_path}  # the page, the video, the chart: same bytes
    edited = project.read_plan().element(image.id)
    assert edited.prompt == "a red bicycle leaning on a wall"
    assert plan_json(project)["images"][0]["prompt"] == "a red bicycle leaning on a wall"
    assert version.parent == head and version.level == "edit" and version.element == image.id
    assert project.manifest.head == version.id
    assert len(evaluate.pages) == 1  # the draft was verified before it was committed
    assert project.read_report().scores.layout == 0.9


async def test_undo_restores_the_plan_and_the_bytes(project):
    before, plan_before = site(project), plan_json(project)
    image = project.read_plan().images[0]
    await plan_edit.edit_element(
        project,
        image.id,
        prompt="a lighthouse at dusk",
        alt="A lighthouse",
        evaluator=Evaluations(),
    )
    assert 'alt="A lighthouse"' in (project.site_dir / "index.html").read_text()
    await Workspace.of(project).undo()
    assert site(project) == before
    assert plan_json(project) == plan_before


async def test_a_chart_type_edit_remakes_that_chart_only(project):
    before = site(project)
    chart = project.read_plan().charts[0]
    assert chart.attributes.chart_type == "bar"
    await plan_edit.edit_element(
        project, chart.id, chart_type="Line chart", evaluator=Evaluations()
    )
    after = site(project)
    changed = {p for p in before if before[p] != after[p]}
    assert changed - {"index.html"} == {chart.save_path, chart.option_path}  # index: its alt
    edited = project.read_plan().element(chart.id)
    assert edited.attributes.chart_type == "line"
    option = json.loads(after[chart.option_path])
    assert {s["type"] for s in option["series"]} == {"line"}
    assert chart.alt.startswith("Bar chart")  # the offline planner's alt names the type
    assert edited.alt.startswith("Line chart")
    assert f'aria-label="{edited.alt}"' in after["index.html"].decode()


def test_a_chart_alt_names_the_new_type():
    assert plan_edit.chart_alt("Bar chart: Sales", "bar", "line") == "Line chart: Sales"
    assert plan_edit.chart_alt("a grouped bar chart of sales", "grouped-bar", "pie") == (
        "a pie chart of sales"
    )
    assert plan_edit.chart_alt("Sales by month", "bar", "line") == "Sales by month"


async def test_a_chart_title_edit_reaches_the_chart_and_the_page(project):
    chart = project.read_plan().charts[0]
    await plan_edit.edit_element(project, chart.id, title="Cups sold", evaluator=Evaluations())
    page = (project.site_dir / "index.html").read_text()
    assert 'title="Cups sold"' in page and f'title="{chart.title}"' not in page
    assert "Cups sold" in (project.site_dir / chart.save_path).read_text()
    assert project.read_plan().element(chart.id).title == "Cups sold"


async def test_a_section_title_edit_changes_the_heading_and_no_asset(project):
    before = site(project)
    plan = project.read_plan()
    section = next(s for s in plan.sections if s.element_ids and s.title)
    await plan_edit.edit_section(
        project, section.id, title="Our <roasting> process", evaluator=Evaluations()
    )
    after = site(project)
    assert {p for p in before if before[p] != after[p]} == {"index.html"}
    page = after["index.html"].decode()
    assert "Our &lt;roasting&gt; process</h" in page
    assert next(s for s in project.read_plan().sections if s.id == section.id).title == (
        "Our <roasting> process"
    )


async def test_a_palette_edit_recolours_the_page_and_its_charts(project):
    before = site(project)
    plan = project.read_plan()
    old = plan.layout.color("primary")
    chart = plan.charts[0]
    assert old in json.dumps(json.loads(before[chart.option_path]))
    await plan_edit.edit_palette(project, {"primary": "#7A3E1D"}, evaluator=Evaluations())
    after = site(project)
    page = after["index.html"].decode()
    assert "--color-primary: #7a3e1d" in page
    option = json.dumps(json.loads(after[chart.option_path]))
    assert "#7a3e1d" in option and old not in option
    images = [e.save_path for e in plan.images] + [plan.videos[0].save_path]
    assert all(before[p] == after[p] for p in images)  # pictures are kept
    assert project.read_plan().layout.color("primary") == "#7a3e1d"


def test_edits_the_plan_cannot_take_say_why(project):
    plan = project.read_plan()
    chart, image = plan.charts[0], plan.images[0]
    with pytest.raises(PlanEditError, match="not in the plan"):
        plan_edit.element_edit(plan, "nope", prompt="x")
    with pytest.raises(PlanEditError, match="has no chart_type"):
        plan_edit.element_edit(plan, image.id, chart_type="line")
    with pytest.raises(PlanEditError, match="cannot be empty"):
        plan_edit.element_edit(plan, image.id, prompt="  ")
    with pytest.raises(PlanEditError, match="nothing to change"):
        plan_edit.element_edit(plan, chart.id, chart_type=chart.attributes.chart_type)
    with pytest.raises(PlanEditError, match="not a colour"):
        plan_edit.palette_edit(plan, {"primary": "red"})
    with pytest.raises(PlanEditError, match="has no"):
        plan_edit.palette_edit(plan, {"sparkle": "#ffffff"})


async def test_a_failed_edit_leaves_the_project_as_it_was(project):
    before, head = site(project), project.manifest.head

    async def broken(page, plan, out_dir):
        raise RuntimeError("the renderer fell over")

    image = project.read_plan().images[0]
    with pytest.raises(RuntimeError):
        await plan_edit.edit_element(project, image.id, prompt="a storm", evaluator=broken)
    assert site(project) == before and project.manifest.head == head
    assert not list(project.root.glob(".staging-*"))


def test_recolour_page_without_custom_properties_swaps_the_hex():
    page = "<style>h1{color:#2F6FED} a{color:#2f6fedaa}</style><p style='color:#2f6fed'>"
    out = plan_edit.recolour_page(page, {"primary": "#2f6fed"}, {"primary": "#111111"})
    assert out == "<style>h1{color:#111111} a{color:#2f6fedaa}</style><p style='color:#111111'>"
    with pytest.raises(PlanEditError):
        plan_edit.recolour_page("<p>", {"primary": "#2f6fed"}, {"primary": "#111111"})


async def test_the_service_runs_one_element_job_per_edit(project):
    jobs = JobManager()
    jobs.bind(Workspace.of(project).locks)
    service = plan_edit.PlanEditService(project, jobs, evaluator=Evaluations())
    names = ids(project)
    first = service.element(names["image"], prompt="a teapot")
    second = service.element(names["chart"], chart_type="pie")
    assert (first.kind, first.element) == ("edit-image", names["image"])
    assert (second.kind, second.element) == ("edit-chart", names["chart"])
    done = [await jobs.wait(j.id) for j in (first, second)]
    assert [j.state for j in done] == ["done", "done"]
    plan = project.read_plan()
    assert plan.element(names["image"]).prompt == "a teapot"
    assert plan.element(names["chart"]).attributes.chart_type == "pie"  # neither edit lost
    palette = service.palette({"accent": "#123456"})
    assert palette.element is None  # a page job
    failed = await jobs.wait(service.section("nope", "x").id)
    assert failed.state == "failed" and "not a section" in failed.error
    assert (await jobs.wait(palette.id)).state == "done"
    assert len(project.history.list()) == 4


async def test_a_cancelled_edit_leaves_no_trace(project):
    """Cancelled while its draft is verified: no version, the site and plan as they were, and
    the next edit's version holds only its own change."""
    jobs = JobManager()
    jobs.bind(Workspace.of(project).locks)
    verifying = asyncio.Event()

    async def slow(page, plan, out_dir):
        verifying.set()
        await asyncio.sleep(30)

    before, plan_before, head = site(project), plan_json(project), project.manifest.head
    names = ids(project)
    job = plan_edit.PlanEditService(project, jobs, evaluator=slow).element(
        names["image"], prompt="a volcano"
    )
    await asyncio.wait_for(verifying.wait(), 30)
    assert jobs.cancel(job.id)
    assert (await jobs.wait(job.id)).state == "cancelled"
    assert site(project) == before and plan_json(project) == plan_before
    assert project.manifest.head == head and not list(project.root.glob(".staging-*"))
    await plan_edit.edit_element(project, names["chart"], title="Cups", evaluator=Evaluations())
    plan = project.read_plan()
    assert plan.element(names["image"]).prompt != "a volcano"
    assert site(project)[plan.images[0].save_path] == before[plan.images[0].save_path]


async def test_moving_a_section_reorders_the_page_and_nothing_else(project):
    before = site(project)
    plan = project.read_plan()
    ids = [s.id for s in plan.sections]
    order = plan_edit.moved_order(plan, ids[-1], -1)  # the last one up
    assert order == [*ids[:-2], ids[-1], ids[-2]]
    await plan_edit.edit_order(project, order, evaluator=Evaluations())
    after = site(project)
    assert {p for p in before if before[p] != after[p]} == {"index.html"}
    page = after["index.html"].decode()
    assert page.index(f'data-mm-section="{ids[-1]}"') < page.index(f'data-mm-section="{ids[-2]}"')
    assert [s.id for s in project.read_plan().sections] == order
    assert sorted(page) == sorted(before["index.html"].decode())  # the same bytes, moved
    with pytest.raises(PlanEditError, match="each section once"):
        plan_edit.order_edit(project.read_plan(), ids[:-1])
    with pytest.raises(PlanEditError, match="already in this order"):
        plan_edit.order_edit(project.read_plan(), order)
