"""The global look of a planned page (offline planner helper): palette with roles, typography,
structure, content width and mood, read from the prompt's words.

Every ``#rrggbb`` of the prompt enters the palette (role from the words around it, else
``extra-N``); named colours fill the core roles the hexes leave empty; defaults (light or dark,
as the prompt says) fill the rest, so ``layout.color(role)`` always answers for the core roles.
A section's own background ("a dark espresso footer (#2B1D14)") is read by
:func:`section_background`.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline import vocabulary as vocab

_MAX_PALETTE = 40
_QUOTED = re.compile(r"[“\"][^“”\"\n]{0,300}[”\"]")
_LIGHT = {
    "background": "#fafaf7",
    "surface": "#ffffff",
    "text": "#1f2328",
    "muted": "#6b7280",
    "primary": "#2f6fed",
    "accent": "#f97316",
    "border": "#e3e3de",
}
_DARK = {
    "background": "#0e1117",
    "surface": "#171b24",
    "text": "#e8ecf4",
    "muted": "#9aa4b2",
    "primary": "#4f8cff",
    "accent": "#22d3ee",
    "border": "#2a3140",
}


def luminance(hex_color: str) -> float:
    """Relative brightness 0–1 of ``#rrggbb`` (Rec. 709 weights, no gamma)."""
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _unique(role: str, used: set[str]) -> str:
    name, n = role, 2
    while name in used:
        name, n = f"{role}-{n}", n + 1
    used.add(name)
    return name


def palette(prompt: str, dark: bool, scope: Callable[[int], str], global_text: str) -> list[dict]:
    """Palette entries ``{role, hex, name}``: every hex of ``prompt`` in order, then named
    colours of the page-level sentences for empty core roles, then defaults (dark or light).

    ``scope(offset)`` names the section kind an offset lies in ("" for page-level text): a
    section's own colour becomes ``<kind>-<role>`` (``header-background``) so the page roles
    stay free for page-level colours."""
    entries: list[dict] = []
    used: set[str] = set()
    seen: set[str] = set()
    for match in pt.HEX_RE.finditer(prompt):
        hex_color = match.group().lower()
        if hex_color in seen or len(entries) >= _MAX_PALETTE:
            continue
        seen.add(hex_color)
        role = pt.color_role(prompt, match.start(), match.end())
        kind = scope(match.start())
        if role and role not in ("accent", "primary") and kind not in ("", "hero"):
            role = f"{kind}-{role}"  # a section's own colours leave the page roles free
        role = _unique(role, used) if role else _unique(f"extra-{len(entries) + 1}", used)
        entries.append(
            {"role": role, "hex": hex_color, "name": pt.color_name(prompt, match.start())}
        )
    _fill_named(global_text, entries, used)
    _promote(entries, used, dark)
    _fill_button(prompt, entries, used)
    _fill_defaults(entries, used, dark)
    return entries[:_MAX_PALETTE]


def _saturation(hex_color: str) -> float:
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    return max(r, g, b) - min(r, g, b)


def _promote(entries: list[dict], used: set[str], dark: bool) -> None:
    """Fill empty core roles from the prompt's own hexes: unnamed ones (``extra-N``) by their
    looks (the lightest — darkest when dark — is the background, a contrasting one the text,
    the most saturated accent then primary, greys muted and border), then a section's
    ``<kind>-<role>`` colour lends its hex to the page role."""
    extras = [e for e in entries if e["role"].startswith("extra-")]

    def take(role: str, fits: list[dict]) -> None:
        if role not in used and fits:
            used.add(role)
            fits[0]["role"] = role
            extras.remove(fits[0])

    light = sorted(extras, key=lambda e: luminance(e["hex"]), reverse=not dark)
    take("background", [e for e in light if abs(luminance(e["hex"]) - (0 if dark else 1)) < 0.12])
    background = next((e["hex"] for e in entries if e["role"] == "background"), None)
    if background:
        contrast = sorted(extras, key=lambda e: -abs(luminance(e["hex"]) - luminance(background)))
        take(
            "text", [e for e in contrast if abs(luminance(e["hex"]) - luminance(background)) > 0.5]
        )
    for role in ("accent", "primary"):
        take(role, sorted((e for e in extras if _saturation(e["hex"]) > 0.3),
                          key=lambda e: -_saturation(e["hex"])))  # fmt: skip
    greys = [e for e in extras if _saturation(e["hex"]) < 0.12]
    take("muted", [e for e in greys if 0.3 < luminance(e["hex"]) < 0.75])
    take("border", [e for e in greys if 0.75 <= luminance(e["hex"]) < 0.97])
    for role in ("background", "surface", "text", "muted", "border"):
        lender = next((e for e in entries if e["role"].endswith(f"-{role}")), None)
        if role not in used and lender and len(entries) < _MAX_PALETTE:
            used.add(role)
            entries.append({"role": role, "hex": lender["hex"], "name": lender["name"]})


