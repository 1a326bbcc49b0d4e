"""A local OpenAI-compatible HTTP server for tests and demos (stdlib only, 127.0.0.1 only).

It speaks the real wire format of the endpoints MM Studio uses: ``POST /v1/chat/completions``
(plain JSON or server-sent events when ``stream`` is true), ``POST /v1/images/generations``,
``POST /v1/images/edits`` (multipart), ``POST /v1/videos`` (multipart or JSON), ``GET
/v1/videos/{id}``, ``GET /v1/videos/{id}/content`` and ``GET /v1/models``.

Replies are scripted per route (``server.script("chat", Reply(...))``): the first queued reply
whose ``when`` predicate accepts the request is consumed; with none queued, a route's default
answers (images: ``default_png``; videos: a job that completes on its first poll and serves
``video_bytes``; models: ``models``; chat: ``chat_responder`` or a 500 saying nothing was scripted).

Faults are replies too: :func:`error` (any status, ``Retry-After``), ``Reply(delay_s=…)`` (slow
past the client's timeout), ``Reply(body=b"{not json")`` (malformed), :func:`chat_reply` with
``choices=None`` (wrong shape), :func:`chat_stream` with ``truncate=True`` (the connection drops
mid-stream). Every request is logged in ``server.requests`` (route, path, headers, JSON body or
multipart fields) for assertions.

Behaviours (:class:`Behaviour`, ``OpenAITestServer(behaviour="lmstudio")``) make the server act
like a kind of endpoint, after the documented behaviour of each: ``openai`` refuses a ``strict``
schema that strict mode would not take; ``vllm`` answers without ``refusal`` fields and words its
errors without the ``error`` wrapper; ``ollama`` lists models with ``:latest`` tags and streams
without usage; ``lmstudio`` refuses ``json_object``; ``llamacpp`` refuses a schema carrying a bound
its grammar converter cannot unroll (≥ 2000) and streams without usage. Flags add the quirks of
small models on any of them:
``think`` (a ``<think>…</think>`` preamble, qwen3), ``prose`` (words around the JSON),
``stream_error`` (an error event inside the stream) and ``reject_response_format`` (a server that
refuses every ``response_format``). A refusal is answered before any scripted reply is consumed.

Concurrency: one daemon thread per connection (``ThreadingHTTPServer``); the script queues and
the request log are guarded by one lock. ``tests/openai_demo.py`` runs it as a demo backend.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_ROUTES = (
    ("POST", re.compile(r"^/v1/chat/completions$"), "chat"),
    ("POST", re.compile(r"^/v1/images/generations$"), "images.generate"),
    ("POST", re.compile(r"^/v1/images/edits$"), "images.edit"),
    ("POST", re.compile(r"^/v1/videos$"), "videos.create"),
    ("GET", re.compile(r"^/v1/videos/(?P<id>[\w-]+)/content$"), "videos.content"),
    ("GET", re.compile(r"^/v1/videos/(?P<id>[\w-]+)$"), "videos.retrieve"),
    ("GET", re.compile(r"^/v1/models$"), "models"),
)


@dataclass
class Request:
    """One logged request: ``route`` name, ``path`` (with query), headers (lower-case names),
    the JSON body (or None), multipart ``form`` text fields and ``files`` (name → bytes)."""

    route: str
    method: str
    path: str
    headers: dict[str, str]
    json: Any = None
    form: dict[str, str] = field(default_factory=dict)
    files: dict[str, bytes] = field(default_factory=dict)
    raw: bytes = b""

    def text(self) -> str:
        """All message text of a chat request, joined (for routing scripted replies)."""
        if not isinstance(self.json, dict):
            return ""
        parts = []
        for message in self.json.get("messages") or []:
            content = message.get("content")
            if isinstance(content, str):
                parts.append(content)
            for part in content if isinstance(content, list) else []:
                parts.append(part.get("text", "") if isinstance(part, dict) else "")
        return "\n".join(parts)

    def schema_name(self) -> str | None:
        """The ``response_format.json_schema.name`` of a chat request, if any."""
        fmt = (self.json or {}).get("response_format") or {}
        return (fmt.get("json_schema") or {}).get("name")


@dataclass
class Reply:
    """A scripted reply: ``status``, a ``json`` body or a raw ``body``, extra ``headers``, a
    ``delay_s`` (s) before answering, SSE ``sse`` events (dicts) sent ``event_delay_s`` apart with
    ``truncate`` cutting the connection mid-stream, and ``when`` choosing which requests it
    answers."""

    status: int = 200
    json: Any = None
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    content_type: str = "application/json"
    delay_s: float = 0.0
    sse: list[Any] | None = None
    event_delay_s: float = 0.0
    truncate: bool = False
    when: Callable[[Request], bool] | None = None


def usage(prompt_tokens: int = 120, completion_tokens: int = 80) -> dict:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }


def chat_reply(text: str | None, *, model: str = "test-model", **kwargs: Any) -> Reply:
    """A chat completion whose one choice says ``text``; ``choices=None`` makes it wrong-shaped."""
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": "stop",
            }
        ],
        "usage": usage(),
    }
    if "choices" in kwargs:
        body["choices"] = kwargs.pop("choices")
    return Reply(json=body, **kwargs)


def chat_stream(text: str, *, pieces: int = 3, truncate: bool = False, **kwargs: Any) -> Reply:
    """``text`` as ``pieces`` SSE chunks, then a finish chunk with usage (unless ``truncate``)."""
    size = max(1, -(-len(text) // pieces))
    chunks = [text[i : i + size] for i in range(0, len(text), size)]

    def event(delta: dict, finish: str | None = None, extra: dict | None = None) -> dict:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        base = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 0}
        return {**base, "model": "test-model", "choices": [choice], **(extra or {})}

    events = [event({"role": "assistant", "content": ""})]
    events += [event({"content": c}) for c in chunks]
    events.append(event({}, "stop", {"usage": usage()}))
    if truncate:
        events = events[: max(2, len(events) // 2)]
    return Reply(sse=events, truncate=truncate, **kwargs)


def error(status: int, message: str = "scripted error", *, retry_after: float | None = None,
          **kwargs: Any) -> Reply:  # fmt: skip
    """An OpenAI-style error body with ``status`` (and a ``Retry-After`` header in s)."""
    headers = {"retry-after": f"{retry_after:g}"} if retry_after is not None else {}
    body = {"error": {"message": message, "type": "test_error", "code": None}}
    return Reply(status=status, json=body, headers=headers, **kwargs)


def image_reply(data: bytes, **kwargs: Any) -> Reply:
    """An images response carrying ``data`` base64-encoded (GPT Image models always return b64)."""
    body = {
        "created": int(time.time()),
        "data": [{"b64_json": base64.b64encode(data).decode("ascii")}],
        "usage": {"input_tokens": 50, "output_tokens": 4000, "total_tokens": 4050},
    }
    return Reply(json=body, **kwargs)


def video_job(video_id: str, status: str = "queued", *, seconds: str = "4",
              size: str = "1280x720", progress: int = 0, **kwargs: Any) -> Reply:  # fmt: skip
    """A video job object in ``status`` (queued | in_progress | completed | failed)."""
    body = {
        "id": video_id, "object": "video", "created_at": int(time.time()), "model": "sora-2",
        "status": status, "progress": progress, "seconds": seconds, "size": size,
        "error": {"code": "failed", "message": "scripted failure"} if status == "failed" else None,
    }  # fmt: skip
    return Reply(json=body, **kwargs)


@dataclass
class Behaviour:
    """How the server deviates from OpenAI's own API (see the module docstring)."""

    name: str = "openai"
    strict_check: bool = False
    reject_json_object: bool = False
    reject_response_format: bool = False
    schema_bound_limit: int | None = None
    omit_stream_usage: bool = False
    omit_refusal: bool = False
    model_tag: str = ""
    think: bool = False
    prose: bool = False
    stream_error: str | None = None
    flat_errors: bool = False


