"""Provider settings: endpoint, key, models per role, capabilities, timeouts and retries.

Sources, later ones winning: defaults → the user config file (TOML, ``config.toml`` in the
platform config dir from :mod:`platformdirs`, or the file named by ``MMSTUDIO_CONFIG``) →
environment (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``MMSTUDIO_*``) → command-line flags.

Config file shape::

    base_url = "http://127.0.0.1:8000/v1"   # any OpenAI-compatible server
    api_key = "sk-…"                         # better: the OPENAI_API_KEY variable
    [models]
    planner = "gpt-5.5"
    [capabilities]
    videos = false

The key is a :class:`pydantic.SecretStr`: it prints as ``**********``, and :meth:`Settings.public`
(the only form written to projects, logs, reports and exports) leaves it out.
"""

from __future__ import annotations

import argparse
import logging
import os
import tomllib
from pathlib import Path
from typing import Any

import platformdirs
import tomli_w
from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from mmstudio.project.errors import InputError

log = logging.getLogger(__name__)

ROLES = ("planner", "coder", "judge", "image", "video")
CAPABILITIES = ("structured_outputs", "vision", "images", "image_edits", "videos", "streaming")
DEFAULT_BASE_URL = "https://api.openai.com/v1"


# Defaults that exist today by the installed openai SDK (3.57): gpt-5.1 has an announced shutdown
# (2027-04-01) and gpt-image-1 was shut down on 2026-10-23 (the SDK names gpt-image-2.5-sunburst
# as its successor). The Sora videos API was shut down on 2026-09-24: on api.openai.com videos
# are made by the offline maker (see mmstudio.providers.lifecycle); sora-2 stays the name sent
# to an OpenAI-compatible server that still serves /videos.
DEFAULT_CHAT_MODEL = "gpt-5.5"
DEFAULT_IMAGE_MODEL = "gpt-image-2.5-sunburst"
DEFAULT_VIDEO_MODEL = "sora-2"


class ModelNames(BaseModel):
    """The model name per role (MM-WebAgent agents): planner, coder (layout), judge, image,
    video. The model refiners use the coder's name, the feedback turn splitter the judge's
    (:class:`mmstudio.providers.models.Models`)."""

    model_config = ConfigDict(extra="forbid")
    planner: str = DEFAULT_CHAT_MODEL
    coder: str = DEFAULT_CHAT_MODEL
    judge: str = DEFAULT_CHAT_MODEL
    image: str = DEFAULT_IMAGE_MODEL
    video: str = DEFAULT_VIDEO_MODEL


class Capabilities(BaseModel):
    """What the endpoint can do. A role whose capability is off falls back to the offline designer
    (images, videos), to JSON mode (structured_outputs) or to a text-only judge (vision)."""

    model_config = ConfigDict(extra="forbid")
    structured_outputs: bool = True
    vision: bool = True
    images: bool = True
    image_edits: bool = True  # images.edit: a local image refine edits the current image
    videos: bool = True
    streaming: bool = True


class Settings(BaseModel):
    """Everything a provider needs. Times in seconds."""

    model_config = ConfigDict(extra="forbid")
    base_url: str = DEFAULT_BASE_URL
    api_key: SecretStr | None = None
    models: ModelNames = Field(default_factory=ModelNames)
    capabilities: Capabilities = Field(default_factory=Capabilities)
    timeout_s: float = Field(default=300.0, gt=0)
    stream_deadline_s: float = Field(default=900.0, gt=0)
    image_timeout_s: float = Field(default=300.0, gt=0)
    max_retries: int = Field(default=4, ge=0, le=20)
    backoff_base_s: float = Field(default=1.0, ge=0)
    backoff_max_s: float = Field(default=30.0, ge=0)
    retry_after_max_s: float = Field(default=120.0, ge=0)
    video_poll_s: float = Field(default=5.0, gt=0)
    video_deadline_s: float = Field(default=900.0, gt=0)
    concurrency: int = Field(default=4, ge=1, le=64)

    def key(self) -> str | None:
        """The API key in clear, for the HTTP client only."""
        return self.api_key.get_secret_value() if self.api_key else None

    def public(self) -> dict[str, Any]:
        """The settings without the key (what may be written to a project, log or export)."""
        data = self.model_dump(mode="json", exclude={"api_key"})
        data["api_key_set"] = self.api_key is not None
        return data


def config_path() -> Path:
    """The user config file: ``$MMSTUDIO_CONFIG`` or ``<platform config dir>/config.toml``."""
    override = os.environ.get("MMSTUDIO_CONFIG")
    if override:
        return Path(override).expanduser()
    return Path(platformdirs.user_config_dir("mmstudio", appauthor=False)) / "config.toml"


def _file_values(path: Path) -> dict[str, Any]:
    """The config file as a dict ({} when absent); raises SettingsError (a ValueError) naming
    a damaged or unreadable file."""
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SettingsError(f"config file {path} is not valid TOML: {exc}") from None
    except OSError as exc:
        reason = (exc.strerror or type(exc).__name__).lower()
        raise SettingsError(f"cannot read the config file {path}: {reason}") from None


