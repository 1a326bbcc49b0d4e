"""The ``mmstudio`` command line: the same services the desktop app uses.

Every command has ``--help``, prints JSON with ``--json``, and on failure exits non-zero with one
line ``mmstudio: error: <reason>`` on stderr (tracebacks only with ``--debug``). Only a
:class:`~mmstudio.project.errors.UserError` is such a failure (exit 1); any other exception is a
bug: one ``mmstudio: internal error`` line naming the file that holds its traceback, exit 70.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from mmstudio import __version__
from mmstudio.project import Project
from mmstudio.project.errors import InputError, UserError, one_line, read_input
from mmstudio.project.export import export_site, hygiene_problems
from mmstudio.project.lock import writer_lock
from mmstudio.project.runs import Runs, record_usage
from mmstudio.project.store import MANIFEST
from mmstudio.project.workspace import Workspace
from mmstudio.providers.registry import PROVIDERS
from mmstudio.providers.settings import add_provider_arguments, settings_from_args
from mmstudio.studio.bundle import totals_line, usage_line

log = logging.getLogger("mmstudio")

# commands that change an existing project hold its writer lock (one writer across processes)
_WRITERS = {"cmd_refine", "cmd_feedback", "cmd_undo", "cmd_redo", "cmd_restore"}
# ... and so does ``evaluate`` when its path is a project (it writes the project's report.json)
_PROJECT_WRITERS = {"cmd_evaluate": "path"}
_INTERNAL_ERROR = 70  # EX_SOFTWARE (sysexits.h): a bug, not the user's input


def _emit(args: argparse.Namespace, value: dict, text: str) -> None:
    """Print ``value`` as JSON with ``--json``, else the human ``text``."""
    if args.json:
        print(json.dumps(value, indent=2, ensure_ascii=False, default=str))
    else:
        print(text)


class _Progress:
    """Progress lines on stderr (one per finished step), silent with ``--json``/``--quiet``."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, stage: str, done: int, total: int, detail: str) -> None:
        if self.enabled:
            print(f"[{stage} {done}/{total}] {detail}", file=sys.stderr, flush=True)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def _run(coro):
    """Run ``coro`` on a fresh event loop, then stop the shared browser if it was started."""
    from mmstudio.studio.evaluation import close_renderer

    async def main():
        try:
            return await coro
        finally:
            await close_renderer()

    return asyncio.run(main())


def _run_with_models(args: argparse.Namespace, work):
    """Run ``await work(models)`` with the model bundle of ``args.provider`` (None offline),
    made from the flags, on one event loop and closed there; what the models spent is printed
    on stderr (``usage: …``) — on failure with the error line (``exc.usage``) — and kept in
    the changed project's ``usage`` table (:func:`~mmstudio.project.runs.record_usage`)."""
    from mmstudio.studio.bundle import usage_summary, using_models

    settings = settings_from_args(args) if args.provider == "openai" else None

    async def run():
        async with using_models(args.provider, settings) as models:
            try:
                result = await work(models)
            finally:  # what the calls cost, kept in the project's usage table (failed too)
                root = _written_project(args)
                if models is not None and root is not None and (root / MANIFEST).is_file():
                    record_usage(root, args.command, models.usage.as_rows())
            line = usage_line(usage_summary(models))
            if line:
                print(f"usage: {line}", file=sys.stderr)
            return result

    return _run(run())


def _read_prompt(args: argparse.Namespace) -> str:
    if args.prompt is not None:
        return args.prompt
    return read_input(Path(args.prompt_file).expanduser(), "the prompt file")


