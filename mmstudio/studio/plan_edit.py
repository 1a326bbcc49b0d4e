"""The designer edits the plan: an element's subject, a chart's type or title, a section's title,
a palette colour — and only what the edit touches is made again.

Each edit is two steps:

1. a pure step on the plan (:func:`element_edit`, :func:`section_edit`, :func:`order_edit`,
   :func:`palette_edit`):
   the new :class:`~mmstudio.plan.DesignPlan`, the page edit (a function of ``index.html``, so it
   can be replayed on a newer page) and the elements whose assets are made again;
2. :func:`apply_edit`: the project's one edit transaction
   (:meth:`~mmstudio.project.workspace.Workspace.edit`) — the assets of those elements made by
   the designer's asset makers (:class:`~mmstudio.providers.base.Designer`: ``image``,
   ``video``, ``chart_option``; the offline designer unless one is given), written into the
   draft with the page and the plan, the draft verified (rendered and scored) and committed as
   a version tagged ``level="edit"``. Undo / redo / restore treat it like any other version.

What each edit makes again:

- an image's or video's ``prompt`` (its subject): that element's files only (its motifs are
  chosen again for the new subject); ``alt`` goes to the page's ``alt`` / ``aria-label``;
- a chart's ``chart_type`` or ``title``: that chart's page and option JSON; a title also goes to
  the iframe's ``title`` and the chart's visible heading;
- a section's ``title``: the page only (its heading's text); the sections' order: the page
  only (its section blocks trade places);
- a palette colour: the page's ``--color-<role>`` custom property (or, on a page without one,
  every use of the old hex), each chart's own palette entries of that colour, and every chart
  (their ink comes from the palette) — images and videos are kept.

Every other site file keeps its bytes. Errors: :class:`PlanEditError` (a ValueError, one line)
for an edit the plan or the page cannot take; ProjectError from the transaction.
"""

from __future__ import annotations

import contextlib
import json
import logging
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from mmstudio.pipeline import charts
from mmstudio.plan import ChartPlan, DesignPlan, ElementPlan, ImagePlan, VideoPlan
from mmstudio.project import Project
from mmstudio.project.errors import InputError, ProjectError
from mmstudio.project.versions import Version
from mmstudio.project.workspace import Evaluator, RebaseError, Workspace
from mmstudio.providers.base import Designer
from mmstudio.refine import html_edit
from mmstudio.resources import vendor_file
from mmstudio.studio.jobs import Job, JobContext, JobManager
from mmstudio.threads import run_to_end

log = logging.getLogger(__name__)

LEVEL = "edit"  # the level tag of a plan edit's version
ECHARTS = "vendor/echarts.min.js"
MEDIA_FIELDS = ("prompt", "alt")  # what an image's or video's edit may change
CHART_FIELDS = ("chart_type", "title")
PageEdit = Callable[[str], str]


class PlanEditError(InputError):
    """An edit the plan or the page cannot take (one line, says what to do; a ValueError)."""


@dataclass
class PlanChange:
    """The outcome of the pure step: the new ``plan``, the ``page`` edit (None: the page stays),
    the ids of the elements whose assets are made again, the version's ``summary``, and the
    ``element`` it is tagged with (None: a page-wide edit, run as a page job), and ``redo``: the
    same edit made on another plan (a newer one, when another edit committed meanwhile)."""

    plan: DesignPlan
    summary: str
    element: str | None = None
    page: PageEdit | None = None
    regenerate: list[str] = field(default_factory=list)
    redo: Callable[[DesignPlan], PlanChange] | None = None


# --- the pure step ---------------------------------------------------------------------------


