"""Offline asset generators: procedural images, looping videos, ECharts options and chart pages."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pytest
from PIL import Image

from mmstudio.pipeline import charts
from mmstudio.plan import (
    ChartAttributes,
    ChartPlan,
    DataTable,
    DesignPlan,
    ElementContext,
    GlobalLayout,
    ImageAttributes,
    ImagePlan,
    PaletteColor,
    Section,
    Typography,
    VideoAttributes,
    VideoPlan,
)
from mmstudio.providers.offline import art, motion
from mmstudio.resources import vendor_file

LIGHT = [
    ("background", "#faf7f2"),
    ("surface", "#ffffff"),
    ("text", "#1f2430"),
    ("primary", "#2f6fde"),
    ("accent", "#f2994a"),
]
SALES = DataTable(
    columns=["Quarter", "Revenue", "Costs"],
    rows=[
        ["Q1", "1,234", 900],
        ["Q2", "1,610", 1020],
        ["Q3", "1,480", 1150],
        ["Q4", "2,050", 1300],
    ],
)
SHARE = DataTable(columns=["Channel", "Share"], rows=[["Direct", "42%"], ["Search", "31%"]])


def image(eid: str, role: str, size: str = "1536x1024", tone: str = "", ext: str = "webp"):
    return ImagePlan(
        id=eid,
        save_path=f"assets/{eid}.{ext}",
        context=ElementContext(section="main", role=role),
        prompt="an image for the page",
        display_width_px=600,
        display_height_px=400,
        size=size,
        attributes=ImageAttributes(color_tone=tone),
    )


def video(eid: str, poster: bool = True, camera: str = "slow pan") -> VideoPlan:
    return VideoPlan(
        id=eid,
        save_path=f"assets/{eid}.webm",
        poster_path=f"assets/{eid}-poster.webp" if poster else None,
        context=ElementContext(section="main", role="hero background loop"),
        prompt="a calm loop",
        display_width_px=640,
        display_height_px=360,
        attributes=VideoAttributes(camera_behavior=camera, motion_intensity="medium"),
    )


def chart(eid, kind, data=SALES, save_path=None, title="Quarterly revenue", palette=()):
    return ChartPlan(
        id=eid,
        save_path=save_path or f"assets/{eid}.html",
        context=ElementContext(section="main", role="chart"),
        prompt="a chart",
        display_width_px=600,
        display_height_px=360,
        attributes=ChartAttributes(chart_type=kind, color_palette=list(palette)),
        source_data=data,
        title=title,
    )


def make_plan(*elements, palette=LIGHT) -> DesignPlan:
    groups = {"images": [], "videos": [], "charts": []}
    for element in elements:
        groups[element.kind + "s"].append(element)
    return DesignPlan(
        title="Test page",
        layout=GlobalLayout(
            palette=[PaletteColor(role=r, hex=h) for r, h in palette],
            typography=Typography(heading="serif", body="'DejaVu Sans', sans-serif"),
        ),
        sections=[Section(id="main", kind="hero", element_ids=[e.id for e in elements])],
        **groups,
    )


def pixels(element: ImagePlan, plan: DesignPlan) -> np.ndarray:
    return np.asarray(art.paint_image(element, plan), np.int16)


# --- images ------------------------------------------------------------------------------------


@pytest.mark.parametrize("size", ["1536x1024", "1024x1536", "1024x1024"])
def test_image_has_the_planned_size(size):
    element = image("pic", "feature illustration", size)
    painted = art.paint_image(element, make_plan(element))
    assert painted.mode == "RGB"
    assert f"{painted.width}x{painted.height}" == size


@pytest.mark.parametrize(
    ("ext", "fmt", "limit"), [("webp", "WEBP", 300_000), ("png", "PNG", 2_500_000)]
)
def test_image_encoding_follows_the_extension(ext, fmt, limit):
    element = image("pic", "icon", "1024x1024", ext=ext)
    data = art.encode_image(art.paint_image(element, make_plan(element)), element.save_path)
    decoded = Image.open(io.BytesIO(data))
    assert decoded.format == fmt and decoded.size == (1024, 1024)
    assert len(data) < limit


def test_image_is_deterministic_per_element_id():
    a, b = image("alpha", "hero banner"), image("beta", "hero banner")
    plan = make_plan(a, b)
    assert np.array_equal(pixels(a, plan), pixels(a, plan))
    assert np.abs(pixels(a, plan) - pixels(b, plan)).mean() > 3


def test_roles_paint_different_art():
    hero, portrait = image("hero", "hero banner"), image("face", "team portrait")
    plan = make_plan(hero, portrait)
    assert art.pick_scene(hero, plan) is art.scene_landscape
    assert art.pick_scene(portrait, plan) is art.scene_portrait
    assert np.abs(pixels(hero, plan) - pixels(portrait, plan)).mean() > 15


def test_image_is_not_flat_and_uses_the_palette():
    red = image("pic", "feature illustration")
    reds = pixels(red, make_plan(red, palette=[*LIGHT[:3], ("primary", "#d0302a")]))
    blues = pixels(red, make_plan(red, palette=[*LIGHT[:3], ("primary", "#2a50d0")]))
    assert reds.std() > 10
    assert reds[..., 0].mean() - reds[..., 2].mean() > blues[..., 0].mean() - blues[..., 2].mean()


def test_greyscale_tone_is_really_grey():
    element = image("mono", "hero banner", tone="black and white, high contrast")
    rgb = pixels(element, make_plan(element))
    assert np.array_equal(rgb[..., 0], rgb[..., 1]) and np.array_equal(rgb[..., 1], rgb[..., 2])
    assert rgb.std() > 10


def test_colour_tone_hex_leads_the_accents():
    element = image("pic", "illustration", tone="deep teal #117a65 with warm light")
    colors = art.art_colors(element, make_plan(element))
    assert colors.accents[0] == art.hex_rgb("#117a65")
    assert "warm" in art.tone_words(element)


# --- videos ------------------------------------------------------------------------------------


def decode_frames(path: Path, width: int = 64, height: int = 36) -> np.ndarray:
    """Every frame of ``path`` scaled to width x height, as (n, h, w, 3) int16."""
    raw = subprocess.run(
        [imageio_ffmpeg.get_ffmpeg_exe(), "-v", "error", "-i", str(path), "-vf",
         f"scale={width}:{height}", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
        check=True, capture_output=True,
    ).stdout  # fmt: skip
    return np.frombuffer(raw, np.uint8).reshape(-1, height, width, 3).astype(np.int16)


def test_video_is_a_seamless_webm_loop_with_poster(tmp_path):
    element = video("loop")
    written = motion.make_video(element, make_plan(element), tmp_path)
    target, poster = tmp_path / element.save_path, tmp_path / element.poster_path
    assert written == [target, poster]
    assert target.read_bytes()[:4] == b"\x1a\x45\xdf\xa3"  # EBML: Matroska / WebM
    frames, seconds = imageio_ffmpeg.count_frames_and_secs(str(target))
    assert frames == 4 * motion.FPS and seconds == pytest.approx(4.0, abs=0.1)
    assert Image.open(poster).size == (1280, 720)
    decoded = decode_frames(target)
    steps = np.abs(np.diff(decoded, axis=0)).mean(axis=(1, 2, 3))
    assert steps.mean() > 0.05, "the loop should move"
    wrap = np.abs(decoded[-1] - decoded[0]).mean()  # no jump: the wrap is one more step
    assert wrap < 2 * max(1.5, float(np.median(steps))), "the last frame must flow into the first"
    assert not list(tmp_path.rglob(".*")), "no temp files left behind"


@pytest.mark.parametrize("camera", ["static", "slow pan", "subtle zoom"])
def test_drawn_frames_loop_seamlessly(camera):
    """Before encoding: the step from the last frame back to the first is an ordinary step."""
    element = video("loop", camera=camera)
    drawn = np.stack(
        [np.asarray(f, np.int16) for f in motion.frames(element, make_plan(element), (160, 90))]
    )
    assert len(drawn) == element.seconds * motion.FPS
    steps = np.abs(np.diff(drawn, axis=0)).mean(axis=(1, 2, 3))
    wrap = np.abs(drawn[-1] - drawn[0]).mean()
    assert steps.min() > 0, "every frame moves"
    assert wrap <= steps.max() * 1.1 + 0.05


def test_ffmpeg_failure_is_a_runtime_error_with_its_message(tmp_path, monkeypatch):
    element = video("broken", poster=False)
    original = motion.ffmpeg_command

    def bad_codec(size, target):
        argv = original(size, target)
        argv[argv.index("libvpx-vp9")] = "no-such-codec"
        return argv

    monkeypatch.setattr(motion, "ffmpeg_command", bad_codec)
    with pytest.raises(RuntimeError, match=r"ffmpeg failed \(\d+\) for broken\.webm: \S"):
        motion.make_video(element, make_plan(element), tmp_path)
    assert not (tmp_path / element.save_path).exists()
    assert not list((tmp_path / "assets").iterdir())


# --- charts ------------------------------------------------------------------------------------


def series_numbers(option: dict) -> set[float]:
    """Every number inside the option's series data (values, pairs, name/value dicts)."""
    found: set[float] = set()

    def walk(node):
        if isinstance(node, dict):
            for key in ("value", "data"):
                if key in node:
                    walk(node[key])
        elif isinstance(node, list):
            for item in node:
                walk(item)
        elif isinstance(node, int | float) and not isinstance(node, bool):
            found.add(float(node))

    for series in option["series"]:
        walk(series.get("data", []))
    return found


