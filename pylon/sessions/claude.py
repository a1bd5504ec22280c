"""Claude Code's transcripts: `projects/<folder>/<session>.jsonl` under its configuration folder
(`CLAUDE_CONFIG_DIR`, default `~/.claude`), its subagents' beside it in
`projects/<folder>/<session>/subagents/*.jsonl`.

Each line is one entry: `user` (a prompt, or tool results), `assistant` (one message of the model:
its `usage`, its `tool_use` blocks), `system`, and bookkeeping entries (attachments, API request
shapes, queue operations) that only tell the time. A message the model sent may be written on
several lines (one per content block, or again by a subagent's replay), each with the same
`message.id` and the same usage: usage records keep that id so the collector counts each message
once (collect.py). The file's state is plain data (cache.py keeps it between runs).
"""

from __future__ import annotations

import os

from pylon.sessions import calls as C
from pylon.sessions.jsonl import LineReader, stamp
from pylon.sessions.jsonl import compact as _encode
from pylon.sessions.jsonl import touch as _touch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CLIENT = "claude-code"
# Usage record: message id, request id, sidechain, time, model, input, cache writes, of them 1-hour
# writes, cache reads, output, of it thinking, speed ("" when not given, "standard", "fast").
U_MSG, U_REQ, U_SIDE, U_TS, U_MODEL, U_IN, U_CW, U_CW1H, U_CR, U_OUT, U_THINK, U_SPEED = range(12)
# The entry types worth decoding; every other line only tells the time.
_WANTED = (b'"type":"assistant"', b'"type":"user"', b'"type":"system"', b'"usage":{')
IMAGE_BYTES = 6400  # ~1,600 tokens: Anthropic's figure for an image of about a megapixel
_NULLABLE_NOT = ("cwd", "version", "sessionId", "requestId", "isApiErrorMessage", "costUSD")
_NULLABLE_USAGE = ("speed", "cache_read_input_tokens", "cache_creation_input_tokens")


def config_dirs() -> list[str]:
    """Claude Code's configuration folders holding `projects/`: `$CLAUDE_CONFIG_DIR` when set,
    else `~/.claude` and `$XDG_CONFIG_HOME/claude` (where older versions kept it)."""
    given = os.environ.get("CLAUDE_CONFIG_DIR")
    if given:
        candidates = [os.path.expanduser(given)]
    else:
        xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
        candidates = [os.path.join(os.path.expanduser("~"), ".claude"), os.path.join(xdg, "claude")]
    found = []
    for folder in candidates:
        folder = os.path.abspath(folder)
        if os.path.basename(folder) == "projects" and os.path.isdir(folder):
            folder = os.path.dirname(folder)  # the projects folder itself was given
        if os.path.isdir(os.path.join(folder, "projects")) and folder not in found:
            found.append(folder)
    return found


def session_of(path: str, projects: str) -> str:
    """The session a transcript belongs to: its file name, or for a file in a session's own
    folder (subagents) that folder's name."""
    parts = os.path.relpath(path, projects).split(os.sep)
    if len(parts) == 2:
        return parts[1][: -len(".jsonl")] if parts[1].endswith(".jsonl") else parts[1]
    if len(parts) >= 4 and parts[-2] == "subagents":
        return parts[-3]
    return parts[-2] if len(parts) >= 2 else parts[-1]


def start(session: str) -> dict[str, Any]:
    return {
        "client": CLIENT,
        "session": session,
        "cwd": "",
        "entry": "",
        "first": None,
        "last": None,
        "model": "",
        "bad": 0,
        "foreign": 0,
        "usage": [],
        "calls": [],
        "orphans": {},
        "turn": ["", None],
        "subagent": False,
    }


