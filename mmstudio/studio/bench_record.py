"""One bench prompt's record: what the main job made and what it cost, as a JSON-ready dict.

A record is written per prompt (``records/<id>.json``) as soon as the prompt finishes, so an
interrupted bench resumes where it stopped. Shapes (all times in seconds, scores and shares 0–1)::

    {id, ok, seconds, error?, error_type?,
     counts: {sections, images, videos, charts},
     stages: {plan, layout, image, video, chart, assets, render, evaluate, refine, total},
     scores_before: {layout, style, aesthetics, image, video, chart, overall},   # None: absent
     scores_after: {...}, issues_before: {code: n}, issues_after: {code: n},
     render_failed: bool, reflection: {rounds, stopped, accepted, reverted} | None,
     fidelity: {quoted, hex, quotes, colours, missing_quotes, missing_colours},
     usage: {calls, input_tokens, output_tokens, images, video_seconds, cost_usd, unpriced} | None}

The record is a persisted JSON document read back generically (resuming, the summary, the
figures, older records written before a field existed): :class:`BenchRecord` is a ``TypedDict``
describing it, not a class of its own.

"before" is the first evaluated version (the report committed with the generated page), "after"
the report the project ends with once reflection has run (the same report with ``rounds=0``).
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import Any, Required, TypedDict

from pydantic import ValidationError

from mmstudio.project import Project
from mmstudio.project.runs import UsageSummary, UsageTotals
from mmstudio.report import DIMENSIONS, Report
from mmstudio.studio.create import NewProject
from mmstudio.studio.fidelity import measure

log = logging.getLogger(__name__)

SCORE_KEYS = (*DIMENSIONS, "overall")
STAGES = ("plan", "layout", "image", "video", "chart", "assets", "render", "evaluate", "refine")


class PromptRow(TypedDict):
    """One line of a prompts file: ``{id, prompt}``."""

    id: str
    prompt: str


class RunKey(TypedDict):
    """What makes two runs of a prompt comparable (a record's ``run``)."""

    provider: str
    rounds: int
    evaluate: bool


class Counts(TypedDict):
    """How many sections and assets the plan has."""

    sections: int
    images: int
    videos: int
    charts: int


class RequirementsBrief(TypedDict):
    """The brief's requirements on one report (:func:`requirements_of`)."""

    share: float | None
    passed: int
    checked: int
    unchecked: int
    by_kind: dict[str, list[int]]
    failed: list[str]


class ReflectionBrief(TypedDict):
    """Rounds, why the loop stopped, attempts accepted and reverted (:func:`reflection_brief`)."""

    rounds: int
    stopped: str
    accepted: int
    reverted: int


class Fidelity(TypedDict):
    """Text and colour fidelity of the final site (:func:`fidelity_of`): shares 0–1."""

    quoted: float
    hex: float
    quotes: int
    colours: int
    missing_quotes: list[str]
    missing_colours: list[str]


class BenchRecord(TypedDict, total=False):
    """``records/<id>.json`` (the module docstring gives the shape): ``id``, ``ok`` and
    ``seconds`` always; a failed prompt has ``error`` and ``error_type`` (and ``usage`` when a
    model was called), a finished one the rest; ``run`` is added when it is written."""

    id: Required[str]
    ok: Required[bool]
    seconds: Required[float]
    error: str
    error_type: str
    project: str
    counts: Counts
    stages: dict[str, float | None]
    scores_before: dict[str, float | None]
    scores_after: dict[str, float | None]
    issues_before: dict[str, int]
    issues_after: dict[str, int]
    requirements_before: RequirementsBrief | None
    requirements_after: RequirementsBrief | None
    render_failed: bool
    reflection: ReflectionBrief | None
    fidelity: Fidelity
    usage: UsageTotals | None
    notices: list[str]
    run: RunKey


def first_report(project: Project) -> Report | None:
    """The report of the project's first version (the page as generated, before reflection);
    None when that version carries no report or its blob cannot be read."""
    versions = project.history.list()
    digest = versions[0].files.get("report.json") if versions else None
    if digest is None:
        return None
    try:
        return Report.model_validate_json(project.objects.get(digest))
    except (OSError, ValueError, ValidationError) as exc:
        log.warning("the first report of %s is unreadable: %s", project.root, exc)
        return None


def scores_of(report: Report | None) -> dict[str, float | None]:
    """The six dimension scores and overall (0–1, None where absent or not evaluated)."""
    if report is None:
        return dict.fromkeys(SCORE_KEYS)
    data = report.scores.model_dump()
    return {key: data.get(key) for key in SCORE_KEYS}


def issues_by_code(report: Report | None) -> dict[str, int]:
    """How many measured issues of each ``code`` the report lists (judge issues left out)."""
    if report is None:
        return {}
    codes = Counter(i.code or i.dimension for i in report.issues if i.source == "measured")
    return dict(sorted(codes.items()))


def requirements_of(report: Report | None) -> RequirementsBrief | None:
    """The brief's requirements on one report: passed / checked / unchecked, the pass share
    (0–1, None when nothing was checked) and per kind ``[passed, checked]``; None when the
    report has no requirements (no brief, or not evaluated)."""
    if report is None or not report.requirements:
        return None
    by_kind: dict[str, list[int]] = {}
    for req in report.requirements:
        row = by_kind.setdefault(req.kind, [0, 0])
        if req.status != "unchecked":
            row[1] += 1
            row[0] += req.status == "pass"
    checked = sum(r[1] for r in by_kind.values())
    return {
        "share": report.requirement_share,
        "passed": sum(r[0] for r in by_kind.values()),
        "checked": checked,
        "unchecked": len(report.requirements) - checked,
        "by_kind": dict(sorted(by_kind.items())),
        "failed": [r.text for r in report.requirements if r.status == "fail"][:40],
    }


def stage_seconds(
    timings: dict[str, float], kinds: dict[str, str], before: Report | None
) -> dict[str, float | None]:
    """Seconds per stage from ``new_project`` timings: asset stages are summed per kind
    (``kinds`` maps element id → image|video|chart; parallel work, so they can add up to more
    than ``assets``, the wall time of layout ∥ assets); ``render`` is the first evaluation's
    render; ``evaluate`` its whole evaluation (render included)."""
    stages: dict[str, float | None] = {
        "plan": timings.get("plan"),
        "layout": timings.get("layout"),
        "assets": timings.get("assets_total"),
        "evaluate": timings.get("evaluate"),
        "refine": timings.get("reflect"),
        "total": timings.get("total"),
        "render": before.timings.get("render_total_s") if before is not None else None,
    }
    for kind in ("image", "video", "chart"):
        parts = [
            s for k, s in timings.items() if k.startswith("asset:") and _kind(k, kinds) == kind
        ]
        stages[kind] = round(sum(parts), 3) if parts else None
    return stages


def _kind(key: str, kinds: dict[str, str]) -> str | None:
    return kinds.get(key.split(":", 1)[1])


def usage_totals(usage: UsageSummary | None) -> UsageTotals | None:
    """The ``total`` row of a designer's usage summary (None for the offline designer)."""
    if not usage or not usage.get("calls"):
        return None
    return UsageTotals(**usage["total"])  # a copy


def reflection_brief(reflection: dict[str, Any] | None) -> ReflectionBrief | None:
    """Rounds, why the loop stopped, and how many attempts were accepted or reverted."""
    if reflection is None:
        return None
    outcomes = [o.get("outcome") for o in reflection.get("outcomes") or [] if isinstance(o, dict)]
    return {
        "rounds": reflection.get("rounds", 0),
        "stopped": reflection.get("stopped", ""),
        "accepted": outcomes.count("accepted"),
        "reverted": sum(o in ("reverted", "rejected") for o in outcomes),
    }


def fidelity_of(prompt: str, project: Project) -> Fidelity:
    """Text and colour fidelity of the final site (see :mod:`mmstudio.studio.fidelity`)."""
    found = measure(prompt, project.site_dir)
    return {
        "quoted": round(found.quote_share, 4),
        "hex": round(found.colour_share, 4),
        "quotes": len(found.quotes),
        "colours": len(found.colours),
        "missing_quotes": [q for q in found.quotes if q not in found.quotes_found],
        "missing_colours": [c for c in found.colours if c not in found.colours_found],
    }


def success_record(row: PromptRow, made: NewProject, seconds: float) -> BenchRecord:
    """The record of a prompt whose project was made (``seconds``: wall time of the job)."""
    plan = made.plan
    before = first_report(made.project)
    after = made.project.read_report()
    before = before if before is not None else after
    return {
        "id": row["id"],
        "ok": True,
        "seconds": round(seconds, 3),
        "project": made.project.root.name,
        "counts": {
            "sections": len(plan.sections),
            "images": len(plan.images),
            "videos": len(plan.videos),
            "charts": len(plan.charts),
        },
        "stages": stage_seconds(made.timings, {e.id: e.kind for e in plan.elements()}, before),
        "scores_before": scores_of(before),
        "scores_after": scores_of(after),
        "issues_before": issues_by_code(before),
        "issues_after": issues_by_code(after),
        "requirements_before": requirements_of(before),
        "requirements_after": requirements_of(after),
        "render_failed": any(i.code == "render-failed" for i in (after.issues if after else [])),
        "reflection": reflection_brief(made.reflection),
        "fidelity": fidelity_of(row["prompt"], made.project),
        "usage": usage_totals(made.usage),
        "notices": list(made.notices),
    }


def failure_record(row: PromptRow, exc: BaseException, seconds: float) -> BenchRecord:
    """The record of a prompt whose job raised: the reason is the error's first line."""
    lines = str(exc).strip().splitlines()
    return {
        "id": row["id"],
        "ok": False,
        "seconds": round(seconds, 3),
        "error": lines[0] if lines else type(exc).__name__,
        "error_type": type(exc).__name__,
    }
