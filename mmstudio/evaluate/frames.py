"""Chart frames the render could not read, so that their charts are judged unchecked, not absent.

Under load the renderer's page-load limit can expire while a chart frame is still starting its
ECharts instance; the renderer then interrupts the page's scripts (``Render.script_timeouts``,
stage ``load``), and that frame is left with ECharts loaded but no instance. A visitor would see
the chart, so its requirements are unchecked on this render, never failed.
"""

from __future__ import annotations

from mmstudio.render import Render
from mmstudio.render.facts import PageFacts


def unread_chart_frames(render: Render) -> list[str]:
    """Ids of the page's chart frames (``iframe`` media) holding no ECharts instance, when the
    render interrupted the page's scripts; [] otherwise (a frame that simply draws no chart is
    a defect of the page)."""
    facts, probe = render.facts, render.probe
    if facts is None or probe is None or not render.script_timeouts:
        return []
    owners = {c.owner for c in facts.charts}
    frames = [m.id for m in probe.media if m.tag == "iframe" and m.id]
    unread = [f for f in frames if f not in owners]
    return unread[: max(0, len(frames) - len(facts.charts))]


def checkable_facts(render: Render) -> PageFacts | None:
    """The render's page facts for the requirement checks, with ``widgets["unread_charts"]``
    (see :func:`unread_chart_frames`) when some chart frame could not be read; the render's
    own facts are left as they are."""
    facts = render.facts
    unread = unread_chart_frames(render)
    if facts is None or not unread:
        return facts
    return facts.model_copy(update={"widgets": {**facts.widgets, "unread_charts": unread}})
