"""Loading Qt Designer forms from ``ui/`` (``new_project.ui``, ``settings.ui``) with QUiLoader.

A form's top-level widget is a plain QWidget; the dialog class that owns it puts it in its own
layout and looks its named children up with :func:`child`, so the behaviour stays in Python and
the arrangement stays editable in Designer.
"""

from __future__ import annotations

from typing import TypeVar

from PySide6.QtCore import QFile, QIODevice, QObject
from PySide6.QtUiTools import QUiLoader
from PySide6.QtWidgets import QWidget

from mmstudio.resources import data_dir

W = TypeVar("W", bound=QObject)


class FormError(RuntimeError):
    """A .ui form is missing, unreadable, or lacks a widget the code needs."""


def load_form(name: str, parent: QWidget | None = None) -> QWidget:
    """The widget tree of ``ui/<name>`` (e.g. "settings.ui"), parented to ``parent``; raises
    FormError with the path when it cannot be read."""
    path = data_dir("ui") / name
    file = QFile(str(path))
    if not file.open(QIODevice.OpenModeFlag.ReadOnly):
        raise FormError(f"cannot read the form {path}")
    try:
        loader = QUiLoader()
        widget = loader.load(file, parent)
    finally:
        file.close()
    if widget is None:
        raise FormError(f"{path} is not a valid form: {loader.errorString()}")
    return widget


def child(form: QWidget, kind: type[W], name: str) -> W:
    """The child ``name`` of ``form``, of type ``kind``; raises FormError when absent."""
    found = form.findChild(kind, name)
    if found is None:
        raise FormError(f"the form {form.objectName()} has no {kind.__name__} named {name!r}")
    return found
