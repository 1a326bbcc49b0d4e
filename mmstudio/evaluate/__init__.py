"""Evaluation: measured checks on a rendered page → the six-dimension
:class:`~mmstudio.report.Report`, with every issue routed to a reflection level (local / context
/ global; MM-WebAgent §3.4).

Public API: :func:`evaluate` (async; render + check + score one page) and :func:`resolve_target`
(project folder, site folder or HTML file → site folder, page, plan)."""

from .core import build_report, evaluate, resolve_target
from .table import CHECKS, Check

__all__ = ["CHECKS", "Check", "build_report", "evaluate", "resolve_target"]
