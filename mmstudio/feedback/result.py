"""What one feedback turn did (:class:`TurnResult`): the CLI's JSON, the app's turn view and the
ledger's one-line summary."""

from __future__ import annotations

from dataclasses import dataclass, field

from .ledger import Verdict
from .requirements import Requirement


@dataclass
class TurnResult:
    """What a turn did: its number, the words sent with the image, the marks (one line each),
    its requirements, the final verdicts on every active requirement, forgetting events
    ({requirement, detail, repaired}), the operations that could not be applied, the clauses no
    rule understood ("t3.r2: xyzzy the footer"; unchecked without a judge), what the model
    refiners applied ("t3.r1: context refine of `hero_image` — …"), notes (a model split that
    fell back to the rules), the version."""

    turn: int
    words: str
    marks: list[str]
    requirements: list[Requirement]
    verdicts: list[Verdict]
    forgetting: list[dict] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    not_understood: list[str] = field(default_factory=list)
    repaired: list[str] = field(default_factory=list)
    by_model: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    route: str = "global"
    version: str | None = None
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def failing(self) -> list[Verdict]:
        """Verdicts that still fail after the repair pass (the version is committed anyway)."""
        return [v for v in self.verdicts if v.passed is False]

    @property
    def unapplied(self) -> list[str]:
        """Ids of this turn's requirements that were not applied (an operation or a model call
        failed, or nothing could apply them) and do not pass on the final page either."""
        passed = {v.requirement for v in self.verdicts if v.passed is True}
        ids = dict.fromkeys(line.split(":", 1)[0].split(" ", 1)[0] for line in self.not_applied)
        return [i for i in ids if i not in passed]

    @property
    def status(self) -> str:
        """ "failing" (some checked requirement still fails), "not applied" (none fails, but a
        requirement of the turn was not applied and does not pass — e.g. the model call that
        was to apply it failed, and nothing could check it) or "ok"."""
        if self.failing:
            return "failing"
        return "not applied" if self.unapplied else "ok"

    def as_dict(self) -> dict:
        return {
            "turn": self.turn,
            "status": self.status,
            "route": self.route,
            "version": self.version,
            "words": self.words,
            "marks": self.marks,
            "requirements": [r.model_dump(exclude_defaults=True) for r in self.requirements],
            "verdicts": [v.__dict__ for v in self.verdicts],
            "passed": sum(v.passed is True for v in self.verdicts),
            "failed": sum(v.passed is False for v in self.verdicts),
            "failing": [v.__dict__ for v in self.failing],
            "unapplied": self.unapplied,
            "forgetting": self.forgetting,
            "repaired": self.repaired,
            "not_applied": self.not_applied,
            "not_understood": self.not_understood,
            "by_model": self.by_model,
            "notes": self.notes,
            "timings": self.timings,
        }

    def summary(self) -> str:
        """One line for the turn's ledger row."""
        passed = sum(v.passed is True for v in self.verdicts)
        summary = (
            f"{len(self.requirements)} requirement(s); {passed}/{len(self.verdicts)} pass; "
            f"{len(self.forgetting)} forgetting event(s)"
        )
        if self.unapplied:
            summary += f"; {len(self.unapplied)} not applied"
        if self.not_understood:
            summary += f"; {len(self.not_understood)} not understood"
        return summary
