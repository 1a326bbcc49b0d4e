"""Keep ``None`` alive under PySide6's lost references (Python < 3.12).

PySide6 6.12 on CPython 3.11 drops one reference to ``None`` each time a Qt call hands ``None``
back to Python: ``QTreeWidgetItem.data()`` of an unset role or of a ``None`` value,
``QModelIndex.data()``, ``QTreeWidget.itemAt()`` / ``currentItem()`` / ``item.parent()`` with
no item, … (measured: 2000 such calls lower ``sys.getrefcount(None)`` by 2000). ``None`` starts
with a few thousand references, so a session that repaints the plan tree's badges (the delegate
reads its roles on every paint, ten times a second while a spinner turns) reaches zero within
minutes and the interpreter aborts ("Fatal Python error: none_dealloc"). CPython 3.12 made
``None`` immortal (PEP 683), which hides the bug there; on 3.11 :func:`guard` raises ``None``'s
reference count by 2**40 once, at import of the GUI package, before any Qt object exists, so the
lost references never reach zero. Nothing else changes; a later PySide6 that counts correctly
only leaves the margin unused.
"""

from __future__ import annotations

import ctypes
import sys

MARGIN = 1 << 40


def guard() -> bool:
    """Raise ``None``'s reference count by :data:`MARGIN` (CPython < 3.12 only, once); returns
    whether it did."""
    if sys.version_info >= (3, 12) or sys.implementation.name != "cpython":
        return False
    if getattr(sys, "_mmstudio_none_guard", False):
        return False
    count = ctypes.c_ssize_t.from_address(id(None))  # ob_refcnt, the object's first field
    count.value += MARGIN
    sys._mmstudio_none_guard = True  # type: ignore[attr-defined]
    return True