@pytest.mark.parametrize("kind", charts.CHART_TYPES)
def test_option_carries_the_data_for_every_type(kind):
    element = chart("c", kind)
    option = charts.build_option(element, make_plan(element))
    json.dumps(option, allow_nan=False)  # JSON-ready
    numbers = series_numbers(option)
    if kind == "gauge":
        assert numbers == {1234.0}
    elif kind in ("pie", "donut", "funnel"):
        assert numbers == {1234.0, 1610.0, 1480.0, 2050.0}
    else:
        assert {1234.0, 2050.0} <= numbers
    if kind not in ("scatter", "gauge", "pie", "donut", "funnel"):
        assert {900.0, 1300.0} <= numbers
    assert option["backgroundColor"] == "transparent"
    assert "title" not in option
    assert 11 <= option["textStyle"]["fontSize"] <= 12


@pytest.mark.parametrize("kind", ["pie", "donut"])
def test_pie_and_donut_use_name_value_pairs(kind):
    element = chart("share", kind, SHARE)
    (series,) = charts.build_option(element, make_plan(element))["series"]
    assert series["type"] == "pie"
    assert series["data"] == [{"name": "Direct", "value": 42.0}, {"name": "Search", "value": 31.0}]
    assert isinstance(series["radius"], list) == (kind == "donut")


