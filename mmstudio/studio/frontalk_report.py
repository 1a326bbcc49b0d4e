"""The summary of a FronTalk replay (:mod:`mmstudio.studio.frontalk`): the numbers over all
dialogues (``summary.json``) and the same as a readable page (``summary.md``).

Records (``records/<name>.json``) and the summary are persisted JSON documents read back
generically (resuming, older records without the checked rates): the ``TypedDict`` classes
below describe them."""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING, Required, TypedDict

from mmstudio.project.runs import UsageTotals

if TYPE_CHECKING:
    from mmstudio.studio.frontalk import FrontalkOptions


class FrontalkKey(TypedDict):
    """What makes two replays of a dialogue comparable (a record's ``run``)."""

    provider: str
    start: str


class ConditionRow(TypedDict):
    """One test condition: id, the turn it was introduced at, ``type`` (function | design),
    its text, its status at every turn (pass | fail | unchecked, None before it existed) and
    its last detail."""

    id: str
    turn: int
    type: str
    condition: str
    statuses: list[str | None]
    detail: str


class CheckedRates(TypedDict):
    """FronTalk's rates over the checked conditions only (:func:`checked_rates`)."""

    checked: int
    checked_share: float | None
    checked_pass_rate: float | None
    checked_forgetting_rate: float | None
    checked_passes_at_intro: int
    checked_passes_at_final: int


#: every test's status at its own turn: how many pass, fail, stay unchecked
AtIntro = TypedDict("AtIntro", {"pass": int, "fail": int, "unchecked": int})


class FrontalkRates(CheckedRates):
    """FronTalk's rates over a dialogue's tests
    (:func:`~mmstudio.studio.frontalk.frontalk_rates`): 0–1, None with nothing to count."""

    pass_rate: float | None
    forgetting_rate: float | None
    passes_at_intro: int
    passes_at_final: int
    at_intro: AtIntro


class TurnLog(TypedDict):
    """One replayed turn: the version it committed, its condition ids, how many requirements
    it had, left unapplied and found forgotten, and its seconds."""

    turn: int
    type: str
    version: str | None
    conditions: list[str]
    requirements: int
    not_applied: int
    forgetting: int
    seconds: float | None


class _OptionalRates(TypedDict, total=False):
    """The :class:`FrontalkRates` keys where they may be absent (a failed dialogue, a run with
    no finished dialogue)."""

    pass_rate: float | None
    forgetting_rate: float | None
    passes_at_intro: int
    passes_at_final: int
    at_intro: AtIntro
    checked: int
    checked_share: float | None
    checked_pass_rate: float | None
    checked_forgetting_rate: float | None
    checked_passes_at_intro: int
    checked_passes_at_final: int


class DialogueRecord(_OptionalRates, total=False):
    """``records/<name>.json``: a replayed dialogue (turns, tests, rates — the
    :class:`FrontalkRates` keys) or a failed one (``ok`` false, ``error`` its first line)."""

    id: Required[str]
    name: Required[str]
    ok: Required[bool]
    error: str | None
    run: Required[FrontalkKey]
    start_seconds: float
    turns: list[TurnLog]
    tests: list[ConditionRow]
    seconds: Required[float]


class TypeRates(CheckedRates):
    """The checked rates of one condition type, and how many ``tests`` it has."""

    tests: int


class DialogueRow(TypedDict):
    """One dialogue in the summary's ``per_dialogue``."""

    id: str
    ok: bool
    pass_rate: float | None
    forgetting_rate: float | None
    unchecked: int | None
    checked_share: float | None
    checked_pass_rate: float | None
    checked_forgetting_rate: float | None
    seconds: float | None
    error: str | None


class Medians(TypedDict):
    """Median seconds per dialogue, per turn and to start a project."""

    per_dialogue_median: float | None
    per_turn_median: float | None
    start_median: float | None


class FrontalkSummary(_OptionalRates, total=False):
    """``summary.json``'s ``summary`` (:func:`summarise`'s docstring gives the shape);
    :func:`~mmstudio.studio.frontalk.run_frontalk` adds ``usage``, ``ran_now``, ``resumed``,
    ``wall_seconds`` and ``files``."""

    source: str
    provider: str
    start: str
    dialogues: int
    finished: int
    failed: int
    turns: int
    tests: int
    seconds: Medians
    per_type: dict[str, TypeRates]
    per_dialogue: list[DialogueRow]
    usage: UsageTotals | None
    ran_now: int
    resumed: int
    wall_seconds: float
    files: dict[str, str]


