"""Errors caught precisely: a UserError is one line for the user; anything else is a bug that
keeps its traceback (a crash file for the CLI, ``bug`` on a job)."""

from __future__ import annotations

import argparse

import pytest
from pydantic import BaseModel, ValidationError

from mmstudio import cli
from mmstudio.project.errors import (
    InputError,
    MissingInput,
    ProjectError,
    ProjectLocked,
    UserError,
    one_line,
    read_input,
)
from mmstudio.providers.base import DesignerError
from mmstudio.providers.errors import ProviderError
from mmstudio.providers.settings import SettingsError
from mmstudio.studio.jobs import JobManager


def test_the_hierarchy_keeps_the_old_bases():
    assert issubclass(InputError, ValueError) and issubclass(MissingInput, FileNotFoundError)
    assert issubclass(SettingsError, InputError) and issubclass(ProjectLocked, ProjectError)
    for kind in (ProjectError, DesignerError, ProviderError, InputError):
        assert issubclass(kind, UserError)


def test_one_line_joins_message_and_hint_and_names_a_bad_model():
    exc = InputError("the prompt is empty\nsecond line", "describe the page you want")
    assert one_line(exc) == "the prompt is empty; describe the page you want"
    assert str(InputError("x", "y")) == "x; y" and str(ProjectError("only")) == "only"

    class Knob(BaseModel):
        size: int

    with pytest.raises(ValidationError) as caught:
        Knob.model_validate({"size": "big"})
    assert one_line(caught.value).startswith("Knob: size: Input should be a valid integer")
    assert one_line(RuntimeError("boom\ntrace")) == "boom" and one_line(KeyError()) == "KeyError"
    assert one_line(RuntimeError("x" * 300), 50) == "x" * 49 + "…"


def test_read_input_says_what_is_wrong_with_the_file(tmp_path):
    (tmp_path / "latin.txt").write_bytes("café".encode("latin-1"))
    with pytest.raises(MissingInput, match=r"the brief .*absent.txt does not exist"):
        read_input(tmp_path / "absent.txt", "the brief")
    with pytest.raises(InputError, match=r"cannot read the brief .*: Is a directory"):
        read_input(tmp_path, "the brief")
    with pytest.raises(InputError, match=r"not UTF-8 text \(byte 3\); save it as UTF-8"):
        read_input(tmp_path / "latin.txt", "the brief")


def _command_raising(monkeypatch, exc: BaseException) -> None:
    def broken(args: argparse.Namespace) -> int:
        raise exc

    commands = [(n, broken if n == "doctor" else f, h, c) for n, f, h, c in cli._COMMANDS]
    monkeypatch.setattr(cli, "_COMMANDS", commands)


def test_a_bug_is_an_internal_error_with_its_traceback_in_a_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("MMSTUDIO_LOG_DIR", str(tmp_path / "logs"))
    _command_raising(monkeypatch, TypeError("'NoneType' object is not subscriptable"))
    assert cli.main(["doctor"]) == 70
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("mmstudio: internal error (a bug")
    assert "'NoneType' object is not subscriptable" in err
    (crash,) = (tmp_path / "logs").glob("crash-*.log")
    assert str(crash) in err
    text = crash.read_text()
    assert "Traceback" in text and "TypeError" in text and "in broken" in text
    with pytest.raises(TypeError):
        cli.main(["doctor", "--debug"])


@pytest.mark.parametrize(
    "exc",
    [ValueError("not a user's error"), OSError(5, "Input/output error"), KeyError("missing")],
)
def test_only_user_errors_are_plain_error_lines(tmp_path, monkeypatch, capsys, exc):
    monkeypatch.setenv("MMSTUDIO_LOG_DIR", str(tmp_path))
    _command_raising(monkeypatch, exc)
    assert cli.main(["doctor"]) == 70
    assert "internal error" in capsys.readouterr().err
    _command_raising(monkeypatch, ProjectLocked("p is being changed", "try again"))
    assert cli.main(["doctor"]) == 1
    assert capsys.readouterr().err == "mmstudio: error: p is being changed; try again\n"


async def test_a_job_that_fails_by_a_bug_says_so():
    manager = JobManager()

    async def bug(ctx):
        found: dict | None = None
        return found["x"]  # type: ignore[index]  # the kind of bug a real job has

    async def user(ctx):
        raise InputError("no element 'x' in the report", "see mmstudio evaluate")

    a, b = manager.submit("refine", bug), manager.submit("refine", user)
    await manager.wait_all()
    assert (a.state, a.bug) == ("failed", True) and "not subscriptable" in (a.error or "")
    assert (b.state, b.bug, b.error) == (
        "failed", False, "no element 'x' in the report; see mmstudio evaluate"
    )  # fmt: skip


def test_an_output_folder_that_cannot_be_made_is_one_line(tmp_path, capsys):
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text('{"id": "a", "prompt": "a page"}\n')
    blocker = tmp_path / "taken"
    blocker.write_text("a file, not a folder")
    assert cli.main(["bench", str(prompts), "-o", str(blocker / "out")]) == 1
    err = capsys.readouterr().err
    assert (
        err
        == f"mmstudio: error: cannot create the output folder {blocker / 'out'}: Not a directory\n"
    )
