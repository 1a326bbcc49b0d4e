"""The app shows what the session noted (issue 17): an asset the offline maker made instead of
the model, a model not used for the project — as warning notices (and in the Log), each once."""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QTWEBENGINE_DISABLE_SANDBOX", "1")
pytest.importorskip("PySide6.QtWebEngineWidgets")  # must be imported before the QApplication

from mmstudio.gui.site_scheme import register_scheme
from mmstudio.project import Project
from mmstudio.studio.jobs import Job

register_scheme()  # before pytest-qt creates the QApplication
pytestmark = pytest.mark.usefixtures("own_settings")

REFUSED = "image photo-4: made by the offline maker: the safety system refused it"
GONE = "video pour-loop: made by the offline maker: /v1/videos is gone"


def shown(window) -> dict[str, str]:
    """Each notice's one line (without its mark) → its severity."""
    return {n.message.text().split("  ", 1)[-1]: n.severity for n in window.notifications.notices}


def test_a_finished_generation_shows_the_sessions_notices_once(qtbot, tmp_path):
    from mmstudio.gui.main_window import MainWindow

    window = MainWindow()
    qtbot.addWidget(window)
    window.session.notices.extend([REFUSED, GONE])
    project = Project.create(tmp_path / "p", prompt="test", provider="offline", title="T")
    window.job_finished.emit(Job(id="job-1", kind="generate", state="done", result=project))
    notices = shown(window)
    assert notices[REFUSED] == "warning" and notices[GONE] == "warning"
    assert notices["p is ready"] == "info"
    assert window.session.notices == []
    window.job_finished.emit(Job(id="job-2", kind="generate", state="done", result=project))
    assert sum(REFUSED in n.message.text() for n in window.notifications.notices) == 1


def test_opening_a_model_project_whose_settings_cannot_be_read_says_so(
    qtbot, tmp_path, monkeypatch
):
    from mmstudio.gui.main_window import MainWindow

    monkeypatch.setenv("MMSTUDIO_TIMEOUT", "not a number")
    project = Project.create(tmp_path / "p", prompt="test", provider="openai", title="T")
    window = MainWindow()
    qtbot.addWidget(window)
    window.open_project(project.root)
    warnings = [line for line, severity in shown(window).items() if severity == "warning"]
    assert any(line.startswith("the model is not used for this project") for line in warnings)
    assert window.session.models is None and window.session.notices == []
    window.session.close()
