"""Short looping videos for the offline designer: animated scenes encoded as VP9 webm.

:func:`make_video` composes the element's subject scene once (:mod:`.scenes`: the same motifs,
role rules, palette and tone words as images) and moves its layers frame by frame
(:func:`layer_offsets`): parallax by depth, the main motif hopping, and in lively loops a motif
travelling through the frame; a stats loop counts a figure up. Calm background loops move 0.6
times as much (a faint motif crosses them), hero loops 1.4 times. Without the motif sets it paints
abstract art with :mod:`.art` and animates that: drifting light fields, floating bokeh particles
and a camera move from ``attributes.camera_behavior`` (static, slow pan,
subtle zoom), scaled by ``attributes.motion_intensity`` (low, medium). Every motion is a periodic
function of the loop phase 2π·i/N, so frame N equals frame 0 and the loop is seamless.

Frames (24 fps, ``element.seconds`` s) are piped as raw RGB to the ffmpeg binary shipped by
``imageio-ffmpeg`` (libvpx-vp9, realtime deadline, row-mt, no audio), while the next frames are
being drawn. The art is composed at ≈ 640 px wide (soft art loses nothing) and scaled by the
camera to the planned size (1280x720 or 720x1280): a 4 s loop takes ≈ 1.5 s on two cores
(640x360 would take ≈ 0.8 s; set ``ENCODE_SCALE = 0.5`` if that is ever needed). The poster (if
planned) is frame 0 at the planned size. Files are written to a temp name and renamed.

QtWebEngine plays no H.264 (DESIGN.md, measured), hence webm only; no mp4 is written.
"""

from __future__ import annotations

import logging
import math
import os
import random
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import imageio_ffmpeg
import numpy as np
from PIL import Image

from mmstudio.plan import DesignPlan, VideoPlan
from mmstudio.project import atomic
from mmstudio.providers.offline import art
from mmstudio.providers.offline.canvas import RGB, mix, shade

log = logging.getLogger(__name__)

FPS = 24
ENCODE_SCALE = 1.0  # encoded size / planned size (see module docstring)
_MARGIN = 0.12  # extra canvas around the view for pan and zoom, as a fraction of each side
_AMPLITUDE = {"low": 0.6, "medium": 1.0}


@dataclass(frozen=True)
class Sprite:
    """A soft RGBA disc and its periodic path: centre (x, y) px + (ax, ay) px · sin(k·phase + φ)."""

    image: Image.Image
    x: float
    y: float
    ax: float
    ay: float
    k: int
    phi: float

    def at(self, phase: float) -> tuple[int, int]:
        """Top-left corner (px) of the sprite at loop ``phase`` (radians)."""
        cx = self.x + self.ax * math.sin(self.k * phase + self.phi)
        cy = self.y + self.ay * math.cos(self.k * phase + self.phi)
        return int(cx - self.image.width / 2), int(cy - self.image.height / 2)


def soft_disc(
    diameter: int, color: tuple[float, ...], opacity: float, falloff: float
) -> Image.Image:
    """An RGBA disc ``diameter`` px wide; ``falloff`` 0 = hard-edged bokeh, 1 = gaussian glow."""
    r = np.linspace(-1.0, 1.0, diameter, dtype=np.float32)
    d = np.sqrt(r[None, :] ** 2 + r[:, None] ** 2)
    if falloff >= 1.0:
        alpha = np.exp(-((d * 2.2) ** 2))
    else:
        alpha = np.clip((1.0 - d) / max(1.0 - falloff, 0.05) * 4, 0, 1) * (0.75 + 0.25 * d)
    rgba = np.empty((diameter, diameter, 4), np.uint8)
    rgba[..., :3] = np.asarray(color, np.float32).clip(0, 255).astype(np.uint8)
    rgba[..., 3] = (alpha * opacity * 255).clip(0, 255).astype(np.uint8)
    return Image.fromarray(rgba, "RGBA")


def tone_color(color: RGB, tones: set[str]) -> tuple[float, ...]:
    """``color`` graded by the same tone words as the base art (greyscale included)."""
    graded = art.apply_tone(np.asarray([[color]], np.float32), tones)[0, 0]
    if "greyscale" in tones:
        graded[:] = graded @ np.array([0.299, 0.587, 0.114], np.float32)
    return tuple(float(v) for v in graded)


