"""Issue 9: untrusted input never crashes MM Studio, never hangs, never costs a designer their
project, and a page can read nothing outside its site and reach no network.

Each case of the corpus in ``tests/hardening/`` has its exact expected outcome here: a one-line
error naming the problem, or a graceful degradation recorded as an issue. Property-based tests
(hypothesis) cover the plan schema's ``save_path`` rule and the patch applier.
"""

from __future__ import annotations

import base64
import copy
import io
import json
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import zipfile
import zlib
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from openai_server import chat_reply, image_reply
from PIL import Image
from provider_fixtures import (  # noqa: F401  (fixtures)
    SECRET,
    clean_env,
    fast_env,
    make_plan,
    no_network,
    server,
)
from pydantic import ValidationError
from test_plan_schema import minimal_plan
from test_providers_e2e import (  # noqa: F401  (env is a fixture)
    PROMPT,
    env,
    first_error,
    is_plan,
    page_html,
    responder,
)

from mmstudio.cli import main
from mmstudio.evaluate import evaluate
from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.project.errors import one_line
from mmstudio.project.export import ExportError, export_site
from mmstudio.project.runs import Runs
from mmstudio.providers.base import DesignerError
from mmstudio.refine import Change, html_edit
from mmstudio.refine.apply import SiteEditor
from mmstudio.render import Renderer, find_browser
from mmstudio.render import renderer as renderer_module
from mmstudio.render.browser import BrowserPool
from mmstudio.report import Issue, Report, Scores
from mmstudio.studio.create import new_project

#: the slow layer: the CLI end to end in subprocesses (see tests/conftest.py)
pytestmark = pytest.mark.slow

HARDENING = Path(__file__).parent / "hardening"
PAGES = HARDENING / "pages"
VENDOR = Path(__file__).parent.parent / "resources" / "vendor" / "echarts.min.js"

requires_browser = pytest.mark.skipif(
    find_browser().executable is None,
    reason=f"no Chromium for Playwright: {find_browser().problem}",
)


# ---------------------------------------------------------------------------------------------
# Plans a model might write: one ValidationError whose first error names the problem.

PLAN_CASES = {
    "truncated.json": "Invalid JSON: EOF while parsing",
    "empty.json": "Invalid JSON: EOF while parsing",
    "markdown-fenced.json": "Invalid JSON: expected value",
    "not-an-object.json": "Input should be an object",
    "sections-not-a-list.json": "sections: Input should be a valid array",
    "width-as-text.json": "images.0.display_width_px: Input should be a valid integer",
    "cell-is-an-object.json": "charts.0.source_data.rows.0.1",
    "empty-palette.json": "layout.palette: List should have at least 1 item",
    "extra-top-level-key.json": "reasoning: Extra inputs are not permitted",
    "extra-nested-key.json": "images.0.context.mood: Extra inputs are not permitted",
    "duplicate-section-ids.json": "duplicate ids: hero",
    "duplicate-element-ids.json": "duplicate ids: hero_image",
    "shared-file.json": "two elements share a file: assets/hero_image.webp",
    "save-path-attribute-injection.json": "images.0.save_path: Value error, save_path 'assets/x",
    "save-path-nul.json": "has a character unsafe in a URL or file",
    "save-path-dot-segment.json": "has an empty, hidden or padded part",
    "save-path-url-encoded.json": "escapes the site folder",
    "save-path-drive-letter.json": "escapes the site folder",
    "save-path-home.json": "escapes the site folder",
    "poster-path-traversal.json": "videos.0.poster_path: Value error, save_path '../poster.webp'",
}


def test_the_corpus_is_complete():
    stored = {p.name for p in (HARDENING / "plans").glob("*.json")}
    assert stored == set(PLAN_CASES) | {"valid.json"}
    DesignPlan.model_validate_json((HARDENING / "plans" / "valid.json").read_bytes())


@pytest.mark.parametrize("case", sorted(PLAN_CASES))
def test_a_malformed_plan_is_one_line_naming_the_problem(case):
    with pytest.raises(ValidationError) as caught:
        DesignPlan.model_validate_json((HARDENING / "plans" / case).read_bytes())
    line = one_line(caught.value)
    assert PLAN_CASES[case] in line
    assert "\n" not in line and "errors.pydantic.dev" not in line


