"""``mmstudio doctor`` rows for the model endpoint: reachable? models? lifecycles? fallbacks?

Each row is ``{name, ok, detail}`` like the other doctor checks. The key is never shown, only
whether one is set. Listing models is one request with the settings' timeout and retries; a
``/models`` reply of the wrong shape, a base URL without ``/v1`` or a dead endpoint is a failed
row with one line, never a traceback. Per role the rows say which model will be used, or that
the offline maker stands in and why, and what the installed ``openai`` SDK says of the model's
lifecycle (deprecated with a shutdown date, or shut down) on api.openai.com, or the endpoint's
own ``shutdown_date`` where its ``/models`` gives one.
"""

from __future__ import annotations

import asyncio
import datetime as dt

from mmstudio.providers.errors import ProviderError
from mmstudio.providers.models import Models, RoleModel, official
from mmstudio.providers.openai_compat import OpenAIProvider
from mmstudio.providers.settings import CAPABILITIES, DEFAULT_BASE_URL, Settings

_ROLES = ("planner", "coder", "judge", "image", "video")
_OFFLINE = {"image": "images", "video": "videos"}


def _row(name: str, ok: bool, detail: str) -> dict:
    return {"name": name, "ok": ok, "detail": detail}


def _endpoint_row(settings: Settings) -> dict:
    key = "API key set" if settings.api_key else "no API key"
    ok = bool(settings.api_key) or not official(settings)
    hint = "" if ok else " (set OPENAI_API_KEY)"
    return _row("endpoint", ok, f"{settings.base_url}, {key}{hint}")


def _listed(model: str, catalog: list[dict]) -> dict | None:
    for entry in catalog:
        name = entry["id"]
        if name == model or name.split(":")[0] == model or name.rsplit("/", 1)[-1] == model:
            return entry
    return None


def _model_row(model: RoleModel, settings: Settings, catalog: list[dict], today: dt.date) -> dict:
    role, name = model.role, model.name
    if model.retired:
        instead = f"; {role}s are made offline until then" if role in _OFFLINE else ""
        detail = f"{model.reason}: pick another with --{role}-model{instead}"
        return _row(f"{role} model", False, detail)
    if not model.available and role in _OFFLINE:
        detail = f"{name} unused: {model.reason}; {role}s are made offline"
        return _row(f"{role} model", True, detail)
    entry = _listed(name, catalog)
    if entry is None:
        return _row(f"{role} model", False, f"{name} not listed at {settings.base_url}")
    detail = f"{name} listed"
    if role == "image":
        edits = "edited in place (images.edit)" if model.can("image_edits") else "made again"
        detail += f"; images a local refine fixes are {edits}"
    shutdown = entry.get("shutdown_date")
    if model.lifecycle.state == "deprecated":
        return _row(f"{role} model", True, f"{detail}; {model.lifecycle.describe()}")
    if shutdown:
        gone = shutdown <= today.isoformat()
        verb = "shut down on" if gone else "shuts down on"
        return _row(f"{role} model", not gone, f"{detail}; the endpoint says it {verb} {shutdown}")
    return _row(f"{role} model", True, detail)


def _fallback_row(models: Models) -> dict:
    caps = models.settings.capabilities
    offline = [role for role in _OFFLINE if not models[role].available]
    notes = [f"{', '.join(offline)} made by the offline designer"] if offline else []
    if not caps.vision:
        notes.append("judge reads HTML only (no vision): aesthetics and assets measured only")
    rung = models.structured_rung()
    if rung == "json_object":
        notes.append("JSON mode + validation instead of JSON-schema structured outputs")
    elif rung == "text":
        notes.append("plain replies parsed and validated (the endpoint takes no response_format)")
    return _row("fallbacks", True, "; ".join(notes) or "none: every role uses the endpoint")


async def endpoint_checks_async(settings: Settings, *, today: dt.date | None = None) -> list[dict]:
    """The endpoint rows (see module docstring); never raises for an endpoint failure. With
    neither a key nor a custom ``base_url`` there is nothing to check: one row says so."""
    today = today or dt.date.today()
    if settings.api_key is None and settings.base_url.rstrip("/") == DEFAULT_BASE_URL:
        detail = (
            "not configured: --provider offline (the default) needs none; for --provider openai "
            "set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server"
        )
        return [_row("model endpoint", True, detail)]
    rows = [_endpoint_row(settings)]
    models = Models(settings, OpenAIProvider(settings), today=today)
    try:
        catalog = await models.provider.model_catalog()
        names = [entry["id"] for entry in catalog]
        rows.append(_row("models", True, f"{len(names)} listed: {', '.join(names[:12])}"))
        rows += [_model_row(models[role], settings, catalog, today) for role in _ROLES]
    except ProviderError as exc:
        rows.append(_row("models", False, str(exc)))
    finally:
        await models.aclose()
    declared = [c for c in CAPABILITIES if getattr(settings.capabilities, c)]
    rows.append(_row("capabilities", True, ", ".join(declared) or "none declared"))
    rows.append(_fallback_row(models))
    return rows


def endpoint_checks(settings: Settings) -> list[dict]:
    """:func:`endpoint_checks_async` run to completion (call it outside any running loop)."""
    return asyncio.run(endpoint_checks_async(settings))
