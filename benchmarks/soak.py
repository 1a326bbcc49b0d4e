"""Soak (issue 9): random refine / undo / redo / restore / cancel / feedback / export / kill
operations on ONE project, then a full consistency check.

    .venv/bin/python benchmarks/soak.py [--ops 200] [--seed 9] [--kills 0.08] [--keep DIR]
                                        [--json OUT.json]

The project is a grid page of ``--elements`` images, each squeezed into a 200×200 slot until a
context patch fixes it, plus a page-level contrast issue until a global patch exists (the same
deterministic fake evaluator as the refine tests, so refines are fast and there is always work
after an undo or a restore). Operations are drawn with a seeded RNG:
- refine (context on one element, context on all, global), some cancelled at a random moment;
- undo, redo, restore of a random version;
- feedback turns (offline rules, rendered in the real browser; skipped without Chromium), some
  cancelled at a random moment (nothing of a cancelled turn may stay in the site);
- export to a folder or a zip (checked against the site);
- kill: ``python -m mmstudio restore|undo|export|refine`` in a subprocess, SIGKILLed after a
  random delay (``--kills`` is their share of the operations).
After every operation: site and plan match the head version (or the op is counted as a
corruption), nothing is left behind except this process's own cancelled-trial folders (a known
gap, removed by the next open). At the end: every version restores byte-identical (in a copy),
every committed version the soak saw still has the content it saw, the next process's open
leaves nothing behind. Prints cases tried, crashes (an operation that raised or a job that
failed for an unexpected reason), corrupted projects, lost patches and timings; exit status 1
on any corruption, lost patch or crash.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import refine_fixtures as fixtures  # noqa: E402

from mmstudio.project import Project, ProjectError  # noqa: E402
from mmstudio.project.check import (  # noqa: E402
    consistency_problems,
    leftovers,
    restore_problems,
    working_files,
)
from mmstudio.project.export import export_site  # noqa: E402
from mmstudio.project.workspace import Workspace  # noqa: E402
from mmstudio.report import Report  # noqa: E402
from mmstudio.studio.jobs import JobManager  # noqa: E402
from mmstudio.studio.refining import RefineService  # noqa: E402

FEEDBACK = [
    "make the page background a light grey",
    "make the heading dark blue",
    "add more space between the images",
    "make the images a bit larger",
]
EXPECTED = ("nothing to undo", "nothing to redo", "is being changed by another")

#: a CLI whose refiners use the soak's fake evaluator (for killed refines)
FAKE_CLI = f"""
import sys
sys.path.insert(0, {str(Path(__file__).resolve().parent)!r})
import mmstudio.refine.apply as apply
from soak import fake_evaluator
apply.render_and_score = fake_evaluator
from mmstudio.cli import main
sys.exit(main(sys.argv[1:]))
"""


# -- the page and its fake evaluation -------------------------------------------------------


async def fake_evaluator(page: Path, plan, out_dir: Path) -> Report:
    """The refiners' evaluator: a random 0–30 ms "render", then the fake report of the page
    (``tests/refine_fixtures.py``, shared with the refine, fault and kill tests)."""
    return await fixtures.fake_evaluator(page, plan, out_dir, max_s=0.03)


# -- the soak ---------------------------------------------------------------------------------


class Soak:
    """One project, one RNG, the figures."""

    def __init__(self, root: Path, rng: random.Random, feedback: bool) -> None:
        self.root = root
        self.rng = rng
        self.feedback_on = feedback
        self.outcomes: Counter[str] = Counter()
        self.timings: dict[str, list[float]] = defaultdict(list)
        self.crashes: list[str] = []
        self.corruptions: list[str] = []
        self.seen: dict[str, dict[str, str]] = {}  # version id → files when the soak saw it
        self.exports = 0
        self._reload()

    def _reload(self) -> None:
        """(Re)open the project: after a subprocess changed it, the manifest in memory is stale."""
        self.project = Project.open(self.root)
        self.jobs = JobManager()
        self.refiner = RefineService(self.project, self.jobs, evaluator=fake_evaluator)

    # operations: each returns an outcome word
    async def op_refine(self) -> str:
        level, element = self.rng.choice(
            [("context", f"e{self.rng.randrange(self.n)}"), ("context", None), ("global", None)]
        )
        outcomes = await self.refiner.refine(level, element)
        return "accepted" if any(o.outcome == "accepted" for o in outcomes) else "no change"

    async def op_cancel(self) -> str:
        level = self.rng.choice(["context", "global"])
        task = asyncio.ensure_future(self.refiner.refine(level))
        await asyncio.sleep(self.rng.uniform(0, 0.06))
        self.jobs.cancel_all()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        return "cancelled" if task.cancelled() else "finished first"

    async def op_undo(self) -> str:
        await Workspace.of(self.project).undo()
        return "ok"

    async def op_redo(self) -> str:
        await Workspace.of(self.project).redo()
        return "ok"

    async def op_restore(self) -> str:
        versions = self.project.history.list()
        await Workspace.of(self.project).restore(self.rng.choice(versions).id)
        return "ok"

    async def op_feedback(self) -> str:
        from mmstudio.feedback.turn import FeedbackError
        from mmstudio.studio.feedback import FeedbackService

        service = FeedbackService(self.project, self.jobs, refine=self.refiner)
        try:
            result = await service.run(self.rng.choice(FEEDBACK))
        except FeedbackError as exc:
            return f"refused: {str(exc)[:40]}"
        return "committed" if result.version else "no version"

    async def op_cancel_feedback(self) -> str:
        from mmstudio.studio.feedback import FeedbackService

        service = FeedbackService(self.project, self.jobs, refine=self.refiner)
        job = service.submit(self.rng.choice(FEEDBACK))
        await asyncio.sleep(self.rng.uniform(0, 1.5))
        self.jobs.cancel(job.id)
        await self.jobs.wait(job.id)
        return job.outcome

    async def op_export(self) -> str:
        self.exports += 1
        dest = self.root.parent / "exports" / f"e{self.exports}"
        as_zip = self.rng.random() < 0.4
        written = export_site(self.project.site_dir, dest, as_zip=as_zip)
        files = [p for p in self.project.site_dir.rglob("*") if p.is_file()]
        site = {p.relative_to(self.project.site_dir).as_posix() for p in files}
        if as_zip:
            with zipfile.ZipFile(written) as archive:
                got = set(archive.namelist())
        else:
            got = {p.relative_to(written).as_posix() for p in written.rglob("*") if p.is_file()}
        if got != site:
            self.corruptions.append(f"export {written.name} differs from the site")
        return "zip" if as_zip else "folder"

    async def op_kill(self) -> str:
        command = self.rng.choice(["restore", "undo", "export", "refine"])
        args = {
            "restore": ["restore", str(self.root), self.rng.choice(self.project.history.list()).id],
            "undo": ["undo", str(self.root)],
            "export": ["export", str(self.root), "-o", str(self.root.parent / "killed-export")],
            "refine": ["refine", str(self.root), "--level", "context"],
        }[command]
        code = ["-c", FAKE_CLI] if command == "refine" else ["-m", "mmstudio"]
        child = subprocess.Popen(
            [sys.executable, *code, *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        marker = {"restore": ".staging-*", "undo": ".staging-*", "refine": ".staging-trial-*"}
        folder, pattern = (
            (self.root.parent, "*mmstudio-partial-*")
            if command == "export"
            else (self.root, marker[command])
        )
        deadline = time.monotonic() + 60
        while child.poll() is None and not any(folder.glob(pattern)):
            if time.monotonic() > deadline:
                break
            await asyncio.sleep(0.002)
        await asyncio.sleep(self.rng.uniform(0, 0.1))
        killed = child.poll() is None
        if killed:
            child.send_signal(signal.SIGKILL)
        child.wait(60)
        self._reload()
        export = self.root.parent / "killed-export"
        if export.exists():  # complete or absent: tidy for the next kill
            shutil.rmtree(export)
        return f"{command} {'killed' if killed else 'finished'}"

    # checks
    def check_after(self, name: str) -> None:
        """Site and plan are the head's; nothing but own cancelled trials is left behind."""
        problems = [p for p in leftovers(self.root) if not p.startswith(_own_trial())]
        head = self.project.manifest.head
        if head is None:
            problems.append("no head")
        else:
            version = self.project.history.get(head)
            files = working_files(self.project)
            expected = {p: d for p, d in version.files.items() if p != "report.json"}
            actual = {p: d for p, d in files.items() if p != "report.json"}
            if actual != expected:
                diff = sorted(set(actual.items()) ^ set(expected.items()))[0][0]
                problems.append(f"site/plan differ from head {head} at {diff}")
            self.seen.setdefault(head, version.files)
        self.corruptions += [f"after {name}: {p}" for p in problems]

    async def run(self, ops: int, kills: float) -> None:
        weights = {
            "refine": 30, "cancel": 12, "undo": 14, "redo": 8, "restore": 14,
            "feedback": 8 if self.feedback_on else 0,
            "cancel_feedback": 4 if self.feedback_on else 0, "export": 6,
        }  # fmt: skip
        total = sum(weights.values())
        weights["kill"] = round(total * kills / (1 - kills)) if kills else 0
        names, w = zip(*weights.items(), strict=True)
        name = ""
        for number in range(1, ops + 1):
            after_undo = name == "undo" and self.rng.random() < 0.5  # a redo needs an undo
            name = "redo" if after_undo else self.rng.choices(names, w)[0]
            started = time.perf_counter()
            try:
                outcome = await getattr(self, f"op_{name}")()
            except ProjectError as exc:
                outcome = "refused" if any(e in str(exc) for e in EXPECTED) else "error"
                if outcome == "error":
                    self.crashes.append(f"op {number} {name}: {exc}")
            except Exception as exc:  # a crash: record it and go on
                self.crashes.append(f"op {number} {name}: {type(exc).__name__}: {exc}")
                outcome = "crash"
            self.timings[name].append(time.perf_counter() - started)
            failed = [j for j in self.jobs.jobs.values() if j.state == "failed"]
            self.crashes += [f"op {number} {name}: job {j.kind} failed: {j.error}" for j in failed]
            self.jobs.jobs = {k: j for k, j in self.jobs.jobs.items() if j.state != "failed"}
            self.outcomes[f"{name}: {outcome}"] += 1
            self.check_after(f"op {number} {name}")

    def final_check(self) -> dict:
        """Everything the docstring promises at the end; returns the figures."""
        own_trials = [p for p in leftovers(self.root) if p.startswith(_own_trial())]
        subprocess.run(  # the next process's open: recovery owns every folder
            [sys.executable, "-c", "import sys; from pathlib import Path; "
             "from mmstudio.project import Project; Project.open(Path(sys.argv[1]))",
             str(self.root)],
            check=True, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        project = Project.open(self.root)
        problems = consistency_problems(project)  # leftovers included
        head = project.history.get(project.manifest.head)
        now = {p: d for p, d in working_files(project).items() if p != "report.json"}
        if now != {p: d for p, d in head.files.items() if p != "report.json"}:
            problems.append(f"the site or plan is not the head version {head.id}")
        report = project.read_report()
        if report is None:
            problems.append("report.json is missing or invalid")
        else:
            missing = [e.path for e in report.elements if not (project.site_dir / e.path).is_file()]
            problems += [f"report names a missing asset {m}" for m in missing]
        if project.plan_path.exists():
            try:
                project.read_plan()
            except ProjectError as exc:
                problems.append(str(exc))
        versions = project.history.list()
        lost = []
        for vid, files in self.seen.items():
            if vid not in {v.id for v in versions} or project.history.get(vid).files != files:
                lost.append(f"{vid}: no longer the content the soak saw")
        with tempfile.TemporaryDirectory() as scratch:
            copy = Path(scratch) / "copy"
            shutil.copytree(self.root, copy)
            lost += restore_problems(Project.open(copy), [v.id for v in versions])
        return {
            "versions": len(versions),
            "own_cancelled_trials_left_until_next_open": len(own_trials),
            "final_problems": problems,
            "lost": lost,
        }

    @property
    def n(self) -> int:
        return (self.project.site_dir / "index.html").read_text().count('<img data-mm-id="e')


def _own_trial() -> str:
    return f".staging-trial-{os.getpid()}-"


def _make_project(root: Path, elements: int) -> None:
    project = Project.create(root, prompt="soak", provider="offline", title="Soak")
    staged = project.staging_dir() / "site"
    fixtures.grid_site(staged, elements, title="Soak", real_images=True)
    project.install_site(staged)
    project.write_report(fixtures.fake_report((project.site_dir / "index.html").read_text()))
    project.commit("start")


async def _main(args: argparse.Namespace) -> int:
    from mmstudio.render import find_browser
    from mmstudio.studio.evaluation import close_renderer

    work = Path(args.keep or tempfile.mkdtemp(prefix="mmstudio-soak-"))
    root = work / "project"
    if root.exists():
        shutil.rmtree(work)
    _make_project(root, args.elements)
    feedback = find_browser().executable is not None
    soak = Soak(root, random.Random(args.seed), feedback)
    random.seed(args.seed)  # the fake evaluator's delays
    started = time.perf_counter()
    try:
        await soak.run(args.ops, args.kills)
    finally:
        await close_renderer()
    ops_s = time.perf_counter() - started
    final = soak.final_check()
    figures = {
        "cases": sum(soak.outcomes.values()),
        "seed": args.seed,
        "feedback": "rendered" if feedback else "skipped (no Chromium)",
        "outcomes": dict(sorted(soak.outcomes.items())),
        "crashes": soak.crashes,
        "corrupted_projects": int(bool(soak.corruptions or final["final_problems"])),
        "corruptions": soak.corruptions[:20],
        "lost_patches": len(final["lost"]),
        "lost": final["lost"][:20],
        "versions": final["versions"],
        "own_cancelled_trials_left_until_next_open": final[
            "own_cancelled_trials_left_until_next_open"
        ],
        "final_problems": final["final_problems"],
        "wall_s": round(time.perf_counter() - started, 1),
        "ops_s": round(ops_s, 1),
        "op_seconds": {
            name: {"n": len(t), "mean": round(statistics.mean(t), 3), "max": round(max(t), 3)}
            for name, t in sorted(soak.timings.items())
        },
        "project": str(root),
    }
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    bad = figures["corrupted_projects"] or figures["lost_patches"] or figures["crashes"]
    return 1 if bad else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=200, help="operations (200)")
    parser.add_argument("--seed", type=int, default=9, help="RNG seed (9)")
    parser.add_argument("--elements", type=int, default=8, help="images on the page (8)")
    parser.add_argument("--kills", type=float, default=0.08, help="share of SIGKILL ops (0.08)")
    parser.add_argument("--keep", help="work folder to keep (default: a temp folder, removed)")
    parser.add_argument("--json", help="also write the figures to this file")
    return asyncio.run(_main(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