def make_sprites(element: VideoPlan, plan: DesignPlan, size: tuple[int, int]) -> list[Sprite]:
    """Three drifting light fields and a dozen bokeh particles for a canvas of ``size`` px."""
    rnd = random.Random(art.seed_for(element.id) ^ 0x5EED)
    colors, tones = art.art_colors(element, plan), art.tone_words(element)
    w, h = size
    m = min(w, h)
    amp = _AMPLITUDE[element.attributes.motion_intensity]
    sprites = []
    for i in range(3):
        glow = shade(colors.accents[i % len(colors.accents)], 0.25)
        image = soft_disc(int(m * rnd.uniform(0.7, 1.0)), tone_color(glow, tones), 0.32, 1.0)
        x, y, phi = w * rnd.uniform(0.15, 0.85), h * rnd.uniform(0.2, 0.8), rnd.uniform(0, 6.28)
        sprites.append(Sprite(image, x, y, w * 0.12 * amp, h * 0.1 * amp, 1, phi))
    light = tone_color(mix(colors.accents[2], (255, 255, 255), 0.7), tones)
    for _ in range(12):
        image = soft_disc(int(m * rnd.uniform(0.02, 0.07)), light, rnd.uniform(0.25, 0.6), 0.6)
        k = rnd.choice((1, 2))
        x, y, phi = w * rnd.uniform(0, 1), h * rnd.uniform(0, 1), rnd.uniform(0, 6.28)
        sprites.append(Sprite(image, x, y, w * 0.03 * amp, h * 0.08 * amp / k, k, phi))
    return sprites


def paste(frame: Image.Image, sprite: Image.Image, left: int, top: int) -> None:
    """Alpha-composite ``sprite`` onto ``frame`` at (left, top) px, clipped to the frame."""
    x0, y0 = max(left, 0), max(top, 0)
    x1, y1 = min(left + sprite.width, frame.width), min(top + sprite.height, frame.height)
    if x1 > x0 and y1 > y0:
        frame.alpha_composite(sprite, (x0, y0), (x0 - left, y0 - top, x1 - left, y1 - top))


def camera_box(behavior: str, amp: float, phase: float, size: tuple[int, int]):
    """The source box (left, top, right, bottom) px the camera sees on a canvas of ``size``."""
    w, h = size
    view_w, view_h = w / (1 + 2 * _MARGIN), h / (1 + 2 * _MARGIN)
    cx, cy = w / 2, h / 2
    if behavior == "slow pan":
        cx += (w - view_w) / 2 * 0.9 * amp * math.sin(phase)
    elif behavior == "subtle zoom":
        zoom = 1.0 + 0.1 * amp * (0.5 - 0.5 * math.cos(phase))
        view_w, view_h = view_w / zoom, view_h / zoom
    return (cx - view_w / 2, cy - view_h / 2, cx + view_w / 2, cy + view_h / 2)


_CALM_WORDS = ("background", "backdrop", "ambient", "bg", "overlay", "texture")
_STATS_WORDS = ("stat", "stats", "counter", "kpi", "metric", "metrics", "number", "numbers")


def liveliness(element: VideoPlan) -> float:
    """Motion scale: 0.7 for calm background loops, 1 for others, 1.4 for hero loops; ×1.3
    for ``motion_intensity`` medium. Below 1 the motif crossing the frame is a faint one."""
    role = element.context.role.lower()
    base = 0.7 if any(w in role.split() for w in _CALM_WORDS) else 1.0
    if base == 1.0 and ("hero" in role or element.context.section.startswith("hero")):
        base = 1.4
    return base * (1.3 if element.attributes.motion_intensity == "medium" else 1.0)


