"""The command line end to end on the demo prompt: new → evaluate → history → restore → export.

These run the real offline designer (and the browser where one exists) through ``main()``.
"""

from __future__ import annotations

import json
import re
import zipfile
from pathlib import Path

import pytest

from mmstudio.cli import main
from mmstudio.plan import DesignPlan, slot_problems
from mmstudio.project.export import hygiene_problems
from mmstudio.render import find_browser
from mmstudio.resources import resource
from mmstudio.studio.fidelity import measure

#: the slow layer: the CLI end to end in subprocesses (see tests/conftest.py)
pytestmark = pytest.mark.slow

DEMO = resource("demo", "prompt.txt")
needs_browser = pytest.mark.skipif(
    find_browser().executable is None, reason="no Chromium for Playwright"
)


def run(capsys, *argv) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def demo_project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("cli") / "demo"
    assert main(["new", str(root), "--prompt-file", str(DEMO), "--quiet"]) == 0
    return root


def test_new_writes_a_complete_project(demo_project):
    plan = DesignPlan.model_validate_json((demo_project / "plan.json").read_text())
    site = demo_project / "site"
    for path in plan.asset_paths():
        assert (site / path).stat().st_size > 0, path
    assert slot_problems(plan, (site / "index.html").read_text()) == []
    assert (site / "vendor" / "echarts.min.js").is_file()
    manifest = json.loads((demo_project / "mmstudio.json").read_text())
    assert manifest["provider"] == "offline" and manifest["head"]
    assert manifest["title"] == "Ember & Oak Coffee Roasters"
    assert {e.kind for e in plan.elements()} == {"image", "video", "chart"}


def test_demo_site_carries_the_prompt(demo_project):
    fidelity = measure(DEMO.read_text(encoding="utf-8"), demo_project / "site")
    assert fidelity.quote_share >= 0.9, sorted(set(fidelity.quotes) - set(fidelity.quotes_found))
    assert fidelity.colour_share >= 0.8
    assert hygiene_problems(demo_project / "site") == []


@needs_browser
def test_new_evaluates_and_evaluate_reports(demo_project, capsys):
    report = json.loads((demo_project / "report.json").read_text())
    assert report["scores"]["overall"] is not None
    code, out, _ = run(capsys, "evaluate", str(demo_project), "--json")
    assert code == 0
    scores = json.loads(out)["scores"]
    assert set(scores) >= {"layout", "style", "aesthetics", "image", "video", "chart", "overall"}
    assert scores["chart"] is not None and scores["video"] is not None


def test_export_is_self_contained(demo_project, tmp_path, capsys):
    code, out, _ = run(capsys, "export", str(demo_project), "-o", str(tmp_path / "out"), "--json")
    assert code == 0 and json.loads(out)["problems"] == []
    exported = tmp_path / "out"
    names = {p.name for p in exported.iterdir()}
    assert names - {"CREDITS.txt"} == {"index.html", "assets", "vendor"}
    if "CREDITS.txt" in names:  # pictures drawn from the icon sets (absent: abstract art)
        assert "licence" in (exported / "CREDITS.txt").read_text()
    for path in exported.rglob("*"):
        if path.suffix in (".html", ".css", ".json"):
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"https?://|file:|/tmp/|/root/|/work/", text), path
    code, _, err = run(capsys, "export", str(demo_project), "-o", str(tmp_path / "out"))
    assert code == 1 and "--force" in err and err.count("\n") == 1


def test_exported_files_are_readable_by_a_web_server(demo_project, tmp_path, capsys):
    code, _, _ = run(capsys, "export", str(demo_project), "-o", str(tmp_path / "site.zip"))
    assert code == 0 and (tmp_path / "site.zip").is_file()  # a .zip name means a zip
    for info in zipfile.ZipFile(tmp_path / "site.zip").infolist():
        assert (info.external_attr >> 16) & 0o044 == 0o044, info.filename
    for path in (demo_project / "site").rglob("*"):
        if path.is_file():
            assert path.stat().st_mode & 0o044 == 0o044, path