def _huge_images(data: dict) -> None:
    image = data["images"][0]
    data["images"] = [
        dict(copy.deepcopy(image), id=f"img{i}", save_path=f"assets/img{i}.webp")
        for i in range(5000)
    ]
    data["sections"][0]["element_ids"] = [f"img{i}" for i in range(5000)]


HUGE = {
    "5000 images": (_huge_images, "sections.0.element_ids: List should have at most 40 items"),
    "chart of 100k rows": (
        lambda d: d["charts"][0]["source_data"].update(rows=[[f"d{i}", i] for i in range(100_000)]),
        "charts.0.source_data.rows: List should have at most 5000 items",
    ),
    "1 MB paragraph": (
        lambda d: d["sections"][0].update(paragraphs=["x" * 1_000_000]),
        "sections.0.paragraphs.0: String should have at most",
    ),
}


@pytest.mark.parametrize("case", sorted(HUGE))
def test_a_huge_plan_is_refused_quickly(case):
    mutate, message = HUGE[case]
    data = minimal_plan()
    mutate(data)
    text = json.dumps(data)
    started = time.monotonic()
    with pytest.raises(ValidationError) as caught:
        DesignPlan.model_validate_json(text)
    assert time.monotonic() - started < 2
    assert message in one_line(caught.value)


def test_a_damaged_plan_in_a_project_isone_line(tmp_path, capsys):
    project = Project.create(tmp_path / "p", prompt="x", provider="offline", title="T")
    project.plan_path.write_text((HARDENING / "plans" / "truncated.json").read_text())
    assert main(["evaluate", str(project.root)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mmstudio: error: ") and "plan.json is invalid: Invalid JSON" in err
    assert "\n" not in err and "input_value" not in err and "errors.pydantic.dev" not in err


# ---------------------------------------------------------------------------------------------
# Property: every save_path the schema accepts is one safe spelling of a file inside assets/.

_PATH_CHARS = st.sampled_from([*"ab.-_/ \\%~:?#\"'<>\x00\n", "..", "assets/", "é"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PATH_CHARS, min_size=1, max_size=12).map("".join))
def test_any_accepted_save_path_stays_inside_assets(tail):
    data = minimal_plan()
    data["images"][0]["save_path"] = "assets/" + tail + ".webp"
    try:
        plan = DesignPlan.model_validate(data)
    except ValidationError as exc:
        assert "\n" not in one_line(exc)
        return
    path = plan.images[0].save_path
    parts = PurePosixPath(path).parts
    assert parts[0] == "assets" and "/".join(parts) == path  # one spelling: no "", ".", ".."
    assert not any(p.startswith(".") for p in parts)
    assert not set(path) & set("\\%:?#\"'<>\x00\n")
    root = Path("/site")
    assert (root / path).resolve().is_relative_to(root)


def _nested(inner: st.SearchStrategy) -> st.SearchStrategy:
    return st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    _nested,
    max_leaves=6,
)
_FIELDS = [
    ("title",),
    ("sections",),
    ("sections", 0, "element_ids"),
    ("images", 0, "context"),
    ("images", 0, "display_width_px"),
    ("charts", 0, "source_data", "rows"),
    ("layout", "palette"),
    ("videos", 0, "seconds"),
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_FIELDS), _JSON)
def test_any_value_in_any_field_validates_or_is_a_validation_error(where, value):
    data = minimal_plan()
    holder = data
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = value
    try:
        DesignPlan.model_validate(data)
    except ValidationError as exc:
        assert "\n" not in one_line(exc)