def layer_offsets(scene, phase: float, amp: float, width: int) -> list[tuple[float, float]]:
    """(dx, dy) px per scene layer at loop ``phase``: parallax by depth, a bobbing main motif
    (strolling sideways when the scene has no supporting motif), supporting motifs swaying, and
    in lively loops one motif travelling through the frame."""
    m = min(scene.background.size)
    out: list[tuple[float, float]] = []
    roles = [layer.role for layer in scene.layers]
    wanted = "support" if amp >= 1.0 and "support" in roles else "deco"
    wanted = wanted if wanted in roles else "support"
    traveller = roles.index(wanted) if wanted in roles else -1
    for i, layer in enumerate(scene.layers):
        phi = 1.7 * i
        dx = m * 0.05 * amp * (0.3 + layer.depth) * math.sin(phase + phi)
        dy = m * 0.015 * amp * math.cos(phase + phi)
        if layer.role == "main":
            # hops on the ground; with no supporting motif to cross the frame it strolls too
            dx = m * 0.08 * amp * math.sin(phase) if "support" not in roles else dx * 0.35
            dy = -m * 0.035 * amp * abs(math.sin(phase * 2))
        elif i == traveller:  # crosses the frame once a loop (off-screen at the wrap: seamless)
            span = width + layer.image.width * 2
            dx = -layer.image.width + span * (phase / (2 * math.pi)) - layer.x
            dy = -m * 0.04 * math.sin(phase * 6) ** 2
        elif layer.role == "deco":
            dx = m * 0.08 * amp * math.sin(phase + phi)
        out.append((dx, dy))
    return out


def _stats_target(element: VideoPlan, plan: DesignPlan) -> tuple[float, str]:
    try:
        section = plan.section(element.context.section)
        values = [i.value for i in section.items if any(ch.isdigit() for ch in i.value)]
    except KeyError:
        values = []
    text = values[0] if values else "100%"
    digits = "".join(ch for ch in text if ch.isdigit() or ch == ".")
    try:
        return float(digits or 100), text.replace(digits, "{}") if digits else "{}%"
    except ValueError:
        return 100.0, "{}%"


