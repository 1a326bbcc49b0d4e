"""The project folder: create/open, atomic site swap and its recovery, versions and restore."""

from __future__ import annotations

import json

import pytest

from mmstudio.project import Project, ProjectError


def make_site(folder, text):
    (folder / "assets").mkdir(parents=True)
    (folder / "index.html").write_text(f"<h1>{text}</h1>")
    (folder / "assets" / "a.bin").write_bytes(bytes(range(256)) * 4)
    return folder


@pytest.fixture
def project(tmp_path):
    project = Project.create(tmp_path / "p", prompt="a page", provider="offline", title="T")
    project.install_site(make_site(project.staging_dir() / "site", "one"))
    return project


def test_create_refuses_non_empty_folder(tmp_path):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("mine")
    with pytest.raises(ProjectError, match="not empty"):
        Project.create(tmp_path / "taken", prompt="p", provider="offline")
    assert (tmp_path / "taken" / "x").read_text() == "mine"


def test_open_rejects_non_projects_and_damaged_manifests(tmp_path):
    with pytest.raises(ProjectError, match="not an MM Studio project"):
        Project.open(tmp_path)
    (tmp_path / "mmstudio.json").write_text("{not json")
    with pytest.raises(ProjectError, match="damaged"):
        Project.open(tmp_path)


def test_install_site_replaces_whole_site(project):
    project.install_site(make_site(project.staging_dir() / "site", "two"))
    assert (project.site_dir / "index.html").read_text() == "<h1>two</h1>"
    assert not (project.root / "site.old").exists()
    assert not list(project.root.glob(".staging-*"))


def test_open_recovers_an_interrupted_swap(project):
    # a crash between the two renames leaves site.old and no site/
    project.site_dir.rename(project.root / "site.old")
    (project.root / ".staging-dead").mkdir()
    reopened = Project.open(project.root)
    assert (reopened.site_dir / "index.html").read_text() == "<h1>one</h1>"
    assert not (project.root / "site.old").exists()
    assert not (project.root / ".staging-dead").exists()


def test_commit_and_restore_are_byte_identical(project):
    first = project.commit("first")
    before = {
        p.relative_to(project.root): p.read_bytes()
        for p in project.site_dir.rglob("*")
        if p.is_file()
    }
    staged = make_site(project.staging_dir() / "site", "two")
    (staged / "extra.txt").write_text("later file")
    second = project.commit_staged(staged.parent, "second")
    assert second.parent == first.id and second.id != first.id
    project.restore(first.id[:6])
    after = {
        p.relative_to(project.root): p.read_bytes()
        for p in project.site_dir.rglob("*")
        if p.is_file()
    }
    assert after == before
    assert Project.open(project.root).manifest.head == first.id
    assert [v.summary for v in project.history.list()] == ["first", "second"]


def test_install_site_only_seeds_a_project_without_versions(project):
    project.commit("first")
    staged = make_site(project.staging_dir() / "site", "two")
    with pytest.raises(ProjectError, match="workspace"):
        project.install_site(staged)
    assert (project.site_dir / "index.html").read_text() == "<h1>one</h1>"
    assert not list(project.root.glob(".staging-*"))


def test_same_content_commits_once(project):
    a = project.commit("a")
    b = project.commit("b")
    assert a.id == b.id
    assert len(project.history.list()) == 1


def test_restore_unknown_or_corrupt_version_changes_nothing(project):
    version = project.commit("first")
    with pytest.raises(ProjectError, match="no version matches"):
        project.restore("ffff0000")
    digest = version.files["site/index.html"]
    project.objects.path(digest).write_bytes(b"tampered")
    with pytest.raises(ProjectError, match="corrupted"):
        project.restore(version.id)
    assert (project.site_dir / "index.html").read_text() == "<h1>one</h1>"


def test_manifest_is_json_with_head(project):
    version = project.commit("first")
    manifest = json.loads((project.root / "mmstudio.json").read_text())
    assert manifest["head"] == version.id
    assert manifest["prompt"] == "a page" and manifest["provider"] == "offline"