# ---------------------------------------------------------------------------------------------
# Property: any sequence of element-scoped patches keeps every data-mm-id and asset path.

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>T</title>
<link rel="stylesheet" href="assets/site.css"></head>
<body><main>
<section data-mm-section="hero"><h1 data-mm-id="hero_title">Hi</h1>
<img data-mm-id="hero_image" src="assets/hero.webp" alt="">
</section>
<section data-mm-section="stats"><iframe data-mm-id="chart" src="assets/chart.html"></iframe>
<video data-mm-id="loop" poster="assets/loop.webp"><source src="assets/loop.webm" type="video/webm">
</video><img src="assets/found.png" alt="found"></section>
</main></body></html>
"""
_IDS = ["hero_title", "hero_image", "chart", "loop", "ghost"]
_HOSTILE = st.lists(
    st.sampled_from([*"ab{}:;\"'<>/\\&=-#. \n", "</style>", "<img data-mm-id=x>"]),
    max_size=30,
).map("".join)
_PATCH = st.one_of(
    st.tuples(st.just("css"), st.sampled_from(_IDS) | _HOSTILE, _HOSTILE),
    st.tuples(
        st.just("attr"),
        st.sampled_from(_IDS),
        st.sampled_from(["style", "class", "alt", "title", "loading", "aria-label"]),
        _HOSTILE,
    ),
    st.tuples(st.just("note"), st.sampled_from(_IDS), _HOSTILE),
)


def apply_patch(html: str, patch: tuple) -> str:
    """One element-scoped patch the way refiners and feedback make them."""
    if patch[0] == "css":
        _, key, css = patch
        selector = html_edit.selector_for(html, key) or "body"
        return html_edit.set_patch_block(html, key, f"{selector}{{content:{css!r}}}\n{css}")
    node = html_edit.element_node(html, patch[1])
    if node is None:
        return html
    if patch[0] == "attr":
        return html_edit.set_attribute(html, node, patch[2], patch[3])
    if node.tag in html_edit.VOID or node.tag in ("iframe", "video"):
        return html
    text = patch[2].replace("&", "&amp;").replace("<", "&lt;")
    return html_edit.insert_after_open(html, node, f"<span>{text}</span>")


@settings(max_examples=300, deadline=None)
@given(st.lists(_PATCH, max_size=12))
def test_element_scoped_patches_keep_every_id_and_asset_path(patches):
    ids, refs = html_edit.ids(PAGE), html_edit.local_refs(PAGE)
    html = PAGE
    for patch in patches:
        html = apply_patch(html, patch)
        assert html_edit.ids(html) == ids, patch
        assert html_edit.local_refs(html) == refs, patch
        assert html_edit.unclosed(html) == []
    assert html.count("<style data-mm-patch=") == len(
        {html_edit.patch_key(p[1]) for p in patches if p[0] == "css"}
    )


def test_css_cannot_close_its_style_block():
    css = '[data-mm-id="x"]{color:red}</style><img data-mm-id="hero_image" src="assets/evil.png">'
    html = html_edit.set_patch_block(PAGE, 'x"><script>', css)
    assert html_edit.ids(html) == html_edit.ids(PAGE)
    assert "<script>" not in html and html.count("</style>") == 1
    assert html_edit.patch_css(html, 'x"><script>').endswith('src="assets/evil.png">')


# ---------------------------------------------------------------------------------------------
# Prompts: 0 and 100k characters, not UTF-8, not a file.


@pytest.mark.parametrize(
    ("prompt", "expected"),
    [
        (b"", "the prompt is empty; describe the page you want"),
        (b"   \n\t ", "the prompt is empty; describe the page you want"),
        (b"caf\xe9 page \xff", "is not UTF-8 text (byte 3); save it as UTF-8"),
        (None, "Is a directory"),
    ],
)
def test_a_bad_prompt_is_one_line_and_leaves_nothing(tmp_path, capsys, prompt, expected):
    source = tmp_path / "prompt.txt"
    source.mkdir() if prompt is None else source.write_bytes(prompt)
    target = tmp_path / "page"
    assert main(["new", str(target), "--prompt-file", str(source), "--no-evaluate"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mmstudio: error: ") and expected in err and "\n" not in err
    assert not target.exists()


def test_a_100k_character_prompt_makes_a_complete_project(tmp_path, capsys):
    prompt = ("A coffee roaster's landing page with a warm hero photo. " * 1800)[:100_000]
    target = tmp_path / "page"
    assert main(["new", str(target), "--prompt", prompt, "--no-evaluate", "--quiet"]) == 0
    project = Project.open(target)
    assert (project.site_dir / "index.html").is_file()
    assert project.manifest.prompt == prompt
    html = (project.site_dir / "index.html").read_text()
    assert html_edit.unclosed(html) == []


# ---------------------------------------------------------------------------------------------
# Links out of the site: never read into history, never written through, never exported over.


def _project_with_site(root: Path) -> Project:
    project = Project.create(root, prompt="x", provider="offline", title="T")
    staged = project.staging_dir() / "site"
    (staged / "assets").mkdir(parents=True)
    (staged / "index.html").write_text(
        '<h1 data-mm-id="t">Hi</h1><img data-mm-id="a" src="assets/a.png" alt="a">'
    )
    (staged / "assets" / "a.png").write_bytes(b"\x89PNG")
    project.install_site(staged)
    return project


def test_a_link_out_of_the_site_is_never_stored_in_history(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET-CONTENT")
    project = _project_with_site(tmp_path / "p")
    (project.site_dir / "leak.txt").symlink_to(secret)
    version = project.commit("with a link")
    assert "site/leak.txt" not in version.files and "site/index.html" in version.files
    for path in project.root.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert b"TOP-SECRET-CONTENT" not in path.read_bytes(), path


async def test_a_refiner_never_writes_through_a_link_out_of_the_site(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    project = _project_with_site(tmp_path / "p")
    project.commit("first")
    (project.site_dir / "media").symlink_to(outside, target_is_directory=True)

    async def better(page, plan, out_dir):
        return Report(scores=Scores(overall=1.0))

    base = Report(
        scores=Scores(overall=0.5),
        issues=[
            Issue(id="1", element="a", dimension="image", level="local", code="x", message="m")
        ],
    )
    change = Change("local", "a", ["x"], "new file", files={"media/evil.png": b"evil"})
    outcome = await SiteEditor(project, evaluator=better).attempt(change, base)
    assert outcome.outcome == "rejected" and "through a link: media/evil.png" in outcome.reason
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("where", ["project", "site", "inside-site", "parent"])
def test_export_never_replaces_the_project_it_exports(tmp_path, where):
    project = _project_with_site(tmp_path / "p")
    project.commit("first")
    dest = {
        "project": project.root,
        "site": project.site_dir,
        "inside-site": project.site_dir / "assets" / "out",
        "parent": tmp_path,
    }[where]
    with pytest.raises(ExportError, match="overlaps the site being exported"):
        export_site(project.site_dir, dest, overwrite=True)
    assert (project.site_dir / "index.html").is_file() and Project.open(project.root).manifest.head


# ---------------------------------------------------------------------------------------------
# Pages: contained by the renderer; broken media degrade to an issue.


def _copy_case(case: str, tmp_path: Path) -> Path:
    site = tmp_path / case
    shutil.copytree(PAGES / case, site)
    return site


PAGE_CASES = {
    # case: (issue code, element, words in its message)
    "base-href": ("external-asset", "hero_image", "https://cdn.example.com/site/assets/hero.png"),
    "window-open": ("navigation", None, "opened a popup window; it was closed"),
    "image-is-zip": ("broken-asset", "hero_image", "the browser could not decode it"),
    "video-not-video": ("video-unplayable", "hero_loop", "cannot play"),
    "reload-loop": ("navigation", None, "navigate the page away to http://site.mmstudio.test/"),
}


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
@pytest.mark.parametrize("case", sorted(PAGE_CASES))
async def test_a_hostile_or_broken_page_degrades_to_an_issue(renderer, tmp_path, case):
    code, element, words = PAGE_CASES[case]
    site = _copy_case(case, tmp_path)
    report = await evaluate(site, out_dir=tmp_path / "out")
    found = [i for i in report.issues if i.code == code and i.element == element]
    assert found and words in found[0].message, [i.message for i in report.issues]
    assert len(found) == 1  # a page that retries in a loop is one finding
    assert not any(i.code == "render-failed" for i in report.issues)
    assert (site / "index.html").read_bytes() == (PAGES / case / "index.html").read_bytes()


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_a_chart_of_100k_points_renders_in_time(renderer, tmp_path):
    site = _copy_case("chart-100k-points", tmp_path)
    (site / "vendor").mkdir()
    shutil.copy(VENDOR, site / "vendor")
    started = time.monotonic()
    report = await evaluate(site, out_dir=tmp_path / "out")
    assert time.monotonic() - started < 15
    assert report.scores.chart == 1.0
    assert not any(i.code in ("render-failed", "script-timeout") for i in report.issues)


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_a_huge_inline_image_renders_in_time(renderer, tmp_path):
    image = Image.effect_noise((2400, 1600), 80).convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    uri = "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()
    assert len(uri) > 4_000_000
    (tmp_path / "index.html").write_text(
        '<!doctype html><html lang="en"><head><title>Big</title></head><body>'
        f'<h1>Big</h1><img src="{uri}" alt="noise" width="1200" height="800"></body></html>'
    )
    started = time.monotonic()
    report = await evaluate(tmp_path, out_dir=tmp_path / "out")
    assert time.monotonic() - started < 20
    assert report.scores.overall is not None and report.scores.overall > 0
    assert not any(i.code == "render-failed" for i in report.issues)


class _Counter:
    """A TCP and a UDP socket on 127.0.0.1 that count every connection and datagram."""

    def __init__(self) -> None:
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.settimeout(0.2)
        self.hits: list[str] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return
            self.hits.append("tcp")
            conn.close()

    def datagrams(self) -> int:
        count = 0
        try:
            while True:
                self.udp.recvfrom(4096)
                count += 1
        except OSError:
            return count

    def close(self) -> None:
        self.tcp.close()
        self.udp.close()


@requires_browser
@pytest.mark.asyncio(loop_scope="session")
async def test_a_page_reads_no_file_and_reaches_no_socket(renderer, tmp_path):
    counter = _Counter()
    site = _copy_case("exfiltrate", tmp_path)
    page = (site / "index.html").read_text()
    page = page.replace("UDP_PORT", str(counter.udp.getsockname()[1]))
    (site / "index.html").write_text(page.replace("PORT", str(counter.tcp.getsockname()[1])))
    try:
        render = await renderer.render(site, out_dir=tmp_path / "out")
        time.sleep(0.5)  # late packets (WebRTC gathers candidates after load)
        udp = counter.datagrams()
    finally:
        counter.close()
    assert counter.hits == [] and udp == 0
    assert render.failure is None and render.probe.page.title == "Harbor Rowing Club"
    blocked = {(r.reason, r.url.rsplit("/", 1)[-1]) for r in render.blocked}
    for name in ("fetch", "beacon", "events", "ws", "frame", "worker"):
        assert ("network", name) in blocked, (name, blocked)
    assert ("missing", "passwd") in blocked  # "../../" stops at the site's root URL
    assert any(r.reason == "popup" for r in render.blocked)


# ---------------------------------------------------------------------------------------------
# Model replies that are not what they claim, and the API key in no written file.


def _zip_bytes() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../../evil.txt", "zip-slip")
    return buffer.getvalue()


def _png_bomb() -> bytes:
    """A valid PNG header claiming 60000×60000 px (3.6 G pixels) with almost no data."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 60000, 60000, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0"))


