"""How alike two pictures look to a visitor: one measure for the picture makers (every slot of a
page gets a distinct picture) and for the evaluator's duplicate-image check.

A :class:`Fingerprint` holds three hashes of a grey copy (64-bit DCT perceptual hash, 64-bit
difference hash, 256-bit average hash) and a colour histogram of the picture's *foreground*: the
pixels that stand off their row's median colour, so a sky gradient, a ground band or a plain
backdrop drop out and the things drawn stay. :func:`look_alike` calls two pictures the same when

- their foregrounds share their colours (:data:`SAME_COLOURS` apart) and their structure is
  nearly the same (perceptual hashes fewer than :data:`NEAR_BITS` bits apart: the same picture
  re-encoded, resized or re-toned) or their light and dark lie alike (the difference and average
  hashes close), or
- their foregrounds share their colours almost exactly (:data:`TWIN_COLOURS`) and their
  structures are loosely alike (:data:`LOOSE_BITS`): the same shapes moved about.

Structure hashes alone are not enough: scenes with a light sky over a dark ground share their
light and dark whatever stands on the ground (a ticket and a writing hand on the same hills), and
one backdrop shape can bring two grey copies within a few pHash bits (a telescope on an orange
arch, an umbrella on a blue one), so a different subject with its own colours keeps two pictures
apart; a copy recoloured throughout therefore counts as another picture. The thresholds were set
against the hand-labelled calibration pages (``tests/calibration/``: copies of one abstract
template a reviewer marked as duplicates) and the 40 dev prompts' motif scenes (a designer reads
every pair as different pictures); see ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, UnidentifiedImageError

#: perceptual-hash bits (of 64) under which two pictures have nearly the same structure; the
#: floor any two pictures of one page must clear
NEAR_BITS = 12
#: difference-hash bits (of 64) and average-hash bits (of 256) within which two pictures lay out
#: their light and dark alike; or the average hash alone within :data:`LAYOUT_BITS`
STRUCTURE_BITS, LOOSE_LAYOUT_BITS, LAYOUT_BITS = 12, 64, 40
#: perceptual-hash bits within which rearranged shapes still read as one composition
LOOSE_BITS = 22
#: foreground colour distances (0 = the same colours in the same shares … 1 = none shared): on
#: pictures laid out alike, the labelled template copies reach 0.53 and the dev pages' motif
#: scenes start at 0.595; a near-twin palette needs the structure hashes less
SAME_COLOURS, TWIN_COLOURS = 0.56, 0.2
#: colour levels per channel of the foreground histogram, and how far (sum of |Δ| over R, G, B)
#: a pixel must stand off its row's median to count as foreground
_LEVELS, _STANDS_OFF = 6, 60


@dataclass(frozen=True)
class Fingerprint:
    """What :func:`look_alike` compares: ``phash``, ``diff`` (64-bit ints), ``average`` (a
    256-bit int) and ``foreground`` (216 colour-bin shares summing to 1, or all 0 when nothing
    stands off the backdrop)."""

    phash: int
    diff: int
    average: int
    foreground: tuple[float, ...]


def _dct_matrix(n: int) -> np.ndarray:
    k = np.arange(n)[:, None]
    x = np.arange(n)[None, :]
    return np.cos(np.pi * (2 * x + 1) * k / (2 * n)).astype(np.float64)


_DCT32 = _dct_matrix(32)


def perceptual_hash(image: Image.Image) -> int:
    """A 64-bit perceptual hash (DCT pHash): the 8x8 lowest frequencies of a 32x32 grey copy,
    each bit set when above their median. Near-identical pictures differ in few bits."""
    grey = np.asarray(image.convert("L").resize((32, 32), Image.Resampling.LANCZOS), np.float64)
    low = (_DCT32 @ grey @ _DCT32.T)[:8, :8].flatten()
    bits = low > np.median(low[1:])
    return int("".join("1" if b else "0" for b in bits), 2)


def hash_distance(a: int, b: int) -> int:
    """Bits that differ between two hashes (0 = alike … their width)."""
    return (a ^ b).bit_count()


def _foreground(image: Image.Image) -> tuple[float, ...]:
    rgb = np.asarray(image.convert("RGB").resize((64, 64), Image.Resampling.BILINEAR), np.float64)
    backdrop = np.median(rgb, axis=1, keepdims=True)
    standing = np.abs(rgb - backdrop).sum(axis=2) > _STANDS_OFF
    level = np.minimum((rgb * _LEVELS / 256).astype(np.int64), _LEVELS - 1)
    bins = (level[..., 0] * _LEVELS + level[..., 1]) * _LEVELS + level[..., 2]
    counts = np.bincount(bins[standing], minlength=_LEVELS**3).astype(np.float64)
    total = counts.sum()
    return tuple((counts / total).tolist()) if total else (0.0,) * _LEVELS**3


def fingerprint(image: Image.Image) -> Fingerprint:
    """The :class:`Fingerprint` of a picture (any mode, any size; read at 128 px at most)."""
    small = image.copy()
    small.thumbnail((128, 128), Image.Resampling.BILINEAR)
    grey = small.convert("L")
    row = grey.resize((9, 8), Image.Resampling.LANCZOS).tobytes()
    grid = grey.resize((16, 16), Image.Resampling.LANCZOS).tobytes()
    diff = 0
    for r in range(8):
        for c in range(8):
            diff = (diff << 1) | (row[r * 9 + c] > row[r * 9 + c + 1])
    mean = sum(grid) / len(grid)
    average = sum(1 << i for i, v in enumerate(grid) if v > mean)
    return Fingerprint(perceptual_hash(small), diff, average, _foreground(small))


def fingerprint_file(path: Path) -> Fingerprint | None:
    """:func:`fingerprint` of the picture at ``path``; None when it cannot be read."""
    try:
        with Image.open(path) as image:
            image.draft("RGB", (128, 128))  # JPEG decodes small; other formats are shrunk
            image.load()
            return fingerprint(image)
    except (OSError, UnidentifiedImageError, ValueError):
        return None


def colour_distance(a: Fingerprint, b: Fingerprint) -> float:
    """How far apart two foregrounds' colours are: half the L1 distance of their histograms
    (0 = the same colours in the same shares … 1 = none shared, or either has no foreground)."""
    if not any(a.foreground) or not any(b.foreground):
        return 1.0
    return 0.5 * float(np.abs(np.subtract(a.foreground, b.foreground)).sum())


def distances(a: Fingerprint, b: Fingerprint) -> dict[str, float]:
    """The measures :func:`look_alike` reads: ``phash``, ``diff``, ``average`` (bits) and
    ``colours`` (0–1), for evidence and benchmarks."""
    return {
        "phash": hash_distance(a.phash, b.phash),
        "diff": hash_distance(a.diff, b.diff),
        "average": hash_distance(a.average, b.average),
        "colours": round(colour_distance(a, b), 3),
    }


def look_alike(a: Fingerprint, b: Fingerprint) -> bool:
    """Whether a visitor reads two pictures as one picture twice (the rules in the module
    docstring)."""
    d = distances(a, b)
    laid_alike = (
        d["phash"] < NEAR_BITS
        or (d["diff"] <= STRUCTURE_BITS and d["average"] <= LOOSE_LAYOUT_BITS)
        or d["average"] <= LAYOUT_BITS
    )
    colours = d["colours"]
    return (laid_alike and colours < SAME_COLOURS) or (
        colours < TWIN_COLOURS and d["phash"] < LOOSE_BITS
    )
