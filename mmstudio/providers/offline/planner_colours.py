"""The colour a prompt gives one piece of copy (offline planner pass).

One pass, one job (issue 14, palette roles): "“Beginner” in white", "“42 min” in bold teal",
"“Dashboard,” “Projects,” and “Clients” in white", "a coral pill reading “Advanced”", "text in
teal reading “Browse Experiences”". The colour word right after a quote (or a run of listed
quotes) — or right before it, ending a "<colour> pill reading" / "in <colour> reading" phrase —
is that copy's colour. A fill word next to the colour word ("in a pale yellow pill", "a coral
button") makes it the element's fill; a border or outline word makes it none of ours (the
element's stroke is the layout's). The hex is the one the prompt writes beside the word, else
the palette's entry of that name (“pink” → the prompt's "bubblegum pink (#FF66A3)"), else the
vocabulary's.

Public API: :func:`text_colours` → ``GlobalLayout.text_colours`` dicts.
"""

from __future__ import annotations

import re

from mmstudio.providers.offline import prompt_text as pt
from mmstudio.providers.offline.planner_labels import label_text

_ADJECTIVES = (
    r"(?:(?:bold|soft|bright|deep|dark|light|pale|muted|vivid|warm|cool|rich|small|large|tiny|"
    r"uppercase|lowercase|italic|thin|heavy|solid|saturated|dusty|electric|neon|glowing|"
    r"semi-bold|medium|medium-bold|regular|serif|sans-serif|monospaced|all-caps|caps|acid|pastel|"
    r"hot|faded|giant|huge|massive|big|tiny|condensed|grotesk|monospace|mono|all-caps|spaced-out|"
    r"\d+(?:[.–-]\d+)?\s*px)[\s,]+){0,4}"
)
#: "“X” in teal", "“X” is left-aligned in indigo", "“X” in a bold, playful font, in indigo"
_AFTER = re.compile(
    r"^[”\"]?\s*,?\s*\(?\s*(?:[^.;“”\"]{0,50},\s*)?(?:(?:is|are)\s+(?:[\w-]+\s+){0,2}?)?"
    r"(?:(?:both|all|each|also)\s+)?"
    r"(?:(?:set|written|shown|printed|rendered|displayed|"
    r"colou?red|highlighted|appears?|appearing|styled|text)\s+)?(?:in|with|on)\s+(?:an?\s+|the\s+)?"
    + _ADJECTIVES
    + r"$",
    re.I,
)
_FILL_AFTER = re.compile(
    r"^\s*(?:[\w-]+\s+){0,2}?(?:pill|pills|badge|badges|chip|chips|button|buttons|capsule|tag|"
    r"tags|bubble|background|fill|block|box|label)\b",
    re.I,
)
_STROKE_AFTER = re.compile(r"^\s*(?:[\w-]+\s+)?(?:border|outline|stroke|underline|frame)s?\b", re.I)
_FILL_BEFORE = re.compile(
    r"(?:pill|badge|chip|button|capsule|tag|bubble|label)s?\s+"
    r"(?:labell?ed|reading|that reads|reads|"
    r"saying|with the text|with)?\s*:?\s*$",
    re.I,
)
_READING = re.compile(r"^\s*(?:text\s+)?(?:reading|that reads|saying|reads)?\s*:?\s*$", re.I)
_LIST_GAP = re.compile(r"^[”\"]?\s*(?:,|,?\s*(?:and|or))?\s*[“\"]?$", re.I)
_HEX_NEAR = re.compile(r"^\s*\(?\s*(#[0-9a-fA-F]{6})\b")
#: "in acid yellow, monospaced uppercase: “…”", "white monospaced uppercase text reading “…”",
#: "in muted gold uppercase sans-serif (11px): “…”": type words between a colour and its copy
_TYPE_WORD = (
    r"(?:bold|uppercase|lowercase|upper-case|monospaced|monospace|mono|sans-serif|sans|serif|"
    r"condensed|grotesk|grotesque|italic|small|smaller|tiny|large|larger|big|caps|all-caps|"
    r"small-caps|medium-weight|semi-bold|semibold|light|thin|heavy|regular|rounded|playful|"
    r"handwritten|script|display|slab|geometric|tracked|spaced|letter-spaced|crisp|soft|"
    r"\(?\s*\d+(?:\.\d+)?\s*px\s*\)?|\(#[0-9a-fA-F]{6}\)|#[0-9a-fA-F]{6})"
)
_TEXT_NOUN = re.compile(
    r"\b(?:text|type|copy|letters|lettering|reading|reads|headline|heading|title|caption|link|"
    r"label|subtitle|tagline|numerals)",
    re.I,
)
_TYPED_TEXT = re.compile(
    rf"^(?:[\s,]*{_TYPE_WORD})*[\s,]*(?:(?:text|type|copy|lettering|letters|words|label|headline|heading|title|caption|"
    r"link|links)\b[\s,]*){0,2}"
    r"[\s,]*(?:(?:that\s+)?(?:reading|reads|saying|says|which\s+reads)\b)?[\s,]*"
    r"(?:either\s+)?:?\s*$",
    re.I,
)


