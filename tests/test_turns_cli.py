"""``mmstudio turns`` after two offline feedback turns (the second makes the first regress and
the repair restores it): the turns, each requirement's status at each turn's version, the
forgetting event and the rates, as text and as JSON; one-line errors for a non-project path;
``bench`` refusing an ambiguous or missing input."""

from __future__ import annotations

import json

import pytest

from mmstudio.cli import main
from mmstudio.project import Project
from mmstudio.render import find_browser

#: the slow layer: the CLI end to end in subprocesses (see tests/conftest.py)
pytestmark = pytest.mark.slow

PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Turns</title>
<style>body{margin:0;font:18px/1.5 sans-serif;color:#222;background:#fff}
section{padding:40px 80px;background:#f4efe6} h1{font-size:48px;margin:0 0 16px}</style>
</head><body>
<section data-mm-section="hero"><div class="wrap"><h1 id="hero--title">Roasted Slowly</h1>
<p>Every bag is roasted to order and shipped within two days.</p></div></section>
<section data-mm-section="story"><div class="wrap"><h2 id="story--title">Our Story</h2>
<p>Each batch is profiled by hand.</p></div></section>
</body></html>"""

needs_browser = pytest.mark.skipif(
    find_browser().executable is None, reason="no Chromium for Playwright"
)


@pytest.fixture
def project(tmp_path):
    project = Project.create(tmp_path / "p", prompt="coffee", provider="offline", title="Coffee")
    site = project.staging_dir() / "site"
    site.mkdir(parents=True)
    (site / "index.html").write_text(PAGE)
    project.install_site(site)
    project.commit("first")
    return project


@needs_browser
def test_turns_lists_turns_statuses_per_version_and_forgetting(project, capsys):
    root = str(project.root)
    assert main(["feedback", root, "--text", "make the headline red"]) == 0
    assert main(["feedback", root, "--text", "make the hero section darker"]) == 0
    capsys.readouterr()

    assert main(["turns", root, "--json"]) == 0
    view = json.loads(capsys.readouterr().out)
    versions = [v.id for v in Project.open(project.root).history.list()]
    assert [(t["turn"], t["text"]) for t in view["turns"]] == [
        (1, "make the headline red"),
        (2, "make the hero section darker"),
    ]
    assert view["turns"][1]["version"] == Project.open(project.root).manifest.head
    assert {t["version"] for t in view["turns"]} <= set(versions)
    rows = {r["id"]: r for r in view["requirements"]}
    assert set(rows) == {"t1.r1", "t2.r1"}
    assert (rows["t1.r1"]["op"], rows["t1.r1"]["target"]) == ("colour", "hero--title")
    assert rows["t1.r1"]["by_version"] == [
        {"turn": 1, "version": view["turns"][0]["version"], "status": "pass"},
        {"turn": 2, "version": view["turns"][1]["version"], "status": "pass"},
    ]
    assert rows["t2.r1"]["by_version"] == [
        {"turn": 2, "version": view["turns"][1]["version"], "status": "pass"}
    ]
    assert [(e["requirement"], e["turn"], e["repaired"]) for e in view["forgetting"]] == [
        ("t1.r1", 2, True)
    ]
    assert (view["pass_rate"], view["forgetting_rate"]) == (1.0, 0.0)

    assert main(["turns", root]) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0] == "turns:"
    assert lines[1].split()[:2] == ["1", view["turns"][0]["version"][:10]]
    assert lines[1].endswith("make the headline red")
    row = next(line for line in lines if line.strip().startswith("t1.r1"))
    assert row.split()[:4] == ["t1.r1", "pass", "pass", "pass"]
    row = next(line for line in lines if line.strip().startswith("t2.r1"))
    assert row.split()[:3] == ["t2.r1", "pass", "pass"]  # no verdict at turn 1: blank cell
    event = lines[lines.index("forgetting:") + 1]
    assert event.startswith("  t1.r1 at turn 2: ") and event.endswith("(repaired)")
    assert lines[-1] == "pass rate 1.00, forgetting rate 0.00"
    assert view["head"] == view["checked_at"] and "note:" not in text

    assert main(["undo", root]) == 0  # back to turn 1's version: the statuses are turn 2's
    capsys.readouterr()
    assert main(["turns", root]) == 0
    note = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("note:"))
    assert view["turns"][0]["version"][:12] in note and "last turn's check" in note


def test_turns_on_a_project_without_turns_and_on_a_non_project(project, tmp_path, capsys):
    assert main(["turns", str(project.root)]) == 0
    assert capsys.readouterr().out.strip() == "no feedback turns yet"
    assert main(["turns", str(tmp_path / "nowhere"), "--json"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("mmstudio: error: ") and "is not an MM Studio project" in err
    assert len(err.strip().splitlines()) == 1


def test_turns_has_help(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["turns", "--help"])
    assert exit_info.value.code == 0 and "--json" in capsys.readouterr().out


def test_bench_needs_exactly_one_input(tmp_path, capsys):
    assert main(["bench", "-o", str(tmp_path / "o")]) == 1
    assert "give a PROMPTS.jsonl file" in capsys.readouterr().err
    args = ["bench", "p.jsonl", "--frontalk", "d.jsonl", "-o", str(tmp_path / "o")]
    assert main(args) == 1
    assert "not both" in capsys.readouterr().err
    assert main(["bench", "--frontalk", str(tmp_path / "none.jsonl"), "-o", str(tmp_path)]) == 1
    assert "none.jsonl" in capsys.readouterr().err


def test_turn_marks_come_from_the_turns_words():
    from mmstudio.studio.turns import _marks

    words = (
        "Instruction: warmer\nMarks on the screenshot (page px at 1280 px wide):\n"
        "- mark 1: rectangle over the image `hero_image` — note: 'warmer'\n"
        "- mark 2: arrow pointing at `hero--title`"
    )
    assert _marks(words) == [
        "mark 1: rectangle over the image `hero_image` — note: 'warmer'",
        "mark 2: arrow pointing at `hero--title`",
    ]
    assert _marks("Instruction: make the headline red") == []
