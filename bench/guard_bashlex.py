"""bashlex -> the guard's model (pylon/guard/model.py): the second parser measured by bench/guard.py.

Only for the measurement: pylon itself reads shell through tree-sitter-bash (pylon/guard/shell.py).
bashlex raises on what it cannot parse (no partial tree), which becomes one Opaque node.
"""

from __future__ import annotations

from typing import Any

from pylon.guard.model import DYN, LIT, VAR, Cmd, Loop, Node, Opaque, Part, Pipe, Redir, Seq, Sub, Word


def parse(text: str) -> Node:
    import bashlex

    try:
        trees = bashlex.parse(text)
    except Exception as exc:  # bashlex raises ParsingError, NotImplementedError and others
        return Seq([Opaque(text[:200], f"bashlex cannot read this ({type(exc).__name__})")])
    return Seq([_Reader(text).node(t) for t in trees])


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text

    def node(self, n: Any) -> Node:  # bashlex nodes (bashlex ships no type hints)
        kind = n.kind
        if kind == "command":
            return self.command(n)
        if kind == "pipeline":
            return Pipe([self.node(p) for p in n.parts if p.kind != "pipe"])
        if kind == "list":
            return Seq([self.node(p) for p in n.parts if p.kind not in ("operator", "reservedword")])
        if kind == "compound":
            inner = Seq([self.node(p) for p in n.list if p.kind not in ("operator", "reservedword")])
            opener = n.list[0] if n.list else None
            return Sub(inner) if opener is not None and getattr(opener, "word", "") == "(" else inner
        if kind == "for":
            words = [p for p in n.parts if p.kind == "word"]
            body = [p for p in n.parts if p.kind not in ("word", "reservedword", "operator")]
            has_in = any(getattr(p, "word", "") == "in" for p in n.parts)
            values = [self.word(w) for w in words[1:]] if has_in else None
            return Loop(words[0].word if words else "", values, Seq([self.node(b) for b in body]))
        if kind in ("if", "while", "until", "function"):
            return Seq(
                [self.node(p) for p in getattr(n, "parts", []) if p.kind not in ("reservedword", "operator", "word")]
                + ([self.node(n.body)] if kind == "function" else [])
            )
        if kind in ("operator", "reservedword", "pipe"):
            return Seq([])
        return Opaque(self.text[n.pos[0] : n.pos[1]], f"bashlex node {kind} not handled")

    def command(self, n: Any) -> Node:
        words: list[Word] = []
        redirs: list[Redir] = []
        assigns: list[tuple[str, Word]] = []
        for p in n.parts:
            if p.kind == "word":
                words.append(self.word(p))
            elif p.kind == "assignment":
                name, _, value = p.word.partition("=")
                assigns.append((name, Word.literal(value)))
            elif p.kind == "redirect":
                body = p.heredoc.value.rsplit("\n", 1)[0] + "\n" if getattr(p, "heredoc", None) else None
                target = p.output if getattr(p.output, "kind", "") == "word" else None
                redirs.append(
                    Redir(
                        p.type,
                        str(p.input) if isinstance(p.input, int) else "",
                        self.word(target) if target is not None else Word.literal(str(p.output)),
                        body,
                    )
                )
        subs = [s for w in words for s in w.subs]
        cmd = Cmd(words, redirs, assigns, self.text.count("\n", 0, n.pos[0]) + 1)
        return Seq([*subs, cmd]) if subs else cmd

    def word(self, w: Any) -> Word:
        raw = self.text[w.pos[0] : w.pos[1]]
        parts = getattr(w, "parts", []) or []
        subs: list[Node] = [
            self.node(p.command) for p in parts if p.kind in ("commandsubstitution", "processsubstitution")
        ]
        dynamic = [p for p in parts if p.kind != "tilde"]
        quoted = raw[:1] in ("'", '"')
        if not dynamic:
            return Word(raw, [Part(LIT, w.word, quoted)], subs)
        if (
            len(dynamic) == 1
            and dynamic[0].kind == "parameter"
            and raw.strip('"') in (f"${dynamic[0].value}", f"${{{dynamic[0].value}}}")
        ):
            return Word(raw, [Part(VAR, dynamic[0].value, quoted)], subs)
        return Word(raw, [Part(DYN, raw, quoted)], subs)