@pytest.mark.parametrize(
    ("raw", "kind"),
    [
        ("Stacked bar chart", "stacked-bar"),
        ("doughnut", "donut"),
        ("horizontal_bar", "horizontal-bar"),
        ("Line graph", "line"),
        ("sankey", "bar"),
        ("", "bar"),
    ],
)
def test_chart_types_are_normalised(raw, kind):
    assert charts.chart_kind(raw) == kind


@pytest.mark.parametrize(
    ("cell", "value"),
    [("1,234", 1234.0), ("58%", 58.0), ("$1.2k", 1200.0), ("(12)", -12.0), ("\u22125", -5.0),
     (7, 7.0), ("n/a", None), ("", None), (None, None), (float("nan"), None)],
)  # fmt: skip
def test_text_numbers_are_parsed(cell, value):
    assert charts.parse_number(cell) == value


def test_layout_details_follow_the_series_and_page():
    single = chart(
        "one", "bar", DataTable(columns=["Month", "Visits"], rows=[["Jan", 3], ["Feb", 5]])
    )
    double = chart("two", "line")
    dark = [("background", "#0f1420"), ("text", "#0f1420"), ("primary", "#7c9cff")]
    plan = make_plan(single, double, palette=dark)
    one, two = charts.build_option(single, plan), charts.build_option(double, plan)
    assert "legend" not in one and "legend" in two
    assert one["grid"]["containLabel"] is True
    assert charts.contrast(one["textStyle"]["color"], "#0f1420") >= 4.5  # unreadable text replaced
    assert one["color"][0] == "#7c9cff"
    assert charts.build_option(single, plan, show_title=True)["title"]["text"] == single.title


def test_planned_palette_wins():
    element = chart("c", "bar", palette=["#112233", "#445566"])
    assert charts.build_option(element, make_plan(element))["color"][:2] == ["#112233", "#445566"]


def test_a_third_series_stays_in_the_palettes_hues():
    # The demo's palette has two accents; its three-series chart drew the third in ECharts' blue.
    element = chart("c", "line")
    palette = [("background", "#faf7f2"), ("text", "#1f2430"), ("primary", "#8a4b2a"),
               ("accent", "#6b8f71")]  # fmt: skip
    colors = charts.build_option(element, make_plan(element, palette=palette))["color"]
    assert colors[:2] == ["#8a4b2a", "#6b8f71"]
    assert len(set(colors[:7])) == 7
    assert not set(colors[:7]) & set(charts._FALLBACK_COLORS)
    assert colors[2] == charts.blend_hex("#8a4b2a", "#1f2430", 0.35)  # a shade of the primary


