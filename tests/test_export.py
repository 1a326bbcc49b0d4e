"""Export hygiene: only site files, self-contained, never overwriting someone's folder."""

from __future__ import annotations

import os
import zipfile

import pytest

from mmstudio.project.export import ExportError, export_site, hygiene_problems


@pytest.fixture
def site(tmp_path):
    site = tmp_path / "site"
    (site / "assets").mkdir(parents=True)
    (site / "index.html").write_text('<img src="assets/a.png"><a href="#top">top</a>')
    (site / "assets" / "a.png").write_bytes(b"\x89PNG")
    return site


def test_clean_site_has_no_problems(site):
    assert hygiene_problems(site) == []


@pytest.mark.parametrize(
    ("html", "expected"),
    [
        ('<script src="https://cdn.example/x.js"></script>', "external reference"),
        ('<link href="//fonts.example/css">', "external reference"),
        ("<style>body{background:url('http://x.example/a.png')}</style>", "external reference"),
        ('<img src="file:///tmp/a.png">', "machine path"),
        ('<img src="/work/main/a.png">', "machine path"),
        ('<img src="assets/missing.png">', "missing file"),
        ('<img src="../outside.png">', "missing file"),
    ],
)
def test_problems_are_found(site, html, expected):
    (site / "index.html").write_text(html)
    (site.parent / "outside.png").write_bytes(b"x")
    problems = hygiene_problems(site)
    assert problems and expected in problems[0]


def test_export_folder_and_zip(site, tmp_path):
    out = export_site(site, tmp_path / "out")
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == [
        "assets",
        "assets/a.png",
        "index.html",
    ]
    archive = export_site(site, tmp_path / "bundle", as_zip=True)
    assert archive.suffix == ".zip"
    assert sorted(zipfile.ZipFile(archive).namelist()) == ["assets/a.png", "index.html"]


def test_export_refuses_non_empty_destination(site, tmp_path):
    dest = tmp_path / "mine"
    dest.mkdir()
    (dest / "keep.txt").write_text("precious")
    with pytest.raises(ExportError, match="--force"):
        export_site(site, dest)
    assert (dest / "keep.txt").read_text() == "precious"
    export_site(site, dest, overwrite=True)
    assert not (dest / "keep.txt").exists() and (dest / "index.html").exists()


def test_export_skips_symlinks_pointing_out(site, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("key")
    os.symlink(secret, site / "assets" / "leak.txt")
    out = export_site(site, tmp_path / "out")
    assert not (out / "assets" / "leak.txt").exists()
    archive = export_site(site, tmp_path / "z", as_zip=True)
    assert "assets/leak.txt" not in zipfile.ZipFile(archive).namelist()


def test_export_needs_an_index(tmp_path):
    with pytest.raises(ExportError, match=r"index\.html"):
        export_site(tmp_path, tmp_path / "out")


def test_an_export_carries_the_icon_sets_credits(site, tmp_path):
    """The pictures' motif records name the sets used: the export (folder and zip) carries a
    CREDITS.txt with their licences (CC BY sets ask for attribution); a plan without records
    adds none, and a site's own CREDITS.txt is never replaced."""
    from test_plan_schema import minimal_plan

    from mmstudio.plan import DesignPlan, MotifRecord
    from mmstudio.project import Project
    from mmstudio.studio.credits import export_extras

    project = Project.create(tmp_path / "p", prompt="a games café", provider="offline")
    plan = DesignPlan.model_validate(minimal_plan())
    assert export_extras(project) == {}  # no plan yet
    project.write_plan(plan)
    assert export_extras(project) == {}  # no picture records a motif
    image = plan.images[0]
    image.motifs = MotifRecord(motifs=["game-icons:dice", "noto:hot-beverage"], words=["games"])
    project.write_plan(plan)
    extra = export_extras(project)
    text = extra["CREDITS.txt"].decode()
    assert "Game Icons" in text and "CC-BY-3.0" in text and "Noto Emoji" in text
    assert "Fluent" not in text  # only the sets the pictures use
    folder = export_site(site, tmp_path / "out", extra=extra)
    assert (folder / "CREDITS.txt").read_bytes() == extra["CREDITS.txt"]
    archive = export_site(site, tmp_path / "out.zip", as_zip=True, extra=extra)
    with zipfile.ZipFile(archive) as z:
        assert z.read("CREDITS.txt") == extra["CREDITS.txt"]
    (site / "CREDITS.txt").write_text("the site's own")
    again = export_site(site, tmp_path / "again", extra=extra)
    assert (again / "CREDITS.txt").read_text() == "the site's own"
