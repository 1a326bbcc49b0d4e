"""``mmstudio doctor`` rows for the model endpoint: reachable? models? capabilities? fallbacks?

Each row is ``{name, ok, detail}`` like the other doctor checks. The key is never shown, only
whether one is set. Listing models is one request with the settings' timeout and retries.
"""

from __future__ import annotations

import asyncio

from mmstudio.providers.errors import ProviderError
from mmstudio.providers.openai_compat import OpenAIProvider
from mmstudio.providers.settings import CAPABILITIES, DEFAULT_BASE_URL, ROLES, Settings

_CAPABILITY_OF_ROLE = {"image": "images", "video": "videos"}


def _row(name: str, ok: bool, detail: str) -> dict:
    return {"name": name, "ok": ok, "detail": detail}


def _endpoint_row(settings: Settings) -> dict:
    official = settings.base_url.rstrip("/") == DEFAULT_BASE_URL
    key = "API key set" if settings.api_key else "no API key"
    ok = bool(settings.api_key) or not official
    hint = "" if ok else " (set OPENAI_API_KEY)"
    return _row("endpoint", ok, f"{settings.base_url}, {key}{hint}")


def _model_rows(settings: Settings, listed: list[str]) -> list[dict]:
    rows = []
    for role in ROLES:
        model = getattr(settings.models, role)
        capability = _CAPABILITY_OF_ROLE.get(role)
        if capability and not getattr(settings.capabilities, capability):
            rows.append(_row(f"{role} model", True, f"{model} unused: {role}s are made offline"))
            continue
        found = model in listed or any(name.split(":")[0] == model for name in listed)
        detail = f"{model} listed" if found else f"{model} not listed at {settings.base_url}"
        rows.append(_row(f"{role} model", found, detail))
    return rows


def _fallback_row(settings: Settings) -> dict:
    caps = settings.capabilities
    offline = [role for role, cap in _CAPABILITY_OF_ROLE.items() if not getattr(caps, cap)]
    notes = [f"{', '.join(offline)} made by the offline designer"] if offline else []
    if not caps.vision:
        notes.append("judge reads HTML only (no vision): aesthetics and assets measured only")
    if not caps.structured_outputs:
        notes.append("JSON mode + validation instead of JSON-schema structured outputs")
    return _row("fallbacks", True, "; ".join(notes) or "none: every role uses the endpoint")


async def endpoint_checks_async(settings: Settings) -> list[dict]:
    """The endpoint rows (see module docstring); never raises for an endpoint failure. With
    neither a key nor a custom ``base_url`` there is nothing to check: one row says so."""
    if settings.api_key is None and settings.base_url.rstrip("/") == DEFAULT_BASE_URL:
        detail = (
            "not configured: --provider offline (the default) needs none; for --provider openai "
            "set OPENAI_API_KEY, or OPENAI_BASE_URL for a local server"
        )
        return [_row("model endpoint", True, detail)]
    rows = [_endpoint_row(settings)]
    provider = OpenAIProvider(settings)
    try:
        listed = await provider.list_models()
        rows.append(_row("models", True, f"{len(listed)} listed: {', '.join(listed[:12])}"))
        rows += _model_rows(settings, listed)
    except ProviderError as exc:
        rows.append(_row("models", False, str(exc)))
    finally:
        await provider.aclose()
    declared = [c for c in CAPABILITIES if getattr(settings.capabilities, c)]
    rows.append(_row("capabilities", True, ", ".join(declared) or "none declared"))
    rows.append(_fallback_row(settings))
    return rows


def endpoint_checks(settings: Settings) -> list[dict]:
    """:func:`endpoint_checks_async` run to completion (call it outside any running loop)."""
    return asyncio.run(endpoint_checks_async(settings))
