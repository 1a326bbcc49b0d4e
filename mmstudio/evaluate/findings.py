"""Collect measured findings as :class:`~mmstudio.report.Issue` objects with stable ids."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from mmstudio.report import Issue, Severity

from .table import ELEMENT, check

Kind = Literal["image", "video", "chart"]


@dataclass
class Element:
    """An image, video or chart being scored: planned (``planned``) or discovered on the page.

    ``probe`` is its :class:`~mmstudio.render.model.MediaProbe` (None when it is not on the
    page)."""

    id: str
    kind: Kind
    path: str = ""
    planned: bool = False
    probe: Any = None
    issues: list[Issue] = field(default_factory=list)


class Findings:
    """Issues in the order found; ids are ``<code>@<element or page>`` (``-2``, ``-3``… when a
    check fires twice on one target), so a re-evaluation gives the same ids."""

    def __init__(self, elements: dict[str, Element]) -> None:
        self.elements = elements
        self.issues: list[Issue] = []
        self._ids: set[str] = set()

    def add(
        self,
        code: str,
        message: str,
        element: str | None = None,
        severity: Severity | None = None,
        **evidence: Any,
    ) -> Issue:
        """Record one finding of check ``code`` (see :data:`~.table.CHECKS`)."""
        row = check(code)
        dimension = row.dimension
        owner = self.elements.get(element) if element else None
        if dimension == ELEMENT:
            dimension = owner.kind if owner else "layout"
        issue = Issue(
            id=self._id(code, element),
            element=element,
            dimension=dimension,
            level=row.level,
            severity=severity or row.severity,
            code=code,
            message=message,
            evidence={k: v for k, v in evidence.items() if v is not None},
        )
        self.issues.append(issue)
        if owner is not None:
            owner.issues.append(issue)
        return issue

    def _id(self, code: str, element: str | None) -> str:
        base = f"{code}@{element or 'page'}"
        candidate, n = base, 2
        while candidate in self._ids:
            candidate, n = f"{base}-{n}", n + 1
        self._ids.add(candidate)
        return candidate