class SettingsError(InputError):
    """A provider setting is invalid or the config file cannot be read (one line)."""


_ENV_SCALARS = {
    "MMSTUDIO_TIMEOUT": "timeout_s",
    "MMSTUDIO_IMAGE_TIMEOUT": "image_timeout_s",
    "MMSTUDIO_STREAM_DEADLINE": "stream_deadline_s",
    "MMSTUDIO_MAX_RETRIES": "max_retries",
    "MMSTUDIO_BACKOFF_BASE": "backoff_base_s",
    "MMSTUDIO_BACKOFF_MAX": "backoff_max_s",
    "MMSTUDIO_RETRY_AFTER_MAX": "retry_after_max_s",
    "MMSTUDIO_VIDEO_POLL": "video_poll_s",
    "MMSTUDIO_VIDEO_DEADLINE": "video_deadline_s",
    "MMSTUDIO_CONCURRENCY": "concurrency",
}


def _env_values(env: dict[str, str]) -> dict[str, Any]:
    """Overrides from ``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``MMSTUDIO_BASE_URL``,
    ``MMSTUDIO_<ROLE>_MODEL``, ``MMSTUDIO_DISABLE`` (comma list of capabilities) and the
    scalar ``MMSTUDIO_*`` variables in ``_ENV_SCALARS``."""
    values: dict[str, Any] = {"models": {}, "capabilities": {}}
    if env.get("OPENAI_API_KEY"):
        values["api_key"] = env["OPENAI_API_KEY"]
    base_url = env.get("MMSTUDIO_BASE_URL") or env.get("OPENAI_BASE_URL")
    if base_url:
        values["base_url"] = base_url
    for role in ROLES:
        if env.get(f"MMSTUDIO_{role.upper()}_MODEL"):
            values["models"][role] = env[f"MMSTUDIO_{role.upper()}_MODEL"]
    for name in _split(env.get("MMSTUDIO_DISABLE", "")):
        values["capabilities"][name] = False
    for var, key in _ENV_SCALARS.items():
        if env.get(var):
            values[key] = env[var]
    return values


def _split(text: str) -> list[str]:
    return [part.strip().replace("-", "_") for part in text.split(",") if part.strip()]


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def load_settings(
    overrides: dict[str, Any] | None = None, *, env: dict[str, str] | None = None
) -> Settings:
    """Settings from the config file, the environment (``env``, default ``os.environ``) and
    ``overrides`` (same shape as :class:`Settings`). Raises SettingsError (a ValueError, one
    line) when a value is invalid or the config file is damaged."""
    env = dict(os.environ if env is None else env)
    values = _merge(_file_values(config_path()), _env_values(env))
    values = _merge(values, overrides or {})
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise SettingsError(f"provider setting {where}: {first['msg']}") from None


_SAVED = ("base_url", "models", "capabilities", "timeout_s", "max_retries", "concurrency")


def save_config(settings: Settings, path: Path | None = None) -> Path:
    """Write the endpoint part of ``settings`` (base URL, models, capabilities, timeout, retries,
    concurrency) to the config file atomically; the API key is never written (it stays in
    ``OPENAI_API_KEY``). Returns the path written."""
    from mmstudio.project import atomic

    target = path or config_path()
    data = settings.model_dump(mode="json", include=set(_SAVED))
    atomic.write_text(target, tomli_w.dumps(data))
    return target


def add_provider_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the provider flags (``--base-url``, ``--<role>-model``, ``--disable``, ``--timeout``,
    ``--max-retries``) to ``parser``. There is deliberately no ``--api-key`` flag: a key on a
    command line lands in shell history and process lists; use ``OPENAI_API_KEY``."""
    group = parser.add_argument_group("model provider (OpenAI-compatible endpoint)")
    group.add_argument(
        "--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1"
    )
    for role in ROLES:
        group.add_argument(f"--{role}-model", metavar="NAME", help=f"model for the {role} role")
    group.add_argument(
        "--disable",
        action="append",
        choices=[c.replace("_", "-") for c in CAPABILITIES],
        metavar="CAPABILITY",
        help="treat the endpoint as lacking a capability (repeatable): "
        + ", ".join(c.replace("_", "-") for c in CAPABILITIES),
    )
    group.add_argument("--timeout", type=float, metavar="S", help="seconds per request")
    group.add_argument("--max-retries", type=int, metavar="N", help="retries of a failed request")


def settings_from_args(args: argparse.Namespace) -> Settings:
    """:func:`load_settings` with the flags of :func:`add_provider_arguments` applied last."""
    overrides: dict[str, Any] = {"models": {}, "capabilities": {}}
    if getattr(args, "base_url", None):
        overrides["base_url"] = args.base_url
    for role in ROLES:
        if getattr(args, f"{role}_model", None):
            overrides["models"][role] = getattr(args, f"{role}_model")
    for name in getattr(args, "disable", None) or []:
        overrides["capabilities"][name.replace("-", "_")] = False
    if getattr(args, "timeout", None) is not None:
        overrides["timeout_s"] = args.timeout
    if getattr(args, "max_retries", None) is not None:
        overrides["max_retries"] = args.max_retries
    return load_settings(overrides)