def _status(test: ConditionRow, turn: int) -> str | None:
    statuses = test["statuses"]
    return statuses[turn - 1] if 0 < turn <= len(statuses) else None


def checked_rates(tests: list[ConditionRow], final_turn: int) -> CheckedRates:
    """FronTalk's rates over the *checked* conditions only (pass or fail, never unchecked):
    ``checked`` (how many were decided at their own turn) and ``checked_share`` (of all, None
    without tests); ``checked_pass_rate``: mean over turns of the share passing among that
    turn's conditions checked at that turn; ``checked_forgetting_rate``: 1 − passes at the
    final turn / passes at introduction, over the earlier conditions that passed when
    introduced and are checked at the final turn (None when there are none), with the counts
    behind it."""
    per_turn: dict[int, list[bool]] = {}
    for test in tests:
        status = _status(test, test["turn"])
        if status in ("pass", "fail"):
            per_turn.setdefault(test["turn"], []).append(status == "pass")
    shares = [sum(v) / len(v) for v in per_turn.values()]
    kept = [t for t in tests if t["turn"] < final_turn and _status(t, t["turn"]) == "pass"
            and _status(t, final_turn) in ("pass", "fail")]  # fmt: skip
    final = sum(_status(t, final_turn) == "pass" for t in kept)
    checked = sum(len(v) for v in per_turn.values())
    return {
        "checked": checked,
        "checked_share": round(checked / len(tests), 4) if tests else None,
        "checked_pass_rate": round(statistics.fmean(shares), 4) if shares else None,
        "checked_forgetting_rate": round(1 - final / len(kept), 4) if kept else None,
        "checked_passes_at_intro": len(kept),
        "checked_passes_at_final": final,
    }


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def summarise(
    records: list[DialogueRecord], options: FrontalkOptions, source: str = ""
) -> FrontalkSummary:
    """The aggregate of the dialogue records::

    {source, provider, start, dialogues, finished, failed, turns, tests,
     pass_rate (mean of the dialogues' pass rates), forgetting_rate (pooled:
     1 − Σ passes at final / Σ passes at introduction), passes_at_intro, passes_at_final,
     at_intro: {pass, fail, unchecked}, checked, checked_share (pooled), checked_pass_rate
     (mean of the dialogues'), checked_forgetting_rate (pooled), checked_passes_at_intro,
     checked_passes_at_final, seconds: {per_dialogue_median, per_turn_median, start_median},
     per_dialogue: [{id, ok, pass_rate, forgetting_rate, unchecked, checked_share,
     checked_pass_rate, checked_forgetting_rate, seconds, error}]}
    """
    done = [r for r in records if r.get("ok")]
    tests = [t for r in done for t in r["tests"]]
    intro = sum(r["passes_at_intro"] for r in done)
    final = sum(r["passes_at_final"] for r in done)
    rates = [r["pass_rate"] for r in done if r["pass_rate"] is not None]
    turn_seconds = [s for r in done for t in r["turns"] if (s := t.get("seconds")) is not None]
    done = [{**checked_rates(r["tests"], len(r["turns"])), **r} for r in done]  # older records
    checked_rates_ = [r["checked_pass_rate"] for r in done if r["checked_pass_rate"] is not None]
    kept = sum(r["checked_passes_at_intro"] for r in done)
    kept_final = sum(r["checked_passes_at_final"] for r in done)
    checked = sum(r["checked"] for r in done)
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
            "pass": sum(r["at_intro"]["pass"] for r in done),
            "fail": sum(r["at_intro"]["fail"] for r in done),
            "unchecked": sum(r["at_intro"]["unchecked"] for r in done),
        },
        "checked": checked,
        "checked_share": round(checked / len(tests), 4) if tests else None,
        "checked_pass_rate": round(statistics.fmean(checked_rates_), 4) if checked_rates_ else None,
        "checked_forgetting_rate": round(1 - kept_final / kept, 4) if kept else None,
        "checked_passes_at_intro": kept,
        "checked_passes_at_final": kept_final,
        "seconds": {
            "per_dialogue_median": _median([r["seconds"] for r in done]),
            "per_turn_median": _median(turn_seconds),
            "start_median": _median([r["start_seconds"] for r in done]),
        },
        "per_type": per_type(done),
        "per_dialogue": [_row(r) for r in records],
    }