class Reader(LineReader):
    """Feeds lines into one file's state."""

    def feed(self, lines: list[bytes]) -> None:
        state = self.state
        assistant, user, system, usage = _WANTED
        for raw in lines:
            if not (assistant in raw or user in raw or system in raw or usage in raw or _spaced(raw)):
                ts = _cheap_time(raw)
                if ts is not None:
                    _touch(state, ts)
                elif raw[:1] != b"{":
                    state["bad"] += 1
                continue
            try:
                entry = self.decode(raw.decode("utf-8", "surrogateescape"))
            except Exception:  # an unreadable line is counted, never fatal
                state["bad"] += 1
                continue
            if not isinstance(entry, dict):
                state["foreign"] += 1
                continue
            try:
                self.entry(entry)
            except (TypeError, AttributeError, ValueError, KeyError):  # a shape this reader does not know
                state["foreign"] += 1

    def entry(self, entry: dict[str, Any]) -> None:
        state = self.state
        ts = stamp(entry.get("timestamp"))
        if ts is not None:
            _touch(state, ts)
        if not state["cwd"] and isinstance(entry.get("cwd"), str):
            state["cwd"] = entry["cwd"]
        if not state["entry"] and isinstance(entry.get("entrypoint"), str):
            state["entry"] = entry["entrypoint"]
        message = entry.get("message")
        kind = entry.get("type")
        if not isinstance(message, dict):
            if kind in ("assistant", "user") or not isinstance(kind, str):
                state["foreign"] += 1  # a conversation entry without its message, or no entry at all
            return
        side = entry.get("isSidechain") is True
        usage = message.get("usage")
        if isinstance(usage, dict) and ts is not None:
            self.usage(entry, message, usage, side, ts)
        if kind == "assistant":
            self.assistant(message, side, ts)
        elif kind == "user":
            self.user(entry, message, side, ts)
        elif kind == "system" and entry.get("subtype") == "api_error" and not side:
            state["turn"] = ["prompt", ts]  # the client retries the request: still working

    def usage(self, entry: dict[str, Any], message: dict[str, Any], usage: dict[str, Any], side: bool, ts: str) -> None:
        """One usage record, under the rules ccusage applies (docs/reference/serve.md, `pylon sessions`)."""
        tokens = [usage.get(k) for k in ("input_tokens", "output_tokens")]
        if not all(isinstance(t, int) and not isinstance(t, bool) for t in tokens):
            return
        for where, keys in ((entry, _NULLABLE_NOT), (message, ("id", "model")), (usage, _NULLABLE_USAGE)):
            for key in keys:
                if key in where and where[key] is None:
                    return
        version = entry.get("version")
        if isinstance(version, str) and not _semver(version):
            return
        for value in (entry.get("sessionId"), entry.get("requestId"), message.get("id"), message.get("model")):
            if value == "":
                return
        model = message.get("model") if isinstance(message.get("model"), str) else ""
        if model and model != "<synthetic>":
            self.state["model"] = model
        breakdown = usage.get("cache_creation")
        hour = _int(breakdown.get("ephemeral_1h_input_tokens")) if isinstance(breakdown, dict) else 0
        if isinstance(usage.get("cache_creation_input_tokens"), int):
            written = _int(usage["cache_creation_input_tokens"])
        elif isinstance(breakdown, dict):
            written = _int(breakdown.get("ephemeral_5m_input_tokens")) + hour
        else:
            written = 0
        details = usage.get("output_tokens_details")
        thinking = _int(details.get("thinking_tokens")) if isinstance(details, dict) else 0
        message_id = message.get("id") if isinstance(message.get("id"), str) else ""
        request_id = entry.get("requestId") if isinstance(entry.get("requestId"), str) else ""
        self.state["usage"].append(
            [
                message_id,
                request_id,
                side,
                ts,
                model,
                tokens[0],
                written,
                min(hour, written),
                _int(usage.get("cache_read_input_tokens")),
                tokens[1],
                thinking,
                usage["speed"] if isinstance(usage.get("speed"), str) else "",
            ]
        )

    def assistant(self, message: dict[str, Any], side: bool, ts: str | None) -> None:
        content = message.get("content")
        called = False
        if isinstance(content, list):
            for block in content:
                if not isinstance(block, dict) or block.get("type") not in ("tool_use", "server_tool_use"):
                    continue
                call_id = block.get("id")
                if not isinstance(call_id, str) or call_id in self.index:
                    called = called or isinstance(call_id, str)
                    continue
                given = block.get("input")
                raw = _encode(given)
                record = C.new(call_id, str(block.get("name") or "?"), given, raw, ts, self.state["cwd"])
                self.state["calls"].append(record)
                self.index[call_id] = record
                called = True
        if not side:
            self.state["turn"] = ["call" if called else "answer", ts]

    def user(self, entry: dict[str, Any], message: dict[str, Any], side: bool, ts: str | None) -> None:
        content = message.get("content")
        results = (
            [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
            if isinstance(content, list)
            else []
        )
        for block in results:
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                continue
            text = _text(block.get("content"))
            failed = block.get("is_error") is True
            size = len(text.encode("utf-8", "surrogatepass"))
            record = self.index.get(call_id)
            if record is None:
                self.state["orphans"][call_id] = [failed, size]
                continue
            record[C.FAILED], record[C.OUT_BYTES] = failed, size
            C.whole_from_result(record, text)
        if side or entry.get("isMeta") is True:
            return
        if results:
            self.state["turn"] = ["result", ts]
            return
        text = _text(content)
        if "[Request interrupted by user" in text:
            self.state["turn"] = ["interrupted", ts]
        elif text.strip() and not text.lstrip().startswith(("<local-command", "<command-name>", "<command-message>")):
            self.state["turn"] = ["prompt", ts]


def _spaced(raw: bytes) -> bool:
    """Whether a line is JSON written with spaces after its colons (the markers above are
    compact, as the client writes): such a line is decoded rather than guessed at."""
    at = raw.find(b'":', 0, 300)
    return at >= 0 and raw[at + 2 : at + 3] == b" "


def _cheap_time(raw: bytes) -> str | None:
    """The `"timestamp":"..."` of a line not worth decoding (attachments, request shapes)."""
    at = raw.find(b'"timestamp":"')
    if at < 0:
        return None
    end = raw.find(b'"', at + 13)
    return stamp(raw[at + 13 : end].decode("ascii", "replace")) if end > 0 else None


def _semver(text: str) -> bool:
    parts = text.split(".", 2)
    return len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit() and parts[2][:1].isdigit()


def _int(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _text(content: object) -> str:
    """The text of a message or tool result: a string, or the parts of a list (an image counts
    as IMAGE_BYTES: its tokens follow its pixels, not its encoded size)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part["text"])
            if part.get("type") == "text" and isinstance(part.get("text"), str)
            else " " * IMAGE_BYTES
            if part.get("type") == "image"
            else _encode(part)
            for part in content
            if isinstance(part, dict)
        )
    return "" if content is None else _encode(content)
