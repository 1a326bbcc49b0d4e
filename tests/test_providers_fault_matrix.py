"""The fault matrix (``benchmarks/fault_matrix.py``) as tests: its shape (every behaviour × every
command, 30+ cases), how it judges an outcome, and the CLI run against the local test server for
the classes of fault fixed with it — each finishing with exit 0 or one clear line, never a
traceback. The CLI runs are subprocesses, so they are in the slow layer."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

import fault_matrix
from openai_server import PROFILES, Request

from mmstudio.providers.openai_compat import forget_learned_rungs


def cases_named(fault: str, command: str | None = None) -> fault_matrix.Case:
    [case] = [c for c in fault_matrix.faults()
              if c.fault_name == fault and (command is None or c.command == command)]  # fmt: skip
    return case


def test_the_matrix_runs_every_command_against_every_behaviour_and_30_more_faults():
    grid = fault_matrix.grid()
    assert {(c.kind, c.command) for c in grid} == {
        (kind, command) for kind in PROFILES for command in fault_matrix.GRID_COMMANDS
    }
    faults = fault_matrix.faults()
    assert len(grid) + len(faults) > 60 and len(faults) >= 30
    assert {c.command for c in faults} >= {"new", "evaluate", "refine", "feedback", "doctor"}
    names = " ".join(c.fault_name for c in faults)
    for words in ("/models", "401", "429", "truncated", "not JSON", "refused", "video"):
        assert words in names


@pytest.mark.parametrize(
    ("code", "last", "expect", "passed"),
    [
        (0, "", "exit 0", True),
        (1, "mmstudio: error: plan (gpt-5.5): refused the API key", "exit 0", False),
        (1, "mmstudio: error: plan (gpt-5.5): refused the API key", "one line", True),
        (0, "", "one line", False),
        (1, "WARNING mmstudio.x: retry 2", "one line", False),
        (3, "committed, but 1 requirement(s) not applied: t1.r1", "either", True),
        (2, "ValueError: boom", "either", False),
        (1, "BAD models: listing models: wrong shape", "BAD row", True),
        (0, "", "BAD row", False),
        (None, "", "exit 0", False),
    ],
)
def test_an_outcome_is_judged_by_its_exit_code_and_last_line(code, last, expect, passed):
    case = fault_matrix.Case("openai", "new", expect=expect)
    assert fault_matrix.judge_outcome(case, code, last, last, False)[0] is passed


def test_a_traceback_always_fails_a_case():
    case = fault_matrix.Case("openai", "new")
    assert fault_matrix.judge_outcome(case, 0, "", "", True) == (False, "a traceback")


def test_requests_without_a_schema_are_known_by_their_prompt():
    def asking(words: str) -> Request:
        body = {"messages": [{"role": "user", "content": words}]}
        return Request("chat", "POST", "/v1/chat/completions", {}, json=body)

    plan = asking("You are the planner of a web design studio. …")
    page = asking("Write the page")
    assert fault_matrix.request_kind(plan) == "DesignPlan"
    assert fault_matrix.request_kind(page) == "page"


def run(case: fault_matrix.Case, tmp_path: Path) -> fault_matrix.Outcome:
    forget_learned_rungs()
    try:
        return fault_matrix.run_case(case, tmp_path, None)
    finally:
        forget_learned_rungs()


@pytest.mark.slow  # the CLI in a subprocess, against the test server
@pytest.mark.parametrize(
    "fault",
    ["/models: data is not a list", "/models: entries without id", "/models: an HTML page",
     "/models: a bare list of one model", "/models: 401", "base URL without /v1"],
)  # fmt: skip
def test_doctor_reads_a_models_reply_it_cannot_use_as_one_bad_row(tmp_path, fault):
    outcome = run(cases_named(fault, "doctor"), tmp_path)
    assert outcome.passed, (outcome.why, outcome.last_line)
    assert outcome.code == 1 and not outcome.traceback
    assert outcome.last_line.startswith("BAD ")


@pytest.mark.slow  # a generation in a subprocess, against the test server
def test_a_stream_cut_off_every_time_is_one_line_saying_so(tmp_path):
    outcome = run(cases_named("page stream truncated every time"), tmp_path)
    assert outcome.passed, (outcome.why, outcome.last_line)
    assert outcome.last_line.startswith("mmstudio: error: layout")
    assert "closed the connection before the reply was complete" in outcome.last_line
    assert not (tmp_path / "new").exists()  # nothing half-made left behind