def element_edit(plan: DesignPlan, element_id: str, **changes: str) -> PlanChange:
    """``plan`` with element ``element_id`` changed: ``prompt`` / ``alt`` of an image or video,
    ``chart_type`` / ``title`` of a chart. Raises PlanEditError for an unknown element, a field
    its kind has not, an empty prompt, or no change at all."""
    try:
        element = plan.element(element_id)
    except KeyError:
        raise PlanEditError(f"{element_id} is not in the plan") from None
    allowed = CHART_FIELDS if isinstance(element, ChartPlan) else MEDIA_FIELDS
    unknown = sorted(set(changes) - set(allowed))
    if unknown:
        raise PlanEditError(
            f"a {element.kind} has no {', '.join(unknown)} to edit (it has {', '.join(allowed)})"
        )
    changes = {k: v.strip() for k, v in changes.items()}
    if "prompt" in changes and not changes["prompt"]:
        raise PlanEditError(f"the subject of {element_id} cannot be empty")
    new: ElementPlan
    if isinstance(element, ChartPlan):
        new = _chart_changed(element, changes)
    else:
        update: dict = {k: v for k, v in changes.items() if getattr(element, k) != v}
        if "prompt" in update:
            update["motifs"] = None  # chosen again for the new subject
        new = element.model_copy(update=update)
    if new == element:
        raise PlanEditError(f"nothing to change: {element_id} already reads so")
    done = [k for k in allowed if getattr(new, k, None) != getattr(element, k, None)]
    old_type = element.attributes.chart_type if isinstance(element, ChartPlan) else None
    if isinstance(new, ChartPlan) and new.attributes.chart_type != old_type:
        done.insert(0, "chart type")
    what = ", ".join(w.replace("prompt", "subject") for w in done if w != "chart_type")
    page = html_edit.media_page_edit(element, new, error=PlanEditError)
    regenerate = [element_id] if isinstance(new, ChartPlan) or "prompt" in done else []
    return PlanChange(
        _replaced(plan, new), f"Edited {what} of {element_id}", element_id, page, regenerate,
        lambda latest: element_edit(latest, element_id, **changes),
    )  # fmt: skip


def _chart_changed(element: ChartPlan, changes: dict[str, str]) -> ChartPlan:
    update: dict = {}
    if "chart_type" in changes:
        old, kind = element.attributes.chart_type, charts.chart_kind(changes["chart_type"])
        if kind != old:
            update["attributes"] = element.attributes.model_copy(update={"chart_type": kind})
            update["alt"] = chart_alt(element.alt, old, kind)
    if "title" in changes and changes["title"] != element.title:
        update["title"] = changes["title"]
    return element.model_copy(update=update)


def chart_alt(alt: str, old: str, new: str) -> str:
    """A chart's alt text with its type named anew: "Bar chart: Sales" → "Line chart: Sales"
    (``old`` / ``new`` are :data:`~mmstudio.pipeline.charts.CHART_TYPES`); an alt that does not
    name the old type is kept."""
    words = r"[\s-]+".join(map(re.escape, old.split("-")))
    pattern = re.compile(rf"\b{words}(?=\s+(?:chart|graph|plot)\b)", re.I)

    def name(match: re.Match) -> str:
        said = new.replace("-", " ")
        return said[:1].upper() + said[1:] if match.group(0)[:1].isupper() else said

    return pattern.sub(name, alt, count=1)


def _replaced(plan: DesignPlan, new: ElementPlan) -> DesignPlan:
    """``plan`` with ``new`` in place of the element of the same id (validated again)."""
    data = plan.model_dump(mode="json")
    kind = f"{new.kind}s"
    data[kind] = [new.model_dump(mode="json") if e["id"] == new.id else e for e in data[kind]]
    return _valid(data)


def _valid(data: dict) -> DesignPlan:
    try:
        return DesignPlan.model_validate(data)
    except ValueError as exc:
        first = (str(exc).splitlines() or ["invalid"])[:3]
        words = " ".join(first[1:] or first)
        raise PlanEditError(f"the plan cannot take the edit: {words}") from None


