"""Reflection benchmark: overall score and measured issues before and after the reflection loop.

Three sets:
- ``bench``: MM-WebGEN-Bench dev prompts (``/work/shared/data/bench/mm_webgen_dev.jsonl``),
  generated offline with ``rounds=0``, then reflected (``rounds`` rounds);
- ``corpus``: the deliberately broken pages of ``tests/cases`` (no plan);
- ``frontalk``: the model-written reference sites of ``/work/shared/data/frontalk/sites`` (real
  LLM output, no plan).

Usage: ``python benchmarks/reflection.py [--limit N] [--sets bench,corpus,frontalk] [-o DIR]``.
Prints one line per page and a summary; writes ``DIR/reflection.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from mmstudio.project import Project
from mmstudio.render import get_renderer
from mmstudio.studio.bench import read_prompts
from mmstudio.studio.create import new_project
from mmstudio.studio.refining import RefineService

ROOT = Path(__file__).resolve().parents[1]
DATA = Path("/work/shared/data")


async def reflect_project(project: Project, rounds: int) -> dict:
    """Evaluate (if needed), reflect, and return the before/after figures of one project."""
    started = time.perf_counter()
    service = RefineService(project)
    if project.read_report() is None:
        await service.evaluate()
        project.commit("imported")
    result = await service.reflect(rounds)
    row = result.as_dict()
    row.pop("outcomes")
    outcomes = [o.as_dict() for o in result.outcomes]
    row["accepted"] = sum(o["outcome"] == "accepted" for o in outcomes)
    row["reverted"] = sum(o["outcome"] in ("reverted", "rejected") for o in outcomes)
    row["seconds"] = round(time.perf_counter() - started, 2)
    return row


def site_project(site: Path, root: Path) -> Project:
    """A project whose site is a copy of ``site`` (a folder with index.html)."""
    project = Project.create(root, prompt=f"imported {site.name}", provider="offline")
    staged = project.staging_dir() / "site"
    shutil.copytree(site, staged, ignore=shutil.ignore_patterns("*.md"))
    project.install_site(staged)
    return project


async def run_bench(out: Path, limit: int | None, rounds: int) -> list[dict]:
    rows = []
    for row in read_prompts(DATA / "bench" / "mm_webgen_dev.jsonl", limit):
        made = await new_project(out / "bench" / row["id"], row["prompt"], rounds=0)
        rows.append(
            {"set": "bench", "id": row["id"], **await reflect_project(made.project, rounds)}
        )
        _print(rows[-1])
    return rows


async def run_sites(name: str, sites: list[Path], out: Path, rounds: int) -> list[dict]:
    rows = []
    for site in sites:
        project = site_project(site, out / name / site.name)
        rows.append({"set": name, "id": site.name, **await reflect_project(project, rounds)})
        _print(rows[-1])
    return rows


def _print(row: dict) -> None:
    print(
        f"{row['set']:>8} {row['id'][:12]:<12} overall {row['before']} → {row['after']}  "
        f"issues {row['issues_before']} → {row['issues_after']}  accepted {row['accepted']} "
        f"reverted {row['reverted']}  {row['seconds']} s  ({row['stopped']})",
        flush=True,
    )


def summarize(rows: list[dict]) -> dict:
    """Per set: pages, mean overall before/after, total measured issues before/after."""
    summary = {}
    for name in dict.fromkeys(r["set"] for r in rows):
        part = [r for r in rows if r["set"] == name]
        summary[name] = {
            "pages": len(part),
            "overall_before": round(statistics.mean(r["before"] or 0 for r in part), 4),
            "overall_after": round(statistics.mean(r["after"] or 0 for r in part), 4),
            "issues_before": sum(r["issues_before"] for r in part),
            "issues_after": sum(r["issues_after"] for r in part),
            "pages_improved": sum((r["after"] or 0) > (r["before"] or 0) for r in part),
            "pages_worse": sum((r["after"] or 0) < (r["before"] or 0) for r in part),
            "median_seconds": statistics.median(r["seconds"] for r in part),
        }
    return summary


async def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="bench prompts to run (all)")
    parser.add_argument("--sets", default="bench,corpus,frontalk")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-o", "--output", default=None, help="folder for projects and results")
    args = parser.parse_args(argv)
    out = Path(args.output or tempfile.mkdtemp(prefix="mmstudio-reflection-"))
    sets, rows = args.sets.split(","), []
    try:
        if "bench" in sets:
            rows += await run_bench(out, args.limit, args.rounds)
        if "corpus" in sets:
            cases = sorted(p for p in (ROOT / "tests" / "cases").iterdir() if p.is_dir())
            rows += await run_sites("corpus", cases, out, args.rounds)
        if "frontalk" in sets:
            sites = sorted(p for p in (DATA / "frontalk" / "sites").iterdir() if p.is_dir())
            rows += await run_sites("frontalk", sites[: args.limit], out, args.rounds)
    finally:
        await get_renderer().close()
    summary = summarize(rows)
    out.mkdir(parents=True, exist_ok=True)
    (out / "reflection.json").write_text(json.dumps({"summary": summary, "pages": rows}, indent=2))
    print(json.dumps(summary, indent=2))
    print(f"details: {out / 'reflection.json'}")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1:])))
