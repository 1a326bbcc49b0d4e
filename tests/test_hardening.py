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
import shutil
import socket
import threading
import time
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from pydantic import ValidationError
from test_plan_schema import minimal_plan

from mmstudio.cli import _one_line, main
from mmstudio.evaluate import evaluate
from mmstudio.plan import DesignPlan
from mmstudio.project import Project
from mmstudio.project.export import ExportError, export_site
from mmstudio.refine import Change, html_edit
from mmstudio.refine.apply import SiteEditor
from mmstudio.render import find_browser
from mmstudio.report import Issue, Report, Scores

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
    line = _one_line(caught.value)
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
    assert message in _one_line(caught.value)


def test_a_damaged_plan_in_a_project_is_one_line(tmp_path, capsys):
    project = Project.create(tmp_path / "p", prompt="x", provider="offline", title="T")
    project.plan_path.write_text((HARDENING / "plans" / "truncated.json").read_text())
    assert main(["evaluate", str(project.root)]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mmstudio: error: ") and "plan.json is invalid: Invalid JSON" in err
    assert "\n" not in err and "input_value" not in err and "errors.pydantic.dev" not in err


# ---------------------------------------------------------------------------------------------
# Property: every save_path the schema accepts is one safe spelling of a file inside assets/.

_PATH_CHARS = st.sampled_from(list("ab.-_/ \\%~:?#\"'<>\x00\n") + ["..", "assets/", "é"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PATH_CHARS, min_size=1, max_size=12).map("".join))
def test_any_accepted_save_path_stays_inside_assets(tail):
    data = minimal_plan()
    data["images"][0]["save_path"] = "assets/" + tail + ".webp"
    try:
        plan = DesignPlan.model_validate(data)
    except ValidationError as exc:
        assert "\n" not in _one_line(exc)
        return
    path = plan.images[0].save_path
    parts = PurePosixPath(path).parts
    assert parts[0] == "assets" and "/".join(parts) == path  # one spelling: no "", ".", ".."
    assert not any(p.startswith(".") for p in parts)
    assert not set(path) & set("\\%:?#\"'<>\x00\n")
    root = Path("/site")
    assert (root / path).resolve().is_relative_to(root)


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
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
        assert "\n" not in _one_line(exc)


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
    st.sampled_from(list('ab{}:;"\'<>/\\&=-#. \n') + ["</style>", "<img data-mm-id=x>"]),
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
        issues=[Issue(id="1", element="a", dimension="image", level="local", code="x", message="m")],
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
