"""Video files from providers: mp4 → VP9 webm, webm → H.264 mp4, first frame, sampled frames
(the ffmpeg binary of ``imageio-ffmpeg``).

QtWebEngine plays no H.264 (DESIGN.md, measured), so a provider's mp4 is transcoded to VP9 webm
for the page and kept beside it as a second ``<source>`` for browsers and exports. All functions
block (run them in a worker thread) and raise RuntimeError with ffmpeg's last stderr line.
"""

from __future__ import annotations

import io
import os
import subprocess
import tempfile
from pathlib import Path

import imageio_ffmpeg
from PIL import Image

from mmstudio.project import atomic

_TIMEOUT_S = 300


def _run(args: list[str], what: str) -> bytes:
    """Run ffmpeg with ``args``; returns stdout. Raises RuntimeError naming ``what``."""
    argv = [imageio_ffmpeg.get_ffmpeg_exe(), "-nostdin", "-loglevel", "error", *args]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"ffmpeg took over {_TIMEOUT_S} s for {what}") from None
    if done.returncode != 0:
        lines = done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no output"]
        raise RuntimeError(f"ffmpeg failed ({done.returncode}) for {what}: {lines[-1]}")
    return done.stdout


def mp4_to_webm(source: Path, target: Path) -> None:
    """Transcode ``source`` (any container ffmpeg reads) to VP9 webm at ``target``, atomically
    (temp file + rename); audio dropped (page videos play muted)."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".webm", dir=target.parent)
    os.close(fd)
    args = [
        "-y", "-i", str(source), "-an", "-c:v", "libvpx-vp9", "-deadline", "realtime",
        "-cpu-used", "8", "-row-mt", "1", "-b:v", "0", "-crf", "32", "-pix_fmt", "yuv420p",
        "-f", "webm", tmp_name,
    ]  # fmt: skip
    try:
        _run(args, source.name)
        atomic.publish(tmp_name, target)
    finally:
        Path(tmp_name).unlink(missing_ok=True)


def to_h264(source: Path, target: Path) -> None:
    """Encode ``source`` as an H.264 mp4 at ``target`` (the second ``<source>`` for browsers that
    lack VP9), atomically; ``+faststart`` so it streams."""
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.stem}.", suffix=".mp4", dir=target.parent)
    os.close(fd)
    args = [
        "-y", "-i", str(source), "-an", "-c:v", "libx264", "-preset", "veryfast", "-crf", "26",
        "-pix_fmt", "yuv420p", "-movflags", "+faststart", "-f", "mp4", tmp_name,
    ]  # fmt: skip
    try:
        _run(args, source.name)
        atomic.publish(tmp_name, target)
    finally:
        Path(tmp_name).unlink(missing_ok=True)


def frame_at(source: Path, seconds: float = 0.0) -> Image.Image:
    """The RGB frame of ``source`` at ``seconds`` (s)."""
    png = _run(
        ["-ss", f"{seconds:.3f}", "-i", str(source), "-frames:v", "1", "-f", "image2pipe",
         "-vcodec", "png", "pipe:1"],
        source.name,
    )  # fmt: skip
    if not png:
        raise RuntimeError(f"ffmpeg found no frame at {seconds:.2f} s in {source.name}")
    try:
        with Image.open(io.BytesIO(png)) as image:
            return image.convert("RGB")
    except (OSError, Image.DecompressionBombError) as exc:  # a video of gigapixel frames
        raise RuntimeError(f"cannot read the frame of {source.name}: {exc}") from None


def duration(source: Path) -> float:
    """The duration of ``source`` in seconds (0 when ffmpeg cannot tell)."""
    argv = [imageio_ffmpeg.get_ffmpeg_exe(), "-nostdin", "-i", str(source)]
    done = subprocess.run(argv, capture_output=True, timeout=60, check=False)
    for line in done.stderr.decode("utf-8", "replace").splitlines():
        if "Duration:" in line:
            stamp = line.split("Duration:", 1)[1].split(",", 1)[0].strip()
            try:
                h, m, s = stamp.split(":")
                return int(h) * 3600 + int(m) * 60 + float(s)
            except ValueError:
                return 0.0
    return 0.0


def sample_frames(source: Path, count: int = 4, width: int = 512) -> list[bytes]:
    """``count`` PNG frames spread evenly over ``source`` (for the video judge), each scaled to
    ``width`` px wide."""
    length = duration(source)
    times = [length * (i + 0.5) / count for i in range(count)] if length else [0.0]
    frames = []
    for t in times:
        image = frame_at(source, t)
        if image.width > width:
            image = image.resize((width, round(image.height * width / image.width)))
        buffer = io.BytesIO()
        image.save(buffer, "PNG")
        frames.append(buffer.getvalue())
    return frames
