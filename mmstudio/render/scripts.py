"""The JavaScript the renderer runs in pages, loaded once from files beside this module."""

from __future__ import annotations

import functools
from pathlib import Path

_HERE = Path(__file__).parent


def _read(name: str) -> str:
    return (_HERE / name).read_text(encoding="utf-8")


INIT_JS = _read("init.js")
SETTLE_JS = _read("settle.js")


def _as_json(function: str) -> str:
    """The page function ``function`` returning its result as one JSON string: Playwright's
    client then moves one string instead of validating and rebuilding thousands of nested
    values in Python on the event loop (which is the GUI's: ~50–90 ms per page's facts)."""
    return f"async (args) => JSON.stringify(await ({function}\n)(args))"


PROBE_JS = _as_json(_read("probe.js"))
OVERFLOW_JS = _read("overflow.js")
FACTS_JS = _as_json(_read("facts.js"))

# axe-core rules run on every page (MM Studio issue 3: images without alt, unnamed buttons and
# links, heading order, plus unlabelled form fields and frames).
A11Y_RULES = (
    "image-alt",
    "input-image-alt",
    "role-img-alt",
    "button-name",
    "link-name",
    "label",
    "select-name",
    "frame-title",
    "heading-order",
)

# Runs axe on the top document and maps each failing node to its data-mm-id owner and src.
A11Y_JS = """async (rules) => {
  const r = await axe.run(document, {runOnly: {type: 'rule', values: rules},
    resultTypes: ['violations'], iframes: false});
  return r.violations.map((v) => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 20).map((n) => {
      let el = null;
      try { el = document.querySelector(n.target[0]); } catch (e) { el = null; }
      const o = el && el.closest('[data-mm-id]');
      return {target: n.target.join(' '), html: (n.html || '').slice(0, 160),
        owner: o ? o.getAttribute('data-mm-id') : null, src: el && el.src ? el.src : ''};
    })}));
}"""


@functools.cache
def axe_source() -> str:
    """axe-core's source, shipped inside the ``axe-playwright-python`` package."""
    import axe_playwright_python

    return (Path(axe_playwright_python.__file__).parent / "axe.min.js").read_text(encoding="utf-8")
