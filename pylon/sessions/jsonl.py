"""Reading a transcript that may be growing: whole lines from a byte offset, decoded one by one,
and the clients' ISO timestamps as seconds since the epoch.

A client appends one JSON object per line. A line not yet ended by its newline is being written:
it is left for the next read (the offset stops before it). A line that does not decode is counted
by the caller and skipped, never fatal. JSON goes through the C scanner json itself uses, without
importing the json package (pylon/agents/jsonio.py says why).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

CHUNK = 8 * 1024 * 1024  # bytes read per call: a 100 MB history is read in a few large reads


def decoder() -> Callable[[str], Any]:
    """A function decoding one line of JSON text; it raises ValueError (or another exception the
    caller treats the same) on anything that is not exactly one JSON value."""
    try:
        from pylon.agents.jsonio import scanner

        scan = scanner()

        def decode(text: str) -> Any:
            value, end = scan(text, 0)
            if end != len(text) and text[end:].strip():
                raise ValueError("trailing data")
            return value

        return decode
    except ImportError:  # another Python without the accelerator: the json package
        import json

        return json.loads


class LineReader:
    """What a client's reader starts from: one transcript's state, the decoder, and the state's
    tool calls by id (a result finds its call; a call written twice is kept once)."""

    def __init__(self, state: dict[str, Any], decode: Callable[[str], Any]) -> None:
        self.state, self.decode = state, decode
        self.index: dict[str, list[Any]] = {call[0]: call for call in state["calls"]}  # calls.ID


def compact(value: object) -> str:
    """`value` as compact JSON (the size a client sends), "" for what JSON cannot hold."""
    try:
        from _json import encode_basestring, make_encoder

        encode = make_encoder({}, _refuse, encode_basestring, None, ":", ",", False, False, True)
        return "".join(encode(value, 0))
    except ImportError:
        import json

        try:
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
        except (TypeError, ValueError):
            return ""
    except (TypeError, ValueError):
        return ""


def _refuse(obj: object) -> object:
    raise TypeError(type(obj).__name__)


def whole_lines(path: str, offset: int, feed: Callable[[list[bytes]], None]) -> tuple[int, bytes]:
    """Feed the complete lines of `path` from byte `offset` on (without their newlines, empty lines
    dropped) to `feed`, a batch per CHUNK read, so memory holds one chunk and one line however
    large the file. Returns the offset just past the last newline read and up to 64 bytes before it
    (those read from `offset` on; b"" when no line was read). A partial last line is left for the
    next read."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    end, tail, carry = offset, b"", b""
    try:
        position = offset
        while True:
            block = os.pread(fd, CHUNK, position)
            if not block:
                break
            position += len(block)
            data = carry + block if carry else block
            cut = data.rfind(b"\n")
            if cut < 0:
                carry = data
                continue
            feed([line for line in data[:cut].split(b"\n") if line.strip()])
            end = position - (len(data) - cut - 1)
            tail = (tail + data[max(0, cut + 1 - 64) : cut + 1])[-64:]  # data starts where the last cut ended
            carry = data[cut + 1 :]
            if len(block) < CHUNK:
                break
    finally:
        os.close(fd)
    return end, tail


def fingerprint(path: str, offset: int) -> bytes:
    """The 64 bytes before `offset`: a file rewritten rather than appended to (another transcript
    moved into its place) is noticed and read again from its start."""
    if offset <= 0:
        return b""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return b""
    try:
        start = max(0, offset - 64)
        return os.pread(fd, offset - start, start)
    except OSError:
        return b""
    finally:
        os.close(fd)


def stamp(value: object) -> str | None:
    """A time as the clients write it (`2026-12-06T01:43:27.522Z`: UTC, milliseconds), which sorts
    as text; any other form a time may take (an offset, seconds, no fraction) brought to it. Times
    are kept as this text so that a line's time costs no arithmetic."""
    if (
        type(value) is str
        and len(value) == 24
        and value[23] == "Z"
        and value[19] == "."
        and value[10] == "T"
        and value[:4].isdigit()
    ):
        return value
    return iso(epoch(value))


def touch(state: dict[str, object], ts: str) -> None:
    """Widen a transcript state's [first, last] times (stamps) to include `ts`."""
    first, last = state["first"], state["last"]  # None before the first stamp, else a stamp
    if not isinstance(first, str) or ts < first:
        state["first"] = ts
    if not isinstance(last, str) or ts > last:
        state["last"] = ts


_DAYS_BEFORE_MONTH = (0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)


_DAY_CACHE: dict[str, int] = {}


def epoch(text: object) -> float | None:
    """`2026-12-06T01:43:27.522Z` (or with `+HH:MM`, or a number of seconds or milliseconds) as
    seconds since the epoch; None for anything else. Without datetime: this runs once per line, so
    the clients' own form (UTC, milliseconds, `Z`) takes a short way with each day computed once."""
    if type(text) is str and len(text) == 24 and text[23] == "Z" and text[19] == "." and text[10] == "T":
        days = _DAY_CACHE.get(text[:10])
        if days is None:
            whole = _slow(text[:19] + "Z")
            if whole is None:
                return None
            days = _DAY_CACHE[text[:10]] = int(whole // 86400)
        try:
            return (
                days * 86400
                + int(text[11:13]) * 3600
                + int(text[14:16]) * 60
                + int(text[17:19])
                + int(text[20:23]) / 1000
            )
        except ValueError:
            return None
    return _slow(text)


def _slow(text: object) -> float | None:
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        value = float(text)
        return value / 1000 if value > 1e11 else value  # milliseconds past 1973 read as seconds otherwise
    if not isinstance(text, str) or len(text) < 19 or text[4] != "-" or text[10] not in "Tt ":
        return None
    try:
        year, month, day = int(text[0:4]), int(text[5:7]), int(text[8:10])
        hour, minute, second = int(text[11:13]), int(text[14:16]), int(text[17:19])
    except ValueError:
        return None
    if not (1 <= month <= 12 and 1 <= day <= 31 and hour < 24 and minute < 60 and second < 61):
        return None
    rest = text[19:]
    fraction = 0.0
    if rest.startswith("."):
        digits = len(rest) - len(rest[1:].lstrip("0123456789"))
        if digits > 1:
            fraction = float("0" + rest[:digits])
        rest = rest[digits:]
    shift = 0
    if rest and rest not in ("Z", "z"):
        if len(rest) != 6 or rest[0] not in "+-" or rest[3] != ":":
            return None
        try:
            shift = (int(rest[1:3]) * 60 + int(rest[4:6])) * 60 * (1 if rest[0] == "+" else -1)
        except ValueError:
            return None
    leap = month > 2 and (year % 4 == 0 and (year % 100 != 0 or year % 400 == 0))
    y = year - 1
    days = y * 365 + y // 4 - y // 100 + y // 400 - 719162 + _DAYS_BEFORE_MONTH[month - 1] + leap + day - 1
    return days * 86400 + hour * 3600 + minute * 60 + second + fraction - shift


def iso(seconds: float | None) -> str | None:
    """Seconds since the epoch as `2026-12-06T01:43:27.522Z` (UTC, milliseconds)."""
    if seconds is None:
        return None
    import time

    whole = int(seconds)
    millis = int(round((seconds - whole) * 1000))
    if millis == 1000:
        whole, millis = whole + 1, 0
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(whole)) + f".{millis:03d}Z"
