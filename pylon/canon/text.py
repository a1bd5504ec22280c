"""Checks on text given on the command line before it reaches an article or a journal entry."""

from __future__ import annotations

from pylon.errors import UsageError


def has_control(text: str) -> bool:
    """A line break, tab or other control character (C0, DEL, C1, U+2028/U+2029)."""
    return any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" for c in text)


def check_text(value: str | None, option: str) -> None:
    """Refuse up front text no article can hold: a NUL byte (git and editors treat the file as
    binary), or bytes that are not UTF-8 (they reach argv as lone surrogates)."""
    if not value:
        return
    if "\0" in value:
        raise UsageError("bad-text", f"{option} contains a NUL byte, which an article cannot hold.",
                         f"Remove the NUL bytes from {option}, then run the command again.")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError("bad-text", f"{option} is not valid UTF-8 text.",
                         f"Pass {option} as UTF-8 (or use --body-file with a UTF-8 file).") from None