@pytest.mark.usefixtures("no_network", "clean_env")
@pytest.mark.parametrize(
    ("reply", "words"),
    [
        (_zip_bytes(), "not an image"),
        (b"<html>Service Unavailable</html>", "not an"),
        (_png_bomb(), "not an image"),
    ],
    ids=["zip", "html", "decompression-bomb"],
)
async def test_an_image_reply_that_is_not_an_image_is_made_offline(tmp_path, env, reply, words):  # noqa: F811
    """A reply that is no image (a zip, an error page, a decompression bomb) never reaches the
    site: that picture is drawn by the offline maker, a one-line notice says why, and the paid
    plan, layout and chart are kept (issue 17: no all-or-nothing run)."""
    plan = make_plan()
    env.chat_responder = responder(plan, page_html(plan))
    env.script("images.generate", image_reply(reply))
    result = await new_project(tmp_path / "ember", PROMPT, provider="openai", evaluate=False)
    notice = next(n for n in result.notices if "hero-photo" in n)
    assert words in notice and "offline" in notice and "\n" not in notice
    with Image.open(result.project.site_dir / "assets/hero-photo.webp") as image:
        assert image.format == "WEBP" and image.size[0] * image.size[1] < 50_000_000
    assert (result.project.site_dir / "assets/sales-chart.json").is_file()