PROFILES = {
    "openai": Behaviour("openai", strict_check=True),
    "vllm": Behaviour("vllm", omit_refusal=True, flat_errors=True),
    "ollama": Behaviour("ollama", omit_stream_usage=True, model_tag=":latest"),
    "lmstudio": Behaviour("lmstudio", reject_json_object=True),
    "llamacpp": Behaviour("llamacpp", schema_bound_limit=2000, omit_stream_usage=True),
}


def behaviour(name: str, **flags: Any) -> Behaviour:
    """The profile ``name`` (a key of :data:`PROFILES`) with ``flags`` changed."""
    base = PROFILES[name]
    return Behaviour(**{**base.__dict__, **flags})


_BOUNDS = ("maxLength", "maxItems", "minLength", "minItems")


def _big_bound(node: Any, limit: int) -> str | None:
    if isinstance(node, dict):
        for key in _BOUNDS:
            if isinstance(node.get(key), int) and node[key] >= limit:
                return f"{key} {node[key]}"
        nodes = list(node.values())
    elif isinstance(node, list):
        nodes = node
    else:
        return None
    return next((found for sub in nodes if (found := _big_bound(sub, limit))), None)


def _not_strict(node: Any) -> str | None:
    """Why OpenAI's strict mode would refuse ``node`` (a schema), or None."""
    if isinstance(node, list):
        return next((why for sub in node if (why := _not_strict(sub))), None)
    if not isinstance(node, dict):
        return None
    for key in ("minLength", "maxLength", "default", "oneOf", "allOf", "patternProperties"):
        if key in node:
            return f"'{key}' is not permitted"
    props = node.get("properties")
    if isinstance(props, dict):
        if node.get("additionalProperties") is not False:
            return "'additionalProperties' is required to be supplied and to be false"
        if sorted(node.get("required", [])) != sorted(props):
            return "'required' is required to include every key in properties"
        return next((why for sub in props.values() if (why := _not_strict(sub))), None)
    return next((why for k, v in node.items() if k != "enum" and (why := _not_strict(v))), None)


