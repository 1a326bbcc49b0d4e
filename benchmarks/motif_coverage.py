"""How well offline pictures show their subject, over the MM-WebGEN-Bench dev prompts.

    .venv/bin/python benchmarks/motif_coverage.py [--prompts FILE] [--limit N] [--videos]
                                                  [--sheet PNG --sheet-ids 001,008,…]

For every prompt the offline planner's images and videos get their motifs (as ``mmstudio new``
does) and every image is painted. Prints: the share of images whose main motif matched a word of
their own subject (the rest drew a generic scene for the page, listed with their subject), the
pairs of images on one page whose perceptual hashes differ by fewer than ``--floor`` bits, the
pairs that look alike to the evaluator's duplicate-image check (:func:`likeness.look_alike` on
the encoded WebP files, with their distances), and the median seconds per image. ``--videos``
also draws every video's frames and prints its mean frame-to-frame change (0–255). ``--sheet``
writes a contact sheet: 3 images and, where the page has one, a 6-frame strip of its first
video, for each of the ``--sheet-ids`` prompts (further strips of those pages' other videos until
there are 6).
"""

from __future__ import annotations

import argparse
import itertools
import json
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from mmstudio.providers import likeness
from mmstudio.providers.offline import art, motifs, motion, planner

DEFAULT_PROMPTS = Path(__file__).resolve().parents[2] / "shared/data/bench/mm_webgen_dev.jsonl"


