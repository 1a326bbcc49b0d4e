"""The base of every probe shape: camelCase in JavaScript, snake_case here; a page-px box."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class _Probe(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore")


class Box(_Probe):
    """A rectangle in page px."""

    x: float = 0
    y: float = 0
    w: float = 0
    h: float = 0

    @property
    def area(self) -> float:
        return max(0.0, self.w) * max(0.0, self.h)