def test_history_and_restore(demo_project, capsys):
    code, out, _ = run(capsys, "history", str(demo_project), "--json")
    versions = json.loads(out)["versions"]
    assert code == 0 and versions[-1]["head"]
    index = demo_project / "site" / "index.html"
    original = index.read_bytes()
    index.write_text("<p>broken by hand</p>")
    code, out, _ = run(capsys, "restore", str(demo_project), versions[-1]["id"][:6])
    assert code == 0 and index.read_bytes() == original


@needs_browser
def test_refine_with_nothing_to_refine_adds_no_version(demo_project, capsys):
    assert run(capsys, "evaluate", str(demo_project))[0] == 0  # a fresh report.json
    _, out, _ = run(capsys, "history", str(demo_project), "--json")
    before = json.loads(out)["versions"]
    for level in ("local", "context", "global"):
        code, out, _ = run(capsys, "refine", str(demo_project), "--level", level)
        said = out.strip()
        assert code == 0 and "\n" not in said, said
        # no issue at that level, or issues no offline rule fixes, and what to do instead
        assert said == f"nothing to refine at the {level} level" or (
            f"issue(s) at the {level} level" in said and "mmstudio feedback" in said
        ), said
    _, out, _ = run(capsys, "history", str(demo_project), "--json")
    assert json.loads(out)["versions"] == before


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["new", "{tmp}/p", "--prompt", "   "], "prompt is empty"),
        (["new", "{tmp}/p", "--prompt-file", "{tmp}/latin1.txt"], "not UTF-8"),
        (["new", "{tmp}/p", "--prompt-file", "{tmp}/absent.txt"], "absent.txt"),
        (["new", "{tmp}/taken", "--prompt", "a page"], "not empty"),
        (["history", "{tmp}"], "not an MM Studio project"),
        (["restore", "{tmp}", "abcd"], "not an MM Studio project"),
        (["new", "{tmp}/p", "--prompt-file", "{tmp}"], "cannot read the prompt file"),
        (["new", "{tmp}/latin1.txt/p", "--prompt", "a page"], "not a writable folder"),
        (["evaluate", "{tmp}/nothing-here"], "does not exist"),
    ],
)
def test_bad_input_is_one_line_and_leaves_nothing(tmp_path, capsys, argv, message):
    (tmp_path / "latin1.txt").write_bytes("café crème".encode("latin-1"))
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "mine.txt").write_text("keep")
    code, _, err = run(capsys, *[a.format(tmp=tmp_path) for a in argv])
    assert code == 1
    assert err.startswith("mmstudio: error:") and err.count("\n") == 1 and message in err
    assert not (tmp_path / "p").exists()
    assert (tmp_path / "taken" / "mine.txt").read_text() == "keep"


@pytest.mark.parametrize(
    "command",
    [
        "new",
        "evaluate",
        "refine",
        "feedback",
        "export",
        "history",
        "undo",
        "redo",
        "restore",
        "bench",
        "gui",
        "doctor",
    ],
)
def test_every_command_has_help(command, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert "--json" in capsys.readouterr().out


def test_doctor_reports_checks(capsys):
    code, out, _ = run(capsys, "doctor", "--json")
    checks = {c["name"]: c for c in json.loads(out)["checks"]}
    assert {"python", "echarts", "ffmpeg", "browser", "data folders"} <= set(checks)
    assert checks["echarts"]["ok"] and checks["ffmpeg"]["ok"]
    assert code == (0 if all(c["ok"] for c in checks.values()) else 1)


def test_output_piped_into_a_reader_that_stops_early_is_not_an_error(demo_project):
    """`mmstudio history P | head -1`: the reader closing the pipe is not a failure."""
    import shlex
    import subprocess
    import sys

    command = f"{shlex.quote(sys.executable)} -m mmstudio history {shlex.quote(str(demo_project))}"
    done = subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command} --json | head -c 0; exit 0"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Broken pipe" not in done.stderr and "error" not in done.stderr, done.stderr
