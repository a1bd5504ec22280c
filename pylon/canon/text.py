"""Checks on text given on the command line before it reaches an article or a journal entry."""

from __future__ import annotations

from pylon.errors import UsageError

# Hard limits on what an agent writes (pylon mcp's tools and the hooks: the entry points that run
# confined, pylon/boundary.py); a person at the command line is not bound by them (docs/explanation/canon.md).
# A capsule is surfaced whole, and a session's surfacing budget is 4000 capsule characters (spec:
# `canon surface`), so a longer one could never be shown; pi-canon's lint already flags one over
# 1000 (`capsule-too-long`). A body or journal entry: ten times pi-canon's default schema
# `body.max_chars` (20,000), past which its hint says to go hierarchical.
CAPSULE_MAX = 4000
BODY_MAX = 200_000


def has_control(text: str) -> bool:
    """A line break, tab or other control character (C0, DEL, C1, U+2028/U+2029)."""
    return any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F or c in "\u2028\u2029" for c in text)


def check_text(value: str | None, option: str) -> None:
    """Refuse up front text no article can hold: a NUL byte (git and editors treat the file as
    binary), or bytes that are not UTF-8 (they reach argv as lone surrogates)."""
    if not value:
        return
    if "\0" in value:
        raise UsageError(
            "bad-text",
            f"{option} contains a NUL byte, which an article cannot hold.",
            f"Remove the NUL bytes from {option}, then run the command again.",
        )
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError(
            "bad-text",
            f"{option} is not valid UTF-8 text.",
            f"Pass {option} as UTF-8 (or use --body-file with a UTF-8 file).",
        ) from None
    check_limit(value, option)


def check_limit(value: str, option: str) -> None:
    """`too-long` for a capsule over CAPSULE_MAX or a body or entry over BODY_MAX characters, where
    an agent writes (a confined entry point); nothing is written."""
    limit, what = (CAPSULE_MAX, "capsule") if option == "--capsule" else (BODY_MAX, "body")
    _within(len(value), limit, what)


def check_entry(text: str, subjects: list[str]) -> None:
    """`too-long` for a journal entry whose text and subjects together pass BODY_MAX characters,
    where an agent writes: a thousand long subjects are as much entry as a long text."""
    _within(len(text) + sum(len(subject) + 2 for subject in subjects), BODY_MAX, "entry")


def _within(length: int, limit: int, what: str) -> None:
    from pylon import boundary

    if boundary.current() is None or length <= limit:
        return
    hint = {
        "capsule": "Write one dense line of current truth; put the detail in the body.",
        "body": "Keep this article as the summary and move the detail into articles under its address.",
        "entry": "Name the few articles the entry is about, and keep its text to what happened.",
    }[what]
    shown = "journal entry (its text and subjects)" if what == "entry" else what
    raise UsageError(
        "too-long",
        f"The {shown} is {length:,} characters; the limit where an agent writes is {limit:,}. Nothing was written.",
        hint,
        details={"limit": limit, "length": length, "field": what},
    )


_NAME_FIRST = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_NAME_REST = _NAME_FIRST | frozenset(".-")


def check_provenance(harness: str | None, session: str | None) -> dict[str, str]:
    """`--harness` (a client's name: 1-64 of A-Za-z0-9._-, not starting with `-` or `.`) and `--session`
    (one line of at most 200 printable characters) as front matter values. No `re`: `pylon mcp`
    checks its `--harness` before it serves, on the path to its first answer."""
    from pylon.errors import PylonError

    if harness is not None and not (
        0 < len(harness) <= 64 and harness[0] in _NAME_FIRST and all(c in _NAME_REST for c in harness)
    ):
        raise PylonError(
            "bad-provenance",
            f"--harness {harness[:80]!r} is not a client name (1-64 of A-Za-z0-9._-).",
            "Name the agent client: --harness claude-code",
            exit_code=2,
        )
    if session is not None and (not session or len(session) > 200 or not session.isprintable()):
        raise PylonError(
            "bad-provenance",
            "--session must be one line of 1-200 printable characters.",
            "Pass the agent session's id: --session ID",
            exit_code=2,
        )
    return {key: value for key, value in (("harness", harness), ("session", session)) if value}
