"""Serving a site folder to QtWebEngine under the ``mmsite://site/…`` scheme, and nothing else.

The preview may read files inside the current site folder only: the scheme handler resolves each
request inside that folder and fails anything outside it or missing; the request interceptor
blocks every other scheme (http, https, file, ws, …) so a page can reach no network and no disk;
:func:`lock_down_chromium` closes what the interceptor never sees (WebRTC).
"""

from __future__ import annotations

import mimetypes
import os
from pathlib import Path

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QUrl
from PySide6.QtWebEngineCore import (
    QWebEngineUrlRequestInfo,
    QWebEngineUrlRequestInterceptor,
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
)

SCHEME = b"mmsite"
HOST = "site"
_ALLOWED_SCHEMES = {SCHEME.decode(), "data", "blob", "about"}
mimetypes.add_type("video/webm", ".webm")
mimetypes.add_type("image/webp", ".webp")


def lock_down_chromium() -> list[str]:
    """The QApplication arguments that start QtWebEngine's Chromium with the renderer's network
    lockdown flags (the interceptor never sees WebRTC, which otherwise sends UDP to any host a
    page names, nor name resolution): ``["--webEngineArgs", flag, …]``, to append to the argv of
    the QApplication (create it after this call).

    The flags travel as arguments, not in ``QTWEBENGINE_CHROMIUM_FLAGS``: QtWebEngine splits that
    variable at spaces ("--host-resolver-rules=MAP * ~NOTFOUND" would break) and, when it is set,
    ignores ``--webEngineArgs``. A value the user set there is moved into the arguments."""
    from mmstudio.render.browser import NETWORK_LOCKDOWN_ARGS

    user = os.environ.pop("QTWEBENGINE_CHROMIUM_FLAGS", "").split()
    return ["--webEngineArgs", *user, *(arg for arg in NETWORK_LOCKDOWN_ARGS if arg not in user)]


def register_scheme() -> None:
    """Declare the scheme to QtWebEngine; must run before the QApplication is created."""
    scheme = QWebEngineUrlScheme(SCHEME)
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    scheme.setFlags(
        QWebEngineUrlScheme.Flag.SecureScheme
        | QWebEngineUrlScheme.Flag.LocalAccessAllowed
        | QWebEngineUrlScheme.Flag.CorsEnabled
    )
    QWebEngineUrlScheme.registerScheme(scheme)


def site_url(page: str = "index.html") -> QUrl:
    """The preview URL of ``page`` (site-relative)."""
    return QUrl(f"{SCHEME.decode()}://{HOST}/{page}")


class SiteSchemeHandler(QWebEngineUrlSchemeHandler):
    """Answers ``mmsite://site/<path>`` with the file at ``<site_dir>/<path>``."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.site_dir: Path | None = None

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:
        path = self.resolve(job.requestUrl().path())
        if path is None:
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        buffer = QBuffer(job)
        buffer.setData(QByteArray(path.read_bytes()))
        buffer.open(QIODevice.OpenModeFlag.ReadOnly)
        mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        job.reply(mime.encode(), buffer)

    def resolve(self, url_path: str) -> Path | None:
        """The file inside the site folder for ``url_path``, or None (outside, missing, none)."""
        if self.site_dir is None:
            return None
        root = self.site_dir.resolve()
        target = (root / url_path.lstrip("/")).resolve()
        if not target.is_relative_to(root) or not target.is_file():
            return None
        return target


class NetworkBlocker(QWebEngineUrlRequestInterceptor):
    """Blocks every request that is not for the site scheme (or data:/blob:) and counts them."""

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.blocked: list[str] = []

    def interceptRequest(self, info: QWebEngineUrlRequestInfo) -> None:
        url = info.requestUrl()
        if url.scheme() not in _ALLOWED_SCHEMES:
            self.blocked.append(url.toString())
            info.block(True)