def test_chart_page_inlines_the_option_and_fills_its_container():
    element = chart("c", "bar")
    option = charts.build_option(element, make_plan(element))
    page = charts.chart_page(option, element)
    assert "100vh" not in page
    assert re.search(r"html, body, #chart \{ height: 100%; margin: 0; \}", page)
    assert '<script src="../vendor/echarts.min.js"></script>' in page
    assert "fetch(" not in page and "http" not in page
    inline = re.search(r"var option = (.*);\n", page).group(1)
    assert json.loads(inline) == option
    assert "<td>Q1</td>" in page and "Quarterly revenue" in page  # text fallback
    assert "resize" in page


@pytest.mark.parametrize(
    ("save_path", "src"),
    [("assets/c.html", "../vendor/echarts.min.js"), ("assets/charts/q/c.html",
      "../../../vendor/echarts.min.js")],
)  # fmt: skip
def test_vendor_path_is_relative_to_the_page_depth(save_path, src):
    element = chart("c", "bar", save_path=save_path)
    page = charts.chart_page(charts.build_option(element, make_plan(element)), element)
    assert f'<script src="{src}"></script>' in page


def test_inlined_json_cannot_break_out_of_the_script():
    hostile = "</script><script>alert(1)</script><!--"
    data = DataTable(columns=["Name", hostile], rows=[[hostile, 3], ["b", 4]])
    element = chart("c", "line", data, title=hostile)
    option = charts.build_option(element, make_plan(element))
    page = charts.chart_page(option, element)
    assert "alert(1)" in page
    assert "<script>alert" not in page and "<!--" not in page
    assert page.count("</script>") == 2  # the vendor script and ours, nothing injected
    inline = re.search(r"var option = (.*);\n", page).group(1)
    assert json.loads(inline) == option


def test_write_chart_writes_page_and_option(tmp_path):
    element = chart("sales", "stacked-bar")
    plan = make_plan(element)
    written = charts.write_chart(element, plan, tmp_path)
    assert written == [tmp_path / "assets/sales.html", tmp_path / "assets/sales.json"]
    assert json.loads(written[1].read_text()) == charts.build_option(element, plan)
    assert not [p for p in (tmp_path / "assets").iterdir() if p.name.startswith(".")]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    return None


@pytest.mark.browser
def test_chart_page_draws_from_disk(tmp_path):
    """Open a chart page from disk in Chromium, as a site would, and count painted pixels."""
    sync_api = pytest.importorskip("playwright.sync_api")
    executable = find_chromium()
    if executable is None:
        pytest.skip("no chromium on PATH (apt-get install chromium) for the browser test")
    element = chart("sales", "bar")
    charts.write_chart(element, make_plan(element), tmp_path)
    (tmp_path / "vendor").mkdir()
    shutil.copy(vendor_file("echarts.min.js"), tmp_path / "vendor" / "echarts.min.js")
    count_painted = """() => {
        const canvas = document.querySelector('#chart canvas');
        if (!canvas || !canvas.width) return 0;
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted++;
        return painted;
    }"""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=executable, args=["--no-sandbox", "--disable-gpu"]
        )
        try:
            page = browser.new_page(viewport={"width": 600, "height": 320})
            page.goto((tmp_path / element.save_path).as_uri())
            page.wait_for_function(f"({count_painted})() > 2000", timeout=10_000)
            painted = page.evaluate(count_painted)
            box = page.evaluate(
                "() => document.querySelector('#chart').getBoundingClientRect().height"
            )
        finally:
            browser.close()
    assert painted > 2000 and box == 320


@pytest.mark.parametrize(
    "role",
    ["hero banner", "background", "illustration", "portrait", "product shot", "texture", "icon"],
)
def test_without_motif_sets_every_role_paints_abstract_art(role, tmp_path, monkeypatch):
    """A clone without the npm icon sets still paints every role (today's abstract scenes)."""
    from mmstudio.providers.offline import motifs

    monkeypatch.setattr(motifs, "_library", motifs.Library(tmp_path))
    element = image("pic", role)
    plan = make_plan(element)
    assert art.subject_scene(element, plan, (768, 512)) is None
    rgb = pixels(element, plan)
    assert rgb.shape == (1024, 1536, 3) and rgb.std() > 5
