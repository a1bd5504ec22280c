"""Rendering shared by every command: JSON documents, text lines, colour, warnings.

stdout carries data; progress, warnings and hints go to stderr. JSON is written with the standard
library, never through rich. Colour only when the stream is a TTY and not disabled.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False  # typing and json cost start-up time on every command; import them lazily
if TYPE_CHECKING:
    from typing import Any, TextIO

_settings: dict[str, str] = {"color": "auto"}

_ANSI = {
    "bold": "1",
    "dim": "2",
    "red": "31",
    "green": "32",
    "yellow": "33",
    "blue": "34",
    "magenta": "35",
    "cyan": "36",
}


def set_color_mode(mode: str) -> None:
    """Called once per command line (main.dispatch): its colour, and no stream yet."""
    _settings["color"] = mode
    _settings.pop("stream", None)


def color_enabled(stream: TextIO) -> bool:
    mode = _settings["color"]
    if mode == "never" or (mode == "auto" and os.environ.get("NO_COLOR")):
        return False
    if mode == "always":
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def paint(text: str, style: str, stream: TextIO | None = None) -> str:
    """Wrap `text` in ANSI codes for `style` (space-separated names) when colour is on."""
    if not color_enabled(stream or sys.stdout):
        return text
    codes = ";".join(_ANSI[s] for s in style.split() if s in _ANSI)
    return f"\x1b[{codes}m{text}\x1b[0m" if codes else text


def _write(stream: TextIO, text: str) -> None:
    # Paths from git or the file system may hold bytes that are not UTF-8 (kept as surrogate
    # escapes); they go out as the original bytes instead of failing the command.
    # Flushed at once: streaming commands (`ws watch`, `ws run`) interleave with other writers.
    try:
        stream.write(text)
        stream.flush()
    except UnicodeEncodeError:
        stream.flush()
        stream.buffer.write(text.encode("utf-8", "surrogateescape"))
        stream.buffer.flush()


def emit_json(doc: Any) -> None:
    """Write exactly one JSON document (plus newline) to stdout."""
    import json

    _write(sys.stdout, json.dumps(doc, ensure_ascii=False, indent=None, separators=(", ", ": ")) + "\n")


def start_stream() -> None:
    """This command streams JSON Lines: a failure after this is one more line, `event: error`."""
    _settings["stream"] = "json"


def streaming() -> bool:
    return _settings.get("stream") == "json"


def event_json(event: str, data: dict[str, Any]) -> None:
    """One JSON line of a streaming command (`ws watch`, `canon watch`): `{"ok", "event", ...}`."""
    emit_json({"ok": True, "event": event, **data})


def ok_json(data: dict[str, Any]) -> None:
    """A success document: `{"ok": true, ...data}`."""
    emit_json({"ok": True, **data})


def ok_json_safe(data: dict[str, Any]) -> None:
    """A success document whose strings may hold bytes that are not UTF-8 (paths from git or the
    file system): such strings go out in the workspace's lossless encoding (pylon.jsonbytes)."""
    from pylon.jsonbytes import safe

    encoded = safe(data)
    assert isinstance(encoded, dict)  # safe() keeps a document's shape
    ok_json(encoded)


def write(text: str) -> None:
    """Data to stdout exactly as given (no newline added)."""
    _write(sys.stdout, text)


def out(text: str = "") -> None:
    """One or more lines of data to stdout (a final newline is added when missing)."""
    _write(sys.stdout, text if text.endswith("\n") else text + "\n")


def err(text: str) -> None:
    """A line for a human on stderr (warnings, progress, hints)."""
    _write(sys.stderr, text if text.endswith("\n") else text + "\n")


def warn(text: str) -> None:
    err(paint("warning:", "yellow bold", sys.stderr) + " " + text)


def render_error(code: str, message: str, hint: str | None, usage: str | None = None) -> None:
    """`error[<code>]: message`, the command's usage line for usage errors, and `hint: ...`, on stderr."""
    err(paint(f"error[{code}]:", "red bold", sys.stderr) + " " + message)
    if usage:
        err(usage)
    if hint:
        err(paint("hint:", "cyan", sys.stderr) + " " + hint)