@pytest.mark.usefixtures("no_network", "clean_env")
async def test_a_video_reply_that_is_not_a_video_is_made_offline(tmp_path, env):  # noqa: F811
    plan = make_plan()
    env.chat_responder = responder(plan, page_html(plan))
    env.video_bytes = b"<html>not a video</html>"
    result = await new_project(tmp_path / "ember", PROMPT, provider="openai", evaluate=False)
    notice = next(n for n in result.notices if "pour-loop" in n)
    assert "offline" in notice and "\n" not in notice
    webm = (result.project.site_dir / "assets/pour-loop.webm").read_bytes()
    assert webm[:4] == b"\x1a\x45\xdf\xa3"  # EBML: a real WebM, not the reply


LEAK = "sk-test-LEAKCHECK-7f3a9c1e5b2d4a60"


def _isolated_user_dirs(monkeypatch, root: Path) -> None:
    """platformdirs' config, cache, state and data folders under ``root`` (so every file a run
    writes for the user is scanned too); the config file at its platform place."""
    monkeypatch.delenv("MMSTUDIO_CONFIG", raising=False)
    for kind in ("CONFIG", "CACHE", "STATE", "DATA"):
        monkeypatch.setenv(f"XDG_{kind}_HOME", str(root / kind.lower()))


@pytest.mark.usefixtures("no_network", "clean_env")
def test_the_api_key_is_in_no_file_a_run_writes(tmp_path, server, monkeypatch, capsys, caplog):  # noqa: F811
    """new, evaluate (model judge), refine, feedback, export (folder and zip), history, bench
    and a saved config, all with a recognisable key: no file any of them writes — project,
    history.sqlite (and its WAL), report, renders, exports, bench results, the user's config
    and cache folders — and no output or log line holds the key or a piece of it."""
    from mmstudio.providers.settings import config_path, load_settings, save_config

    fast_env(monkeypatch, server)
    monkeypatch.setenv("OPENAI_API_KEY", LEAK)
    _isolated_user_dirs(monkeypatch, tmp_path / "user")
    # the commands run their own event loops: give them their own browser, so the session's
    # warm one (bound to the test session's loop) is neither orphaned nor closed
    monkeypatch.setattr(renderer_module, "_shared_renderer", Renderer(BrowserPool()))
    plan = make_plan()
    server.chat_responder = responder(plan, page_html(plan))
    caplog.set_level("DEBUG")
    project = tmp_path / "ember"
    new = ["new", str(project), "--provider", "openai", "--prompt", PROMPT, "--rounds", "0"]
    assert main([*new, "--no-evaluate", "--debug"]) == 0
    assert "new" in {row.run for row in Runs(project).usage()}  # the run's calls are kept
    assert main(["evaluate", str(project), "--provider", "openai"]) in (0, 1)  # judge: 500s
    assert main(["evaluate", str(project / "site")]) == 0  # screenshots in the user cache
    refine = ["refine", str(project), "--level", "global", "--instruction", "bolder"]
    assert main([*refine, "--provider", "openai"]) in (0, 1)  # the model path, or its one line
    assert main(["feedback", str(project), "--text", "make the title bigger"]) in (0, 3)
    assert main(["export", str(project), "-o", str(tmp_path / "out")]) == 0
    assert main(["export", str(project), "-o", str(tmp_path / "bundle"), "--zip"]) == 0
    assert main(["history", str(project), "--json"]) == 0
    prompts = tmp_path / "prompts.jsonl"
    prompts.write_text(json.dumps({"id": "p1", "prompt": PROMPT}) + "\n")
    bench = ["bench", str(prompts), "-o", str(tmp_path / "bench"), "--provider", "openai"]
    assert main([*bench, "--rounds", "0", "--no-evaluate", "--no-figures"]) == 0
    saved = save_config(load_settings())
    assert saved == config_path() and saved.is_relative_to(tmp_path / "user")
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert (tmp_path / "bundle.zip").is_file() and (project / "history.sqlite").is_file()
    assert any(p.is_relative_to(tmp_path / "user" / "cache") for p in written)
    assert any(p.is_relative_to(tmp_path / "bench") for p in written) and len(written) > 40
    needles = (LEAK.encode(), LEAK[-12:].encode(), base64.b64encode(LEAK.encode())[:20])
    for path in written:
        data = path.read_bytes()
        assert not any(n in data for n in needles), path
    out, err = capsys.readouterr()
    for text in (out, err, caplog.text):
        assert LEAK not in text and LEAK[-12:] not in text
    assert server.log("chat")[0].headers["authorization"] == f"Bearer {LEAK}"