def _fill_named(prompt: str, entries: list[dict], used: set[str]) -> None:
    for start, end, name, hex_color in pt.named_colors(prompt[:30000]):
        if prompt[end : end + 4].lstrip(" (").startswith("#") or len(entries) >= _MAX_PALETTE:
            continue
        role = pt.color_role(prompt, start, end)
        if role in vocab.CORE_ROLES and role not in used:
            used.add(role)
            entries.append({"role": role, **_own_colour(entries, name, hex_color)})


def _own_colour(entries: list[dict], name: str, hex_color: str) -> dict:
    """``{hex, name}`` for a colour word: the prompt's own hex of that name when it gave one
    ("pink" → the "bubblegum pink (#FF66A3)" entry), else the vocabulary's ``hex_color``."""
    word = re.compile(rf"\b{re.escape(name)}\b", re.I)
    own = next((e for e in entries if word.search(e["name"] or "")), None)
    return {"hex": own["hex"], "name": own["name"]} if own else {"hex": hex_color, "name": name}


_BUTTON_WORDS = re.compile(r"\b(?:buttons?|cta|call-to-action)\b", re.I)


def _fill_button(prompt: str, entries: list[dict], used: set[str]) -> None:
    """A prompt with no button colour among its hexes may name one in words: the first
    saturated named colour of the first sentence about a button ("The left button is a pill
    filled with coral …") becomes ``primary``."""
    if "primary" in used or len(entries) >= _MAX_PALETTE:
        return
    for sentence in re.split(r"(?<=[.!?])\s+", prompt[:30000]):
        if not _BUTTON_WORDS.search(sentence):
            continue
        for _, end, name, hex_color in pt.named_colors(sentence):
            if (
                sentence[end : end + 4].lstrip(" (").startswith("#")
                or _saturation(hex_color) <= 0.3
            ):
                continue  # a hex follows (read already), or a neutral
            used.add("primary")
            entries.append({"role": "primary", **_own_colour(entries, name, hex_color)})
            return


def _fill_defaults(entries: list[dict], used: set[str], dark: bool) -> None:
    """Core roles the prompt left empty: a button colour (primary) and an accent lend to each
    other, else the prompt's most saturated colour lends to both (a page that names "coral" for
    its CTA never gets the scheme's blue buttons); the rest come from the light or dark scheme."""
    background = next((e["hex"] for e in entries if e["role"] == "background"), None)
    dark = dark if background is None else luminance(background) < 0.4
    scheme = _DARK if dark else _LIGHT
    for role in ("primary", "accent"):
        lender = _brand_colour(entries, "accent" if role == "primary" else "primary")
        if role not in used and lender and len(entries) < _MAX_PALETTE:
            used.add(role)
            entries.append({"role": role, "hex": lender["hex"], "name": lender["name"]})
    if entries:  # the prompt gave its own colours but no vivid one a button can wear
        _ink_roles(entries, used, scheme)
    for role in vocab.CORE_ROLES:
        if role not in used and len(entries) < _MAX_PALETTE:
            used.add(role)
            entries.append({"role": role, "hex": scheme[role], "name": None})


def _ink_roles(entries: list[dict], used: set[str], scheme: dict[str, str]) -> None:
    """A palette of the prompt's own colours with no vivid one outside its backgrounds (black,
    white, greys and a yellow hover fill): its buttons wear the text colour, as a monochrome
    design's do, and its accent is its one vivid background colour (else the ink too) — never
    the scheme's blue and orange, which are no colour of the prompt's."""
    text = next((e for e in entries if e["role"] == "text"), None)
    ink = (
        {"hex": text["hex"], "name": text["name"]}
        if text
        else {"hex": scheme["text"], "name": None}
    )
    vivid = [e for e in entries if _vivid(e["hex"])]
    bright = max(vivid, key=lambda e: _saturation(e["hex"]), default=None)
    accent = {"hex": bright["hex"], "name": bright["name"]} if bright else ink
    for role, colour in (("primary", ink), ("accent", accent)):
        if role not in used and len(entries) < _MAX_PALETTE:
            used.add(role)
            entries.append({"role": role, **colour})


