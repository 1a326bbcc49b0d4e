"""The attribution an exported site carries: ``CREDITS.txt`` names every open-licensed icon set
whose drawings the project's pictures use (title, author, licence and its URL), as their
licences ask (OpenMoji CC BY-SA 4.0 and Game Icons CC BY 3.0 require it)."""

from __future__ import annotations

import logging

from mmstudio.project import Project

log = logging.getLogger(__name__)


def export_extras(project: Project) -> dict[str, bytes]:
    """``{"CREDITS.txt": …}`` for ``project``'s export, or ``{}`` when no picture of its plan
    records a motif (a model's pictures, abstract art, no plan)."""
    from mmstudio.providers.offline.motifs import credits

    try:
        plan = project.read_plan() if project.plan_path.exists() else None
    except (OSError, ValueError) as exc:  # a damaged plan.json: export the site without credits
        log.warning("no CREDITS.txt: plan.json cannot be read: %s", exc)
        return {}
    lines = credits(plan) if plan is not None else []
    if not lines:
        return {}
    text = "Pictures on this site are drawn with icons from:\n" + "".join(
        f"- {line}\n" for line in lines
    )
    return {"CREDITS.txt": text.encode("utf-8")}
