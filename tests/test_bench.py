"""``mmstudio bench``: runs tiny prompts end to end, resumes, records failures, summarises."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from provider_fixtures import fast_settings, no_network, server  # noqa: F401

from mmstudio import cli
from mmstudio.project import Project
from mmstudio.render import find_browser
from mmstudio.report import Issue, Report, Scores
from mmstudio.studio import bench
from mmstudio.studio.bench import BenchOptions, read_prompts, run_bench
from mmstudio.studio.bench_record import first_report, issues_by_code
from mmstudio.studio.bench_report import render_markdown
from mmstudio.studio.bench_summary import summarise

#: the slow layer: the CLI end to end in subprocesses (see tests/conftest.py)
pytestmark = pytest.mark.slow

HAS_BROWSER = find_browser().executable is not None
PROMPTS = [
    {
        "id": "ember",
        "prompt": "A warm landing page titled “Ember Roasters” with the tagline “Roasted "
        "Tuesday, poured Friday”, colours #2f6fde and #f2994a, and a hero photo of a cafe.",
    },
    {
        "id": "tide",
        "prompt": "A calm one-page site called “Tide Journal” for a surf school, palette "
        "#0b3d5c and #f4e9d8, with a gallery image of waves.",
    },
]


def write_prompts(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def prompts(tmp_path: Path) -> Path:
    return write_prompts(tmp_path / "prompts.jsonl", PROMPTS)


def test_read_prompts_names_a_bad_line_and_a_repeated_id(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "prompt": "x"}\n{"prompt": "no id"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:2 is not a \{id, prompt\}"):
        read_prompts(bad)
    twice = write_prompts(tmp_path / "twice.jsonl", [PROMPTS[0], PROMPTS[0]])
    with pytest.raises(ValueError, match="repeats the id 'ember'"):
        read_prompts(twice)
    assert [r["id"] for r in read_prompts(write_prompts(tmp_path / "ok.jsonl", PROMPTS), 1)] == [
        "ember"
    ]


async def test_bench_runs_prompts_and_writes_summary_with_figures(prompts, tmp_path) -> None:
    out = tmp_path / "out"
    options = BenchOptions(rounds=0, evaluate=HAS_BROWSER)
    summary = await run_bench(prompts, out, options=options)
    assert (summary["prompts"], summary["finished"], summary["failed"]) == (2, 2, 0)
    for prompt_id in ("ember", "tide"):
        assert (out / "projects" / prompt_id / "site" / "index.html").is_file()
        record = json.loads((out / "records" / f"{prompt_id}.json").read_text())
        assert record["ok"] and record["seconds"] > 0
        assert record["fidelity"]["quoted"] == 1.0 and record["fidelity"]["hex"] == 1.0
        assert record["stages"]["plan"] is not None and record["stages"]["image"] > 0
        assert record["counts"]["images"] >= 1
    stored = json.loads((out / "summary.json").read_text())
    assert stored["summary"]["prompts"] == 2 and len(stored["prompts"]) == 2
    assert set(summary["stages"]) >= {"plan", "layout", "image", "assets", "evaluate", "total"}
    md = (out / "summary.md").read_text()
    for heading in ("## Scores before", "## Measured issues", "## Prompt fidelity",
                    "## Time per stage", "## Tokens and cost", "## Failures"):  # fmt: skip
        assert heading in md
    figures = summary["figures"]
    assert set(figures) == {"scores", "stages", "issues", "seconds", "fidelity"}
    for rel in figures.values():
        assert (out / rel).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert f"]({rel})" in md
    if HAS_BROWSER:
        overall = summary["scores"]["overall"]
        assert overall["before"]["n"] == 2 and overall["before"]["median"] > 0.5
        assert overall["after"] == overall["before"]  # rounds=0: the same report


async def test_bench_resumes_skipping_finished_prompts(prompts, tmp_path, monkeypatch) -> None:
    out = tmp_path / "out"
    options = BenchOptions(rounds=0, evaluate=False)
    await run_bench(prompts, out, options=options, figures=False)
    first = json.loads((out / "records" / "ember.json").read_text())
    (out / "records" / "tide.json").unlink()  # as if the run had stopped during "tide"
    ran: list[str] = []
    real = bench.new_project

    async def counting(root, prompt, **kwargs):
        ran.append(Path(root).name)
        return await real(root, prompt, **kwargs)

    monkeypatch.setattr(bench, "new_project", counting)
    lines: list[str] = []
    summary = await run_bench(
        prompts, out, options=options, figures=False,
        progress=lambda stage, done, total, detail: lines.append(f"{done}/{total} {detail}"),
    )  # fmt: skip
    assert ran == ["tide"]
    assert json.loads((out / "records" / "ember.json").read_text()) == first
    assert (summary["finished"], summary["ran_now"], summary["resumed"]) == (2, 1, 1)
    assert "ran 1 prompt(s) and resumed 1" in (out / "summary.md").read_text()
    assert lines[0].startswith("1/2 1 prompt(s) already finished")
    assert lines[-1].startswith("2/2 tide ok")
    ran.clear()
    await run_bench(prompts, out, options=BenchOptions(rounds=1, evaluate=False), figures=False)
    assert ran == ["ember", "tide"]  # other options: the old records do not count


async def test_a_failing_prompt_is_recorded_not_fatal(tmp_path) -> None:
    rows = [{"id": "empty", "prompt": "   "}, PROMPTS[1]]
    out = tmp_path / "out"
    summary = await run_bench(
        write_prompts(tmp_path / "p.jsonl", rows), out,
        options=BenchOptions(rounds=0, evaluate=False, jobs=2),
    )  # fmt: skip
    assert (summary["finished"], summary["failed"]) == (1, 1)
    assert summary["failures"] == [
        {"id": "empty", "error_type": "InputError", "error": summary["failures"][0]["error"]}
    ]
    assert "the prompt is empty" in summary["failures"][0]["error"]
    assert not (out / "projects" / "empty").exists()
    md = (out / "summary.md").read_text()
    assert "- `empty` (InputError): the prompt is empty" in md


def _record(prompt_id: str, before: dict, after: dict, overall: tuple[float, float]) -> dict:
    scores = dict.fromkeys(("layout", "style", "aesthetics", "image", "video", "chart"))
    return {
        "id": prompt_id, "ok": True, "seconds": 10.0,
        "stages": {"plan": 0.1, "image": 2.0, "render": 1.5, "evaluate": 2.0, "total": 10.0},
        "scores_before": {**scores, "layout": overall[0], "overall": overall[0]},
        "scores_after": {**scores, "layout": overall[1], "overall": overall[1]},
        "issues_before": before, "issues_after": after,
        "reflection": {"rounds": 1, "stopped": "3 rounds", "accepted": 1, "reverted": 0},
        "fidelity": {"quoted": 0.5, "hex": 1.0},
        "usage": {"calls": 3, "input_tokens": 1000, "output_tokens": 500, "cost_usd": 0.01},
    }  # fmt: skip


def test_summary_counts_issues_scores_usage_and_targets() -> None:
    records = [
        _record("a", {"cover-crop": 2, "low-contrast": 1}, {"low-contrast": 1}, (0.6, 0.8)),
        _record("b", {"cover-crop": 1}, {}, (0.9, 0.9)),
        {"id": "c", "ok": False, "seconds": 0.2, "error": "boom", "error_type": "DesignerError"},
    ]
    summary = summarise(records, BenchOptions(rounds=1), source="x.jsonl")
    assert summary["issues"]["cover-crop"] == {
        "before": 3, "after": 0, "pages_before": 2, "pages_after": 0,
    }  # fmt: skip
    assert summary["issues_total"] == {"before": 4, "after": 1}
    assert summary["scores"]["overall"]["before"]["median"] == 0.75
    assert summary["scores"]["overall"]["after"]["median"] == 0.85
    assert summary["scores"]["video"]["after"]["n"] == 0
    assert summary["reflection"]["improved"] == 1 and summary["reflection"]["unchanged"] == 1
    assert summary["usage"]["input_tokens"] == 2000 and summary["usage"]["cost_usd"] == 0.02
    assert [b["id"] for b in summary["fidelity"]["below"]] == ["a", "b"]
    assert summary["failures"][0]["error"] == "boom"
    md = render_markdown(summary, {})
    assert "| `cover-crop` | 3 | 0 | 2 | 0 |" in md
    assert "| overall | 0.75 · 0.75 | 0.85 · 0.85 | 2 |" in md
    assert "- `c` (DesignerError): boom" in md
    assert "2000 input + 1000 output tokens" in md


def test_first_report_is_the_generated_version(tmp_path) -> None:
    project = Project.create(tmp_path / "p", prompt="x", provider="offline")
    issue = Issue(id="i1", dimension="image", level="local", code="cover-crop", message="m")
    project.write_report(Report(scores=Scores(overall=0.5), issues=[issue]))
    project.commit("generated")
    project.write_report(Report(scores=Scores(overall=0.9)))
    project.commit("reflected")
    first = first_report(project)
    assert first is not None and first.scores.overall == 0.5
    assert issues_by_code(first) == {"cover-crop": 1}
    assert issues_by_code(project.read_report()) == {}


def test_cli_bench_prints_json_and_resumes(prompts, tmp_path, capsys) -> None:
    out = tmp_path / "out"
    argv = ["bench", str(prompts), "-o", str(out), "--limit", "1", "--rounds", "0",
            "--no-evaluate", "--no-figures", "--json"]  # fmt: skip
    assert cli.main(argv) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["prompts"], result["finished"], result["rounds"]) == (1, 1, 0)
    assert cli.main([*argv[:-1], "--quiet"]) == 0
    assert "1/1 prompts finished (0 failed)" in capsys.readouterr().out


def test_cli_bench_missing_file_is_one_line_error(tmp_path, capsys) -> None:
    assert cli.main(["bench", str(tmp_path / "none.jsonl"), "-o", str(tmp_path / "o")]) == 1
    assert capsys.readouterr().err.startswith("mmstudio: error: ")


async def test_bench_over_the_model_path_sums_tokens_and_cost(tmp_path, server, no_network) -> None:  # noqa: F811
    from openai_demo import DemoModel

    server.chat_responder = DemoModel()
    # priced chat models (the current defaults are not in resources/prices.json: unpriced)
    priced = {"planner": "gpt-5.1", "coder": "gpt-5.1", "judge": "gpt-5.1"}
    settings = fast_settings(server, timeout_s=20.0, image_timeout_s=20.0, models=priced)
    rows = write_prompts(tmp_path / "p.jsonl", PROMPTS[:1])
    options = BenchOptions(provider="openai", settings=settings, rounds=0, evaluate=False)
    summary = await run_bench(rows, tmp_path / "out", options=options, figures=False)
    assert summary["finished"] == 1, summary["failures"]
    usage = summary["usage"]
    assert usage["calls"] >= 3  # plan, page, at least one image
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert usage["cost_usd"] > 0  # gpt-5.1 is in the price table
    md = (tmp_path / "out" / "summary.md").read_text()
    assert f"{usage['calls']} calls" in md and "$0.0000 " not in md


def test_cli_bench_exits_1_when_every_prompt_failed(tmp_path, capsys) -> None:
    """A bench that finished no prompt writes its summary (the failures are the result) but
    exits 1 with one line, so a script or CI that runs it does not read "done"."""
    prompts = write_prompts(tmp_path / "p.jsonl", [{"id": "empty", "prompt": "   "}])
    out = tmp_path / "out"
    argv = ["bench", str(prompts), "-o", str(out), "--rounds", "0", "--no-evaluate",
            "--no-figures", "--quiet"]  # fmt: skip
    assert cli.main(argv) == 1
    err = capsys.readouterr().err
    assert "mmstudio: error: all 1 prompts failed (first: " in err and "empty" in err
    assert (out / "summary.md").is_file()


async def test_a_multi_page_brief_over_the_demo_backend_builds_every_page(
    tmp_path,
    server,  # noqa: F811
    no_network,  # noqa: F811
) -> None:
    """The words of FronTalk dev dialogue 2ba7ac0b's first turn plan a home page and a
    company profile page; the demo backend answers each page's layout request with that
    page's sections (it used to answer every page with the whole site's and the run failed)."""
    from openai_demo import DemoModel

    server.chat_responder = DemoModel()
    prompt = (
        'Build a website called "Washington Business Insights" that provides business '
        "information and credit reports for companies registered in Washington. Include a "
        '"Company Profile" page that displays detailed information about a selected company. '
        'Add a "Recent Registrations" section on the homepage displaying a list of recently '
        "registered companies, with each entry linking to its respective Company Profile page."
    )
    settings = fast_settings(server, timeout_s=20.0, image_timeout_s=20.0)
    rows = write_prompts(tmp_path / "p.jsonl", [{"id": "pages", "prompt": prompt}])
    options = BenchOptions(provider="openai", settings=settings, rounds=0, evaluate=False)
    summary = await run_bench(rows, tmp_path / "out", options=options, figures=False)
    assert summary["finished"] == 1, summary["failures"]
    site = next((tmp_path / "out").rglob("company-profile.html"))
    assert 'data-mm-section="header"' in site.read_text()
