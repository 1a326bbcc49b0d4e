"""Provider errors, classified once, in one table (retryable? what should the user do?).

Every exception a provider call can raise — the ``openai`` SDK's (3.x: ``RateLimitError``,
``InternalServerError``, ``APITimeoutError``, ``APIConnectionError``, status errors), a plain
``json.JSONDecodeError`` for a malformed body, and our own :class:`ResponseShapeError` for a
well-formed body of the wrong shape (``choices`` None) — becomes one :class:`ProviderError` with a
one-line message, ``retryable`` and ``retry_after`` (s, from the server's ``Retry-After``).

``ProviderError`` is a :class:`~mmstudio.providers.base.DesignerError`, so the CLI prints it as
one line and the pipeline's "complete site or nothing" rule applies.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from urllib.parse import urlsplit

import openai

from mmstudio.providers.base import DesignerError


class ProviderError(DesignerError):
    """A failed provider call: ``kind`` (rate-limit, server, timeout, connection, auth, model,
    bad-request, malformed, shape, …), ``retryable`` and ``retry_after`` (s or None)."""

    def __init__(
        self, message: str, *, kind: str, retryable: bool = False, retry_after: float | None = None
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.retryable = retryable
        self.retry_after = retry_after


class ResponseShapeError(ValueError):
    """A well-formed response that lacks what the API promises (no choices, no image data)."""


class StructuredOutputError(ProviderError):
    """A reply that is still not the requested JSON object after one repair request."""

    def __init__(self, message: str) -> None:
        super().__init__(message, kind="structured", retryable=False)


@dataclass(frozen=True)
class Rule:
    """One row of the table: the exception type, its kind, retryable, and the user hint
    (``{base_url}`` and ``{model}`` are filled in)."""

    error: type[BaseException]
    kind: str
    retryable: bool
    hint: str


# Order matters: the first row whose type matches wins (subclasses before their bases).
TABLE: tuple[Rule, ...] = (
    Rule(openai.RateLimitError, "rate-limit", True, "rate limited by {base_url}; try again later"),
    Rule(openai.InternalServerError, "server", True, "{base_url} had a server error"),
    Rule(openai.APITimeoutError, "timeout", True, "{base_url} did not answer in time"),
    Rule(openai.APIConnectionError, "connection", True,
         "the connection to {base_url} failed (is the server running? check --base-url or "
         "OPENAI_BASE_URL)"),
    Rule(openai.AuthenticationError, "auth", False,
         "{base_url} refused the API key: set OPENAI_API_KEY (or api_key in the config file)"),
    Rule(openai.PermissionDeniedError, "auth", False,
         "the API key may not use {model} at {base_url}: check the key's project and access"),
    Rule(openai.NotFoundError, "model", False,
         "model {model!r} not found at {base_url}: pick another with --{role}-model"),
    Rule(openai.ConflictError, "server", True, "{base_url} reported a conflict"),
    Rule(openai.UnprocessableEntityError, "bad-request", False,
         "{base_url} could not process the request for {model}"),
    Rule(openai.BadRequestError, "bad-request", False,
         "{base_url} rejected the request for {model}"),
    Rule(openai.APIStatusError, "status", False, "{base_url} answered with an error"),
    Rule(json.JSONDecodeError, "malformed", True, "{base_url} sent a body that is not valid JSON"),
    Rule(ResponseShapeError, "shape", True, "{base_url} sent a response of the wrong shape"),
    Rule(openai.APIResponseValidationError, "shape", True, "{base_url} sent an invalid response"),
    # the base of the SDK's errors, last: an ``error`` event inside a streamed reply
    Rule(openai.APIError, "stream-error", False,
         "{base_url} sent an error inside the streamed reply for {model}"),
)  # fmt: skip

_RETRYABLE_STATUS = {408, 409, 425, 429, 500, 502, 503, 504}


def retry_after(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (``retry-after-ms`` or ``Retry-After`` in seconds),
    or None when it did not say or said something unparseable."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        try:
            return max(0.0, float(value) * scale)
        except ValueError:
            continue  # an HTTP date: rare from model servers; fall back to our backoff
    return None


def _detail(exc: BaseException) -> str:
    status = getattr(exc, "status_code", None)
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = text[:200]
    return f"HTTP {status}: {text}" if status and str(status) not in text else text


def _error_code(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if not isinstance(body, dict):
        return ""
    inner = body["error"] if isinstance(body.get("error"), dict) else body
    return str(inner.get("code") or inner.get("type") or "")


def missing_v1(base_url: str) -> str | None:
    """The base URL with ``/v1`` added when ``base_url``'s path lacks it (``http://host:1234``
    for LM Studio, Ollama, llama.cpp, vLLM, which all serve the API under ``/v1``), else None."""
    path = urlsplit(base_url).path.rstrip("/")
    if path.endswith("/v1") or "/v1/" in path or re.search(r"/v\d+(beta)?$", path):
        return None
    return base_url.rstrip("/") + "/v1"


def _not_found(exc: BaseException, *, base_url: str, model: str, role: str) -> ProviderError:
    """A 404: a missing model when the server says so (``model_not_found``, or the model's
    name in the message), a base URL without ``/v1`` when that is the likely cause, else a path
    the endpoint does not serve."""
    detail = _detail(exc)
    says_model = "model" in _error_code(exc) or bool(re.search(r"\bmodel\b", str(exc), re.I))
    fixed = missing_v1(base_url)
    if not says_model and fixed:
        hint = (f"{base_url} has no such API path: the base URL probably lacks /v1 "
                f"(try --base-url {fixed})")  # fmt: skip
        return ProviderError(f"{hint} ({detail})", kind="base-url")
    if not says_model and model:
        hint = (f"{base_url} does not serve this API (or model {model!r}): check the base URL "
                f"and pick another with --{role or 'planner'}-model")  # fmt: skip
        return ProviderError(f"{hint} ({detail})", kind="model")
    hint = f"model {model!r} not found at {base_url}: pick another with --{role or 'planner'}-model"
    return ProviderError(f"{hint} ({detail})", kind="model")


#: what the HTTP stack raises when the peer closes a connection mid-reply (httpx, httpcore, h11)
_DROPPED = ("RemoteProtocolError", "ReadError", "IncompleteRead")


def _dropped(exc: BaseException) -> str:
    """The reason, when ``exc`` is a connection error whose cause is a connection closed in the
    middle of a reply ("" otherwise, and for timeouts)."""
    if not isinstance(exc, openai.APIConnectionError) or isinstance(exc, openai.APITimeoutError):
        return ""
    seen: BaseException | None = exc
    for _ in range(8):  # the cause chain is short: the SDK's error over httpx over h11
        seen = seen.__cause__ or seen.__context__ if seen else None
        if seen is None:
            return ""
        if type(seen).__name__ in _DROPPED:
            return str(seen).splitlines()[0][:200] if str(seen) else type(seen).__name__
    return ""


def classify(
    exc: BaseException, *, base_url: str, model: str = "", role: str = ""
) -> ProviderError:
    """The :class:`ProviderError` for ``exc`` (a ProviderError is returned unchanged).

    Unknown exceptions are not swallowed: callers re-raise them."""
    if isinstance(exc, ProviderError):
        return exc
    if isinstance(exc, openai.NotFoundError):
        return _not_found(exc, base_url=base_url, model=model, role=role)
    dropped = _dropped(exc)
    if dropped:
        hint = (f"{base_url} closed the connection before the reply was complete (a cut-off "
                f"stream or a crashed server: see the server's log)")  # fmt: skip
        return ProviderError(f"{hint} ({dropped})", kind="connection", retryable=True)
    for rule in TABLE:
        if isinstance(exc, rule.error):
            hint = rule.hint.format(base_url=base_url, model=model, role=role or "planner")
            status = getattr(exc, "status_code", None)
            retryable = rule.retryable or status in _RETRYABLE_STATUS
            message = f"{hint} ({_detail(exc)})"
            return ProviderError(
                message, kind=rule.kind, retryable=retryable, retry_after=retry_after(exc)
            )
    raise TypeError(f"not a provider error: {type(exc).__name__}") from exc


def redact(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` (an API key some servers echo back in errors) masked."""
    if not secret or len(secret) < 6:
        return text
    return text.replace(secret, f"{secret[:3]}…redacted")


def is_provider_failure(exc: BaseException) -> bool:
    """Whether :func:`classify` knows ``exc`` (so it is a provider failure, not our bug)."""
    return isinstance(exc, ProviderError) or any(isinstance(exc, r.error) for r in TABLE)
