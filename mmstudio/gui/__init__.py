"""The desktop app (PySide6 + qasync): the ONLY package that imports Qt."""

from mmstudio.gui.none_guard import guard as _guard_none

_guard_none()  # before any Qt call can hand None back (see mmstudio.gui.none_guard)