def count_up(frame: Image.Image, element: VideoPlan, plan: DesignPlan, phase: float) -> None:
    """Draw a number counting up to the section's first figure over ¾ of the loop, then held."""
    from PIL import ImageDraw, ImageFont

    target, template = _stats_target(element, plan)
    t = min(1.0, phase / (2 * math.pi) / 0.75)
    value = target * (1 - (1 - t) ** 3)
    shown = f"{value:.1f}" if target < 10 and target != int(target) else f"{round(value):,}"
    font: ImageFont.FreeTypeFont | ImageFont.ImageFont
    try:
        font = ImageFont.truetype("DejaVuSans-Bold.ttf", max(12, frame.height // 5))
    except OSError:
        font = ImageFont.load_default(max(12, frame.height // 5))
    draw = ImageDraw.Draw(frame)
    text = template.format(shown)
    box = draw.textbbox((0, 0), text, font=font)
    x = (frame.width - (box[2] - box[0])) / 2
    y = frame.height * 0.12
    draw.text((x + 3, y + 3), text, font=font, fill=(20, 20, 30))
    draw.text((x, y), text, font=font, fill=(250, 250, 252))


def scene_frames(element: VideoPlan, plan: DesignPlan, out: tuple[int, int], scene, size):
    """Frames of a subject scene (see :func:`layer_offsets`) through the camera move."""
    attrs = element.attributes
    amp = liveliness(element)
    stats = any(w in element.context.role.lower().split() for w in _STATS_WORDS)
    lights = make_sprites(element, plan, size)[:3]  # the drifting light fields, behind motifs
    base = scene.background.convert("RGBA")
    count = element.seconds * FPS
    for i in range(count):
        phase = 2 * math.pi * i / count
        lit = base.copy()
        for sprite in lights:
            paste(lit, sprite.image, *sprite.at(phase))
        frame = scene.flatten(layer_offsets(scene, phase, amp, size[0]), lit)
        if stats:
            count_up(frame, element, plan, phase)
        box = camera_box(attrs.camera_behavior, min(amp, 1.0), phase, size)
        yield frame.resize(out, Image.Resampling.BILINEAR, box=box)


def frames(element: VideoPlan, plan: DesignPlan, out: tuple[int, int]) -> Iterator[Image.Image]:
    """Yield the loop's RGB frames (``out`` px) for phase 2π·i/N, i = 0 … N−1, N = seconds·FPS.

    A subject scene with moving motifs when the motif sets are installed, else abstract art with
    drifting light."""
    work_w = 640 if out[0] >= out[1] else 360
    work_h = round(work_w * out[1] / out[0])
    size = (round(work_w * (1 + 2 * _MARGIN)), round(work_h * (1 + 2 * _MARGIN)))
    scene = art.subject_scene(element, plan, size)
    if scene is not None:
        yield from scene_frames(element, plan, out, scene, size)
        return
    tones = art.tone_words(element)
    rgb = art.render_art(element, plan, *size)
    if "greyscale" in tones:
        rgb = np.repeat(rgb @ np.array([[0.299], [0.587], [0.114]], np.float32), 3, axis=2)
    base = Image.fromarray(rgb.clip(0, 255).astype(np.uint8), "RGB").convert("RGBA")
    sprites = make_sprites(element, plan, size)
    attrs = element.attributes
    count = element.seconds * FPS
    for i in range(count):
        phase = 2 * math.pi * i / count
        frame = base.copy()
        for sprite in sprites:
            paste(frame, sprite.image, *sprite.at(phase))
        box = camera_box(attrs.camera_behavior, _AMPLITUDE[attrs.motion_intensity], phase, size)
        yield frame.convert("RGB").resize(out, Image.Resampling.BILINEAR, box=box)


def encode_size(element: VideoPlan) -> tuple[int, int]:
    """The encoded (w, h) px: the planned size × ``ENCODE_SCALE``, rounded to even numbers."""
    w, h = (int(v) for v in element.size.split("x"))
    return (round(w * ENCODE_SCALE / 2) * 2, round(h * ENCODE_SCALE / 2) * 2)


def ffmpeg_command(size: tuple[int, int], target: Path) -> list[str]:
    """The ffmpeg argv that reads raw RGB frames of ``size`` px on stdin and writes VP9 webm."""
    return [
        imageio_ffmpeg.get_ffmpeg_exe(), "-y", "-loglevel", "error", "-nostdin",
        "-f", "rawvideo", "-pix_fmt", "rgb24", "-s", f"{size[0]}x{size[1]}", "-r", str(FPS),
        "-i", "pipe:0", "-an", "-c:v", "libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8",
        "-row-mt", "1", "-b:v", "0", "-crf", "32", "-pix_fmt", "yuv420p", "-f", "webm", str(target),
    ]  # fmt: skip


def encode(frame_iter: Iterator[Image.Image], size: tuple[int, int], target: Path) -> Image.Image:
    """Pipe every frame into ffmpeg, writing ``target`` atomically; returns the first frame.

    Raises RuntimeError with ffmpeg's last stderr line when it fails."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".webm", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    first: Image.Image | None = None
    with tempfile.TemporaryFile() as errors:
        proc = subprocess.Popen(ffmpeg_command(size, tmp), stdin=subprocess.PIPE, stderr=errors)
        try:
            assert proc.stdin is not None
            for frame in frame_iter:
                first = first or frame
                proc.stdin.write(frame.tobytes())
            proc.stdin.close()
        except BrokenPipeError:
            pass  # ffmpeg died; its exit status and stderr say why
        finally:
            code = proc.wait()
        if code != 0 or first is None:
            errors.seek(0)
            lines = errors.read().decode("utf-8", "replace").strip().splitlines() or ["no output"]
            tmp.unlink(missing_ok=True)
            raise RuntimeError(f"ffmpeg failed ({code}) for {target.name}: {lines[-1]}")
    atomic.publish(tmp, target)
    return first


def make_video(element: VideoPlan, plan: DesignPlan, site_dir: Path) -> list[Path]:
    """Write the loop at ``site_dir/element.save_path`` (VP9 webm, ``seconds`` s at 24 fps) and,
    when planned, the poster (frame 0 at the planned size) at ``site_dir/poster_path``.

    Returns the written paths (video first). Raises RuntimeError when ffmpeg fails."""
    target = Path(site_dir) / element.save_path
    target.parent.mkdir(parents=True, exist_ok=True)
    size = encode_size(element)
    first = encode(frames(element, plan, size), size, target)
    written = [target]
    if element.poster_path:
        poster = Path(site_dir) / element.poster_path
        poster.parent.mkdir(parents=True, exist_ok=True)
        width, height = (int(v) for v in element.size.split("x"))
        still = first.resize((width, height), Image.Resampling.BICUBIC)
        atomic.write_bytes(poster, art.encode_image(still, element.poster_path))
        written.append(poster)
    log.debug("video %s: %s s at %dx%d", element.id, element.seconds, *size)
    return written