def section_edit(plan: DesignPlan, section_id: str, *, title: str) -> PlanChange:
    """``plan`` with section ``section_id`` titled ``title``; the page's heading of the section
    (``#<id>--title``, else its first heading) shows it, and an ``aria-label`` that read the old
    title reads the new one. Raises PlanEditError for an unknown section, an empty or unchanged
    title; the page edit raises it when the page shows no heading for the section."""
    title = title.strip()
    section = next((s for s in plan.sections if s.id == section_id), None)
    if section is None:
        raise PlanEditError(f"{section_id} is not a section of the plan")
    if not title:
        raise PlanEditError(f"the title of {section_id} cannot be empty")
    if title == section.title:
        raise PlanEditError(f"nothing to change: {section_id} is already titled so")
    data = plan.model_dump(mode="json")
    for sec in data["sections"]:
        if sec["id"] == section_id:
            sec["title"] = title
    old_title = section.title

    def edit(page: str) -> str:
        nodes = html_edit.parse(page)
        block = next((n for n in nodes if n.attrs.get("data-mm-section") == section_id), None)
        heading = next((n for n in nodes if n.attrs.get("id") == f"{section_id}--title"), None)
        if heading is None and block is not None:
            heading = next((n for n in nodes if block.start < n.start < block.end
                            and re.fullmatch(r"h[1-6]", n.tag)), None)  # fmt: skip
        if heading is None:
            raise PlanEditError(f"the page shows no heading for the section {section_id}")
        page = html_edit.with_text(page, heading, title)
        block = next((n for n in html_edit.parse(page)
                      if n.attrs.get("data-mm-section") == section_id), None)  # fmt: skip
        if block is not None and old_title and block.attrs.get("aria-label") == old_title:
            page = html_edit.set_attribute(page, block, "aria-label", title)
        return page

    return PlanChange(
        _valid(data), f"Retitled section {section_id}", None, edit,
        redo=lambda latest: section_edit(latest, section_id, title=title),
    )  # fmt: skip


def order_edit(plan: DesignPlan, order: list[str]) -> PlanChange:
    """``plan`` with its sections in ``order`` (every section id once); the page's
    ``data-mm-section`` blocks trade places among their siblings
    (:func:`~mmstudio.refine.html_edit.reorder_sections`), everything else keeps its bytes.
    Raises PlanEditError for an order that is not the plan's sections, an unchanged order, or
    (the page edit) a page whose sections do not move."""
    ids = [s.id for s in plan.sections]
    if sorted(order) != sorted(ids) or len(set(order)) != len(order):
        raise PlanEditError(f"the order must name each section once: {', '.join(ids)}")
    if list(order) == ids:
        raise PlanEditError("nothing to change: the sections are already in this order")
    data = plan.model_dump(mode="json")
    by_id = {sec["id"]: sec for sec in data["sections"]}
    data["sections"] = [by_id[i] for i in order]
    wanted = list(order)

    def edit(page: str) -> str:
        moved = html_edit.reorder_sections(page, wanted)
        if moved == page:
            raise PlanEditError("the page's sections cannot be moved (no data-mm-section blocks)")
        return moved

    moved = next(i for i, (a, b) in enumerate(zip(ids, order, strict=True)) if a != b)
    return PlanChange(
        _valid(data), f"Moved section {order[moved]}", None, edit,
        redo=lambda latest: order_edit(latest, wanted),
    )  # fmt: skip


def moved_order(plan: DesignPlan, section_id: str, by: int) -> list[str]:
    """The plan's section ids with ``section_id`` moved ``by`` places (−1: up, 1: down),
    clamped to the ends."""
    ids = [s.id for s in plan.sections]
    at = ids.index(section_id)
    ids.insert(max(0, min(len(ids) - 1, at + by)), ids.pop(at))
    return ids