def cmd_new(args: argparse.Namespace) -> int:
    from mmstudio.studio.create import discard_interrupted, new_project

    prompt = _read_prompt(args)
    progress = _Progress(not (args.json or args.quiet))
    try:
        result = _run(
            new_project(
                Path(args.project),
                prompt,
                provider=args.provider,
                concurrency=args.concurrency,
                progress=progress,
                evaluate=not args.no_evaluate,
                rounds=args.rounds,
                settings=settings_from_args(args) if args.provider == "openai" else None,
            )
        )
    except KeyboardInterrupt:  # Ctrl-C or SIGTERM: no building folder stays behind
        discard_interrupted(Path(args.project))
        raise
    summary = result.summary()
    made = summary.project
    text = (
        f"Created {made.title!r}: {_count(summary.sections, 'section')}, "
        f"{_count(summary.images, 'image')}, {_count(summary.videos, 'video')}, "
        f"{_count(summary.charts, 'chart')} "
        f"in {summary.timings['total']:.1f} s\n"
        f"  site:   {made.site}\n"
        f"  report: {made.report or '(not evaluated)'}\n"
        f"  version: {made.head}"
    )
    for notice in summary.notices:
        print(f"notice: {notice}", file=sys.stderr)
    if summary.usage:
        text += "\n  usage: " + usage_line(summary.usage)
    if summary.reflection:
        r = summary.reflection
        text += (
            f"\n  reflection: overall {r['before']} → {r['after']}, measured issues "
            f"{r['issues_before']} → {r['issues_after']} in {r['rounds']} round(s) ({r['stopped']})"
        )
    _emit(args, summary.to_json(), text)
    return 0


def cmd_refine(args: argparse.Namespace) -> int:
    from mmstudio.studio.refining import refine_project

    outcomes = _run_with_models(
        args,
        lambda models: refine_project(
            Path(args.project), args.level, args.element, args.instruction or "", models=models
        ),
    )
    project = Project.open(Path(args.project))
    rows = [o.as_dict() for o in outcomes]
    lines = [
        f"{o['outcome']:>9}  {o['level']}/{o['element'] or 'page'}  {', '.join(o['codes'])}: "
        f"{o['reason']}"
        for o in rows
    ]
    text = "\n".join(lines) or _nothing_refined(project, args)
    _emit(args, {"outcomes": rows, "head": project.manifest.head}, text)
    return 0


def _nothing_refined(project: Project, args: argparse.Namespace) -> str:
    """Why a refine changed nothing: no issue at that level, or issues no refiner can take."""
    report = project.read_report()
    issues = [
        i for i in (report.issues if report else [])
        if i.level == args.level and (args.element is None or i.element == args.element)
    ]  # fmt: skip
    if not issues:
        return f"nothing to refine at the {args.level} level"
    how = (
        "the model proposed no change"
        if args.provider == "openai"
        else "no offline rule fixes them; say what to change with `mmstudio feedback "
        "PROJECT --text …`, or refine with --provider openai"
    )
    first = issues[0].message.splitlines()[0][:90]
    return f"{len(issues)} issue(s) at the {args.level} level (e.g. {first}), but {how}"


def cmd_undo(args: argparse.Namespace) -> int:
    project = Project.open(Path(args.project))
    version = asyncio.run(Workspace.of(project).undo())
    _emit(args, {"head": version.id}, f"Undone: now at {version.id}: {version.summary}")
    return 0


