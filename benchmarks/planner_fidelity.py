"""Fidelity and speed of the offline planner over the bench prompts.

    .venv/bin/python benchmarks/planner_fidelity.py [PROMPTS.jsonl] [--show ID] [--missing]

For each prompt:
(a) the share of its quoted strings (the judge's pattern: text inside “…” or "…" of 2–80
    characters, normalised like ``sitecheck.py``, the sentence's comma and a short label's full
    stop left out as its strict mode does) found in the plan's *visible* text fields
    (section copy, items, tables, chart titles, captions and data, image/video alt text: what
    the layout shows); ``plan`` also counts the typography hints (font names the prompt quotes,
    which a page shows only as CSS);
(b) the share of its ``#rrggbb`` colours in ``layout.palette``;
(c) planning time in ms (wall clock, and CPU time of this process, which a busy machine
    disturbs less).
Prints one row per prompt, then median and minimum. ``--show ID`` prints the plan's sections and
elements; ``--missing`` lists the quotes the visible fields lack.

``--pages DIR`` measures the built pages instead: for each prompt (``--ids`` picks some; ``--extra
FILE`` adds a JSONL of further briefs, e.g. ``benchmarks/planner_briefs.jsonl``) it runs
``mmstudio new DIR/ID`` with the offline designer and reads the evaluator's requirement pass share
(``report.json``: passed / checked requirements, 0–1) and the failed requirements, and
``../shared/tools/sitecheck.py``'s strict visible-quote share of ``DIR/ID/site``; it prints one row
per page, the failures with ``--failures``, and medians and worst values.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from mmstudio.plan import DesignPlan
from mmstudio.providers.offline.planner import plan_from_prompt
from mmstudio.studio.fidelity import HEX_RE, QUOTE_RE, normalise

DEFAULT_PROMPTS = (
    Path(__file__).resolve().parents[2] / "shared" / "data" / "bench" / "mm_webgen_dev.jsonl"
)
QUOTE_TARGET, HEX_TARGET = 0.95, 1.0
SITECHECK = Path(__file__).resolve().parents[2] / "shared" / "tools" / "sitecheck.py"
MMSTUDIO = Path(sys.executable).with_name("mmstudio")


def visible_text(plan: DesignPlan) -> str:
    """Every plan field the layout shows, normalised and joined (chart data included)."""
    parts: list[str] = [plan.title]
    for section in plan.sections:
        parts += [section.title, section.subtitle, section.eyebrow]
        parts += section.headings + section.paragraphs + section.buttons
        parts += section.nav_items + section.tags
        for item in section.items:
            parts += [item.title, item.text, item.value, item.label, item.meta, *item.points]
        if section.table:
            parts += section.table.columns + [str(c) for r in section.table.rows for c in r]
    for element in plan.elements():
        parts.append(element.caption)
        if element.kind != "chart":  # a chart frame shows its title, not its alt text
            parts.append(element.alt)
        if element.kind == "chart":
            parts.append(element.title)
            data = element.source_data
            parts += data.columns + [str(c) for r in data.rows for c in r]
    return normalise(" \n ".join(p for p in parts if p))


def _label(quote: str) -> str:
    """A quote as the strict checker reads it (``sitecheck.py``): the sentence's comma and a
    short label's full stop that English puts inside the quotes are not part of the label."""
    text = normalise(quote).rstrip(",;").rstrip()
    initial = re.search(r"(?:^|\s)\w\.$", text)  # "jana l." keeps its full stop
    short = len(text.split()) <= 3 and not text.endswith("..") and not initial
    return text.rstrip(".") if short else text


def measure(prompt: str) -> dict:
    """Quote and hex shares (0–1), planning time (ms) and the missing quotes of one prompt."""
    start, cpu_start = time.perf_counter(), time.process_time()
    plan = plan_from_prompt(prompt)
    elapsed_ms = (time.perf_counter() - start) * 1000
    cpu_ms = (time.process_time() - cpu_start) * 1000
    text = visible_text(plan)
    quotes = sorted({_label(q) for q in QUOTE_RE.findall(prompt) if len(q.strip()) >= 2})
    hexes = sorted({h.lower() for h in HEX_RE.findall(prompt)})
    palette = {c.hex.lower() for c in plan.layout.palette}
    missing = [q for q in quotes if q not in text]
    hints = normalise(", ".join(plan.layout.typography.hints))
    anywhere = [q for q in missing if q not in hints]
    return {
        "quote_share": 1 - len(missing) / len(quotes) if quotes else 1.0,
        "plan_share": 1 - len(anywhere) / len(quotes) if quotes else 1.0,
        "hex_share": sum(h in palette for h in hexes) / len(hexes) if hexes else 1.0,
        "ms": elapsed_ms,
        "cpu_ms": cpu_ms,
        "missing": missing,
        "plan": plan,
    }


def show(plan: DesignPlan) -> None:
    """Print a plan's outline: sections with their copy counts, then elements."""
    print(f"title={plan.title!r} kind={plan.page_kind} structure={plan.layout.structure}")
    print("palette:", ", ".join(f"{c.role}={c.hex}" for c in plan.layout.palette))
    for s in plan.sections:
        print(
            f"  [{s.id}] {s.kind} {s.title!r} nav={len(s.nav_items)} buttons={len(s.buttons)} "
            f"headings={len(s.headings)} items={len(s.items)} tags={len(s.tags)} "
            f"paragraphs={len(s.paragraphs)} table={bool(s.table)} elements={s.element_ids}"
        )
    for e in plan.elements():
        print(f"    <{e.id}> {e.kind} {e.context.role}: {e.alt[:90]!r}")