#: "in small uppercase red text aligned to the left margin reads “…”", "white uppercase text
#: reads bluntly: “…”", "in much smaller uppercase red text, sits a subtitle: “…”": the colour's
#: text noun, then a few words of placement, then what it reads
_TEXT_READS = re.compile(
    rf"^(?:[\s,]*{_TYPE_WORD})*[\s,]*(?:text|type|copy|lettering|letters)\b[^.;:“”\"]{{0,50}}?"
    r"(?:\b(?:reads|reading|says|saying)(?:\s+\w+ly)?|\b(?:label|subtitle|title|heading|caption|"
    r"line|tagline))\s*:?\s*$",
    re.I,
)


def text_colours(prose: str, palette: list[dict]) -> list[dict]:
    """``[{text, hex, fill}]`` for the quotes of ``prose`` the prompt gives a colour by name;
    ``palette`` holds the planner's ``{role, hex, name}`` entries (for the prompt's own hexes).
    A text gets the first colour the prompt gives it."""
    quotes = pt.find_quotes(prose)
    found: dict[str, dict] = {}
    run: list[pt.Quote] = []
    for index, quote in enumerate(quotes):
        run = [*run, quote] if run and _listed(prose, run[-1], quote) else [quote]
        if index + 1 < len(quotes) and _listed(prose, quote, quotes[index + 1]):
            continue  # the colour of a list comes after its last quote
        before = _before(prose, run[0].start, palette)
        if before is None or not before["fill"]:  # "a filled green button reads “Go” in white"
            before = _after(prose, quote.end, palette) or before  # is the button's fill
        colour = before
        if not colour:
            continue
        for target in run:
            text = label_text(target.text, "tag")
            if text and text.casefold() not in {k.casefold() for k in found}:
                found[text] = {"text": text[:200], **colour}
    return list(found.values())[:200]


def _listed(prose: str, first: pt.Quote, second: pt.Quote) -> bool:
    """True when ``second`` follows ``first`` in a list (“A”, “B” and “C”)."""
    return bool(_LIST_GAP.match(prose[first.end - 1 : second.start + 1]))


def _after(prose: str, end: int, palette: list[dict]) -> dict | None:
    """``{hex, fill}`` from "… in (a) <adjectives> <colour> [pill]" right after a quote."""
    tail = prose[end : end + 80]
    cut = re.search(r"[.;\n“\"]", tail)
    tail = tail[: cut.start()] if cut else tail
    for start, stop, name, hex_color in pt.named_colors(tail):
        if not _AFTER.match(tail[:start]):
            continue
        rest = tail[stop:]
        if _STROKE_AFTER.match(rest):
            return None
        return {"hex": _hex(rest, name, hex_color, palette), "fill": bool(_FILL_AFTER.match(rest))}
    return None


def _before(prose: str, start: int, palette: list[dict]) -> dict | None:
    """``{hex, fill}`` from "a coral pill reading “…”" / "text in teal reading “…”"."""
    head = prose[max(0, start - 60) : start]
    cut = max(head.rfind(". "), head.rfind("; "), head.rfind("”"), head.rfind("\n"))
    head = head[cut + 1 :] if cut >= 0 else head
    colours = pt.named_colors(head)
    if not colours:
        return None
    begin, stop, name, hex_color = colours[-1]
    rest = head[stop:]
    if _FILL_BEFORE.search(rest):
        return {"hex": _hex(rest, name, hex_color, palette), "fill": True}
    if re.search(r"\bin\s+" + _ADJECTIVES + r"$", head[:begin], re.I) and _READING.match(rest):
        return {"hex": _hex(rest, name, hex_color, palette), "fill": False}
    if _TEXT_READS.match(rest):
        return {"hex": _hex(rest, name, hex_color, palette), "fill": False}
    typed = _TYPED_TEXT.match(rest)
    if typed and (
        _TEXT_NOUN.search(rest) or re.search(r"\bin\s+" + _ADJECTIVES + r"$", head[:begin], re.I)
    ):
        return {"hex": _hex(rest, name, hex_color, palette), "fill": False}  # fmt: skip
    return None


def _hex(rest: str, name: str, hex_color: str, palette: list[dict]) -> str:
    """The prompt's hex beside the word, else its palette entry of that name, else ours."""
    near = _HEX_NEAR.match(rest)
    if near:
        return near.group(1).lower()
    word = re.compile(rf"\b{re.escape(name)}\b", re.I)
    own = next((e for e in palette if word.search(e.get("name") or "")), None)
    return own["hex"] if own else hex_color
