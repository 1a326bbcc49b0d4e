"""The on-disk project: manifest, plan, site folder, versions and export (see DESIGN.md), and
its :class:`Workspace` — the locks and the one edit transaction every change goes through."""

from mmstudio.project.store import Manifest, Project, ProjectError, check_new_root
from mmstudio.project.workspace import Draft, Workspace

__all__ = ["Draft", "Manifest", "Project", "ProjectError", "Workspace", "check_new_root"]
