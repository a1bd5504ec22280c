"""Codex's rollouts: `sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl` under `CODEX_HOME` (default
`~/.codex`), and the same layout under `archived_sessions/`. One file is one session.

Each line is `{"timestamp", "type", "payload"}`: `session_meta` (id, cwd, source), `turn_context`
(the model), `response_item` (messages, function and custom tool calls and their outputs),
`event_msg` (turn start and end, command and patch results, and `token_count`, whose
`total_token_usage` is cumulative and `last_token_usage` the latest request's). A usage record is
one `token_count` with its request's tokens (the difference of the totals when `last` is
missing), as ccusage counts them (docs/reference/serve.md, `pylon sessions`).
"""

from __future__ import annotations

import os

from pylon.sessions import calls as C
from pylon.sessions import codex_values as V
from pylon.sessions.jsonl import LineReader
from pylon.sessions.jsonl import stamp as _stamp
from pylon.sessions.jsonl import touch as _touch

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CLIENT = "codex"
# Usage record: the event's timestamp as written, model, input (cached included), cached input,
# output (reasoning included), reasoning, total, cache writes, time.
U_STAMP, U_MODEL, U_IN, U_CACHED, U_OUT, U_REASON, U_TOTAL, U_CW, U_TS = range(9)
_CALLS = ("function_call", "custom_tool_call", "local_shell_call", "web_search_call")
_OUTPUTS = ("function_call_output", "custom_tool_call_output")
# The entries this reader uses, by their type and their payload's (`{"timestamp":..,"type":"event_msg",
# "payload":{"type":"token_count",..`): every other line only tells the time and is not decoded.
_EVENTS = frozenset(
    {
        b"token_count",
        b"task_started",
        b"turn_started",
        b"user_message",
        b"task_complete",
        b"turn_complete",
        b"turn_aborted",
        b"exec_command_begin",
        b"exec_command_end",
        b"patch_apply_end",
        b"mcp_tool_call_end",
        b"item_completed",
    }
)
_ITEMS = frozenset(
    {
        b"function_call",
        b"custom_tool_call",
        b"local_shell_call",
        b"web_search_call",
        b"function_call_output",
        b"custom_tool_call_output",
    }
)
SPAWN_WINDOW = 16 * 1024  # a subagent's rollout says `thread_spawn` this early (see Reader.tokens)


def home() -> str:
    return os.path.abspath(os.path.expanduser(os.environ.get("CODEX_HOME") or os.path.join("~", ".codex")))


def start(name: str) -> dict[str, Any]:
    # a rollout's name ends with its session id: rollout-2026-12-06T01-43-28-<uuid>.jsonl
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    guess = stem[-36:] if len(stem) > 36 and stem[-37] == "-" else stem
    return {
        "client": CLIENT,
        "session": guess,
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
        "prev": None,
        "spawn": False,
        "replay": None,
        "held": [],
        "subagent": False,
        "read": 0,
    }


