"""Closing CSS rules that carry a prompt's page-wide directives (offline layout helper).

Appended after the page stylesheet (``page_css.render_css``) so they win over every template
rule: a dashboard's column ratio ("65 % / 35 %") and the looks the prompt forbids page-wide
(``GlobalLayout.avoid``: "no shadows", "no rounded corners", "no animation", "no gradients").

Public API: :func:`dashboard_columns`, :func:`avoid_rules`.
"""

from __future__ import annotations

from collections.abc import Sequence

from mmstudio.plan import DesignPlan


def dashboard_columns(plan: DesignPlan) -> str:
    """CSS giving a dashboard's two panel columns the page's column ratio ("65 % / 35 %"), or
    "" (the template's equal columns) when the plan has no two-part ratio or is no dashboard.
    The rule holds from 901 px wide; narrower, the template's single column stays."""
    ratio = plan.layout.column_ratio
    dashboard = plan.page_kind == "dashboard" or plan.layout.structure == "sidebar-dashboard"
    if not dashboard or len(ratio) != 2 or min(ratio) <= 0:
        return ""
    columns = f"minmax(0, {ratio[0]}fr) minmax(0, {ratio[1]}fr)"
    return (
        f"\n@media (min-width: 901px) {{ .page-dashboard .main "
        f"{{ grid-template-columns: {columns}; }} }}\n"
    )


#: the CSS that takes each page-wide prohibition out of every element (``GlobalLayout.avoid``)
_AVOID_CSS = {
    "shadow": "box-shadow: none !important; text-shadow: none !important;",
    "gradient": "background-image: none !important;",
    "rounded": "border-radius: 0 !important;",
    "motion": "animation: none !important; transition: none !important;",
}


def avoid_rules(avoid: Sequence[str]) -> str:
    """CSS text that removes the looks the prompt forbids page-wide ("no shadows") from every
    element and pseudo-element, after every other rule; "" when nothing is forbidden. Images
    and videos keep their own pixels: ``background-image`` is only a CSS layer."""
    body = " ".join(_AVOID_CSS[look] for look in avoid if look in _AVOID_CSS)
    if not body:
        return ""
    radius = " --radius: 0; --radius-small: 0;" if "rounded" in avoid else ""
    shadow = " --shadow: none;" if "shadow" in avoid else ""
    root = f":root {{{radius}{shadow} }}\n" if radius or shadow else ""
    rule = f"*, *::before, *::after {{ {body} }}"
    return f"\n/* the prompt forbids: {', '.join(avoid)} */\n{root}{rule}\n"