def palette_edit(plan: DesignPlan, colours: dict[str, str]) -> PlanChange:
    """``plan`` with palette roles set to new hex colours (``{"primary": "#7a3e1d"}``): the page's
    ``--color-<role>`` declarations (a page without one: every use of the old hex), each chart's
    own palette entries of an old colour, and every chart made again. Raises PlanEditError for
    an unknown role, a colour that is not ``#rgb`` / ``#rrggbb``, or no change."""
    roles = {c.role: c.hex for c in plan.layout.palette}
    unknown = sorted(set(colours) - set(roles))
    if unknown:
        raise PlanEditError(f"the palette has no {', '.join(unknown)} (it has {', '.join(roles)})")
    asked = {r: h.strip().lower() for r, h in colours.items()}
    for hex_ in asked.values():
        if not re.fullmatch(r"#(?:[0-9a-f]{3}|[0-9a-f]{6})", hex_):
            raise PlanEditError(f"{hex_!r} is not a colour: write it as #rrggbb")
    new = {r: h for r, h in asked.items() if h != roles[r].lower()}
    if not new:
        raise PlanEditError("nothing to change: the palette already has these colours")
    swaps = {roles[r].lower(): h for r, h in new.items()}
    data = plan.model_dump(mode="json")
    for colour in data["layout"]["palette"]:
        if colour["role"] in new:
            colour["hex"] = new[colour["role"]]
    for chart in data["charts"]:
        palette = chart["attributes"]["color_palette"]
        chart["attributes"]["color_palette"] = [swaps.get(c.lower(), c) for c in palette]
    olds = {r: roles[r] for r in new}

    def edit(page: str) -> str:
        return recolour_page(page, olds, new)

    names = ", ".join(f"{r} {h}" for r, h in new.items())
    return PlanChange(
        _valid(data), f"Palette: {names}", None, edit, [c.id for c in plan.charts],
        lambda latest: palette_edit(latest, colours),
    )  # fmt: skip


def recolour_page(page: str, old: dict[str, str], new: dict[str, str]) -> str:
    """``page`` with each role's ``--color-<role>: <hex>`` declaration set to ``new[role]``; a
    role the page declares no property for has every use of ``old[role]`` (as a whole hex
    token, any case) replaced. Raises PlanEditError when the page uses none of the colours."""
    changed = page
    for role, hex_ in new.items():
        prop = re.compile(rf"(--color-{re.escape(role)}\s*:\s*)#[0-9A-Fa-f]{{3,8}}\b")
        if prop.search(changed):
            changed = prop.sub(rf"\g<1>{hex_}", changed)
        else:
            token = re.compile(rf"{re.escape(old[role])}(?![0-9A-Fa-f])", re.I)
            changed = token.sub(hex_, changed)
    if changed == page:
        raise PlanEditError("the page uses none of these colours: nothing would change")
    return changed


# --- the transaction -------------------------------------------------------------------------


def _offline_designer() -> Designer:
    from mmstudio.providers.registry import get_designer

    return get_designer("offline")


async def _assets(element: ElementPlan, plan: DesignPlan, designer: Designer) -> dict[str, bytes]:
    """The files of ``element`` made again by ``designer`` (site-relative path → bytes)."""
    if isinstance(element, ImagePlan):
        data = await designer.image(element, plan)
        if not data:
            raise PlanEditError(f"the image {element.id} came back empty")
        return {element.save_path: data}
    if isinstance(element, VideoPlan):
        with tempfile.TemporaryDirectory(prefix="mmstudio-edit-") as tmp:
            written = await designer.video(element, plan, Path(tmp))
            return await run_to_end(
                lambda: {p.relative_to(tmp).as_posix(): p.read_bytes() for p in written}
            )
    assert isinstance(element, ChartPlan)
    option = await designer.chart_option(element, plan)
    return {
        element.save_path: charts.chart_page(option, element).encode(),
        element.option_path: (json.dumps(option, indent=2) + "\n").encode(),
    }


def _with_motifs(plan: DesignPlan, ids: list[str], designer: Designer) -> DesignPlan:
    """The offline designer's motif record for edited images / videos that lost theirs."""
    from mmstudio.providers.offline import motifs
    from mmstudio.providers.offline.designer import OfflineDesigner

    if not isinstance(designer, OfflineDesigner) or not motifs.available():
        return plan
    update = {}
    for kind in ("images", "videos"):
        items = []
        for e in getattr(plan, kind):
            if e.id in ids and e.motifs is None:
                choice = motifs.choice_for(e, plan)
                e = e.model_copy(update={"motifs": choice.record()}) if choice else e
            items.append(e)
        update[kind] = items
    return plan.model_copy(update=update)


