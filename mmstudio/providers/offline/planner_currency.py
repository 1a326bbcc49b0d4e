"""The currency of a page's sample prices (offline planner pass).

One pass, one job (issue 14, palette and locale roles): a bakery "in Leeds" prices its loaves in
pounds, a café in Lisbon in euros. A prompt that writes a price ("$12", "€25") keeps its own
symbol; otherwise the place or currency word it names earliest (``resources/offline/
currencies.json``) gives the symbol; otherwise US dollars.

Public API: :func:`currency_for`.
"""

from __future__ import annotations

import json
import re
from functools import cache

from mmstudio.resources import resource

DEFAULT = "$"
_WRITTEN = re.compile(r"([$€£¥₹])\s?\d")


def currency_for(prose: str) -> str:
    """The symbol (with its trailing space where one is written: "CHF ") for sample prices."""
    written = _WRITTEN.search(prose)
    if written:
        return written.group(1)
    best: tuple[int, str] | None = None
    for symbol, pattern in _patterns().items():
        match = pattern.search(prose)
        if match and (best is None or match.start() < best[0]):
            best = (match.start(), symbol)
    return best[1] if best else DEFAULT


@cache
def _patterns() -> dict[str, re.Pattern]:
    """``{symbol: pattern of its words}`` from ``resources/offline/currencies.json``."""
    data = json.loads(resource("offline", "currencies.json").read_text(encoding="utf-8"))
    return {
        symbol: re.compile(
            r"(?<![\w-])(?:" + "|".join(re.escape(w) for w in words) + r")(?![\w-])", re.I
        )
        for symbol, words in data["words"].items()
    }
