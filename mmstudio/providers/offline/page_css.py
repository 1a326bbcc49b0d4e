"""The page's stylesheet: palette variables, contrast-checked tones, fonts and the
sizing measures of grids, slots and titles.

The layout agent (``layout.py``) asks this module for one CSS string that goes into the page's
inline ``<style>``. Everything that reaches the CSS from the plan is sanitised here: palette hexes
are validated by the plan, font stacks are reduced to letters, digits, spaces, commas, quotes, dots
and hyphens, and section backgrounds resolve to a palette hex or a validated hex, never raw text.

Colour rules: every palette colour gets a ``--color-<role>`` variable (so every planned hex is in
the page); semantic variables (``--bg``, ``--text``, ``--muted``, ``--surface``, ``--primary``,
``--on-primary``, ``--accent``, ``--accent-text``, ``--border``) point at palette colours where they
pass WCAG AA (4.5:1 for body text) against their background, and fall back to a derived colour
where they do not (WCAG 2.1 §1.4.3).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from mmstudio.plan import DataTable, DesignPlan, GlobalLayout, Section
from mmstudio.providers.offline import page_overrides as overrides
from mmstudio.providers.offline.planner_directives import background_gradient
from mmstudio.resources import resource

_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")
_FONT_UNSAFE = re.compile(r"[^A-Za-z0-9 ,'\"._-]")
_SYNONYMS: dict[str, tuple[str, ...]] = {
    "background": ("background", "bg", "canvas", "page", "base", "paper"),
    "text": ("text", "foreground", "ink", "body", "copy", "font"),
    "surface": ("surface", "card", "panel", "tile", "container"),
    "muted": ("muted", "subtle", "secondary text", "caption", "meta"),
    "primary": ("primary", "brand", "button", "cta", "main"),
    "accent": ("accent", "highlight", "secondary", "pop", "link"),
    "border": ("border", "line", "rule", "divider", "stroke", "grid", "outline"),
}
_MOODS: dict[str, tuple[str, ...]] = {
    "brutalist": ("brutal", "raw", "wireframe", "utilitarian", "harsh"),
    "swiss": ("swiss", "international typographic", "modular grid", "rigorous"),
    "playful": ("playful", "whimsical", "pastel", "candy", "bubbly", "cute", "fun", "doodle"),
    "tactile": ("skeuomorph", "tactile", "layered", "paper", "cozy", "organic", "hand-crafted"),
    "neon": ("neon", "futuristic", "sci-fi", "sci‑fi", "cyber", "hud", "glow"),
    "editorial": ("editorial", "magazine", "luxury", "elegant", "refined", "serif", "atelier"),
}


def rgb(hex_colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` → (r, g, b), each 0–255."""
    value = hex_colour.lstrip("#")
    return int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16)


def to_hex(colour: tuple[float, float, float]) -> str:
    """(r, g, b) 0–255 → ``"#rrggbb"`` (lower case, clamped)."""
    return "#" + "".join(f"{max(0, min(255, round(c))):02x}" for c in colour)


