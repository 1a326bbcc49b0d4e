"""``summary.md`` and its figures for a bench run.

Figures are drawn with matplotlib's object API on the Agg canvas (no pyplot, no GUI backend, no
global state), written as PNG under ``figures/`` and embedded in ``summary.md`` by relative path,
so the folder can be copied (``benchmarks/results/``) and still shows them.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mmstudio.project import atomic
from mmstudio.studio.bench_record import SCORE_KEYS, STAGES, BenchRecord
from mmstudio.studio.bench_summary import BenchSummary, IssueRow

log = logging.getLogger(__name__)

BEFORE, AFTER = "#9aa5b1", "#2f6fde"  # colours of "before" and "after reflection"


def _figure(width_in: float, height_in: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width_in, height_in), dpi=100, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _save(figure, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, format="png")
    return path


def scores_figure(records: list[BenchRecord], path: Path) -> Path:
    """Box plots of each dimension's score (0–1) before and after reflection."""
    figure = _figure(9, 4)
    ax = figure.add_subplot()
    sides = (
        (-0.18, "before", BEFORE, [r["scores_before"] for r in records]),
        (0.18, "after", AFTER, [r["scores_after"] for r in records]),
    )
    for offset, side, colour, scores in sides:
        data = [[v for s in scores if (v := s.get(k)) is not None] for k in SCORE_KEYS]
        spots = [i + offset for i, d in enumerate(data) if d]
        if spots:  # nothing to draw when the pages were not evaluated
            boxes = ax.boxplot([d for d in data if d], positions=spots, widths=0.3,
                               patch_artist=True, manage_ticks=False)  # fmt: skip
            for box in boxes["boxes"]:
                box.set(facecolor=colour, alpha=0.8)
        ax.plot([], [], color=colour, linewidth=8, label=f"{side} reflection")
    ax.set_xticks(range(len(SCORE_KEYS)), SCORE_KEYS)
    ax.set_ylim(-0.02, 1.05)
    ax.set_ylabel("score (0–1)")
    ax.set_title(f"Scores over {len(records)} prompts")
    ax.legend(loc="lower left")
    return _save(figure, path)


def stages_figure(records: list[BenchRecord], path: Path) -> Path:
    """Box plots of seconds per stage (asset kinds summed per prompt) and in total."""
    names = [s for s in (*STAGES, "total") if any(r["stages"].get(s) for r in records)]
    data = [[r["stages"][s] for r in records if r["stages"].get(s) is not None] for s in names]
    figure = _figure(9, 4)
    ax = figure.add_subplot()
    ax.boxplot(data, orientation="horizontal", tick_labels=names, patch_artist=True)
    ax.invert_yaxis()
    ax.set_xlabel("seconds per prompt")
    ax.set_title("Time per stage (image/video/chart: summed over the page's assets)")
    ax.grid(axis="x", alpha=0.3)
    return _save(figure, path)


def issues_figure(issues: dict[str, IssueRow], path: Path, top: int = 15) -> Path:
    """Bars of measured issues per code before and after reflection (the ``top`` codes)."""
    codes = list(issues)[:top] or ["(none)"]
    before = [row["before"] if (row := issues.get(c)) else 0 for c in codes]
    after = [row["after"] if (row := issues.get(c)) else 0 for c in codes]
    figure = _figure(9, 0.8 + 0.32 * len(codes))
    ax = figure.add_subplot()
    spots = range(len(codes))
    ax.barh([y - 0.2 for y in spots], before, height=0.4, color=BEFORE, label="before")
    ax.barh([y + 0.2 for y in spots], after, height=0.4, color=AFTER, label="after")
    ax.set_yticks(list(spots), codes)
    ax.invert_yaxis()
    if not issues:
        ax.set_xlim(0, 1)
        ax.text(0.5, 0, "no measured issue on any page", ha="center", va="center")
    ax.set_xlabel("measured issues over all pages")
    ax.legend(loc="lower right")
    return _save(figure, path)


def seconds_figure(records: list[BenchRecord], path: Path) -> Path:
    """Wall seconds of each prompt's main job, in file order, with the median."""
    import statistics

    ids = [r["id"] for r in records]
    seconds = [r["seconds"] for r in records]
    figure = _figure(9, 3.2)
    ax = figure.add_subplot()
    ax.bar(range(len(ids)), seconds, color=AFTER)
    if seconds:
        median = statistics.median(seconds)
        ax.axhline(median, color="#f2994a", label=f"median {median:.1f} s")
        ax.legend(loc="upper left")
    ax.set_xticks(range(len(ids)), ids, rotation=90, fontsize=7)
    ax.set_ylabel("seconds per prompt")
    return _save(figure, path)


