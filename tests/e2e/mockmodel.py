"""A scripted model server on 127.0.0.1 for the real Claude Code and Codex clients (docs/testing.md).

One server speaks both wire formats:

- Anthropic Messages (`POST /v1/messages`, `stream: true`): Server-Sent Events `message_start`,
  `content_block_start`/`_delta`/`_stop` (a `text` block with `text_delta`, a `tool_use` block with
  `input_json_delta`), `message_delta` (the `stop_reason`), `message_stop`. Claude Code calls it
  with `ANTHROPIC_BASE_URL=http://127.0.0.1:PORT`.
- OpenAI Responses (`POST /v1/responses`, `stream: true`): events `response.created`,
  `response.output_item.done` (a `function_call` or an assistant `message`), `response.completed`.
  Codex calls it through a `[model_providers.<id>]` entry with `wire_api = "responses"`.

A test gives a script: a list of steps, each one model turn (`Bash(cmd)`, `Mcp(server, tool, args)`,
`Call(tool, args)` for any other tool such as Edit, Write or Agent, `Batch(cmds)` for several shell
calls in one turn (Anthropic), or `Text(...)`). Which step a
request gets is read from the request itself (how many turns the model already took in the
conversation it carries), so retries and side requests cannot shift the script. A subagent's
conversation is a new one: `routes` maps a text to the script of the conversation whose first user
message holds it (the prompt the main script's `Agent` call gave). Past the script's end the model
answers `DONE`. A request without tools (titles, summaries and other side requests of the clients)
gets a short text answer. Every request is recorded with its arrival time; every scripted answer
with the time it was sent.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DONE = "DONE"


@dataclass(frozen=True)
class Bash:
    command: str


@dataclass(frozen=True)
class Mcp:
    """A call of an MCP tool of `server`: the first offered tool whose name ends with `tool`
    (clients prefix MCP tools with the server's name, each in its own way)."""

    server: str
    tool: str
    arguments: dict[str, Any]

    def _fits(self, name: str) -> list[bool]:
        """Whether `name` is this tool: exactly (after a separator) first, then by its ending
        (`read` must not pick `canon_read`)."""
        return [name == self.tool or name.endswith(("__" + self.tool, "." + self.tool)), name.endswith(self.tool)]

    def name(self, offered: list[str]) -> str:
        for exact in (0, 1):
            for name in offered:
                if self.server in name and self._fits(name)[exact]:
                    return name
        return f"mcp__{self.server}__{self.tool}"

    def namespaced(self, tools: list[Any]) -> tuple[str, str] | None:
        """(namespace, name) when the request offers the tool inside a `namespace` tool (Codex)."""
        for exact in (0, 1):
            for tool in tools:
                if isinstance(tool, dict) and tool.get("type") == "namespace" and self.server in str(tool.get("name")):
                    for child in tool.get("tools") or []:
                        if isinstance(child, dict) and self._fits(str(child.get("name", "")))[exact]:
                            return str(tool["name"]), str(child["name"])
        return None


@dataclass(frozen=True)
class Call:
    """A call of the client's own tool `tool` (Edit, Write, Agent, ...) with `arguments` as given."""

    tool: str
    arguments: dict[str, Any]

    def name(self, offered: list[str]) -> str:
        return self.tool


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Usage:
    """The tokens the mock reports for one request, in Anthropic's terms: `input` uncached input,
    `cache_read` and `cache_write` the prompt cache's reads and writes, `output` output of which
    `reasoning` is reasoning. The Responses API gets the same numbers in its terms (its input
    tokens include the cached ones; `cache_write` has no field there)."""

    input: int = 10
    output: int = 10
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0


@dataclass(frozen=True)
class Terminal:
    """Codex's unified exec: `start` opens a session (`exec_command` with a PTY, e.g. "bash"); a step
    with `chars` types them into the newest session the client reported (`write_stdin`), which
    fires no hook in the client (read from its tool schemas: exec_command `tty`, write_stdin
    `session_id`/`chars`)."""

    start: str = ""
    chars: str = ""


@dataclass(frozen=True)
class Batch:
    """Several shell calls in one model turn (Anthropic only): the client runs them as one batch."""

    commands: tuple[str, ...]


Step = Bash | Mcp | Call | Text | Terminal | Batch


@dataclass
class Request:
    api: str  # "anthropic" | "responses" | "other"
    path: str
    body: Any
    received: float
    turn: int | None = None  # the script step answered, None for side requests
    sent: float | None = None


@dataclass
class MockModel:
    script: list[Step] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)
    # the usage each agent turn reports (by turn number); default: 10 in, 10 out
    usage: Callable[[int], Usage] | None = None
    reported: dict[int, Usage] = field(default_factory=dict)  # turn -> the usage last sent for it
    routes: dict[str, list[Step]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # ids unique to this model, as the API's are: two runs' transcripts never share a message id
        self.nonce = os.urandom(4).hex()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> MockModel:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- what the tests read -------------------------------------------------------------------

    def turns(self) -> list[Request]:
        """The scripted requests (the agent loop's), in arrival order."""
        with self._lock:
            return [r for r in self.requests if r.turn is not None]

    def tool_results(self) -> list[str]:
        """The text of every tool result the model received, in order, deduplicated across turns."""
        seen: dict[str, str] = {}
        for req in self.turns():
            for call_id, text in _results(req):
                seen.setdefault(call_id, text)
        return list(seen.values())

    def shell_gaps(self) -> list[float]:
        """Seconds from each scripted Bash answer to the request carrying its result: the client's
        time for that shell call, hooks included."""
        turns = self.turns()
        gaps = []
        for before, after in zip(turns, turns[1:]):
            step = self.script[before.turn] if before.turn is not None and before.turn < len(self.script) else None
            if isinstance(step, Bash) and before.sent is not None and after.turn == (before.turn or 0) + 1:
                gaps.append(after.received - before.sent)
        return gaps

    # --- answering -----------------------------------------------------------------------------

    def _answer(self, api: str, path: str, body: Any) -> tuple[int, str, bytes]:
        req = Request(api, path, body, time.monotonic())
        with self._lock:
            self.requests.append(req)
        if api == "other":
            if path.endswith("/count_tokens"):
                return 200, "application/json", b'{"input_tokens": 1}'
            return 404, "application/json", b'{"error": {"type": "not_found", "message": "mock"}}'
        tools = body.get("tools") or []
        if api == "anthropic":
            names = [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
            agent = "Bash" in names
            turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant") if agent else None
        else:
            names = [t["name"] for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
            agent = any(n in _CODEX_SHELLS for n in names)
            turn = sum(1 for item in body.get("input", []) if _is_model_turn(item)) if agent else None
        step: Step = Text(DONE if agent else "ok")
        script = self._script_of(api, body) if agent else self.script
        if turn is not None and turn < len(script):
            step = script[turn]
        stream = bool(body.get("stream"))
        usage = self.usage(turn) if self.usage is not None and turn is not None else Usage()
        if turn is not None:
            with self._lock:
                self.reported[turn] = usage
        if api == "anthropic":
            data = _anthropic(step, turn or 0, stream, body.get("model", "mock"), names, usage, self.nonce)
        else:
            data = _responses(step, turn or 0, names, tools, usage, self.nonce, body)
        req.turn = turn
        req.sent = time.monotonic()
        kind = "text/event-stream" if (stream or api == "responses") else "application/json"
        return 200, kind, data

    def _script_of(self, api: str, body: Any) -> list[Step]:
        """The script of the conversation `body` carries: a route's when its first user message
        holds the route's text, else the main script."""
        if not self.routes:
            return self.script
        items = body.get("messages", []) if api == "anthropic" else body.get("input", [])
        first = next((m for m in items if isinstance(m, dict) and m.get("role") == "user"), None)
        text = _flatten(first.get("content")) if first is not None else ""
        for key, script in self.routes.items():
            if key in text:
                return script
        return self.script


# --- Anthropic Messages ------------------------------------------------------------------------


def _sse(event: str, data: dict[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def _anthropic(step: Step, turn: int, stream: bool, model: str, names: list[str], tokens: Usage, nonce: str) -> bytes:
    blocks: list[dict[str, Any]]
    if isinstance(step, Text):
        blocks = [{"type": "text", "text": step.text}]
        stop = "end_turn"
    else:
        calls: list[tuple[str, dict[str, Any]]]
        if isinstance(step, Bash):
            calls = [("Bash", {"command": step.command, "description": "scripted"})]
        elif isinstance(step, Batch):
            calls = [("Bash", {"command": c, "description": "scripted"}) for c in step.commands]
        else:
            assert not isinstance(step, Terminal), "a terminal step ends the turn before any block"
            calls = [(step.name(names), step.arguments)]
        blocks = [
            {"type": "tool_use", "id": f"toolu_mock{nonce}{turn:04d}{i:02d}", "name": name, "input": args}
            for i, (name, args) in enumerate(calls)
        ]
        stop = "tool_use"
    usage = {
        "input_tokens": tokens.input,
        "output_tokens": tokens.output,
        "cache_creation_input_tokens": tokens.cache_write,
        "cache_read_input_tokens": tokens.cache_read,
        "cache_creation": {"ephemeral_5m_input_tokens": tokens.cache_write, "ephemeral_1h_input_tokens": 0},
    }
    message = {
        "id": f"msg_mock{nonce}{turn:04d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not stream:
        return json.dumps(message).encode()
    # as the API streams it: the input side in message_start (output so far: 1), the final counts in message_delta
    start = dict(message, content=[], stop_reason=None, usage=dict(usage, output_tokens=1))
    out = [_sse("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(blocks):
        out.extend(_anthropic_block(index, block))
    out.append(
        _sse(
            "message_delta",
            {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage},
        )
    )
    out.append(_sse("message_stop", {"type": "message_stop"}))
    return "".join(out).encode()


def _anthropic_block(index: int, block: dict[str, Any]) -> list[str]:
    """One content block as the API streams it: start, one delta, stop."""
    if block["type"] == "text":
        first: dict[str, Any] = {"type": "text", "text": ""}
        delta: dict[str, Any] = {"type": "text_delta", "text": block["text"]}
    else:
        first, delta = dict(block, input={}), {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
    return [
        _sse("content_block_start", {"type": "content_block_start", "index": index, "content_block": first}),
        _sse("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta}),
        _sse("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]


# --- OpenAI Responses (Codex) ------------------------------------------------------------------

# Codex's shell tool has had several names and argument shapes; the request's `tools` say which.
_CODEX_SHELLS = ("shell_command", "exec_command", "shell", "local_shell")


def _is_model_turn(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    kind = item.get("type")
    if kind in ("function_call", "custom_tool_call", "local_shell_call"):
        return True
    return kind == "message" and item.get("role") == "assistant"


def _shell_call(names: list[str], command: str) -> tuple[str, dict[str, Any]]:
    if "shell_command" in names:
        return "shell_command", {"command": command}
    if "exec_command" in names:
        return "exec_command", {"cmd": command}
    return "shell", {"command": ["bash", "-lc", command]}


def _terminal(step: Terminal, body: Any) -> tuple[str, dict[str, Any]]:
    import re

    if step.start:
        return "exec_command", {"cmd": step.start, "tty": True, "yield_time_ms": 1000}
    ids = re.findall(r"session ID (\d+)", json.dumps(body.get("input", [])))
    return "write_stdin", {"session_id": int(ids[-1]) if ids else 0, "chars": step.chars, "yield_time_ms": 1500}


def _responses(
    step: Step, turn: int, names: list[str], tools: list[Any], tokens: Usage, nonce: str, body: Any = None
) -> bytes:
    rid = f"resp_mock{nonce}{turn:04d}"
    if isinstance(step, Text):
        item: dict[str, Any] = {
            "type": "message",
            "role": "assistant",
            "id": f"msg_mock{nonce}{turn:04d}",
            "content": [{"type": "output_text", "text": step.text, "annotations": []}],
        }
    else:
        if isinstance(step, Bash):
            name, args = _shell_call(names, step.command)
        elif isinstance(step, Terminal):
            name, args = _terminal(step, body or {})
        else:
            assert not isinstance(step, Batch), "a batch of shell calls is scripted for Anthropic only"
            name, args = step.name(names), step.arguments
        item = {
            "type": "function_call",
            "id": f"fc_mock{nonce}{turn:04d}",
            "call_id": f"call_mock{nonce}{turn:04d}",
            "name": name,
            "arguments": json.dumps(args),
        }
        if isinstance(step, Call) and any(
            isinstance(t, dict) and t.get("type") == "custom" and t.get("name") == name for t in tools
        ):  # a freeform tool (Codex's apply_patch): its text as input
            item = {
                "type": "custom_tool_call",
                "id": f"ctc_mock{turn:04d}",
                "call_id": f"call_mock{turn:04d}",
                "name": name,
                "input": str(args.get("input", "")),
            }
        where = step.namespaced(tools) if isinstance(step, Mcp) else None
        if where:
            item["namespace"], item["name"] = where
    given = tokens.input + tokens.cache_read  # the Responses API counts cached input inside input_tokens
    usage = {
        "input_tokens": given,
        "input_tokens_details": {"cached_tokens": tokens.cache_read},
        "output_tokens": tokens.output,
        "output_tokens_details": {"reasoning_tokens": tokens.reasoning},
        "total_tokens": given + tokens.output,
    }
    out = [
        _sse("response.created", {"type": "response.created", "response": {"id": rid}}),
        _sse("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        _sse("response.completed", {"type": "response.completed", "response": {"id": rid, "usage": usage}}),
    ]
    return "".join(out).encode()


# --- reading what the model received -------------------------------------------------------------


def _flatten(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            _flatten(part.get("text", part.get("content", ""))) if isinstance(part, dict) else str(part)
            for part in content
        )
    return "" if content is None else str(content)


def _results(req: Request) -> list[tuple[str, str]]:
    found = []
    if req.api == "anthropic":
        for message in req.body.get("messages", []):
            if isinstance(message.get("content"), list):
                for part in message["content"]:
                    if isinstance(part, dict) and part.get("type") == "tool_result":
                        found.append((part.get("tool_use_id", ""), _flatten(part.get("content"))))
    else:
        for item in req.body.get("input", []):
            if isinstance(item, dict) and item.get("type") in ("function_call_output", "custom_tool_call_output"):
                output = item.get("output")
                if isinstance(output, dict):
                    output = output.get("content", json.dumps(output))
                found.append((item.get("call_id", ""), _flatten(output)))
    return found


def _handler(model: MockModel) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def _reply(self, status: int, kind: str, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-cache")
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()

        def do_POST(self) -> None:  # (http.server's naming)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                body = json.loads(raw or b"{}")
            except ValueError:
                body = {"raw": raw.decode("utf-8", "replace")}
            path = self.path.split("?")[0]
            if path.endswith("/v1/messages"):
                api = "anthropic"
            elif path.endswith("/responses"):
                api = "responses"
            else:
                api = "other"
            self._reply(*model._answer(api, path, body))

        def do_GET(self) -> None:
            model._answer("other", self.path, None)
            self._reply(404, "application/json", b'{"error": {"message": "mock"}}')

    return Handler