def _brand_colour(entries: list[dict], role: str) -> dict | None:
    """The entry playing ``role`` when it is vivid, else the prompt's most saturated vivid
    colour (not a background), else the entry playing ``role`` (or None)."""
    exact = next((e for e in entries if e["role"] == role), None)
    if exact is not None and _vivid(exact["hex"]):
        return exact
    vivid = [e for e in entries if _vivid(e["hex"]) and "background" not in e["role"]]
    return max(vivid, key=lambda e: _saturation(e["hex"]), default=exact)


def _vivid(hex_color: str) -> bool:
    """A colour a button can wear: HSV saturation over 0.35 and not near black (a dark forest
    green counts, a pale grey does not)."""
    r, g, b = (int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5))
    high = max(r, g, b)
    return high > 0.15 and (high - min(r, g, b)) / high > 0.35


def typography(global_units: list[pt.Unit], units: list[pt.Unit]) -> dict:
    """``{heading, body, mono, hints}``: CSS font stacks, the named font first, from the units
    that talk about fonts. A clause naming headings sets the heading stack, one naming body text
    the body; a page-level clause naming neither sets both, a section's only the heading."""
    chosen: dict[str, tuple[int, str]] = {}
    hints: list[str] = []
    page_level = {u.start for u in global_units}
    for unit in global_units + units:
        for clause in _clauses(_QUOTED.sub(_blank_copy, unit.text)):
            kinds = [k for _, k in pt.keyword_hits(clause, vocab.FONT_HINT_WORDS)]
            names = pt.font_names(clause)
            if not kinds and not names:
                continue
            hints += [h for h in kinds + names if h not in hints]
            targets, explicit = _targets(clause, unit.start in page_level)
            rank = (0 if explicit else 2) + (0 if names else 1)
            for target in targets:
                if target not in chosen or rank < chosen[target][0]:
                    chosen[target] = (rank, _stack(names, kinds))
    stacks = {target: stack for target, (_, stack) in chosen.items()}
    body = stacks.get("body", vocab.FONT_STACKS["sans"])
    mono_names = [n for n in pt.font_names(" ".join(hints)) if vocab.NAMED_FONTS[n] == "mono"]
    return {
        "heading": stacks.get("heading", body),
        "body": body,
        "mono": _stack(mono_names, ["mono"]),
        "hints": hints[:20],
    }


def _blank_copy(match: re.Match) -> str:
    """Quoted page copy (5+ words, no commas: not a font list) hides its words from font rules."""
    body = match.group()
    return " " if len(body.split()) >= 5 and "," not in body else body


def _clauses(text: str) -> list[str]:
    """A font sentence cut where it turns to another role ("body … while headings use …")."""
    pattern = (
        r",?\s(?:while|whereas|but)\s|;\s"
        r"|[,:][”\"]?\s(?=(?:and\s)?(?:body|headings?|headlines?|titles?)\b)"
    )
    return [c for c in re.split(pattern, text, flags=re.I) if c.strip()]


def _targets(text: str, page_level: bool) -> tuple[list[str], bool]:
    """``(targets, explicit)``: the stacks a font clause sets, and whether it names them."""
    heading = pt.has_word(text, vocab.HEADING_WORDS)
    body = pt.has_word(text, vocab.BODY_WORDS)
    if heading != body:
        return (["heading"] if heading else ["body"]), True
    if not page_level:
        return ["heading"], False
    return ["heading", "body"], heading


def _stack(names: list[str], kinds: list[str]) -> str:
    """``'Courier New', 'Liberation Mono', …, monospace``: named fonts, then the installed stack."""
    kind = next((k for k in kinds if k in vocab.FONT_STACKS), None)
    kind = kind or (vocab.NAMED_FONTS[names[0]] if names else "sans")
    quoted = [f"'{n}'" if " " in n else n for n in names[:3]]
    base = vocab.FONT_STACKS[kind]
    return ", ".join(quoted + [f for f in base.split(", ") if f not in quoted])[:300]