class Reader(LineReader):
    """Feeds lines into one file's state."""

    def feed(self, lines: list[bytes]) -> None:
        state = self.state
        for raw in lines:
            if state["read"] < SPAWN_WINDOW and b"thread_spawn" in raw[: SPAWN_WINDOW - state["read"]]:
                state["spawn"] = True
            state["read"] += len(raw) + 1
            if _wanted(raw) is False:
                at = raw.find(b'"timestamp":"')
                ts = _stamp(raw[at + 13 : raw.find(b'"', at + 13)].decode("ascii", "replace")) if at >= 0 else None
                if ts is not None:
                    _touch(state, ts)
                continue
            try:
                entry = self.decode(raw.decode("utf-8", "surrogateescape"))
            except Exception:  # counted, never fatal
                state["bad"] += 1
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("payload"), dict):
                state["foreign"] += 1
                continue
            try:
                self.entry(entry)
            except (TypeError, AttributeError, ValueError, KeyError):
                state["foreign"] += 1

    def entry(self, entry: dict[str, Any]) -> None:
        state = self.state
        stamp = entry.get("timestamp")
        ts = _stamp(stamp)
        if ts is not None:
            _touch(state, ts)
        kind, payload = entry.get("type"), entry["payload"]
        if kind == "session_meta":
            if isinstance(payload.get("id"), str) and payload["id"]:
                state["session"] = payload["id"]
            if isinstance(payload.get("cwd"), str) and not state["cwd"]:
                state["cwd"] = payload["cwd"]
            source = payload.get("source")
            state["entry"] = source if isinstance(source, str) else "subagent" if isinstance(source, dict) else ""
            state["subagent"] = isinstance(source, dict)
        elif kind == "turn_context":
            if isinstance(payload.get("model"), str) and payload["model"]:
                state["model"] = payload["model"]
            if isinstance(payload.get("cwd"), str) and not state["cwd"]:
                state["cwd"] = payload["cwd"]
        elif kind == "response_item":
            self.item(payload, ts)
        elif kind == "event_msg":
            self.event(payload, stamp, ts)

    def item(self, payload: dict[str, Any], ts: str | None) -> None:
        kind = payload.get("type")
        if kind in _CALLS:
            call_id = payload.get("call_id") or payload.get("id")
            if not isinstance(call_id, str) or call_id in self.index:
                return
            name = payload.get("name")
            if kind == "local_shell_call":
                name, raw = "local_shell", V.compact(payload.get("action"))
                given: Any = payload.get("action") if isinstance(payload.get("action"), dict) else {}
            elif kind == "web_search_call":
                name, raw = "web_search", V.compact(payload.get("action"))
                given = payload.get("action") if isinstance(payload.get("action"), dict) else {}
            elif kind == "custom_tool_call":
                raw = V.string(payload.get("input"))
                given = raw
            else:
                raw = V.string(payload.get("arguments"))
                try:
                    given = self.decode(raw) if raw else {}
                except Exception:  # arguments that are not JSON: sized, not read
                    given = {}
            namespace = payload.get("namespace")
            # an MCP tool is named as Claude Code names it: mcp__<server>__<tool> (Codex: namespace mcp__<server>)
            tool = (
                str(name or kind)
                if not isinstance(namespace, str) or not namespace
                else f"{namespace}__{name}"
                if namespace.startswith("mcp__")
                else f"{namespace}.{name}"
            )
            record = C.new(call_id, tool, given, raw, ts, self.state["cwd"])
            self.state["calls"].append(record)
            self.index[call_id] = record
            self.state["turn"] = ["call", ts]
        elif kind in _OUTPUTS:
            call_id = payload.get("call_id")
            if not isinstance(call_id, str):
                return
            output = payload.get("output")
            text = output if isinstance(output, str) else V.compact(output)
            failed = V.failed_output(output, text)
            called = self.index.get(call_id)
            if called is None:
                self.state["orphans"][call_id] = [bool(failed), len(text.encode("utf-8", "surrogatepass"))]
            else:
                called[C.OUT_BYTES] = len(text.encode("utf-8", "surrogatepass"))
                if called[C.FAILED] is None:
                    called[C.FAILED] = bool(failed)
                C.whole_from_result(called, V.output_text(output, text))
            self.state["turn"] = ["result", ts]
        elif (
            kind == "message"
            and payload.get("role") == "user"
            and self.state["turn"][0] in ("", "answer", "interrupted")
        ):
            self.state["turn"] = ["prompt", ts]

    def event(self, payload: dict[str, Any], stamp: object, ts: str | None) -> None:
        kind = payload.get("type")
        if kind == "token_count":
            self.tokens(payload, stamp, ts)
        elif kind in ("task_started", "turn_started", "user_message"):
            self.state["turn"] = ["prompt", ts]
        elif kind in ("task_complete", "turn_complete"):
            self.state["turn"] = ["answer", ts]
        elif kind == "turn_aborted":
            self.state["turn"] = ["interrupted", ts]
        elif kind == "exec_command_end":
            self.ended(payload.get("call_id"), payload.get("exit_code") not in (0, None))
        elif kind == "patch_apply_end":
            self.ended(payload.get("call_id"), payload.get("success") is False)
        elif kind == "mcp_tool_call_end":
            result = payload.get("result")
            self.ended(
                payload.get("call_id"),
                isinstance(result, dict)
                and ("Err" in result or (isinstance(result.get("Ok"), dict) and result["Ok"].get("isError") is True)),
            )
        elif kind == "item_completed" and isinstance(payload.get("item"), dict):
            item = payload["item"]
            status = item.get("status")
            if status is not None or "exit_code" in item:
                self.ended(
                    item.get("id"), status in ("failed", "declined", "error") or item.get("exit_code") not in (0, None)
                )
        if kind in ("exec_command_begin", "item_completed"):
            self.classify(payload)

    def ended(self, call_id: object, failed: bool) -> None:
        record = self.index.get(call_id) if isinstance(call_id, str) else None
        if record is not None:
            record[C.FAILED] = failed

    def classify(self, payload: dict[str, Any]) -> None:
        """A shell call Codex itself parsed as reading files (`parsed_cmd` of type `read`) is a
        read of that file; its region is the command (the same command reads the same lines)."""
        found = payload.get("item")
        item: dict[str, Any] = found if isinstance(found, dict) else payload
        record = self.index.get(str(item.get("id") or payload.get("call_id")))
        parsed = item.get("parsed_cmd")
        if record is None or record[C.LABEL] or not isinstance(parsed, list) or not parsed:
            return
        if all(isinstance(p, dict) and p.get("type") == "read" for p in parsed):
            paths = sorted({str(p.get("path") or p.get("name") or "") for p in parsed})
            cwd = self.state["cwd"]
            record[C.LABEL] = C.READ
            record[C.PATH] = C.digest("\0".join(os.path.normpath(os.path.join(cwd, p)) for p in paths))
            record[C.REGION] = record[C.TARGET]

    def tokens(self, payload: dict[str, Any], stamp: object, ts: str | None) -> None:
        """One request's tokens. A subagent's rollout starts by replaying its parent's token
        counts, all stamped within one second: when the first two counts of a rollout that says
        `thread_spawn` share their second, the counts of that second only move the running total
        (ccusage skips them the same way). Until the second count decides it, the first is held."""
        info = payload.get("info")
        if not isinstance(info, dict) or not isinstance(stamp, str):
            return
        total = V.usage(info.get("total_token_usage"))
        last = V.usage(info.get("last_token_usage"))
        if last is None and total is None:
            return
        state = self.state
        second = stamp[:19]
        event: list[Any] = [stamp, total, last, ts, self.model(payload, info)]
        if state["spawn"] and state["replay"] is None:
            state["held"].append(event)
            if len(state["held"]) < 2:
                return
            first = state["held"][0][0][:19]
            state["replay"] = first if first == second else ""
            held, state["held"] = state["held"], []
            for one in held:
                self.count(*one)
            return
        self.count(*event)

    def count(self, stamp: str, total: list[int] | None, last: list[int] | None, ts: str | None, model: str) -> None:
        state = self.state
        if state["replay"] and stamp[:19] == state["replay"]:
            if total is not None:
                state["prev"] = total
            return
        if state["replay"]:
            state["replay"] = ""  # past the replayed second: everything counts from here
        if last is None and total is not None:
            prev = state["prev"] or [0, 0, 0, 0, 0, 0]
            last = [max(0, a - b) for a, b in zip(total, prev)]
        if total is not None:
            state["prev"] = total
        if last is None or not any(last[:4]):
            return
        given, cached, output, reasoning, whole, written = last
        state["usage"].append(
            [
                stamp,
                model,
                given,
                min(cached, given),
                output,
                reasoning,
                whole if whole > 0 else given + output,
                written,
                ts,
            ]
        )

    def model(self, payload: dict[str, Any], info: dict[str, Any]) -> str:
        for where in (payload, info):
            for key in ("model", "model_name"):
                if isinstance(where.get(key), str) and where[key]:
                    self.state["model"] = where[key]
                    return str(where[key])
        return str(self.state["model"])


def _wanted(raw: bytes) -> bool | None:
    """Whether a line is worth decoding, from its type and its payload's type read off the bytes
    (None: the line is not in that form, so it is decoded to be sure)."""
    at = raw.find(b'"type":"')
    if at < 0:
        return None
    end = raw.find(b'"', at + 8)
    top = raw[at + 8 : end]
    if top == b"session_meta" or top == b"turn_context":
        return True
    inner = raw.find(b'"payload":{"type":"', end)
    if inner < 0:
        return None
    kind = raw[inner + 19 : raw.find(b'"', inner + 19)]
    if top == b"event_msg":
        return kind in _EVENTS
    if top == b"response_item":
        return kind in _ITEMS or (kind == b"message" and b'"role":"user"' in raw[inner : inner + 400])
    return False


def settled_usage(state: dict[str, Any]) -> list[list[Any]]:
    """The file's usage records, with a count still held (a subagent's rollout whose second count
    is not written yet) counted as it stands: as ccusage would count the file now."""
    if not state["held"]:
        return list(state["usage"])
    probe = dict(state, usage=list(state["usage"]), replay="", held=[])
    reader = Reader.__new__(Reader)
    reader.state = probe
    for one in state["held"]:
        reader.count(*one)
    return list(probe["usage"])
