"""Colour checks on pixels: text contrast (WCAG 2.x) and asset palette drift (ΔE in CIELAB).

Contrast is measured against the *pixels* behind the text — a text-free screenshot of the page —
not against CSS colours, so white text over a bright photo on a dark CSS background is caught.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image

from mmstudio.plan import DesignPlan
from mmstudio.render.model import Render, TextProbe

from .findings import Element, Findings

AA_NORMAL = 4.5
AA_LARGE = 3.0  # ≥ 24 px, or ≥ 18.66 px bold (WCAG 2.x "large text")
MAJOR_BELOW = 2.0
MAX_CONTRAST_ISSUES = 8
DRIFT_DELTA_E = 50.0  # mean ΔE76 of an asset's dominant colours to the nearest palette colour
NEUTRAL_CHROMA = 14.0  # CIELAB chroma under which a colour counts as neutral (greys)
MIN_SHARE = 0.12  # dominant colours under this share of the asset are ignored


def relative_luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG relative luminance (0–1) of sRGB values 0–255; shape (..., 3) → (...)."""
    c = rgb.astype(np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return lin @ np.array([0.2126, 0.7152, 0.0722])


def contrast_ratio(l1: np.ndarray | float, l2: np.ndarray | float) -> np.ndarray:
    """WCAG contrast ratio (1–21) of two relative luminances."""
    hi, lo = np.maximum(l1, l2), np.minimum(l1, l2)
    return (hi + 0.05) / (lo + 0.05)


def _hex(rgb) -> str:
    return "#" + "".join(f"{round(float(v)):02x}" for v in list(rgb)[:3])


def check_contrast(render: Render, found: Findings) -> None:
    """One issue per owner (element or section) whose text falls below WCAG AA."""
    path = Path(render.text_free_screenshot)
    if not path.is_file() or render.probe is None:
        return
    pixels = np.asarray(Image.open(path).convert("RGB"))
    worst: dict[str | None, list[tuple[float, float, TextProbe, np.ndarray]]] = defaultdict(list)
    for text in render.probe.texts:
        measured = _text_contrast(text, pixels)
        if measured is None:
            continue
        ratio, needed, background = measured
        if ratio < needed:
            worst[text.owner or text.section].append((ratio, needed, text, background))
    ranked = sorted(worst.items(), key=lambda kv: min(r for r, *_ in kv[1]))
    for _key, hits in ranked[:MAX_CONTRAST_ISSUES]:
        ratio, needed, text, background = min(hits, key=lambda h: h[0])
        major = ratio < MAJOR_BELOW
        found.add(
            "low-contrast" if major else "low-contrast-minor",
            f"Low contrast: text “{text.snippet[:40]}” is {_ratio_text(ratio, needed)}:1 against "
            f"the pixels behind it (WCAG AA needs {needed:g}:1).",
            text.owner,
            contrast=round(ratio, 2),
            needed=needed,
            text_color=_hex(text.color),
            background=_hex(background),
            selector=text.selector,
            blocks=len(hits),
        )


def _ratio_text(ratio: float, needed: float) -> str:
    """The ratio with as many decimals as it takes not to read as the threshold (4.47, not
    4.5, when 4.5 is needed)."""
    for digits in (1, 2):
        shown = f"{ratio:.{digits}f}"
        if float(shown) < needed:
            return shown
    return f"{int(ratio * 1000) / 1000:.3f}"


def _text_contrast(text: TextProbe, pixels: np.ndarray) -> tuple[float, float, np.ndarray] | None:
    """(median contrast 1–21, AA threshold, median background RGB) or None if not measurable."""
    if not text.color or text.color[3] < 0.1 or text.opacity < 0.3:
        return None
    r = text.rect
    x0, y0 = max(0, int(r.x)), max(0, int(r.y))
    x1, y1 = min(pixels.shape[1], int(r.x + r.w)), min(pixels.shape[0], int(r.y + r.h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    region = pixels[y0:y1, x0:x1]
    step = max(1, int(((y1 - y0) * (x1 - x0) / 2500) ** 0.5))
    sample = region[::step, ::step].reshape(-1, 3)
    background = np.median(sample, axis=0)
    alpha = float(text.color[3]) * min(1.0, text.opacity)
    fg = np.array(text.color[:3]) * alpha + background * (1 - alpha)
    ratios = contrast_ratio(relative_luminance(fg), relative_luminance(sample))
    large = text.font_size >= 24 or (text.font_size >= 18.66 and text.font_weight >= 700)
    return float(np.median(ratios)), AA_LARGE if large else AA_NORMAL, background


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of sRGB values 0–255; shape (..., 3) → (..., 3)."""
    c = rgb.astype(np.float64) / 255.0
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = lin @ m.T / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack(
        [116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]), 200 * (f[..., 1] - f[..., 2])],
        axis=-1,
    )


def dominant_colours(path: Path, k: int = 5) -> list[tuple[np.ndarray, float]]:
    """The ``k`` dominant colours (RGB 0–255) of an image with their shares (0–1)."""
    with Image.open(path) as img:
        small = img.convert("RGB").resize((48, 48))
    quant = small.quantize(colors=k, method=Image.Quantize.MEDIANCUT)
    palette = np.array(quant.getpalette()[: 3 * k]).reshape(-1, 3)
    counts = np.bincount(np.asarray(quant).ravel(), minlength=k)[: len(palette)]
    total = counts.sum() or 1
    return [(palette[i], counts[i] / total) for i in np.argsort(-counts) if counts[i]]


def page_palette(render: Render, plan: DesignPlan | None) -> np.ndarray:
    """The page palette (N×3 RGB): the plan's colours, else the measured dominant CSS colours."""
    if plan is not None:
        hexes = [c.hex for c in plan.layout.palette]
        return np.array([[int(h[i : i + 2], 16) for i in (1, 3, 5)] for h in hexes])
    entries = render.probe.page.palette if render.probe else []
    total = sum(e.weight for e in entries) or 1
    kept, acc = [], 0.0
    for e in entries:
        kept.append(e.rgb[:3])
        acc += e.weight / total
        if acc > 0.97 or len(kept) >= 8:
            break
    return np.array(kept or [[255, 255, 255]])


def check_palette(
    render: Render, elements: dict[str, Element], plan: DesignPlan | None, found: Findings
) -> None:
    """A local style issue for each asset whose dominant colours sit far from the page palette."""
    palette = srgb_to_lab(page_palette(render, plan))
    chromatic = palette[np.hypot(palette[:, 1], palette[:, 2]) >= NEUTRAL_CHROMA]
    if len(chromatic) == 0:
        return  # a neutral page goes with any asset
    for element in elements.values():
        crop = render.crops.get(element.id)
        if not crop or any(i.severity == "critical" for i in element.issues):
            continue
        drift, colours = _drift(Path(crop), palette)
        if drift > DRIFT_DELTA_E:
            found.add(
                "palette-drift",
                f"The colours of {element.kind} {element.id} clash with the page palette "
                f"(mean ΔE {drift:.0f} to the nearest page colour).",
                element.id,
                delta_e=round(drift, 1),
                asset_colors=colours,
                crop=crop,
            )


def _drift(crop: Path, palette_lab: np.ndarray) -> tuple[float, list[str]]:
    colours = [(c, s) for c, s in dominant_colours(crop) if s >= MIN_SHARE]
    if not colours:
        return 0.0, []
    labs = srgb_to_lab(np.array([c for c, _ in colours]))
    shares = np.array([s for _, s in colours])
    chroma = np.hypot(labs[:, 1], labs[:, 2])
    nearest = np.linalg.norm(labs[:, None, :] - palette_lab[None, :, :], axis=-1).min(axis=1)
    nearest = np.where(chroma < NEUTRAL_CHROMA, 0.0, nearest)
    return float((nearest * shares).sum() / shares.sum()), [_hex(c) for c, _ in colours]