# ---------------------------------------------------------------------------------------------
# Two processes changing one project: the second is refused with one line; a killed holder
# leaves no stale lock.

HOLDER = """
import sys, time
from pathlib import Path
from mmstudio.project.lock import writer_lock
with writer_lock(Path(sys.argv[1]), "mmstudio refine"):
    print("held", flush=True)
    time.sleep(60)
"""


def test_a_second_writer_is_refused_and_a_killed_holder_frees_the_project(tmp_path, capsys):
    project = _project_with_site(tmp_path / "p")
    first = project.commit("first")
    (project.site_dir / "index.html").write_text('<h1 data-mm-id="t">Bye</h1>')
    project.commit("second")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(project.root)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["undo", str(project.root)]) == 1
        err = capsys.readouterr().err.strip()
        assert err == (
            f"mmstudio: error: p is being changed by another MM Studio process "
            f"(pid {holder.pid}: mmstudio refine); try again when it has finished"
        )
        assert main(["evaluate", str(project.root)]) == 1  # it writes the project's report
        assert "(pid" in capsys.readouterr().err
        assert main(["history", str(project.root)]) == 0  # readers are never refused
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait(10)
    assert main(["undo", str(project.root)]) == 0
    assert Project.open(project.root).manifest.head == first.id
    assert main(["redo", str(project.root)]) == 0  # in-process commands do not lock each other


