"""The on-disk project: manifest, plan, site folder, versions and export (see DESIGN.md)."""

from mmstudio.project.store import Manifest, Project, ProjectError, check_new_root

__all__ = ["Manifest", "Project", "ProjectError", "check_new_root"]
