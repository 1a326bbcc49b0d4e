"""Issue 9, faults: ``kill -9`` of the command line during generate (``new``), refine, restore,
undo and export never costs the designer their project.

Each test starts the real CLI (``python -m mmstudio …``) in a subprocess, waits until it is
visibly in the middle of its work (a building or staging folder, a trial, a partial export
exists — or a random delay has passed) and SIGKILLs it. Then: the project (when it was created)
opens, nothing is left behind after the open, the history is consistent (every version's blobs
exist with their hashes), the files are exactly the head version where the command was a
checkout, the head restores byte-identical, and an export destination is absent or complete,
its partial copy removed by the next export. Refine runs with a fast fake evaluator (no
browser); longer and more random variants are in ``benchmarks/soak.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from refine_fixtures import fake_report, grid_site, project_from

from mmstudio.project import Project
from mmstudio.project.check import consistency_problems, leftovers, restore_problems, working_files
from mmstudio.project.export import export_site
from mmstudio.studio.create import new_project

#: the slow layer: the CLI end to end in subprocesses (see tests/conftest.py)
pytestmark = pytest.mark.slow

TESTS = Path(__file__).parent
PROMPT = "A landing page for a small coffee roaster: a hero photo, a pour video and a price chart"

#: the CLI with the refiners' evaluator replaced by the fast fake one of the refine tests
FAKE_EVALUATOR_CLI = f"""
import sys
sys.path.insert(0, {str(TESTS)!r})
import mmstudio.refine.apply as apply
from refine_fixtures import fake_evaluator
apply.render_and_score = fake_evaluator
from mmstudio.cli import main
sys.exit(main(sys.argv[1:]))
"""


#: the same with every commit 0.5 s slower (a large site to hash, a slow disk)
SLOW_COMMIT_CLI = FAKE_EVALUATOR_CLI.replace(
    "from mmstudio.cli import main",
    "import time\nfrom mmstudio.project import Project\nreal = Project.commit\n"
    "Project.commit = lambda *a, **k: (time.sleep(0.5), real(*a, **k))[1]\n"
    "from mmstudio.cli import main",
)


def _start(
    args: list[str], *, fake_evaluator: bool = False, slow_commit: bool = False
) -> subprocess.Popen:
    code = ["-c", FAKE_EVALUATOR_CLI] if fake_evaluator else ["-m", "mmstudio"]
    code = ["-c", SLOW_COMMIT_CLI] if slow_commit else code
    return subprocess.Popen(
        [sys.executable, *code, *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(TESTS.parent)},
    )


def _kill_when(child: subprocess.Popen, ready: Callable[[], bool], delay_s: float = 0.0) -> bool:
    """SIGKILL ``child`` once ``ready()`` holds (polled every 2 ms) plus ``delay_s``; False
    when the child finished first (nothing was interrupted)."""
    deadline = time.monotonic() + 60
    while not ready():
        if child.poll() is not None:
            return False
        if time.monotonic() >= deadline:  # never leave the child running after the test
            child.kill()
            child.wait(30)
            raise AssertionError("the child never reached the kill point in 60 s")
        time.sleep(0.002)
    time.sleep(delay_s)
    if child.poll() is not None:
        return False
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    return True


def _assert_intact(root: Path, *, checkout: bool = False) -> Project:
    """The project at ``root`` opens clean and consistent and its head restores exactly."""
    project = Project.open(root)
    assert leftovers(root) == []
    assert consistency_problems(project) == []
    head = project.manifest.head
    if head is None:  # killed between creating the folder and its first commit
        assert project.history.list() == []
        return project
    if checkout:
        assert working_files(project) == project.history.get(head).files  # old or new, no mix
    assert restore_problems(project, [head]) == []
    return project


def _exists(pattern: str, folder: Path) -> Callable[[], bool]:
    return lambda: any(folder.glob(pattern))


# ---------------------------------------------------------------------------------------------
# generate


@pytest.mark.parametrize(
    ("point", "delay_s"),
    [(".p.building-*", 0.0), ("p/mmstudio.json", 0.0), ("p/objects", 0.0), ("p/.lock", 0.05)],
    ids=["building", "created", "committing", "after-commit"],
)
def test_kill_during_new(tmp_path, point, delay_s):
    root = tmp_path / "p"
    args = ["new", str(root), "--prompt", PROMPT, "--no-evaluate", "--rounds", "0"]
    child = _start(args)
    killed = _kill_when(child, _exists(point, tmp_path), delay_s)
    assert killed or delay_s > 0, child.stderr.read()
    if root.exists():
        _assert_intact(root)
    else:  # the next run at the same place removes the dead run's building folder
        asyncio.run(new_project(root, PROMPT, evaluate=False, rounds=0))
        assert not list(tmp_path.glob(".p.building-*"))
        _assert_intact(root)


def test_sigterm_during_new_cleans_up_like_ctrl_c(tmp_path):
    """A terminated `new` (SIGTERM: a closed terminal, a CI timeout) cancels like Ctrl-C: one
    line, status 130, and no building folder or half project left behind."""
    root = tmp_path / "p"
    child = _start(["new", str(root), "--prompt", PROMPT, "--rounds", "0"])
    deadline = time.monotonic() + 60
    while not any(tmp_path.glob(".p.building-*")) and child.poll() is None:
        assert time.monotonic() < deadline, "the child never started building"
        time.sleep(0.002)
    if child.poll() is not None:
        pytest.skip("the run finished before it could be terminated")
    child.send_signal(signal.SIGTERM)
    assert child.wait(60) == 130
    assert "mmstudio: cancelled" in child.stderr.read().decode()
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["made", "removing"])
def test_an_interrupt_at_any_instruction_of_new_leaves_no_building_folder(
    tmp_path, monkeypatch, capsys, where
):
    """SIGTERM is raised wherever the main thread is: right after the building folder was made
    (before the ``try`` that removes it — the race CI once lost) or inside that removal. The
    command still says "cancelled", exits 130 and leaves nothing beside the project."""
    import shutil

    import mmstudio.studio.create as create
    from mmstudio.cli import main

    real_mkdtemp, real_rmtree = create.tempfile.mkdtemp, shutil.rmtree

    def made_then_interrupted(*args, **kwargs):
        real_mkdtemp(*args, **kwargs)
        raise KeyboardInterrupt

    def interrupted_while_removing(path, *args, **kwargs):
        if ".building-" in str(path) and not interrupted:
            interrupted.append(path)
            raise KeyboardInterrupt
        return real_rmtree(path, *args, **kwargs)

    interrupted: list = []
    if where == "made":
        monkeypatch.setattr(create.tempfile, "mkdtemp", made_then_interrupted)
    else:
        monkeypatch.setattr(create.shutil, "rmtree", interrupted_while_removing)
        monkeypatch.setattr(create, "build_site", _cancelled_build)
    root = tmp_path / "p"
    argv = ["new", str(root), "--prompt", PROMPT, "--no-evaluate", "--rounds", "0", "--quiet"]
    assert main(argv) == 130
    assert "mmstudio: cancelled" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    assert where == "made" or interrupted


async def _cancelled_build(*args, **kwargs):
    raise asyncio.CancelledError


# ---------------------------------------------------------------------------------------------
# refine, restore, undo


def _grid_project(root: Path, n: int = 12) -> Project:
    """A grid page of ``n`` stretched images with its (fake) report, committed twice."""
    project = project_from(grid_site(root.parent / f"{root.name}-site", n), root)
    project.write_report(fake_report((project.site_dir / "index.html").read_text()))
    project.commit("start")
    return project


@pytest.mark.parametrize("delay_s", [0.0, 0.3])
def test_kill_during_refine(tmp_path, delay_s):
    project = _grid_project(tmp_path / "p")
    child = _start(["refine", str(project.root), "--level", "context"], fake_evaluator=True)
    killed = _kill_when(child, _exists(".staging-trial-*", project.root), delay_s)
    assert killed or delay_s > 0, child.stderr.read()
    reopened = _assert_intact(project.root)
    for version in reopened.history.list():  # every committed refine restores exactly
        assert restore_problems(reopened, [version.id]) == []


def test_kill_while_a_refine_installs_leaves_the_site_at_a_version(tmp_path):
    project = _grid_project(tmp_path / "p")
    page = project.site_dir / "index.html"
    before = page.stat().st_ino
    child = _start(["refine", str(project.root), "--level", "context"], slow_commit=True)

    def installing() -> bool:
        with contextlib.suppress(FileNotFoundError):
            return (project.site_dir / "index.html").stat().st_ino != before
        return False

    assert _kill_when(child, installing), child.stderr.read()
    reopened = Project.open(project.root)
    head = reopened.history.get(reopened.manifest.head)
    site = {p: d for p, d in working_files(reopened).items() if p.startswith("site/")}
    assert site == {p: d for p, d in head.files.items() if p.startswith("site/")}
    _assert_intact(project.root)


def _heavy_project(root: Path) -> Project:
    """Two versions whose sites differ in 40 files of 256 KiB (a restore takes a moment)."""
    project = _grid_project(root, 2)
    first = project.manifest.head
    assets = project.site_dir / "assets"
    for i in range(40):
        (assets / f"big{i}.bin").write_bytes(random.randbytes(256 * 1024))
    project.commit("heavy")
    assert first is not None
    return project


@pytest.mark.parametrize(
    ("command", "delay_s"),
    [("restore", 0.0), ("restore", 0.02), ("undo", 0.0)],
)
def test_kill_during_a_checkout(tmp_path, command, delay_s):
    project = _heavy_project(tmp_path / "p")
    first = project.history.list()[0].id
    args = [command, str(project.root), *([first] if command == "restore" else [])]
    child = _start(args)
    killed = _kill_when(child, _exists(".staging-*", project.root), delay_s)
    assert killed or delay_s > 0, child.stderr.read()
    reopened = _assert_intact(project.root, checkout=True)
    assert reopened.manifest.head in {first, project.manifest.head}


# ---------------------------------------------------------------------------------------------
# export


@pytest.mark.parametrize("as_zip", [False, True], ids=["folder", "zip"])
def test_kill_during_export(tmp_path, as_zip):
    project = _heavy_project(tmp_path / "p")
    dest = tmp_path / ("out.zip" if as_zip else "out")
    args = ["export", str(project.root), "-o", str(dest), *(["--zip"] if as_zip else [])]
    child = _start(args)
    partial = f".{dest.name}.mmstudio-partial-*"
    killed = _kill_when(child, _exists(partial, tmp_path))
    assert killed, child.stderr.read()
    site = {p.relative_to(project.site_dir) for p in project.site_dir.rglob("*") if p.is_file()}
    if not dest.exists():  # absent: the next export succeeds and removes the partial copy
        export_site(project.site_dir, dest, as_zip=as_zip)
    if as_zip:  # complete, never half written
        with zipfile.ZipFile(dest) as archive:
            assert {Path(name) for name in archive.namelist()} == site
    else:
        assert {p.relative_to(dest) for p in dest.rglob("*") if p.is_file()} == site
    assert not list(tmp_path.glob(partial))
    _assert_intact(project.root)
