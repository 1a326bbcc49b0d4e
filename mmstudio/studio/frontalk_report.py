"""The summary of a FronTalk replay (:mod:`mmstudio.studio.frontalk`): the numbers over all
dialogues (``summary.json``) and the same as a readable page (``summary.md``)."""

from __future__ import annotations

import statistics


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def summarise(records: list[dict], options, source: str = "") -> dict:
    """The aggregate of the dialogue records::

    {source, provider, start, dialogues, finished, failed, turns, tests,
     pass_rate (mean of the dialogues' pass rates), forgetting_rate (pooled:
     1 − Σ passes at final / Σ passes at introduction), passes_at_intro, passes_at_final,
     at_intro: {pass, fail, unchecked}, seconds: {per_dialogue_median, per_turn_median,
     start_median}, per_dialogue: [{id, ok, pass_rate, forgetting_rate, unchecked, seconds,
     error}]}
    """
    done = [r for r in records if r.get("ok")]
    tests = [t for r in done for t in r["tests"]]
    intro = sum(r["passes_at_intro"] for r in done)
    final = sum(r["passes_at_final"] for r in done)
    rates = [r["pass_rate"] for r in done if r["pass_rate"] is not None]
    turn_seconds = [t["seconds"] for r in done for t in r["turns"] if t.get("seconds") is not None]
    return {
        "source": source,
        **options.key(),
        "dialogues": len(records),
        "finished": len(done),
        "failed": len(records) - len(done),
        "turns": sum(len(r["turns"]) for r in done),
        "tests": len(tests),
        "pass_rate": round(statistics.fmean(rates), 4) if rates else None,
        "forgetting_rate": round(1 - final / intro, 4) if intro else None,
        "passes_at_intro": intro,
        "passes_at_final": final,
        "at_intro": {
            status: sum(r["at_intro"][status] for r in done)
            for status in ("pass", "fail", "unchecked")
        },
        "seconds": {
            "per_dialogue_median": _median([r["seconds"] for r in done]),
            "per_turn_median": _median(turn_seconds),
            "start_median": _median([r["start_seconds"] for r in done]),
        },
        "per_dialogue": [_row(r) for r in records],
    }


def _row(record: dict) -> dict:
    return {
        "id": record["id"],
        "ok": record["ok"],
        "pass_rate": record.get("pass_rate"),
        "forgetting_rate": record.get("forgetting_rate"),
        "unchecked": (record.get("at_intro") or {}).get("unchecked"),
        "seconds": record.get("seconds"),
        "error": record.get("error"),
    }


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def markdown(summary: dict) -> str:
    """``summary`` as a Markdown page (definitions, the unchecked caveat, one row a dialogue)."""
    at = summary["at_intro"]
    lines = [
        "# FronTalk replay",
        "",
        f"Source `{summary['source']}`, provider **{summary['provider']}**, start "
        f"**{summary['start']}**: {summary['finished']}/{summary['dialogues']} dialogues "
        f"finished ({summary['failed']} failed), {summary['turns']} turns, {summary['tests']} "
        "test conditions.",
        "",
        f"- **Pass rate** {_num(summary['pass_rate'])} — per dialogue, the mean over turns of "
        "the share of that turn's test conditions passing at that turn; averaged over dialogues.",
        f"- **Forgetting rate** {_num(summary['forgetting_rate'])} — 1 − (passes at the final "
        "turn of the conditions introduced earlier) / (their passes at the turn each was "
        f"introduced) = 1 − {summary['passes_at_final']}/{summary['passes_at_intro']}, pooled "
        "over dialogues (– when nothing passed at introduction).",
        f"- At introduction: {at['pass']} pass, {at['fail']} fail, {at['unchecked']} unchecked.",
    ]
    if at["unchecked"]:
        lines += [
            "",
            f"**{at['unchecked']} test condition(s) stayed unchecked**: "
            + (
                "with the offline provider there is no model to judge free-text conditions, "
                "and the offline critic only measures structural requirements. "
                if summary["provider"] == "offline"
                else "the judge gave no usable verdict on them. "
            )
            + "Unchecked conditions are reported as such and never count as passes, so the pass "
            "rate above is a lower bound and the forgetting rate covers decided conditions only.",
        ]
    seconds = summary["seconds"]
    lines += [
        "",
        f"Time: median {_num(seconds['per_dialogue_median'])} s per dialogue, "
        f"{_num(seconds['per_turn_median'])} s per turn, {_num(seconds['start_median'])} s to "
        f"start a project; wall {summary.get('wall_seconds', 0):.1f} s "
        f"({summary.get('resumed', 0)} dialogue(s) resumed from earlier records).",
        "",
        "| dialogue | pass rate | forgetting rate | unchecked | seconds | note |",
        "|---|---|---|---|---|---|",
    ]
    for row in summary["per_dialogue"]:
        note = "" if row["ok"] else f"failed: {row['error']}"
        lines.append(
            f"| `{row['id']}` | {_num(row['pass_rate'])} | {_num(row['forgetting_rate'])} | "
            f"{row['unchecked'] if row['unchecked'] is not None else '–'} | "
            f"{_num(row['seconds'])} | {note} |"
        )
    return "\n".join(lines) + "\n"