def fidelity_figure(records: list[BenchRecord], path: Path) -> Path:
    """Histograms of the share of quoted strings and of hex colours each site carries."""
    figure = _figure(9, 3)
    shares = (
        ("quoted strings", [r["fidelity"]["quoted"] for r in records]),
        ("hex colours", [r["fidelity"]["hex"] for r in records]),
    )
    for n, (label, values) in enumerate(shares):
        ax = figure.add_subplot(1, 2, n + 1)
        ax.hist(values, bins=[i / 20 for i in range(21)], color=AFTER)
        ax.set_xlabel(f"share of the prompt's {label} in the site")
        ax.set_ylabel("prompts")
    return _save(figure, path)


def write_figures(
    summary: BenchSummary, records: list[BenchRecord], out_dir: Path
) -> dict[str, str]:
    """Draw every figure under ``out_dir/figures``; returns {name: path relative to out_dir}."""
    ok = [r for r in records if r.get("ok")]
    if not ok:
        return {}
    folder = out_dir / "figures"
    made = {
        "scores": scores_figure(ok, folder / "scores.png"),
        "stages": stages_figure(ok, folder / "stages.png"),
        "issues": issues_figure(summary["issues"], folder / "issues.png"),
        "seconds": seconds_figure(ok, folder / "seconds.png"),
        "fidelity": fidelity_figure(ok, folder / "fidelity.png"),
    }
    return {name: path.relative_to(out_dir).as_posix() for name, path in made.items()}


def _num(value: Any, digits: int = 2) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _header(s: BenchSummary) -> list[str]:
    sec = s["seconds"]
    return [
        "# Bench summary",
        "",
        f"Prompts: **{s['prompts']}** from `{Path(s['source']).name}` · finished {s['finished']}"
        f" · failed {s['failed']} · provider `{s['provider']}` · reflection rounds ≤ {s['rounds']}"
        f" · prompts at once {s['jobs']}",
        "",
        f"This invocation ran {s.get('ran_now', s['prompts'])} prompt(s) and resumed "
        f"{s.get('resumed', 0)} in {_num(s.get('wall_seconds'), 1)} s of wall time; the prompts' "
        f"own times sum to {_num(s['seconds'].get('sum'), 1)} s.",
        "",
        f"Seconds per prompt (main job incl. evaluation and reflection): median "
        f"**{_num(sec['median'])}**, min {_num(sec['min'])}, max {_num(sec['max'])}.",
        "",
    ]


def _scores_md(s: BenchSummary) -> list[str]:
    lines = ["## Scores before → after reflection (median · mean, 0–1)", "",
             "| dimension | before | after | pages |", "|---|---|---|---|"]  # fmt: skip
    for key, row in s["scores"].items():
        b, a = row["before"], row["after"]
        lines.append(
            f"| {key} | {_num(b['median'])} · {_num(b['mean'])} | "
            f"{_num(a['median'])} · {_num(a['mean'])} | {a['n']} |"
        )
    r = s.get("reflection")
    if r:
        lines += ["", f"Reflection over {r['pages']} pages: improved {r['improved']}, worse "
                  f"{r['worse']}, unchanged {r['unchanged']}; attempts accepted {r['accepted']}, "
                  f"reverted {r['reverted']}; median rounds {r['rounds_median']}; stopped: "
                  + ", ".join(f"{k} ×{v}" for k, v in r["stopped"].items())]  # fmt: skip
    return [*lines, ""]


def _issues_md(s: BenchSummary) -> list[str]:
    total = s["issues_total"]
    lines = [f"## Measured issues by code (before {total['before']} → after {total['after']})",
             "", "| code | before | after | pages before | pages after |",
             "|---|---|---|---|---|"]  # fmt: skip
    for code, row in s["issues"].items():
        lines.append(f"| `{code}` | {row['before']} | {row['after']} | {row['pages_before']} | "
                     f"{row['pages_after']} |")  # fmt: skip
    if not s["issues"]:
        lines.append("| (none) | 0 | 0 | 0 | 0 |")
    return [*lines, ""]


