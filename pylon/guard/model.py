"""The parsed shell script as plain data, independent of the parser that produced it.

A script is a tree of Seq (run one after another: `;`, `&&`, `||`, newlines, `{ }`, if/while/
case bodies), Pipe (connected by `|`), Sub (a subshell: `cd` inside does not leak out) and Cmd
(one simple command), plus Opaque for text the parser could not read. Words keep their parts so
that the classifier can resolve variables it knows and report the rest as dynamic.
"""

from __future__ import annotations

import time

# The time by which the current classification must end (time.monotonic()); the parser and the
# walk check it and raise OverBudget, which classify() turns into an `unknown` verdict.
DEADLINE = [float("inf")]


class OverBudget(Exception):
    """The classification ran past its time budget."""


def check_deadline() -> None:
    if time.monotonic() > DEADLINE[0]:
        raise OverBudget


# Kinds of word parts: literal text (quoted or not), a variable expansion, anything else that is
# only known when the shell runs (command substitution, arithmetic, ${x/...} forms).
LIT, VAR, DYN = "lit", "var", "dyn"


class Part:
    __slots__ = ("kind", "text", "quoted")

    def __init__(self, kind: str, text: str, quoted: bool = False) -> None:
        self.kind, self.text, self.quoted = kind, text, quoted

    def __repr__(self) -> str:
        return f"Part({self.kind}, {self.text!r}{', q' if self.quoted else ''})"


class Word:
    """One shell word: its source text, its parts, and the commands substituted inside it."""

    __slots__ = ("raw", "parts", "subs")

    def __init__(self, raw: str, parts: list[Part], subs: list[Node] | None = None) -> None:
        self.raw, self.parts, self.subs = raw, parts, subs or []

    @classmethod
    def literal(cls, text: str) -> Word:
        return cls(text, [Part(LIT, text, True)])

    @property
    def value(self) -> str | None:
        """The word after quote removal, or None when part of it is only known at run time."""
        if any(p.kind != LIT for p in self.parts):
            return None
        return "".join(p.text for p in self.parts)

    @property
    def glob(self) -> bool:
        """Unquoted *, ? or [ make the word a pathname pattern (or brace {a,b} a list)."""
        return any(p.kind == LIT and not p.quoted and any(c in p.text for c in "*?[{") for p in self.parts)

    def __repr__(self) -> str:
        return f"Word({self.raw!r})"


class Redir:
    """A redirection: `op` is the operator (`>`, `>>`, `>|`, `&>`, `<`, `<<`, ...), `fd` the
    descriptor written before it (or ""), `target` the file word (None for heredocs)."""

    __slots__ = ("op", "fd", "target", "body")

    def __init__(self, op: str, fd: str, target: Word | None, body: str | None = None) -> None:
        self.op, self.fd, self.target, self.body = op, fd, target, body


class Cmd:
    __slots__ = ("words", "redirs", "assigns", "line")

    def __init__(self, words: list[Word], redirs: list[Redir], assigns: list[tuple[str, Word]], line: int) -> None:
        self.words, self.redirs, self.assigns, self.line = words, redirs, assigns, line

    @property
    def stdin_text(self) -> str | None:
        """The text a heredoc or here-string feeds the command, if any."""
        for r in self.redirs:
            if r.body is not None:
                return r.body
        return None

    def __repr__(self) -> str:
        return f"Cmd({[w.raw for w in self.words]})"


class Seq:
    __slots__ = ("items",)

    def __init__(self, items: list[Node]) -> None:
        self.items = items


class Pipe:
    __slots__ = ("items",)

    def __init__(self, items: list[Node]) -> None:
        self.items = items


class Sub:
    __slots__ = ("body",)

    def __init__(self, body: Node) -> None:
        self.body = body


class Loop:
    """`for NAME in WORDS; do BODY; done`: the classifier binds NAME to the words."""

    __slots__ = ("var", "values", "body")

    def __init__(self, var: str, values: list[Word] | None, body: Node) -> None:
        self.var, self.values, self.body = var, values, body


UNREADABLE = "the shell grammar cannot read this"


class Opaque:
    """Text the parser could not read as shell: never judged safe (unless every shell refuses the
    whole line, classify.refused_by_shells: then none of it runs)."""

    __slots__ = ("text", "reason")

    def __init__(self, text: str, reason: str) -> None:
        self.text, self.reason = text, reason


Node = Cmd | Seq | Pipe | Sub | Loop | Opaque
