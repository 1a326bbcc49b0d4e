"""Model lifecycles as the installed ``openai`` SDK states them: deprecated, shut down, retired.

The SDK ships its deprecation notes as text: the "Deprecated values:" block under the
``ChatModel`` and ``ImageModel`` type aliases (``- "gpt-image-1": GPT Image 1 was shut down on
October 23, 2026. Use …``) and ``@deprecated("The Sora API is scheduled to permanently shut down
on September 24, 2026.")`` on every ``videos`` method. :func:`lifecycle` reads them once and says,
for a model name and a day, whether it is ``current``, ``deprecated`` (a shutdown is announced
for a later day) or ``retired`` (the day has passed). These notes are about OpenAI's own API:
callers apply them to ``api.openai.com`` only; a local server's ``sora-2`` is whatever it is.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_MONTHS = {m: i for i, m in enumerate(
    ("january", "february", "march", "april", "may", "june", "july", "august", "september",
     "october", "november", "december"), start=1)}  # fmt: skip
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_WORDS = re.compile(r"\b([A-Z][a-z]+) (\d{1,2}), (\d{4})\b")
_ENTRY = re.compile(r'^- ((?:"[^"]+",?\s*)+):\s*(.*)$')
_SUCCESSOR = re.compile(r"\b(?:gpt|sora|o\d)[\w.-]*[\w]", re.IGNORECASE)


@dataclass(frozen=True)
class Lifecycle:
    """A model's state on a day: ``state`` (current | deprecated | retired), the announced
    ``shutdown`` date (or None), the SDK's ``note`` and the ``successors`` it names."""

    model: str
    state: str = "current"
    shutdown: dt.date | None = None
    note: str = ""
    successors: tuple[str, ...] = ()

    def describe(self) -> str:
        """One line for doctor and notices ("" for a current model without a note)."""
        if self.state == "current":
            return ""
        when = self.shutdown.isoformat() if self.shutdown else "a date not given"
        verb = "shut down on" if self.state == "retired" else "shuts down on"
        use = f"; use {' or '.join(self.successors)}" if self.successors else ""
        return f"{self.model} {verb} {when} (openai SDK){use}"


def parse_date(text: str) -> dt.date | None:
    """The first date in ``text`` (``2026-10-23`` or ``October 23, 2026``), or None."""
    iso = _ISO.search(text)
    words = _WORDS.search(text)
    if iso and (not words or iso.start() < words.start()):
        return dt.date(int(iso[1]), int(iso[2]), int(iso[3]))
    if words and words[1].lower() in _MONTHS:
        return dt.date(int(words[3]), _MONTHS[words[1].lower()], int(words[2]))
    return None


def parse_notes(source: str) -> dict[str, tuple[str, dt.date | None]]:
    """{model: (note, date)} from the "Deprecated values:" docstring blocks in ``source``."""
    notes: dict[str, tuple[str, dt.date | None]] = {}
    for block in re.findall(r'"""Deprecated values:\n(.*?)"""', source, re.DOTALL):
        entries: list[list[str]] = []
        for line in block.splitlines():
            stripped = line.strip()
            if stripped.startswith("- "):
                entries.append([stripped])
            elif entries and stripped:
                entries[-1].append(stripped)
        for entry in entries:
            match = _ENTRY.match(" ".join(entry))
            if not match:
                continue
            note = match[2].strip()
            for name in re.findall(r'"([^"]+)"', match[1]):
                notes[name] = (note, parse_date(note))
    return notes


def _sdk_file(module: str) -> str:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        return ""
    try:
        return Path(spec.origin).read_text(encoding="utf-8")
    except OSError:
        return ""


@cache
def sdk_notes() -> dict[str, tuple[str, dt.date | None]]:
    """{model: (note, date)} from the installed SDK's chat and image model notes."""
    notes: dict[str, tuple[str, dt.date | None]] = {}
    for module in ("openai.types.shared.chat_model", "openai.types.image_model"):
        notes.update(parse_notes(_sdk_file(module)))
    return notes


@cache
def video_api_note() -> tuple[str, dt.date | None]:
    """The SDK's deprecation message on ``videos.create`` and its date (("", None) if none)."""
    try:
        from openai.resources.videos import AsyncVideos
    except ImportError:
        return "", None
    note = str(getattr(AsyncVideos.create, "__deprecated__", "") or "")
    return note, parse_date(note)


def lifecycle(model: str, role: str = "", today: dt.date | None = None) -> Lifecycle:
    """``model``'s state on ``today`` (default: the local date) by the SDK's notes; a ``video``
    role model also carries the videos API's own shutdown."""
    today = today or dt.date.today()
    note, date = sdk_notes().get(model, ("", None))
    if role == "video" and not note:
        note, date = video_api_note()
    if not note:
        return Lifecycle(model)
    gone = any(word in note.lower() for word in ("was shut down", "was retired", "not a supported"))
    state = "retired" if gone or (date is not None and date <= today) else "deprecated"
    after = note.split("Use ", 1)[1] if "Use " in note else ""
    successors = tuple(dict.fromkeys(_SUCCESSOR.findall(after)))
    return Lifecycle(model, state, date, note, successors)
