"""A reading of shell text as plain data, and the reading a PreToolUse hook hands to the hook
after the same tool call.

An agent's shell call fires two hook processes: the guard's PreToolUse reads the command (parser,
walk) to judge it, and canon's PostToolUse/PostToolBatch reads it again for the paths it names and
writes. Reading costs the second process most of its time (tree-sitter and the walk's modules:
27 M of its 82 M instructions, 2026-12-02), so the first one keeps its reading for the second:
one JSON file per (session, folder, text) under the state directory, taken (read and removed) by
the hook after the call. This module imports nothing heavy (not even the json package:
pylon.agents.jsonio), so a taken reading costs the second process a file read: 56.2 M
instructions against 85.0 M, while the PreToolUse pays 4.9 M more for keeping it
(docs/benchmarks.md). The reading is the same one either process would make: the tests read every
command of the bash-oracle suite both ways and compare (tests/guard/test_readout.py). A reading
older than MAX_AGE is not used (a call that waited that long gets a fresh reading), and files
nobody took (a call the user refused) are pruned by age.
"""

from __future__ import annotations

import os

MAX_AGE = 3600.0  # seconds between the PreToolUse that keeps a reading and the hook that takes it
_PRUNE_OVER = 64  # files in a session's folder before the old ones are pruned
_MEMO: dict[tuple[str, str], Reading] = {}  # readings this process made or took, by (text, cwd)
_MEMO_MAX = 16
# Redirection operators that open their target for writing.
WRITING = frozenset({">", ">>", ">|", "&>", "&>>", ">&", "<>"})


class Simple:
    """One simple command: its words after wrappers, globs matched like bash (None where a word
    is known only at run time), the folder it runs in (None when known only at run time), and its
    redirections as (operator, target) with the target None when known only at run time."""

    __slots__ = ("argv", "cwd", "redirs")

    def __init__(self, argv: list[str | None], cwd: str | None, redirs: list[tuple[str, str | None]]) -> None:
        self.argv, self.cwd, self.redirs = argv, cwd, redirs

    @property
    def program(self) -> str:
        """The command's name without its folder ("" when it is known only at run time)."""
        from pylon.guard.words import basename

        return basename(self.argv[0]) if self.argv and self.argv[0] else ""

    def __repr__(self) -> str:
        return f"Simple({self.argv!r}, {self.redirs!r})"


class Reading:
    """The simple commands of a text in the order they appear, and the regions no parse could read."""

    __slots__ = ("commands", "unread")

    def __init__(self, commands: list[Simple], unread: list[str]) -> None:
        self.commands, self.unread = commands, unread

    def to_json(self) -> dict[str, object]:
        return {
            "v": 1,
            "commands": [[c.argv, c.cwd, [list(r) for r in c.redirs]] for c in self.commands],
            "unread": self.unread,
        }

    @classmethod
    def from_json(cls, doc: object) -> Reading | None:
        """The reading `doc` holds, or None for anything else (a file from another version)."""
        if not isinstance(doc, dict) or doc.get("v") != 1:
            return None
        try:
            commands = [
                Simple(
                    [w if isinstance(w, str) else None for w in argv],
                    cwd if isinstance(cwd, str) else None,
                    [(str(op), t if isinstance(t, str) else None) for op, t in redirs],
                )
                for argv, cwd, redirs in doc["commands"]
            ]
            unread = [str(t) for t in doc["unread"]]
        except (KeyError, TypeError, ValueError):
            return None
        return cls(commands, unread)


def remembered(text: str, cwd: str) -> Reading | None:
    return _MEMO.get((text, cwd))


def remember(text: str, cwd: str, reading: Reading) -> None:
    if len(_MEMO) >= _MEMO_MAX:
        _MEMO.pop(next(iter(_MEMO)))
    _MEMO[(text, cwd)] = reading


def _path(session: str, text: str, cwd: str) -> str:
    from pylon.digest import sha256_hex
    from pylon.state import state_home

    folder = sha256_hex(session.encode("utf-8", "surrogatepass"))[:16]  # an agent's id may hold anything
    digest = sha256_hex(f"{cwd}\0{text}".encode("utf-8", "surrogatepass"))[:32]
    return os.path.join(state_home(), "guard", "readings", folder, digest + ".json")


def keep(session: str, text: str, cwd: str, reading: Reading) -> None:
    """Keep `reading` for the hook after this tool call (best effort: a failure only costs that
    hook its own reading)."""
    import time

    from pylon.agents.jsonio import dumps
    from pylon.atomic import replace_unsynced

    path = _path(session, text, cwd)
    folder = os.path.dirname(path)
    os.makedirs(folder, exist_ok=True)
    doc = {**reading.to_json(), "text": text, "cwd": cwd}
    # a cache for the next hook (one lost in a crash is read again): no fsync before every command
    replace_unsynced(path, dumps(doc).encode("utf-8", "surrogatepass"))
    names = os.listdir(folder)
    if len(names) > _PRUNE_OVER:
        now = time.time()
        for name in names:
            try:
                if now - os.stat(os.path.join(folder, name)).st_mtime > MAX_AGE:
                    os.unlink(os.path.join(folder, name))
            except OSError:
                pass


def take(session: str, text: str, cwd: str) -> Reading | None:
    """The reading a PreToolUse kept for this call, removed from disk and remembered here; None
    when there is none, it is older than MAX_AGE, or it is not for exactly this text and folder."""
    import time

    path = _path(session, text, cwd)
    try:
        with open(path, "rb") as fh:
            age = time.time() - os.fstat(fh.fileno()).st_mtime
            data = fh.read(8 << 20)
        os.unlink(path)
    except OSError:
        return None
    if age > MAX_AGE:
        return None
    from pylon.agents.jsonio import loads

    try:
        doc = loads(data)
    except ValueError:  # (json's JSONDecodeError and UnicodeDecodeError are ValueErrors)
        return None
    if not isinstance(doc, dict) or doc.get("text") != text or doc.get("cwd") != cwd:
        return None  # a digest collision, or a file not written by keep()
    reading = Reading.from_json(doc)
    if reading is not None:
        remember(text, cwd, reading)
    return reading