class OpenAITestServer:
    """The server; use as a context manager or call :meth:`start` / :meth:`stop`."""

    def __init__(
        self, *, models: list[str] | None = None, port: int = 0,
        behaviour: Behaviour | str = "openai",
    ) -> None:  # fmt: skip
        self.port = port
        self.behaviour = PROFILES[behaviour] if isinstance(behaviour, str) else behaviour
        self.models = models or ["gpt-5.5", "gpt-image-2.5-sunburst", "sora-2"]
        self.default_png = b""
        self.video_bytes = b""
        self.chat_responder: Callable[[Request], Reply] | None = None
        self.requests: list[Request] = []
        self._queues: dict[str, list[Reply]] = {}
        self._lock = threading.Lock()
        self._videos: dict[str, int] = {}
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def root_url(self) -> str:
        """The server's address without ``/v1`` (a base URL users often give by mistake)."""
        return self.base_url.removesuffix("/v1")

    def start(self) -> OpenAITestServer:
        handler = type("Handler", (_Handler,), {"server_state": self})
        self._httpd = _Quiet(("127.0.0.1", self.port), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> OpenAITestServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def script(self, route: str, *replies: Reply) -> None:
        """Queue ``replies`` for ``route`` (chat, images.generate, images.edit, videos.create,
        videos.retrieve, videos.content, models)."""
        with self._lock:
            self._queues.setdefault(route, []).extend(replies)

    def pending(self, route: str | None = None) -> int:
        """How many scripted replies are still queued (for ``route`` or all)."""
        with self._lock:
            queues = [self._queues.get(route, [])] if route else list(self._queues.values())
            return sum(len(q) for q in queues)

    def log(self, route: str) -> list[Request]:
        """The logged requests of ``route``, oldest first."""
        with self._lock:
            return [r for r in self.requests if r.route == route]

    def take(self, request: Request) -> Reply:
        """The reply for ``request``: a refusal by the behaviour, else the first matching
        scripted one, else the default — shaped by the behaviour."""
        refusal = self._refusal(request) if request.route == "chat" else None
        with self._lock:
            self.requests.append(request)
            if refusal is not None:
                return self._flat(refusal) if self.behaviour.flat_errors else refusal
            queue = self._queues.get(request.route, [])
            found = next(
                (i for i, r in enumerate(queue) if r.when is None or r.when(request)), None
            )
            reply = queue.pop(found) if found is not None else None
        reply = reply or self._default(request)
        if reply.status >= 400 and self.behaviour.flat_errors:
            return self._flat(reply)
        return self._shaped(reply) if request.route == "chat" else reply

    @staticmethod
    def _flat(reply: Reply) -> Reply:
        """An error the way vLLM words it: no ``error`` wrapper, ``object: "error"``."""
        inner = (reply.json or {}).get("error") if isinstance(reply.json, dict) else None
        if not isinstance(inner, dict):
            return reply
        body = {"object": "error", "message": inner.get("message", ""),
                "type": "BadRequestError", "param": None, "code": reply.status}  # fmt: skip
        return Reply(**{**reply.__dict__, "json": body})

    def _refusal(self, request: Request) -> Reply | None:
        """The error the behaviour answers ``request`` with (before any script), or None."""
        b = self.behaviour
        fmt = (
            (request.json or {}).get("response_format") if isinstance(request.json, dict) else None
        )
        if not fmt:
            return None
        kind = fmt.get("type")
        if b.reject_response_format:
            return error(400, "response_format is not supported by this server")
        if kind == "json_object" and b.reject_json_object:
            return error(400, "'response_format.type' must be 'json_schema' or 'text'")
        schema = (fmt.get("json_schema") or {}).get("schema")
        if kind == "json_schema" and b.schema_bound_limit is not None:
            big = _big_bound(schema, b.schema_bound_limit)
            if big:
                return error(400, f"JSON schema conversion failed: {big} is too large a repetition")
        if (
            kind == "json_schema"
            and b.strict_check
            and (fmt.get("json_schema") or {}).get("strict")
        ):
            why = _not_strict(schema)
            if why:
                return error(400, f"Invalid schema for response_format: {why}")
        return None

    def _shaped(self, reply: Reply) -> Reply:
        """``reply`` as the behaviour would send it (think/prose wrapping, omitted fields)."""
        b = self.behaviour
        before = "<think>\nLet me plan the answer first. {not json}\n</think>\n" if b.think else ""
        before += "Here is the result you asked for:\n" if b.prose else ""
        after = "\nLet me know if you want changes." if b.prose else ""
        if reply.sse is not None:
            events = [json.loads(json.dumps(e)) for e in reply.sse]
            content = [
                e for e in events if (e.get("choices") or [{}])[0].get("delta", {}).get("content")
            ]
            if content and before:
                content[0]["choices"][0]["delta"]["content"] = (
                    before + content[0]["choices"][0]["delta"]["content"]
                )
            if content and after:
                content[-1]["choices"][0]["delta"]["content"] += after
            if b.omit_stream_usage:
                for event in events:
                    event.pop("usage", None)
            if b.stream_error and content:
                cut = events.index(content[0]) + 1
                events = [*events[:cut], {"error": {"message": b.stream_error, "code": 500}}]
            return Reply(**{**reply.__dict__, "sse": events})
        body = reply.json
        choices = body.get("choices") if isinstance(body, dict) else None
        if not choices or not isinstance(choices[0], dict) or reply.status != 200:
            return reply
        body = json.loads(json.dumps(body))
        message = body["choices"][0].get("message") or {}
        if isinstance(message.get("content"), str) and (before or after):
            message["content"] = before + message["content"] + after
        if b.omit_refusal:
            message.pop("refusal", None)
        return Reply(**{**reply.__dict__, "json": body})

    def _default(self, request: Request) -> Reply:
        route = request.route
        if route == "models":
            tag = self.behaviour.model_tag
            data = [{"id": m + tag, "object": "model", "created": 0, "owned_by": "test"}
                    for m in self.models]  # fmt: skip
            return Reply(json={"object": "list", "data": data})
        if route in ("images.generate", "images.edit") and self.default_png:
            return image_reply(self.default_png)
        if route == "videos.create":
            fields = request.form or (request.json if isinstance(request.json, dict) else {})
            video_id = f"video_{len(self._videos) + 1}"
            self._videos[video_id] = 0
            return video_job(video_id, seconds=str(fields.get("seconds", "4")))
        if route == "videos.retrieve":
            return video_job(request.path.rsplit("/", 1)[-1], "completed", progress=100)
        if route == "videos.content" and self.video_bytes:
            return Reply(body=self.video_bytes, content_type="video/mp4")
        if route == "chat" and self.chat_responder is not None:
            return self.chat_responder(request)
        return error(500, f"nothing scripted for {route}")


class _Quiet(ThreadingHTTPServer):
    """The server, without socketserver's traceback on stderr when a client hangs up mid-request
    (a client that gave up after its timeout, a process stopped by a test)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if isinstance(sys.exc_info()[1], ConnectionResetError | BrokenPipeError):
            return
        super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are separate writes: no 40 ms stalls
    server_state: OpenAITestServer

    def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read server.requests
        pass

    def do_GET(self) -> None:
        self._serve("GET")

    def do_POST(self) -> None:
        self._serve("POST")

    def _serve(self, method: str) -> None:
        path = self.path.split("?", 1)[0]
        route = next((name for m, rx, name in _ROUTES if m == method and rx.match(path)), None)
        request = self._read(route or "unknown", method)
        if route is None:
            self._send(error(404, f"no route {method} {path}"))
            return
        try:
            reply = self.server_state.take(request)
        except Exception as exc:  # a broken responder is a 500 the client can see, not a hang-up
            reply = error(500, f"test server responder failed: {type(exc).__name__}: {exc}")
        if reply.delay_s:
            time.sleep(reply.delay_s)
        # the client may have given up (a timeout test): then there is nothing to answer
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self._send_sse(reply) if reply.sse is not None else self._send(reply)

    def _read(self, route: str, method: str) -> Request:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {k.lower(): v for k, v in self.headers.items()}
        request = Request(route, method, self.path, headers, raw=raw)
        ctype = headers.get("content-type", "")
        if raw and ctype.startswith("application/json"):
            request.json = json.loads(raw)
        elif raw and ctype.startswith("multipart/form-data"):
            request.form, request.files = _multipart(ctype, raw)
        return request

    def _send(self, reply: Reply) -> None:
        body = reply.body if reply.body is not None else json.dumps(reply.json).encode()
        self.send_response(reply.status)
        self.send_header("content-type", reply.content_type)
        self.send_header("content-length", str(len(body)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _send_sse(self, reply: Reply) -> None:
        self.send_response(reply.status)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        for event in reply.sse or []:
            self._chunk(f"data: {json.dumps(event)}\n\n".encode())
            time.sleep(reply.event_delay_s)
        if reply.truncate:
            self.wfile.write(b'40\r\ndata: {"id": "cut')  # half a chunk, then the line drops
            self.wfile.flush()
            self.close_connection = True
            return
        self._chunk(b"data: [DONE]\n\n")
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _multipart(content_type: str, raw: bytes) -> tuple[dict[str, str], dict[str, bytes]]:
    """Text fields and files of a multipart/form-data body (bytes kept exactly)."""
    boundary = content_type.split("boundary=", 1)[1].split(";")[0].strip().strip('"')
    form: dict[str, str] = {}
    files: dict[str, bytes] = {}
    for part in raw.split(b"--" + boundary.encode())[1:]:
        if part.startswith(b"--"):
            break
        head, _, body = part.partition(b"\r\n\r\n")
        body = body[:-2] if body.endswith(b"\r\n") else body
        disposition = head.decode("utf-8", "replace")
        name = re.search(r'name="([^"]*)"', disposition)
        key = name.group(1) if name else ""
        if 'filename="' in disposition:
            files[key] = body
        else:
            form[key] = body.decode("utf-8", "replace")
    return form, files