async def apply_edit(
    project: Project,
    change: PlanChange,
    *,
    job: str | None = None,
    designer: Designer | None = None,
    evaluator: Evaluator | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Version:
    """Commit ``change`` to ``project`` through its edit transaction (module docstring): the
    changed elements' assets made again by ``designer`` (default: offline), the page edited,
    the plan written, the draft verified by ``evaluator`` (default: render and score; the
    report of a failed evaluation is not kept) and committed. Returns the new head version.
    Raises PlanEditError when the page cannot take the edit (nothing saved), ProjectError from
    the transaction."""
    from mmstudio.refine.apply import render_and_score

    say: Callable[[float, str], None] = progress or (lambda fraction, message: None)
    maker = designer if designer is not None else await run_to_end(_offline_designer)
    plan = await run_to_end(_with_motifs, change.plan, change.regenerate, maker)
    workspace = Workspace.of(project)
    async with workspace.edit(job, kind="edit", what="mmstudio plan edit") as draft:
        page = await run_to_end(draft.read_text, "index.html")
        new_page = await run_to_end(change.page, page) if change.page else page
        files: dict[str, bytes] = {}
        for n, element_id in enumerate(change.regenerate):
            say(0.1 + 0.5 * n / len(change.regenerate), f"making {element_id}")
            files.update(await _assets(plan.element(element_id), plan, maker))
        if plan.charts and draft.read_bytes(ECHARTS) is None:
            files[ECHARTS] = await run_to_end(vendor_file("echarts.min.js").read_bytes)

        def write() -> None:
            for path, data in files.items():
                draft.write_bytes(path, data)
            if new_page != page:
                draft.write_text("index.html", new_page)
            draft.write_plan(plan)

        await run_to_end(write)
        say(0.65, "rendering")
        await draft.verify(evaluator or render_and_score)
        say(0.9, "committing")

        def rebase(latest: str) -> str:
            """Another edit committed since the draft opened: the page edit replayed on the
            latest page, and the plan edit on the latest plan (so neither edit is lost)."""
            try:
                if change.redo is not None:
                    draft.write_plan(_redone(change, plan, _plan_of(project)))
                return change.page(latest) if change.page else latest
            except PlanEditError as exc:
                raise RebaseError(f"the edit no longer applies to the latest page: {exc}") from None

        version = await draft.commit(
            change.summary, element=change.element, level=LEVEL, rebase=rebase
        )
    log.info("%s → version %s", change.summary, version.id)
    return version


def _redone(change: PlanChange, mine: DesignPlan, latest: DesignPlan) -> DesignPlan:
    """``latest`` with ``change`` made on it, the elements made again as ``mine`` has them
    (their motifs, as painted); ``latest`` when it already reads so."""
    assert change.redo is not None
    try:
        again = change.redo(latest).plan
    except PlanEditError as exc:
        if str(exc).startswith("nothing to change"):
            return latest
        raise
    for element_id in change.regenerate:
        element = mine.element(element_id)
        if element.kind in ("image", "video"):
            again = _replaced(again, element)
    return again


def _plan_of(project: Project) -> DesignPlan:
    if not project.plan_path.exists():
        raise PlanEditError("this project has no plan to edit (a site folder opened as found)")
    try:
        return project.read_plan()
    except ProjectError as exc:
        raise PlanEditError(str(exc)) from None


async def edit_element(
    project: Project,
    element_id: str,
    *,
    job: str | None = None,
    designer: Designer | None = None,
    evaluator: Evaluator | None = None,
    **changes: str,
) -> Version:
    """:func:`element_edit` on the project's plan, committed with :func:`apply_edit`."""
    plan = await run_to_end(_plan_of, project)
    change = element_edit(plan, element_id, **changes)
    return await apply_edit(project, change, job=job, designer=designer, evaluator=evaluator)


async def edit_section(
    project: Project,
    section_id: str,
    *,
    title: str,
    job: str | None = None,
    evaluator: Evaluator | None = None,
) -> Version:
    """:func:`section_edit` on the project's plan, committed with :func:`apply_edit`."""
    plan = await run_to_end(_plan_of, project)
    change = section_edit(plan, section_id, title=title)
    return await apply_edit(project, change, job=job, evaluator=evaluator)


async def edit_order(
    project: Project,
    order: list[str],
    *,
    job: str | None = None,
    evaluator: Evaluator | None = None,
) -> Version:
    """:func:`order_edit` on the project's plan, committed with :func:`apply_edit`."""
    plan = await run_to_end(_plan_of, project)
    change = order_edit(plan, order)
    return await apply_edit(project, change, job=job, evaluator=evaluator)


async def edit_palette(
    project: Project,
    colours: dict[str, str],
    *,
    job: str | None = None,
    designer: Designer | None = None,
    evaluator: Evaluator | None = None,
) -> Version:
    """:func:`palette_edit` on the project's plan, committed with :func:`apply_edit`."""
    plan = await run_to_end(_plan_of, project)
    change = palette_edit(plan, colours)
    return await apply_edit(project, change, job=job, designer=designer, evaluator=evaluator)


class PlanEditService:
    """Plan edits of one project as jobs on ``jobs`` (the Jobs dock lists them): an element's
    edit is an element job (``edit-<kind>``, edits of other elements run beside it), a section
    title, order or palette edit a page job (``edit-section`` / ``edit-order`` /
    ``edit-palette``). Each job's result is
    the new :class:`~mmstudio.project.versions.Version`; a PlanEditError fails the job with its
    line."""

    def __init__(
        self,
        project: Project,
        jobs: JobManager,
        *,
        designer: Designer | None = None,
        evaluator: Evaluator | None = None,
    ) -> None:
        self.project, self.jobs = project, jobs
        self.designer, self.evaluator = designer, evaluator

    def _submit(self, kind: str, element: str | None, make: Callable[[DesignPlan], PlanChange]):
        async def run(ctx: JobContext) -> Version:
            ctx.progress(0.05, "editing the plan")
            plan = await run_to_end(_plan_of, self.project)
            change = make(plan)
            return await apply_edit(
                self.project, change, job=ctx.job.id, designer=self.designer,
                evaluator=self.evaluator, progress=ctx.progress,
            )  # fmt: skip

        return self.jobs.submit(kind, run, element=element, level=LEVEL)

    def element(self, element_id: str, **changes: str) -> Job:
        """Submit :func:`edit_element` as a job on the element."""
        kind: str = "element"
        with contextlib.suppress(KeyError, PlanEditError):
            kind = _plan_of(self.project).element(element_id).kind
        return self._submit(
            f"edit-{kind}", element_id, lambda plan: element_edit(plan, element_id, **changes)
        )

    def section(self, section_id: str, title: str) -> Job:
        """Submit :func:`edit_section` as a page job."""
        return self._submit(
            "edit-section", None, lambda plan: section_edit(plan, section_id, title=title)
        )

    def order(self, order: list[str]) -> Job:
        """Submit :func:`edit_order` as a page job."""
        return self._submit("edit-order", None, lambda plan: order_edit(plan, order))

    def palette(self, colours: dict[str, str]) -> Job:
        """Submit :func:`edit_palette` as a page job."""
        return self._submit("edit-palette", None, lambda plan: palette_edit(plan, colours))


__all__ = [
    "PlanChange",
    "PlanEditError",
    "PlanEditService",
    "apply_edit",
    "edit_element",
    "edit_order",
    "edit_palette",
    "edit_section",
    "element_edit",
    "moved_order",
    "order_edit",
    "palette_edit",
    "recolour_page",
    "section_edit",
]