SECOND_APP = """
import sys
from pathlib import Path
from mmstudio.project import ProjectError
from mmstudio.studio.session import Session
try:
    Session().open(Path(sys.argv[1]))
except ProjectError as exc:
    print(exc)
    sys.exit(1)
print("opened")
"""


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "mmstudio", *args], capture_output=True, text=True, timeout=120
    )


async def test_an_open_app_session_holds_the_project_against_other_writers(tmp_path):
    """The app holds the writer lock while a project is open: a CLI command that changes it and
    a second app instance get one line naming the app; readers still work; the app's own jobs
    write; closing the project frees it."""
    from mmstudio.studio.session import Session

    project = _project_with_site(tmp_path / "p")
    first = project.commit("first")
    (project.site_dir / "index.html").write_text('<h1 data-mm-id="t">Bye</h1>')
    project.commit("second")
    session = Session()
    session.open(project.root)
    refused = (
        f"p is being changed by another MM Studio process (pid {os.getpid()}: the MM Studio "
        "app has it open); try again when it has finished"
    )
    undo = _cli("undo", str(project.root))
    assert (undo.returncode, undo.stderr.strip()) == (1, f"mmstudio: error: {refused}")
    app = subprocess.run(
        [sys.executable, "-c", SECOND_APP, str(project.root)], capture_output=True, text=True
    )
    assert (app.returncode, app.stdout.strip()) == (1, refused)
    assert _cli("history", str(project.root)).returncode == 0  # readers are never refused
    job = await session.jobs.wait(session.undo().id)  # the app's own jobs write
    assert job.state == "done" and session.project.manifest.head == first.id
    session.close()
    assert _cli("redo", str(project.root)).returncode == 0
    assert Project.open(project.root).manifest.head != first.id


@pytest.mark.usefixtures("no_network", "clean_env")
@pytest.mark.parametrize(
    "case", ["truncated.json", "duplicate-element-ids.json", "save-path-attribute-injection.json"]
)
async def test_a_model_that_keeps_writing_a_bad_plan_stops_with_nothing_on_disk(
    tmp_path,
    env,  # noqa: F811
    case,
):
    bad = (HARDENING / "plans" / case).read_text()
    plan = make_plan()
    env.chat_responder = responder(plan, page_html(plan))
    env.script("chat", *[chat_reply(bad, when=is_plan)] * 2)  # the reply and its one repair
    with pytest.raises(BaseException) as caught:
        await new_project(tmp_path / "ember", PROMPT, provider="openai")
    failure = first_error(caught.value)
    assert isinstance(failure, DesignerError) and "plan" in str(failure).lower()
    assert "\n" not in str(failure) and "errors.pydantic.dev" not in str(failure)
    assert list(tmp_path.iterdir()) == []
    assert len(env.log("images.generate")) == 0  # nothing was generated from a bad plan