def structure(text: str, page_kind: str) -> tuple[str, list[int]]:
    """``(structure, column_ratio)`` from the opening of the prompt."""
    lowered = text.lower()
    options = (
        ("sidebar-dashboard", ("sidebar", "side bar", "side navigation", "left rail")),
        ("two-column", ("two-column", "two column", "2-column", "split layout", "two columns")),
        ("single-column", ("single-column", "single column", "one-column", "one column")),
        ("grid", ("grid", "multi-column", "three-column", "four-column", "bento", "columns")),
    )
    found = [(lowered.find(w), name) for name, words in options for w in words if w in lowered]
    name = min(found)[1] if found else ("grid" if page_kind == "dashboard" else "single-column")
    if name == "sidebar-dashboard" and page_kind != "dashboard":
        name = "two-column"
    return name, pt.column_ratio(text) if name == "two-column" else []


def _mood(opening: str, prose: str) -> list[str]:
    """Mood words of the page-level sentences; the start of the prose tops up a thin list."""
    found = pt.words_found(opening, vocab.MOOD_WORDS, 12)
    extra = pt.words_found(prose[:3000], vocab.MOOD_WORDS, 12) if len(found) < 3 else []
    return (found + [w for w in extra if w not in found])[:12]


def global_layout(
    prompt: str,
    prose: str,
    units: list[pt.Unit],
    global_units: list[pt.Unit],
    page_kind: str,
    scope: Callable[[int], str],
) -> dict:
    """The ``GlobalLayout`` fields as a dict (palette entries, typography, structure, width,
    mood, description) for :class:`mmstudio.plan.GlobalLayout`."""
    opening = " ".join(u.text for u in (global_units or units[:3]))
    dark = pt.has_word(prose[:2000], vocab.DARK_WORDS)
    name, ratio = structure(opening, page_kind)
    default_width = 1440 if page_kind == "dashboard" else 1200
    return {
        "structure": name,
        "column_ratio": ratio,
        "max_width_px": pt.pixel_width(opening) or default_width,
        "palette": palette(prompt, dark, scope, " ".join(u.text for u in global_units)),
        "typography": typography(global_units, units),
        "mood": _mood(opening, prose),
        "description": opening[:4000],
    }


_BLOCK = (  # a section's own nouns (a "black bar" or "red block" is a shape inside one)
    r"(?:footer|header|band|section|banner|hero)"
    r"(?!\s+(?:links?|text|nav|menu|items?|copy|logo|icons?|buttons?|line|rule))"
)
_HEX_BLOCK = re.compile(
    rf"\b{_BLOCK}\s*(?:\(\s*|(?:is\s+)?(?:in|on|of|filled with|with an?)\s+(?:an?\s+)?)"
    rf"(#[0-9a-fA-F]{{6}})\b|(#[0-9a-fA-F]{{6}})\)?\s*(?:[\w-]+\s+)?{_BLOCK}\b",
    re.I,
)
_DARK_BLOCK = re.compile(rf"\b(?:dark|black|inverted)\s+(?:[\w-]+\s+)?{_BLOCK}\b", re.I)


def section_background(text: str, kind: str, light_page: bool) -> str | None:
    """The section's own background: a hex or named colour written with the section's noun
    ("a dark espresso footer (#2B1D14)", "a sage band"), a hex whose role word is background,
    or — on a light page — the text colour for "a dark footer"; else None (the page's)."""
    blank = pt.blank_quotes(text)
    found = _HEX_BLOCK.search(blank)
    if found:
        return (found.group(1) or found.group(2)).lower()
    for match in pt.HEX_RE.finditer(blank):
        if pt.color_role(blank, match.start(), match.end()) == "background":
            return match.group().lower()
    for start, end, _, hex_color in pt.named_colors(blank):
        after = blank[end : end + 40]
        if re.match(rf"\s+(?:[\w-]+\s+)?{_BLOCK}\b", after, re.I) or (
            pt.color_role(blank, start, end) == "background" and "background" in after
        ):
            return hex_color
    if light_page and _DARK_BLOCK.search(blank) and kind in ("footer", "cta", "content", "header"):
        return "text"
    return None