def per_type(records: list[DialogueRecord]) -> dict[str, TypeRates]:
    """The checked rates by condition type (function | design) over finished ``records``:
    {type: {tests, checked, checked_share, checked_pass_rate (mean of the dialogues' over
    that type's conditions), checked_forgetting_rate (pooled), checked_passes_at_intro,
    checked_passes_at_final}}."""
    out: dict[str, TypeRates] = {}
    for kind in ("function", "design"):
        rows = []
        for record in records:
            tests = [t for t in record["tests"] if t.get("type") == kind]
            if tests:
                rows.append((len(tests), checked_rates(tests, len(record["turns"]))))
        n = sum(count for count, _ in rows)
        checked = sum(r["checked"] for _, r in rows)
        shares = [r["checked_pass_rate"] for _, r in rows if r["checked_pass_rate"] is not None]
        kept = sum(r["checked_passes_at_intro"] for _, r in rows)
        final = sum(r["checked_passes_at_final"] for _, r in rows)
        out[kind] = {
            "tests": n,
            "checked": checked,
            "checked_share": round(checked / n, 4) if n else None,
            "checked_pass_rate": round(statistics.fmean(shares), 4) if shares else None,
            "checked_forgetting_rate": round(1 - final / kept, 4) if kept else None,
            "checked_passes_at_intro": kept,
            "checked_passes_at_final": final,
        }
    return out


def _row(record: DialogueRecord) -> DialogueRow:
    return {
        "id": record["id"],
        "ok": record["ok"],
        "pass_rate": record.get("pass_rate"),
        "forgetting_rate": record.get("forgetting_rate"),
        "unchecked": at["unchecked"] if (at := record.get("at_intro")) else None,
        "checked_share": record.get("checked_share"),
        "checked_pass_rate": record.get("checked_pass_rate"),
        "checked_forgetting_rate": record.get("checked_forgetting_rate"),
        "seconds": record.get("seconds"),
        "error": record.get("error"),
    }


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.3f}"


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.0%}"


def _rest(value: float | None) -> float | None:
    return None if value is None else 1 - value


def markdown(summary: FrontalkSummary) -> str:
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
        f"- **Checked** {summary['checked']}/{summary['tests']} test conditions at their own turn "
        f"({_pct(summary['checked_share'])}; unchecked {_pct(_rest(summary['checked_share']))}). "
        f"Over the checked ones only: **pass rate** {_num(summary['checked_pass_rate'])}, "
        f"**forgetting rate** {_num(summary['checked_forgetting_rate'])} (1 − "
        f"{summary['checked_passes_at_final']}/{summary['checked_passes_at_intro']}: the "
        "conditions that passed when introduced and are checked at the final turn).",
    ]
    for kind, row in (summary.get("per_type") or {}).items():
        lines.append(
            f"- {kind.capitalize()} conditions: {row['checked']}/{row['tests']} checked "
            f"({_pct(row['checked_share'])}); over those, pass rate "
            f"{_num(row['checked_pass_rate'])}, forgetting rate "
            f"{_num(row['checked_forgetting_rate'])} (1 − {row['checked_passes_at_final']}/"
            f"{row['checked_passes_at_intro']})."
        )
    if at["unchecked"]:
        lines += [
            "",
            f"**{at['unchecked']} test condition(s) stayed unchecked**: "
            + (
                "with the offline provider there is no model to judge free-text conditions; "
                "the condition rules decide the ones they read (named text, controls, sections, "
                "widgets, fields, colours, fonts, layout, navigation, form submission, timelines, "
                "tickers, badges, sort controls, thumbnails, icons beside each item, a way back "
                "to the homepage, items that open their own page), and the rest (animations, "
                "taste, what a control does once used) need a model judge. "
                if summary["provider"] == "offline"
                else "neither the judge nor the condition rules gave a usable verdict on them. "
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
        "| dialogue | pass rate | forgetting rate | unchecked | checked | pass rate (checked) "
        "| forgetting rate (checked) | seconds | note |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for one in summary["per_dialogue"]:
        note = "" if one["ok"] else f"failed: {one['error']}"
        lines.append(
            f"| `{one['id']}` | {_num(one['pass_rate'])} | {_num(one['forgetting_rate'])} | "
            f"{one['unchecked'] if one['unchecked'] is not None else '–'} | "
            f"{_pct(one.get('checked_share'))} | {_num(one.get('checked_pass_rate'))} | "
            f"{_num(one.get('checked_forgetting_rate'))} | {_num(one['seconds'])} | {note} |"
        )
    return "\n".join(lines) + "\n"