def _sitecheck():  # the shared checker is a stdlib script outside the package
    spec = importlib.util.spec_from_file_location("sitecheck", SITECHECK)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {SITECHECK}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def build_page(row: dict, out: Path) -> dict:
    """Build one prompt's project offline under ``out/ID`` and measure it: requirement pass share
    (0–1, None when nothing was checked), failed requirements, strict quote share (0–1) and the
    wall time of ``mmstudio new`` in s. Raises ``RuntimeError`` when the build fails."""
    project = out / row["id"]
    if project.exists():
        subprocess.run(["rm", "-rf", str(project)], check=True)
    prompt_file = out / f"{row['id']}.txt"
    prompt_file.write_text(row["prompt"], encoding="utf-8")
    start = time.perf_counter()
    done = subprocess.run(
        [str(MMSTUDIO), "new", str(project), "--prompt-file", str(prompt_file), "--quiet"],
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if done.returncode:
        raise RuntimeError(f"{row['id']}: mmstudio new failed: {done.stderr.strip()[-300:]}")
    report = json.loads((project / "report.json").read_text())
    failed = [
        f"{r['severity'][:4]} {r['kind']}: {r['text']} — {r['message']}"
        for r in report.get("requirements") or []
        if r["status"] == "fail"
    ]
    strict = _sitecheck().strict_fidelity(row["prompt"], str(project / "site"))
    counted = sum(len(v) for v in strict.values())
    return {
        "id": row["id"],
        "share": report.get("requirement_share"),
        "failed": failed,
        "strict": len(strict["hit"]) / counted if counted else 1.0,
        "strict_misses": strict["punct"] + strict["attr_only"] + strict["missing"],
        "seconds": seconds,
    }


def pages(rows: list[dict], out: Path, *, failures: bool, workers: int) -> None:
    """Build and measure every row's page; print a row each and the medians / worst values."""
    out.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda row: build_page(row, out), rows))
    print(f"{'id':>9} {'req share':>9} {'failed':>6} {'strict':>7} {'s':>6}")
    for r in results:
        share = "-" if r["share"] is None else f"{r['share']:.3f}"
        print(
            f"{r['id']:>9} {share:>9} {len(r['failed']):6} {r['strict']:7.3f} {r['seconds']:6.1f}"
        )
        if failures:
            for line in r["failed"]:
                print("           ", line[:220])
            if r["strict_misses"]:
                print("            strict misses:", r["strict_misses"][:10])
    for group, chosen in (("all", results), ("dev", [r for r in results if r["id"].isdigit()])):
        shares = [r["share"] for r in chosen if r["share"] is not None]
        if not shares:
            continue
        stricts = [r["strict"] for r in chosen]
        print(
            f"{group:>4} ({len(chosen)}): req share median {statistics.median(shares):.3f} "
            f"worst {min(shares):.3f}; strict median {statistics.median(stricts):.3f} "
            f"worst {min(stricts):.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prompts", nargs="?", default=str(DEFAULT_PROMPTS))
    parser.add_argument("--show", action="append", default=[])
    parser.add_argument("--missing", action="store_true")
    parser.add_argument("--pages", metavar="DIR", help="build and evaluate the pages under DIR")
    parser.add_argument("--ids", default="", help="comma-separated prompt ids (all otherwise)")
    parser.add_argument("--extra", action="append", default=[], help="a JSONL of more briefs")
    parser.add_argument("--failures", action="store_true", help="list failed requirements")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    rows = [json.loads(line) for line in Path(args.prompts).read_text().splitlines() if line]
    if args.ids:
        wanted = set(args.ids.split(","))
        rows = [row for row in rows if row["id"] in wanted]
    for extra in args.extra:
        rows += [json.loads(line) for line in Path(extra).read_text().splitlines() if line]
    if args.pages:
        pages(rows, Path(args.pages), failures=args.failures, workers=args.workers)
        return
    results = []
    print(
        f"{'id':>5} {'quotes':>7} {'plan':>6} {'hexes':>6} {'ms':>7}  sections images videos charts"
    )
    for row in rows:
        result = measure(row["prompt"])
        results.append(result)
        plan = result["plan"]
        print(
            f"{row['id']:>5} {result['quote_share']:7.3f} {result['hex_share']:6.2f} "
            f"{result['ms']:7.1f}  {len(plan.sections):8} {len(plan.images):6} "
            f"{len(plan.videos):6} {len(plan.charts):6}"
        )
        if args.missing and result["missing"]:
            print("       missing:", result["missing"][:12])
        if row["id"] in args.show:
            show(plan)
    for name in ("quote_share", "plan_share", "hex_share", "ms", "cpu_ms"):
        values = [r[name] for r in results]
        print(
            f"{name:>12}: median {statistics.median(values):.3f}  min {min(values):.3f}  "
            f"max {max(values):.3f}"
        )
    below = sum(r["quote_share"] < QUOTE_TARGET or r["hex_share"] < HEX_TARGET for r in results)
    print(f"prompts below target (quotes ≥ {QUOTE_TARGET}, hexes = {HEX_TARGET}): {below}")


if __name__ == "__main__":
    main()
