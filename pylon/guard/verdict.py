"""Verdicts, the findings behind them, and what a snapshot must keep (targets)."""

from __future__ import annotations

SAFE, REVERSIBLE, UNKNOWN, IRREVERSIBLE = "safe", "reversible", "unknown", "irreversible"
VERDICTS = (SAFE, REVERSIBLE, UNKNOWN, IRREVERSIBLE)
# The worst finding decides; irreversible outranks unknown because it is the more definite answer.
_RANK = {SAFE: 0, REVERSIBLE: 1, UNKNOWN: 2, IRREVERSIBLE: 3}

# Target kinds: a path (and everything below it) that would be removed or overwritten; the
# tracked and untracked state of the checkout (reset --hard, checkout -- .); the files a
# `git clean` with these options would remove (asked with `git clean -n` at snapshot time).
# TRACKED: only tracked content below the path is lost (git checkout/restore: ignored files stay);
# FIND: the files `find PATH ARGS -print` lists (asked with that listing at snapshot time).
# REFS: refs of the repository (ARGS: full names, prefixes ending in `/`, or refs/stash for every
# stash entry) that the snapshot keeps under refs/pylon/guard-refs/<n>/; no file is touched.
PATH, CHECKOUT, GIT_CLEAN, TRACKED, FIND, REFS = "path", "checkout", "git-clean", "tracked", "find", "refs"


class Target:
    __slots__ = ("kind", "path", "args")

    def __init__(self, kind: str, path: str = "", args: tuple[str, ...] = ()) -> None:
        self.kind, self.path, self.args = kind, path, args

    def key(self) -> tuple[str, str, tuple[str, ...]]:
        return (self.kind, self.path, self.args)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"kind": self.kind, "path": self.path}
        if self.args:
            out["args"] = list(self.args)
        return out


class Finding:
    """One reason: the verdict it supports, the sentence, and the exact words responsible."""

    __slots__ = ("verdict", "reason", "words", "targets", "line", "argv")

    def __init__(
        self, verdict: str, reason: str, words: str, targets: list[Target] | None = None, line: int = 0
    ) -> None:
        self.verdict, self.reason, self.words, self.targets, self.line = verdict, reason, words, targets or [], line
        self.argv: list[str] = []  # the simple command it came from (policy rules match these words)

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"verdict": self.verdict, "reason": self.reason, "words": self.words}
        if self.line:
            out["line"] = self.line
        if self.argv:
            out["argv"] = self.argv
        if self.targets:
            out["targets"] = [t.to_dict() for t in self.targets]
        return out


def worst(verdicts: list[str]) -> str:
    return max(verdicts, key=_RANK.__getitem__, default=SAFE)


class Result:
    __slots__ = ("command", "verdict", "findings", "commands")

    def __init__(self, command: str, findings: list[Finding], commands: list[list[str]]) -> None:
        self.command, self.findings, self.commands = command, findings, commands
        self.verdict = worst([f.verdict for f in findings])

    @property
    def targets(self) -> list[Target]:
        seen: dict[tuple[str, str, tuple[str, ...]], Target] = {}
        for f in self.findings:
            if f.verdict == REVERSIBLE:
                for t in f.targets:
                    seen.setdefault(t.key(), t)
        return list(seen.values())

    def to_dict(self) -> dict[str, object]:
        return {
            "verdict": self.verdict,
            "command": self.command,
            "reasons": [f.to_dict() for f in self.findings if f.verdict != SAFE or self.verdict == SAFE],
            "targets": [t.to_dict() for t in self.targets],
            "commands": self.commands,
        }
