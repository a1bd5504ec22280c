"""JSON-RPC 2.0 as MCP's stdio transport carries it: one message per line, every line answered.

`parse(line)` turns one line of stdin into a `Message` (a request, a notification, or a response
to a request of ours) or into the error answer it gets: a line that is not JSON (or not UTF-8)
is a parse error (-32700); JSON that is not a JSON-RPC 2.0 message (an array, a scalar, a wrong
`jsonrpc`, `params` that is not an object, an id that is neither string nor number, a string
holding a lone surrogate escape such as `"\\ud800"`, which no UTF-8 text can carry) is an invalid
request (-32600), answered with the request's id when it has a usable one, else null. A batch
(a JSON array) is refused with one -32600 error: MCP's revisions since 2025-06-18 send no
batches, and its messages are single objects. A number no answer could carry back (one that
overflows to infinity, or an integer of over 4300 digits) is a parse error, so every answer is
strict JSON; a byte order mark opening a line is ignored (RFC 8259, section 8.1, allows it).
Nothing here recurses over a message (a line nested 990 deep parses), so no line can end the
reader. Plain stdlib (`json`), no MCP SDK.
"""

from __future__ import annotations

import json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800  # not sent (a cancelled request gets no answer); named for the docs

REQUEST, NOTIFICATION, RESPONSE = "request", "notification", "response"


class Message:
    """One valid message: its kind, id (requests and responses), method, params, and for a
    response its result or error."""

    __slots__ = ("kind", "id", "method", "params", "result", "error")

    def __init__(self, kind: str, doc: dict[str, Any]) -> None:
        self.kind = kind
        self.id: object = doc.get("id")
        self.method: str = doc.get("method", "")
        params = doc.get("params")
        self.params: dict[str, Any] = params if isinstance(params, dict) else {}
        self.result: object = doc.get("result")
        self.error: object = doc.get("error")


def error(request_id: object, code: int, message: str, data: object = None) -> dict[str, Any]:
    body: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        body["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": body}


def result(request_id: object, value: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": value}


def valid_id(value: object) -> bool:
    return isinstance(value, str) or (isinstance(value, (int, float)) and not isinstance(value, bool))


def _lone_surrogate(value: object) -> bool:
    """A string anywhere in `value` (keys too) holding a surrogate code point. A walk with its own
    stack: a message nested a few hundred deep would exhaust Python's recursion limit."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return True
        elif isinstance(item, dict):
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)
    return False


def _not_json(name: str) -> object:
    raise ValueError(f"{name} is not JSON")


def _float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"the number {text[:40]} is out of range (no answer could carry it back)")
    return value


def _int(text: str) -> int:
    if len(text.lstrip("-")) > 4300:  # Python's own bound on int(str); its message advises a Python call
        raise ValueError("a number has over 4300 digits")
    return int(text)


_BOM = b"\xef\xbb\xbf"


def parse(line: bytes) -> Message | dict[str, Any]:
    """The message on one line, or the error answer the line gets."""
    if line.startswith(_BOM):
        line = line[len(_BOM) :]
    try:
        doc = json.loads(line.decode("utf-8"), parse_constant=_not_json, parse_float=_float, parse_int=_int)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        why = "the line is not UTF-8" if isinstance(exc, UnicodeDecodeError) else "the line is not JSON"
        return error(None, PARSE_ERROR, "Parse error", f"{why}: {exc}"[:300])
    if isinstance(doc, list):
        return error(
            None,
            INVALID_REQUEST,
            "Invalid Request",
            "batches are not supported: send each message on its own line"
            if doc
            else "an empty array is not a message",
        )
    if not isinstance(doc, dict):
        return error(None, INVALID_REQUEST, "Invalid Request", "a message is a JSON object")
    request_id = doc.get("id")
    answer_id = request_id if valid_id(request_id) and not _lone_surrogate(request_id) else None

    def invalid(why: str) -> dict[str, Any]:
        return error(answer_id, INVALID_REQUEST, "Invalid Request", why)

    if doc.get("jsonrpc") != "2.0":
        return invalid('"jsonrpc" must be "2.0"')
    if _lone_surrogate(doc):
        return invalid("a string holds a lone surrogate escape (\\ud800-\\udfff), which is not text")
    if "id" in doc and not valid_id(request_id):
        return invalid('"id" must be a string or a number')
    method = doc.get("method")
    if method is None:
        if "id" in doc and ("result" in doc) != ("error" in doc):
            return Message(RESPONSE, doc)
        return invalid('a message needs "method" (or, as a response, "id" and one of "result" and "error")')
    if not isinstance(method, str) or not method:
        return invalid('"method" must be a non-empty string')
    if "params" in doc and not isinstance(doc["params"], dict):
        return invalid('"params" must be an object')
    if "result" in doc or "error" in doc:
        return invalid('a request carries no "result" or "error"')
    return Message(REQUEST if "id" in doc else NOTIFICATION, doc)


def dump(message: dict[str, Any]) -> bytes:
    """One line of output, strict JSON. Text stays readable; anything not encodable as UTF-8 is
    escaped; a value JSON cannot hold (NaN, a nesting too deep) turns the answer into an error."""
    try:
        try:
            return (json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n").encode()
        except UnicodeEncodeError:
            return (json.dumps(message, separators=(",", ":"), allow_nan=False) + "\n").encode("ascii")
    except (ValueError, TypeError, RecursionError) as exc:
        request_id = message.get("id")
        fallback = error(
            request_id if isinstance(request_id, str) or type(request_id) is int else None,
            INTERNAL_ERROR,
            "Internal error",
            f"the answer is not JSON: {exc}"[:300],
        )
        return (json.dumps(fallback) + "\n").encode("ascii")