def luminance(hex_colour: str) -> float:
    """WCAG relative luminance of a hex colour, 0 (black) – 1 (white)."""

    def channel(c: int) -> float:
        s = c / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb(hex_colour))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two hex colours, 1–21."""
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def mix(a: str, b: str, t: float) -> str:
    """The colour ``t`` (0–1) of the way from ``a`` to ``b``."""
    ca, cb = rgb(a), rgb(b)
    return to_hex(tuple(x + (y - x) * t for x, y in zip(ca, cb, strict=True)))  # type: ignore[arg-type]


def is_dark(hex_colour: str) -> bool:
    """True when light text reads better than dark text on this colour."""
    return contrast(hex_colour, "#ffffff") > contrast(hex_colour, "#111111")


def _is_neutral(hex_colour: str) -> bool:
    """True for greys and near-greys (channel spread under 48 of 255): fit for body text."""
    channels = rgb(hex_colour)
    return max(channels) - min(channels) < 48


def readable(background: str, candidates: list[str], minimum: float = 4.5) -> str:
    """The first candidate with at least ``minimum`` contrast on ``background``, else the best of
    the candidates plus near-black / near-white."""
    for colour in candidates:
        if contrast(colour, background) >= minimum:
            return colour
    pool = [*candidates, "#111111", "#ffffff", "#000000"]
    return max(pool, key=lambda colour: contrast(colour, background))


def find_role(layout: GlobalLayout, role: str) -> str | None:
    """The palette hex playing ``role`` (exact role first, then its synonyms as substrings)."""
    exact = layout.color(role)
    if exact:
        return exact
    for word in _SYNONYMS.get(role, (role,)):
        for colour in layout.palette:
            if word in colour.role.lower():
                return colour.hex
    return None


@dataclass(frozen=True)
class Tone:
    """The colours of one surface (the page or one section's background), all ``#rrggbb``."""

    bg: str
    text: str
    muted: str
    surface: str
    card_text: str
    border: str
    primary: str
    on_primary: str
    accent: str
    on_accent: str
    accent_text: str
    positive: str
    negative: str


def page_background(layout: GlobalLayout, moods: frozenset[str]) -> str:
    """The page background: the ``background`` role, else the darkest (dark moods) or lightest
    palette colour."""
    found = find_role(layout, "background")
    if found:
        return found
    hexes = [c.hex for c in layout.palette]
    dark = "neon" in moods or any("dark" in m.lower() for m in layout.mood)
    return min(hexes, key=luminance) if dark else max(hexes, key=luminance)


def tone_for(layout: GlobalLayout, bg: str, moods: frozenset[str]) -> Tone:
    """Contrast-checked colours for text, cards, buttons and accents on background ``bg``."""
    palette = [c.hex for c in layout.palette]
    neutrals = sorted((c for c in palette if _is_neutral(c)), key=lambda c: -contrast(c, bg))
    # on a section's own background, the page background is the first choice for text
    # (a dark footer on a cream page reads in cream)
    page_bg = find_role(layout, "background")
    text = readable(bg, [c for c in (find_role(layout, "text"), page_bg, *neutrals) if c])
    surface = find_role(layout, "surface") or mix(bg, text, 0.06 if is_dark(bg) else 0.035)
    if contrast(surface, bg) > 3 or surface == bg:
        surface = mix(bg, text, 0.08 if is_dark(bg) else 0.04)
    muted = readable(bg, [c for c in (find_role(layout, "muted"), mix(text, bg, 0.3)) if c])
    if contrast(muted, surface) < 4.5:  # muted text also sits on cards and dashboard panels
        muted = readable(bg, [mix(text, bg, 0.2), text])
    border = find_role(layout, "border") or mix(bg, text, 0.18)
    if "brutalist" in moods:
        border = text
    primary = find_role(layout, "primary") or find_role(layout, "accent") or text
    if contrast(primary, bg) < 1.4:
        primary = text
    accent = find_role(layout, "accent") or primary
    return Tone(
        bg=bg,
        text=text,
        muted=muted,
        surface=surface,
        card_text=readable(surface, [text, *neutrals]),
        border=border,
        primary=primary,
        on_primary=readable(primary, [bg, text, "#ffffff", "#111111"]),
        accent=accent,
        on_accent=readable(accent, [text, bg, "#ffffff", "#111111"]),
        accent_text=readable(bg, [accent, primary, text]),
        positive=readable(bg, ["#15803d", "#4ade80"]),
        negative=readable(bg, ["#b91c1c", "#f87171"]),
    )


def palette_variables(layout: GlobalLayout) -> dict[str, str]:
    """``{"--color-background": "#ffffff", …}``: one variable per palette colour, named by role
    (a repeated or unnameable role gets ``-2`` … or ``--color-extra-N``)."""
    names: dict[str, str] = {}
    for index, colour in enumerate(layout.palette, start=1):
        slug = re.sub(r"[^a-z0-9]+", "-", colour.role.lower()).strip("-")[:30]
        name = f"--color-{slug}" if slug else f"--color-extra-{index}"
        suffix = 2
        while name in names:
            name = f"--color-{slug or 'extra'}-{suffix}"
            suffix += 1
        names[name] = colour.hex.lower()
    return names


def tone_declarations(tone: Tone, variables: dict[str, str]) -> str:
    """The tone as CSS custom properties, pointing at ``var(--color-…)`` where the colour is a
    palette colour (so the page's roles stay tied to the palette)."""
    by_hex: dict[str, str] = {}
    for name, value in variables.items():
        by_hex.setdefault(value, name)
    parts = []
    for field, value in tone.__dict__.items():
        ref = by_hex.get(value.lower())
        parts.append(f"--{field.replace('_', '-')}: {f'var({ref})' if ref else value};")
    return " ".join(parts)


def detect_moods(layout: GlobalLayout) -> frozenset[str]:
    """Mood families (brutalist, swiss, playful, tactile, neon, editorial) named in the plan's
    mood words, typography hints or layout description."""

    def found(text: str) -> frozenset[str]:
        text = text.lower()
        return frozenset(
            mood
            for mood, keys in _MOODS.items()
            if any(re.search(rf"(?<![\w-]){re.escape(k)}", text) for k in keys)
        )

    # The planner's mood words decide; the free description is only a fallback.
    return found(" ".join([*layout.mood, *layout.typography.hints])) or found(
        layout.description[:2000]
    )


def font_stack(value: str, generic: str) -> str:
    """A CSS ``font-family`` value with unsafe characters removed and ``generic`` appended when
    the stack names no generic family."""
    cleaned = _FONT_UNSAFE.sub("", value).strip(" ,")
    if cleaned.count('"') % 2 or cleaned.count("'") % 2:
        cleaned = cleaned.replace('"', "").replace("'", "")
    generics = ("serif", "sans-serif", "monospace", "cursive", "fantasy", "system-ui")
    if not any(part.strip().strip("'\"") in generics for part in cleaned.split(",")):
        cleaned = f"{cleaned}, {generic}" if cleaned else generic
    return cleaned


def grid_columns(count: int, width_px: int, min_px: int) -> int:
    """Grid columns (1–6) for ``count`` items in a ``width_px`` column, cells ≥ ``min_px``."""
    if count <= 4:
        wanted = count
    elif count % 3 == 0:
        wanted = 3
    elif count == 5:
        wanted = 5
    else:
        wanted = 4
    return max(1, min(wanted, width_px // min_px, 6))


def numeric_columns(table: DataTable) -> list[bool]:
    """Per table column: True when most of its filled cells are numbers (right-aligned)."""
    flags = []
    for index in range(len(table.columns)):
        cells = [row[index] for row in table.rows if row[index] is not None]
        numbers = sum(isinstance(c, int | float) for c in cells)
        flags.append(bool(cells) and numbers * 2 > len(cells))
    return flags


def title_fit(title: str, level: int) -> str:
    """``--fit`` (CSS): the largest title size at which the title's longest word still fits
    its column (≈ 0.68 em per bold glyph), in container inline-size units (cqi)."""
    longest = max((len(word) for word in title.split()), default=1)
    glyphs = max(longest, 6 if level == 1 else 10)
    return f"--fit: {100 / (0.68 * glyphs):.1f}cqi;"


def slot_styles(width_px: int, height_px: int, column_px: int) -> tuple[str, str]:
    """CSS of a media slot planned at ``width_px`` × ``height_px`` in a ``column_px`` column:
    the element's ``aspect-ratio``, and its figure's span of a 12-column grid (6 or 12 on
    tablets) capped at the planned width."""
    span = max(3, min(12, round(12 * width_px / max(column_px, 1))))
    figure = f"--span: {span}; --span-md: {12 if span >= 6 else 6}; max-width: {width_px}px;"
    return f"aspect-ratio: {width_px} / {height_px};", figure


def section_background(layout: GlobalLayout, section: Section) -> str | None:
    """The hex of ``section.background`` (a palette role, a role synonym or a hex), or a default
    by kind (cta → primary, footer → surface); None means the page background."""
    value = (section.background or "").strip()
    if _HEX.match(value):
        return value.lower()
    if value:
        return find_role(layout, value.lower())
    if section.kind == "cta":
        return find_role(layout, "primary") or find_role(layout, "accent")
    return None


@cache
def _css_environment() -> Environment:
    # CSS is not HTML: no autoescape, every value is sanitised before it reaches the template.
    return Environment(
        loader=FileSystemLoader(str(resource("templates"))),
        autoescape=False,
        undefined=StrictUndefined,
        keep_trailing_newline=True,
    )


def uses_rhythm(plan: DesignPlan, moods: frozenset[str]) -> bool:
    """True when untinted main sections alternate with a lightly tinted band (not for dashboards
    and for the flat moods — brutalist and Swiss pages use rules instead)."""
    dashboard = plan.page_kind == "dashboard" or plan.layout.structure == "sidebar-dashboard"
    return not dashboard and not moods & {"brutalist", "swiss"}


def _default_background(
    plan: DesignPlan, section: Section, index: int, moods: frozenset[str], page_bg: str
) -> str | None:
    """Background of a section the plan left unset: footer → surface; every other main section
    (rhythm pages) → a light tint of the primary (playful, tactile) or of the text colour."""
    tone = tone_for(plan.layout, page_bg, moods)
    if section.kind == "footer":
        return tone.surface
    if section.kind in ("header", "hero", "sidebar") or index % 2 == 0:
        return None
    if not uses_rhythm(plan, moods):
        return None
    target = tone.primary if moods & {"playful", "tactile"} else tone.text
    return mix(page_bg, target, 0.07 if is_dark(page_bg) else 0.045)


def section_rules(plan: DesignPlan, moods: frozenset[str], variables: dict[str, str]) -> list[str]:
    """One CSS rule per section whose background differs from the page: its background (the
    prompt's two-stop gradient where its sentences give one) and the tone (text, cards,
    buttons) recomputed for it — on a gradient, for the colour halfway between its stops."""
    rules = []
    page_bg = page_background(plan.layout, moods)
    for index, section in enumerate(plan.sections):
        gradient = background_gradient(section.description)
        bg = section_background(plan.layout, section)
        if gradient is not None:  # the tone reads on the gradient's middle
            bg = mix(gradient[1][0], gradient[1][1], 0.5)
        if bg is None:
            bg = _default_background(plan, section, index, moods, page_bg)
        if not bg or bg == page_bg:
            continue
        tone = tone_for(plan.layout, bg, moods)
        selector = f'[data-mm-section="{section.id}"]'
        rules.append(
            f"{selector} {{ {tone_declarations(tone, variables)} --panel: var(--bg); "
            "background: var(--bg); }"
        )
        if gradient is not None:  # above the header's and footer's own `background: var(--bg)`
            angle, (first, second) = gradient
            rules.append(f"html {selector} {{ background: linear-gradient({angle}deg, "
                         f"{first}, {second}); }}")  # fmt: skip
    return rules


def render_css(plan: DesignPlan, content_width_px: int) -> str:
    """The page's whole stylesheet (CSS text) for ``plan``; ``content_width_px`` is the content
    column width used for the max-width variable."""
    layout = plan.layout
    moods = detect_moods(layout)
    variables = palette_variables(layout)
    tone = tone_for(layout, page_background(layout, moods), moods)
    typography = layout.typography
    context = {
        "variables": variables,
        "tone": tone_declarations(tone, variables),
        "dark": is_dark(tone.bg),
        "fonts": {
            "heading": font_stack(typography.heading, "sans-serif"),
            "body": font_stack(typography.body, "sans-serif"),
            "mono": font_stack(typography.mono, "monospace"),
        },
        "max_width": int(content_width_px),
        "section_rules": section_rules(plan, moods, variables),
        "rhythm": uses_rhythm(plan, moods),
    }
    css = _css_environment().get_template("page.css.j2").render(**context)
    return css + overrides.dashboard_columns(plan) + overrides.avoid_rules(layout.avoid)