def _requirements_md(s: BenchSummary) -> list[str]:
    r = s.get("requirements")
    if not r:
        return ["## Requirements of the brief", "", "No page had requirements checked.", ""]
    b, a = r["share"]["before"], r["share"]["after"]
    unchecked = r["unchecked_share"]
    lines = [
        "## Requirements of the brief (pass share of the checked ones, 0–1)", "",
        f"Per page: median **{_num(b['median'])}** before reflection → **{_num(a['median'])}** "
        f"after (min {_num(a['min'])}, max {_num(a['max'])}); unchecked "
        f"{'–' if unchecked is None else f'{unchecked:.0%}'} of all requirements.", "",
        "| kind | passed | checked | share |", "|---|---|---|---|",
    ]  # fmt: skip
    for kind, row in r["by_kind"].items():
        lines.append(f"| {kind} | {row['passed']} | {row['checked']} | {_num(row['share'])} |")
    lines += ["", "| page | before | after | checked | unchecked |", "|---|---|---|---|---|"]
    for page in r["pages"]:
        lines.append(f"| {page['id']} | {_num(page['before'])} | {_num(page['after'])} | "
                     f"{page['checked']} | {page['unchecked']} |")  # fmt: skip
    return [*lines, ""]


def _fidelity_md(s: BenchSummary) -> list[str]:
    f = s["fidelity"]
    lines = [
        "## Prompt fidelity (share 0–1)", "",
        f"Quoted strings in the page: median **{_num(f['quoted']['median'])}**, min "
        f"{_num(f['quoted']['min'])}; hex colours used: median **{_num(f['hex']['median'])}**, "
        f"min {_num(f['hex']['min'])}. Below target (quoted < {f['targets']['quoted']} or "
        f"hex < {f['targets']['hex']}): {len(f['below'])}"
        + (": " + ", ".join(f"{b['id']} ({b['quoted']:.2f}/{b['hex']:.2f})" for b in f["below"])
           if f["below"] else "."),
        "",
    ]  # fmt: skip
    return lines


def _stages_md(s: BenchSummary) -> list[str]:
    lines = ["## Time per stage (s per prompt)", "", "| stage | median | max | prompts |",
             "|---|---|---|---|"]  # fmt: skip
    for stage, row in s["stages"].items():
        if row["n"]:
            lines.append(f"| {stage} | {_num(row['median'])} | {_num(row['max'])} | {row['n']} |")
    lines += ["", "`image`/`video`/`chart` sum the seconds of each asset of that kind (they run in "
              "parallel, so they can exceed `assets`, the wall time of layout ∥ assets); `render` "
              "is part of `evaluate`; `refine` is the whole reflection loop.", ""]  # fmt: skip
    return lines


def _usage_md(s: BenchSummary) -> list[str]:
    u = s.get("usage")
    if not u:
        return ["## Tokens and cost", "", "No model calls (offline designer): 0 tokens, $0.", ""]
    return [
        "## Tokens and cost", "",
        f"{u['calls']} calls · {u['input_tokens']} input + {u['output_tokens']} output tokens · "
        f"{u['images']} images · {u['video_seconds']} video s · **${u['cost_usd']:.4f}** "
        f"(median ${u['cost_median_usd']:.4f} per prompt; {u['unpriced']} unpriced calls)", "",
    ]  # fmt: skip


def _failures_md(s: BenchSummary) -> list[str]:
    lines = ["## Failures", ""]
    for f in s["failures"]:
        lines.append(f"- `{f['id']}` ({f['error_type']}): {f['error']}")
    for prompt_id in s["render_failures"]:
        lines.append(f"- `{prompt_id}`: the page could not be rendered (scored 0)")
    if len(lines) == 2:
        lines.append("None.")
    return [*lines, ""]


def _figures_md(figures: dict[str, str]) -> list[str]:
    captions = {
        "scores": "Scores before and after reflection",
        "stages": "Seconds per stage",
        "issues": "Measured issues by code",
        "seconds": "Seconds per prompt",
        "fidelity": "Prompt fidelity",
    }
    lines = ["## Figures", ""] if figures else []
    for name, rel in figures.items():
        lines += [f"![{captions.get(name, name)}]({rel})", ""]
    return lines


def render_markdown(summary: BenchSummary, figures: dict[str, str]) -> str:
    """The text of ``summary.md``."""
    writers = (
        _header,
        _scores_md,
        _requirements_md,
        _issues_md,
        _fidelity_md,
        _stages_md,
        _usage_md,
        _failures_md,
    )
    parts = [*(write(summary) for write in writers), _figures_md(figures)]
    return "\n".join(line for part in parts for line in part).rstrip() + "\n"


def write_report(
    summary: BenchSummary, records: list[BenchRecord], out_dir: Path, *, figures: bool = True
) -> Path:
    """Write ``summary.md`` (and the figures, unless ``figures`` is false) into ``out_dir``."""
    drawn = write_figures(summary, records, out_dir) if figures else {}
    summary["figures"] = drawn
    return atomic.write_text(out_dir / "summary.md", render_markdown(summary, drawn))