def cmd_redo(args: argparse.Namespace) -> int:
    project = Project.open(Path(args.project))
    version = asyncio.run(Workspace.of(project).redo())
    _emit(args, {"head": version.id}, f"Redone: now at {version.id}: {version.summary}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    from mmstudio.studio.evaluation import evaluate_path

    brief = _read_prompt(args) if args.prompt is not None or args.prompt_file else None
    report, project = _run_with_models(
        args,
        lambda models: evaluate_path(
            Path(args.path), viewport_width=args.viewport, brief=brief, models=models
        ),
    )
    if args.json:
        print(report.model_dump_json(indent=2))
    else:
        print(_report_text(report, project))
    if report.failed:
        print(f"mmstudio: error: {report.failed}", file=sys.stderr)
        return 1
    return 0


def _report_text(report, project) -> str:
    from mmstudio.providers.llm.judge import not_judged

    scores = report.scores.model_dump()
    failed = not_judged(report.notices, {e.id: e.kind for e in report.elements})
    lines = [
        "scores: "
        + "  ".join(
            f"{k} {'-' if v is None else format(v, '.2f')}"
            + (" (measured only: not judged)" if k in failed else "")
            for k, v in scores.items()
        )
    ]
    for issue in sorted(
        report.issues, key=lambda i: ("critical", "major", "minor").index(i.severity)
    ):
        where = issue.element or "page"
        lines.append(
            f"  [{issue.severity} {issue.level}/{issue.dimension}] {where}: {issue.message}"
        )
    if not report.issues:
        lines.append("  no issues found")
    lines.extend(_requirements_text(report))
    lines.append(f"screenshot: {report.render.screenshot}")
    if project is not None:
        lines.append(f"report: {project.report_path}")
    return "\n".join(lines)


def _requirements_text(report) -> list[str]:
    """One line on the brief's requirements: passed / checked, unchecked, and the notices."""
    reqs = report.requirements
    lines = [f"notice: {n}" for n in report.notices]
    if not reqs:
        return [*lines, "requirements: none (no brief: pass --prompt-file for a site folder)"]
    checked = [r for r in reqs if r.status != "unchecked"]
    passed = sum(r.status == "pass" for r in checked)
    share = "-" if report.requirement_share is None else f"{report.requirement_share:.0%}"
    lines.append(
        f"requirements: {passed} of {len(checked)} checked pass ({share}); "
        f"{len(reqs) - len(checked)} unchecked"
    )
    return lines


def cmd_export(args: argparse.Namespace) -> int:
    project = Project.open(Path(args.project))
    as_zip = args.zip or args.output.lower().endswith(".zip")
    from mmstudio.studio.credits import export_extras

    dest = export_site(
        project.site_dir, Path(args.output), as_zip=as_zip, overwrite=args.force,
        extra=export_extras(project),
    )  # fmt: skip
    problems = hygiene_problems(project.site_dir)
    for problem in problems:
        print(f"warning: {problem}", file=sys.stderr)
    _emit(args, {"export": str(dest), "problems": problems}, f"Exported the site to {dest}")
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    project = Project.open(Path(args.project))
    if args.jobs:
        return _jobs_history(args, project)
    versions = project.history.list()
    rows = [
        {
            "id": v.id,
            "parent": v.parent,
            "created_at": v.created_at,
            "summary": v.summary,
            "job": v.job,
            "element": v.element,
            "level": v.level,
            "overall": v.scores.get("overall"),
            "head": v.id == project.manifest.head,
        }
        for v in versions
    ]
    lines = [
        f"{'*' if r['head'] else ' '} {r['id']}  "
        f"{'-' if r['overall'] is None else format(r['overall'], '.2f'):>5}  {r['summary']}"
        for r in rows
    ]
    _emit(args, {"versions": rows}, "\n".join(lines) or "no versions yet")
    return 0


def _jobs_history(args: argparse.Namespace, project: Project) -> int:
    """``history --jobs``: the jobs run on the project (the app's and the services'), oldest
    first, with how each ended."""
    jobs = Runs(project.root).jobs()
    lines = [
        f"{j.job:>8}  {j.kind:<12} {(j.element or 'page'):<16} {j.level or '-':<7} "
        f"{'-' if j.seconds is None else format(j.seconds, '.1f'):>6} s  {j.status}"
        + (f": {j.error}" if j.error else "")
        for j in jobs
    ]
    rows = [j.model_dump() | {"seconds": j.seconds} for j in jobs]
    _emit(args, {"jobs": rows}, "\n".join(lines) or "no jobs recorded yet")
    return 0


def cmd_usage(args: argparse.Namespace) -> int:
    """``usage PROJECT``: the model calls recorded for the project, summed per run, stage or
    model (tokens, images, video seconds, USD over the priced calls)."""
    project = Project.open(Path(args.project))
    totals = Runs(project.root).usage_totals(args.by)
    lines = [
        f"{key:<12} calls {t['calls']}, tokens {t['input_tokens']} in / {t['output_tokens']} "
        f"out, images {t['images']}, video {t['video_seconds']:.1f} s, "
        f"USD {t['cost_usd']:.4f}" + (f" ({t['unpriced']} unpriced)" if t["unpriced"] else "")
        for key, t in totals.items()
    ]
    _emit(args, {"by": args.by, "usage": totals}, "\n".join(lines) or "no model calls recorded")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    project = Project.open(Path(args.project))
    version = asyncio.run(Workspace.of(project).restore(args.version))
    _emit(args, {"head": version.id}, f"Restored version {version.id}: {version.summary}")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from mmstudio.studio.doctor import endpoint_checks, run_checks

    checks = run_checks() + endpoint_checks(settings_from_args(args))
    failed = [c for c in checks if not c.ok]
    lines = [f"{'ok ' if c.ok else 'BAD'} {c.name}: {c.detail}" for c in checks]
    checks_json = [c.to_json() for c in checks]
    _emit(args, {"checks": checks_json, "ok": not failed}, "\n".join(lines))
    return 1 if failed else 0


def _num(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def cmd_bench(args: argparse.Namespace) -> int:
    from mmstudio.studio.bench import BenchOptions, run_bench

    num = _num
    if args.frontalk:
        if args.prompts:
            raise InputError("give either PROMPTS.jsonl or --frontalk FILE, not both")
        return _bench_frontalk(args)
    if not args.prompts:
        raise InputError("give a PROMPTS.jsonl file (or --frontalk FILE for FronTalk dialogues)")
    options = BenchOptions(
        provider=args.provider,
        rounds=args.rounds,
        evaluate=not args.no_evaluate,
        jobs=max(1, args.jobs),
        concurrency=args.concurrency,
        settings=settings_from_args(args) if args.provider == "openai" else None,
    )
    progress = _Progress(not (args.json or args.quiet))
    result = _run(
        run_bench(
            Path(args.prompts),
            Path(args.output),
            limit=args.limit,
            options=options,
            progress=progress,
            figures=not args.no_figures,
        )
    )
    seconds, overall = result["seconds"], result["scores"]["overall"]
    text = (
        f"{result['finished']}/{result['prompts']} prompts finished ({result['failed']} failed), "
        f"median {num(seconds['median'])} s per prompt (max {num(seconds['max'])}); overall "
        f"{num(overall['before']['median'])} → {num(overall['after']['median'])} (medians); "
        f"quoted strings {num(result['fidelity']['quoted']['median'])}, hex colours "
        f"{num(result['fidelity']['hex']['median'])}\n  summary: {result['files']['md']}"
    )
    _emit(args, result, text)
    if result["prompts"] and not result["finished"]:  # a bench that made nothing is no result
        first = result["failures"][0] if result["failures"] else {"error": "unknown"}
        print(
            f"mmstudio: error: all {result['prompts']} prompts failed (first: {first['error']})",
            file=sys.stderr,
        )
        return 1
    return 0


def _bench_frontalk(args: argparse.Namespace) -> int:
    """``bench --frontalk``: replay FronTalk dialogues and score their test conditions."""
    from mmstudio.studio.frontalk import FrontalkOptions, run_frontalk

    options = FrontalkOptions(
        provider=args.provider,
        start=args.start,
        settings=settings_from_args(args) if args.provider == "openai" else None,
    )
    progress = _Progress(not (args.json or args.quiet))
    result = _run(
        run_frontalk(
            Path(args.frontalk), Path(args.output), limit=args.limit, options=options,
            progress=progress,
        )
    )  # fmt: skip
    at = result["at_intro"]
    text = (
        f"{result['finished']}/{result['dialogues']} dialogues replayed ({result['failed']} "
        f"failed), {result['turns']} turns, {result['tests']} test conditions; pass rate "
        f"{_num(result['pass_rate'])}, forgetting rate {_num(result['forgetting_rate'])}; at "
        f"introduction {at['pass']} pass / {at['fail']} fail / {at['unchecked']} unchecked\n"
        f"  checked {_share(result.get('checked_share'))} of the test conditions; over those: "
        f"pass rate {_num(result.get('checked_pass_rate'))}, forgetting rate "
        f"{_num(result.get('checked_forgetting_rate'))}\n"
        f"  summary: {result['files']['md']}"
    )
    if result.get("usage"):
        text += "\n  usage: " + totals_line(result["usage"])
    _emit(args, result, text)
    return 0


def _share(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def cmd_turns(args: argparse.Namespace) -> int:
    from mmstudio.studio.turns import turns_text, turns_view

    view = turns_view(Path(args.project))
    _emit(args, view, turns_text(view))
    return 0


def cmd_gui(args: argparse.Namespace) -> int:
    from mmstudio.gui.app import run

    project = Path(args.project) if args.project else None
    screenshot = Path(args.screenshot) if args.screenshot else None
    return run(project, screenshot, select=args.select, device=args.device)


def cmd_feedback(args: argparse.Namespace) -> int:
    """One feedback turn. Exit 0: committed and every checked requirement passes; 3: committed,
    but some requirement still fails after the repair pass (listed as FAIL, and in the JSON's
    ``failing`` with ``status`` "failing") or was not applied and does not pass (a model call
    failed: ``unapplied``, ``status`` "not applied"); 1: nothing was committed (bad input,
    render failure).
    Clauses the offline rules did not understand are listed ("not understood"), unchecked."""
    from mmstudio.studio.feedback import feedback_project

    annotations = Path(args.annotations) if args.annotations else None
    result = _run_with_models(
        args, lambda models: feedback_project(Path(args.project), args.text, annotations,
                                              models=models)
    ).as_dict()  # fmt: skip
    lines = [f"turn {result['turn']} ({result['route']}) → version {result['version']}"]
    lines += [f"  {m}" for m in result["marks"]]
    for verdict in result["verdicts"]:
        mark = {True: "pass", False: "FAIL", None: "  — "}[verdict["passed"]]
        lines.append(f"  {mark}  {verdict['requirement']}: {verdict['detail']}")
    for event in result["forgetting"]:
        state = "repaired" if event["repaired"] else "NOT repaired"
        lines.append(f"  forgot {event['requirement']}: {event['detail']} ({state})")
    lines += [f"  by the model: {line}" for line in result["by_model"]]
    lines += [f"  not applied: {line}" for line in result["not_applied"]]
    lines += [f"  note: {line}" for line in result["notes"]]
    lines += [f"  not understood (unchecked): {line}" for line in result["not_understood"]]
    if result["failing"]:
        ids = ", ".join(v["requirement"] for v in result["failing"])
        lines.append(f"committed, but {len(result['failing'])} requirement(s) still fail: {ids}")
    elif result["unapplied"]:
        ids = ", ".join(result["unapplied"])
        lines.append(f"committed, but {len(result['unapplied'])} requirement(s) not applied: {ids}")
    _emit(args, result, "\n".join(lines))
    return 3 if result["failing"] or result["unapplied"] else 0


def _parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print the result as JSON")
    common.add_argument("--quiet", action="store_true", help="no progress lines")
    common.add_argument("--debug", action="store_true", help="log debug detail and tracebacks")
    parser = argparse.ArgumentParser(
        prog="mmstudio", description="MM Studio: plan, generate, score and refine web pages."
    )
    parser.add_argument("--version", action="version", version=f"mmstudio {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, func, helptext, configure in _COMMANDS:
        command = sub.add_parser(name, parents=[common], help=helptext, description=helptext)
        configure(command)
        command.set_defaults(func=func)
    return parser


def _new_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", help="folder to create (must not exist or be empty)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--prompt", help="the design prompt text")
    source.add_argument("--prompt-file", help="a UTF-8 text file holding the prompt")
    p.add_argument("--provider", choices=PROVIDERS, default="offline", help="designer to use")
    p.add_argument(
        "--concurrency", type=_bounded(1, 16), default=2, help="assets made at once (default 2)"
    )
    p.add_argument("--no-evaluate", action="store_true", help="skip rendering and scoring")
    add_provider_arguments(p)
    p.add_argument(
        "--rounds",
        type=_bounded(0, 10),
        default=3,
        help="reflection rounds after generation (3; 0: none)",
    )


def _bounded(low: int, high: int) -> Callable[[str], int]:
    """An argparse type: an integer between ``low`` and ``high`` inclusive."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be between {low} and {high}, not {value}")
        return value

    return parse


def _refine_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", help="project folder")
    p.add_argument("--element", help="element id (default: every element with issues)")
    p.add_argument("--level", required=True, choices=("local", "context", "global"))
    p.add_argument(
        "--instruction",
        help="what to change, in words (the model refiners act on it; offline, where a rule does)",
    )
    p.add_argument(
        "--provider",
        choices=PROVIDERS,
        default="offline",
        help="refiners: the offline rules (default) or the model of an OpenAI-compatible endpoint",
    )
    add_provider_arguments(p)


def _evaluate_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", help="a project folder, a site folder or an HTML file")
    brief = p.add_mutually_exclusive_group()
    brief.add_argument(
        "--prompt", help="the brief to check the page against (a project's own prompt otherwise)"
    )
    brief.add_argument("--prompt-file", help="read the brief from this UTF-8 file")
    p.add_argument(
        "--viewport", type=_bounded(320, 3840), default=1280, help="viewport width in px (1280)"
    )
    p.add_argument(
        "--provider",
        choices=PROVIDERS,
        default="offline",
        help="offline: measured checks only; openai: add the model judge's issues",
    )
    add_provider_arguments(p)


def _export_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", help="project folder")
    p.add_argument("-o", "--output", required=True, help="destination folder (or .zip)")
    p.add_argument("--zip", action="store_true", help="write a zip archive instead of a folder")
    p.add_argument("--force", action="store_true", help="replace a non-empty destination")


def _project_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", help="project folder")


def _history_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", help="project folder")
    p.add_argument(
        "--jobs", action="store_true", help="list the jobs run on the project, not its versions"
    )


def _usage_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", help="project folder")
    p.add_argument(
        "--by", choices=("run", "stage", "model"), default="run", help="sum per (default: run)"
    )


def _restore_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("project", help="project folder")
    p.add_argument("version", help="version id (or a unique prefix of ≥ 4 characters)")


def _bench_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("prompts", nargs="?", help="JSONL file of {id, prompt} lines")
    p.add_argument("-o", "--output", required=True, help="folder for the projects and results")
    p.add_argument(
        "--limit", type=_bounded(1, 100_000), default=None, help="only the first N prompts"
    )
    p.add_argument(
        "--frontalk",
        metavar="FILE",
        help="replay FronTalk dialogues (JSONL) turn by turn instead: pass and forgetting rates",
    )
    p.add_argument(
        "--start",
        choices=("new", "blank", "reference"),
        default="new",
        help="--frontalk turn 1: generate from the first instruction (new), an empty page "
        "(blank) or the dialogue's reference site (reference)",
    )
    p.add_argument("--jobs", type=int, default=1, help="prompts run at once (default 1)")
    p.add_argument("--provider", choices=PROVIDERS, default="offline", help="designer to use")
    p.add_argument(
        "--rounds",
        type=_bounded(0, 10),
        default=3,
        help="reflection rounds per prompt (3; 0: none)",
    )
    p.add_argument("--concurrency", type=int, default=2, help="assets made at once per prompt")
    p.add_argument("--no-evaluate", action="store_true", help="skip rendering and scoring")
    p.add_argument("--no-figures", action="store_true", help="write summary.md without PNGs")
    add_provider_arguments(p)


def _gui_args(p: argparse.ArgumentParser) -> None:
    from mmstudio.gui.app import add_screenshot_arguments

    p.add_argument("project", nargs="?", help="project folder to open")
    add_screenshot_arguments(p)


def _feedback_args(p: argparse.ArgumentParser) -> None:
    p.epilog = (
        "exit status: 0 all checked requirements pass; 3 the version was committed but some "
        "requirement still fails after the repair pass, or was not applied; 1 nothing was "
        "committed"
    )
    p.add_argument("project", help="project folder")
    p.add_argument("--text", required=True, help="the instruction, in words")
    p.add_argument("--annotations", help="annotation JSON (vector shapes in page px)")
    p.add_argument(
        "--provider",
        choices=PROVIDERS,
        default="offline",
        help="offline rules (default) or the model: it splits the turn, applies what no offline "
        "operation can, and judges free requirements",
    )
    add_provider_arguments(p)


def _no_args(p: argparse.ArgumentParser) -> None:
    return None


_COMMANDS: list[tuple[str, Callable[[argparse.Namespace], int], str, Callable]] = [
    ("new", cmd_new, "create a project from a design prompt", _new_args),
    (
        "evaluate",
        cmd_evaluate,
        "render and score a project, site folder or HTML file",
        _evaluate_args,
    ),
    ("export", cmd_export, "write the project's site as a self-contained folder", _export_args),
    ("history", cmd_history, "list the project's versions (--jobs: its jobs)", _history_args),
    ("usage", cmd_usage, "the model calls, tokens and cost recorded for a project", _usage_args),
    ("restore", cmd_restore, "make an earlier version current", _restore_args),
    ("refine", cmd_refine, "refine elements or the page at one level", _refine_args),
    ("undo", cmd_undo, "move the project back to the previous version", _project_arg),
    ("redo", cmd_redo, "redo the version last undone", _project_arg),
    ("bench", cmd_bench, "run the generator over a JSONL file of prompts", _bench_args),
    ("gui", cmd_gui, "open the desktop app (optionally on a project)", _gui_args),
    ("feedback", cmd_feedback, "apply one feedback turn (text + annotations)", _feedback_args),
    (
        "turns",
        cmd_turns,
        "list the feedback turns, requirements per version, forgetting events and rates",
        _project_arg,
    ),
    (
        "doctor",
        cmd_doctor,
        "check the installation (browser, ffmpeg, vendored files, model endpoint)",
        add_provider_arguments,
    ),
]


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mmstudio`` console script; returns the exit status."""
    args = _parser().parse_args(argv)
    # a terminated command cleans up as an interrupted one does (no half-built folder left)
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    logging.basicConfig(
        level=logging.DEBUG if args.debug else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    try:
        root = _written_project(args)
        if root is not None:
            name = args.func.__name__.removeprefix("cmd_")
            with writer_lock(root, f"mmstudio {name}"):
                return args.func(args)
        return args.func(args)
    except KeyboardInterrupt:
        print("mmstudio: cancelled", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `mmstudio history P | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except UserError as exc:
        if args.debug:
            raise
        _spent(exc)
        print(f"mmstudio: error: {one_line(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: its traceback goes to a file the user can send us
        if args.debug:
            raise
        _spent(exc)
        where = _save_traceback(exc)
        print(
            f"mmstudio: internal error (a bug, please report it): {one_line(exc, 200)}; "
            f"the traceback is in {where}",
            file=sys.stderr,
        )
        return _INTERNAL_ERROR


def _spent(exc: BaseException) -> None:
    """Print what the model calls cost before the failure (``exc.usage``), if they cost."""
    spent = getattr(exc, "usage", None)
    if isinstance(spent, dict) and spent.get("calls"):
        print(f"mmstudio: usage before the failure: {usage_line(spent)}", file=sys.stderr)


def _save_traceback(exc: BaseException) -> str:
    """Write ``exc``'s traceback under the user's log folder (``MMSTUDIO_LOG_DIR`` or the
    platform's, e.g. ``~/.local/state/mmstudio/log``); returns the file's path, or "stderr"
    (printed there) when the folder cannot be written."""
    import time
    import traceback

    import platformdirs

    text = "".join(traceback.format_exception(exc))
    folder = os.environ.get("MMSTUDIO_LOG_DIR") or platformdirs.user_log_dir(
        "mmstudio", appauthor=False
    )
    path = Path(folder) / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"mmstudio {__version__}: {' '.join(sys.argv)}\n{text}", encoding="utf-8")
    except OSError:
        print(text, file=sys.stderr, end="")
        return "stderr"
    return str(path)


def _written_project(args: argparse.Namespace) -> Path | None:
    """The project folder the command changes (its writer lock is held while it runs), or
    None: a writer's ``project``; for ``evaluate``, its ``path`` when that holds a project."""
    name = args.func.__name__
    if name in _WRITERS:
        return Path(args.project).expanduser()
    if name in _PROJECT_WRITERS:
        path = Path(getattr(args, _PROJECT_WRITERS[name])).expanduser()
        return path if (path / MANIFEST).is_file() else None
    return None