def frame_change(element, plan) -> tuple[float, list[Image.Image]]:
    """Mean |frame − next frame| of the video at 320 px wide, and 6 frames evenly spaced."""
    size = (320, 180) if element.size == "1280x720" else (180, 320)
    drawn = [np.asarray(f, np.int16) for f in motion.frames(element, plan, size)]
    change = float(np.mean([np.abs(b - a).mean() for a, b in itertools.pairwise(drawn)]))
    picks = [
        Image.fromarray(drawn[i].astype(np.uint8)) for i in range(0, len(drawn), len(drawn) // 6)
    ]
    return change, picks[:6]


def sheet(rows: list[tuple[str, list[Image.Image], list[Image.Image]]], target: Path,
          captions: dict[int, str] | None = None) -> None:  # fmt: skip
    """Each row: a label, up to 3 images and up to 6 video frames, 200 px tall; ``captions``
    (keyed by ``id()`` of an image or a strip's first frame) are written under the tiles."""
    tall, line = 200, 14
    captions = captions or {}
    tiles = []
    for label, images, frames in rows:
        row = [im.copy() for im in images + frames]
        originals = images + frames
        for im in row:
            im.thumbnail((tall * 2, tall))
        width = sum(im.width + 6 for im in row) + 70
        canvas = Image.new("RGB", (width, tall + 6 + line), "white")
        draw = ImageDraw.Draw(canvas)
        draw.text((6, tall // 2), label, fill=(20, 20, 20))
        x = 70
        for i, im in enumerate(row):
            canvas.paste(im, (x, 3))
            text = captions.get(id(originals[i]), "")
            room = im.width if i < len(images) else sum(t.width + 6 for t in row[i:])
            if text:
                draw.text((x + 2, tall + 5), text[: max(8, room // 6)], fill=(60, 60, 70))
            x += im.width + (16 if i == len(images) - 1 else 6)
        tiles.append(canvas)
    out = Image.new("RGB", (max(t.width for t in tiles), sum(t.height for t in tiles)), "white")
    y = 0
    for tile in tiles:
        out.paste(tile, (0, y))
        y += tile.height
    out.save(target, quality=88)  # quality is read by JPEG and WebP, ignored by PNG


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prompts", type=Path, default=DEFAULT_PROMPTS)
    parser.add_argument("--limit", type=int, default=40)
    parser.add_argument("--floor", type=int, default=likeness.NEAR_BITS)
    parser.add_argument("--videos", action="store_true")
    parser.add_argument("--sheet", type=Path)
    parser.add_argument("--sheet-ids", default="001,031,073,108,111,115,127,131")
    args = parser.parse_args()
    if not motifs.available():
        raise SystemExit(f"no motifs: {motifs.missing_reason()}")
    rows = [json.loads(line) for line in args.prompts.read_text().splitlines() if line.strip()]
    wanted = args.sheet_ids.split(",")
    matched = total = 0
    unmatched: list[str] = []
    close: list[str] = []
    flagged: list[str] = []
    scratch = Path(tempfile.mkdtemp(prefix="motif-coverage-"))
    seconds: list[float] = []
    changes: list[tuple[float, str]] = []
    contact: list[tuple[str, list[Image.Image], list[Image.Image]]] = []
    captions: dict[int, str] = {}
    extra: list[tuple[str, list[Image.Image], list[Image.Image]]] = []  # further video strips
    for row in rows[: args.limit]:
        plan = motifs.annotate(planner.plan_from_prompt(row["prompt"]))
        hashes, painted, judged = {}, [], {}
        for element in plan.images:
            started = time.perf_counter()
            picture = art.paint_image(element, plan)
            seconds.append(time.perf_counter() - started)
            hashes[element.id] = likeness.perceptual_hash(picture)
            encoded = scratch / f"{row['id']}-{element.id}.webp"
            encoded.write_bytes(art.encode_image(picture, encoded.name))
            judged[element.id] = likeness.fingerprint_file(encoded)
            encoded.unlink()
            painted.append(picture)
            record = element.motifs
            if record is not None and record.motifs:
                name = record.motifs[0].split(":", 1)[1]
                word = record.words[0] if record.words else ""
                captions[id(picture)] = f"{word} > {name}" + (" (generic)" if record.note else "")
            total += 1
            if element.motifs and not element.motifs.note:
                matched += 1
            else:
                unmatched.append(f"{row['id']} {element.id}: {element.motifs.note}")
        for a, b in itertools.combinations(hashes, 2):
            distance = likeness.hash_distance(hashes[a], hashes[b])
            if distance < args.floor:
                close.append(f"{row['id']} {a} ~ {b} ({distance} bits)")
            first, second = judged[a], judged[b]
            if first and second and likeness.look_alike(first, second):
                flagged.append(f"{row['id']} {a} ~ {b} {likeness.distances(first, second)}")
        strips: list[list[Image.Image]] = []
        if args.videos or (args.sheet and row["id"] in wanted):
            for element in plan.videos:
                change, picks = frame_change(element, plan)
                changes.append((change, f"{row['id']} {element.id}"))
                strips.append(picks)
                record = element.motifs
                drawn = ", ".join(m.split(":", 1)[1] for m in (record.motifs if record else [])[:3])
                captions[id(picks[0])] = f"video {element.seconds}s, change {change:.2f}: {drawn}"
        if args.sheet and row["id"] in wanted:
            contact.append((row["id"], painted[:3], strips[0] if strips else []))
            extra += [(f"{row['id']} v{i + 2}", [], s) for i, s in enumerate(strips[1:])]
    print(f"images with a motif matched to their subject: {matched}/{total} "
          f"({100 * matched / max(total, 1):.0f} %)")  # fmt: skip
    for line in unmatched:
        print(f"  unmatched {line}")
    print(f"pairs of images on one page under {args.floor} bits: {len(close)}")
    for line in close:
        print(f"  {line}")
    pages = len({line.split()[0] for line in flagged})
    print(
        f"pairs that look alike (the evaluator's duplicate check): {len(flagged)} on {pages} pages"
    )
    for line in flagged:
        print(f"  {line}")
    scratch.rmdir()
    print(f"seconds per image: median {statistics.median(seconds):.3f}, max {max(seconds):.3f}")
    if changes:
        low = min(changes)
        middle = statistics.median(c for c, _ in changes)
        print(f"videos: {len(changes)}, mean frame change median {middle:.2f}, "
              f"lowest {low[0]:.2f} ({low[1]})")  # fmt: skip
    if args.sheet and contact:
        shown = sum(1 for _, _, frames in contact if frames)
        sheet(contact + extra[: max(0, 6 - shown)], args.sheet, captions)
        print(f"contact sheet: {args.sheet}")


if __name__ == "__main__":
    main()
