"""Shell text -> model (model.py), through the tree-sitter bash grammar. tree-sitter is
error-tolerant: it always returns a tree and marks what it could not read with ERROR or missing
nodes. Those regions become Opaque nodes, so a script that bash itself would read differently is
never judged on a guess. (bashlex was measured too: docs/explanation/guard.md.)"""

from __future__ import annotations

from pylon.guard.model import (
    DYN,
    LIT,
    UNREADABLE,
    VAR,
    Cmd,
    Loop,
    Node,
    Opaque,
    Part,
    Pipe,
    Redir,
    Seq,
    Sub,
    Word,
    check_deadline,
)
from pylon.guard.quoting import ansi_c
from pylon.guard.quoting import unescape as _unescape
from pylon.guard.quoting import unescape_dq as _unescape_dq

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from tree_sitter import Node as TsNode
    from tree_sitter import Parser

_PARSER: list[Parser] = []
# Statements whose children are all run, one after another.
_SEQUENCE = frozenset(
    {
        "program",
        "list",
        "compound_statement",
        "do_group",
        "if_statement",
        "elif_clause",
        "else_clause",
        "while_statement",
        "case_statement",
        "case_item",
        "negated_command",
        "function_definition",
        "c_style_for_statement",
        "until_statement",
    }
)
_WORDISH = frozenset(
    {
        "word",
        "string",
        "raw_string",
        "concatenation",
        "simple_expansion",
        "expansion",
        "command_substitution",
        "number",
        "ansi_c_string",
        "translated_string",
        "arithmetic_expansion",
        "process_substitution",
        "array",
        "extglob_pattern",
    }
)


def _parser() -> Parser:
    if not _PARSER:
        from pylon.native import binding_of

        binding = binding_of("tree_sitter")  # tree_sitter's own __init__ imports typing: ~5 ms unneeded here
        if binding is None:
            import tree_sitter as binding
        _PARSER.append(binding.Parser(binding.Language(_bash_language())))
    return _PARSER[0]


def _bash_language() -> object:
    """The grammar from tree_sitter_bash's compiled binding, loaded without running the package's
    __init__ (it imports importlib.resources for its query files: ~15 ms the hook never needs)."""
    from pylon.native import binding_of

    binding = binding_of("tree_sitter_bash")
    if binding is not None:
        return binding.language()
    import tree_sitter_bash

    return tree_sitter_bash.language()


def parse(text: str) -> Node:
    """The script as a Seq; unreadable regions are Opaque nodes inside it."""
    data = text.encode("utf-8", "surrogateescape")
    tree = _parser().parse(_grammar_safe(data))
    previous, _SOURCE[0] = _SOURCE[0], data
    try:
        return _Reader().node(tree.root_node)
    finally:
        _SOURCE[0] = previous


def _grammar_safe(data: bytes) -> bytes:
    """`data` with every 4-byte UTF-8 character (U+10000 and above) replaced by four ASCII letters.
    tree-sitter-bash 0.25's scanner crashes the process, now and then, on such characters in some
    positions (`{0` then an emoji); to bash both are word characters, and the byte offsets stay the
    same, so every node's text is still read from the original bytes."""
    if not data or max(data) < 0xF0:  # no such lead byte: nothing to replace, and no `re` to import
        return data
    import re

    return re.sub(rb"[\xf0-\xf7][\x80-\xbf]{3}", b"xxxx", data)


_SOURCE: list[bytes] = [b""]  # the text being read (Node.text costs time that grows with the tree)


def _text(node: TsNode) -> str:
    return _SOURCE[0][node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")


class _Reader:
    def node(self, n: TsNode) -> Node:
        check_deadline()
        kind = n.type
        if kind == "ERROR" or n.is_missing:
            return Opaque(_text(n), UNREADABLE)
        if kind == "command":
            return self.command(n, [])
        if kind == "redirected_statement":
            return self.redirected(n)
        if kind == "pipeline":
            return Pipe([self.node(c) for c in n.named_children if c.type != "comment"])
        if kind == "subshell":
            return Sub(Seq(self.children(n)))
        if kind == "for_statement":
            return self.for_loop(n)
        if kind in ("variable_assignment", "declaration_command", "unset_command", "test_command"):
            return self.assignment_like(n)
        if kind == "comment":
            return Seq([])
        if kind in _SEQUENCE or n.named_child_count:
            return Seq(self.children(n))
        return Seq([])

    def trailing(self, body: TsNode, redirs: list[Redir]) -> Node:
        """`a | b > f`, `a && b > f`: tree-sitter-bash hangs the redirection on the whole pipeline or
        list, but bash gives it to the last statement alone (`cat f | sort > f` truncates f once)."""
        kids = [c for c in body.named_children if c.type != "comment"]
        if body.type == "command":
            return self.command(body, redirs)
        if body.type not in ("pipeline", "list") or not kids:
            return _push_redirs(self.node(body), redirs)
        items = [self.node(c) for c in kids[:-1]] + [self.trailing(kids[-1], redirs)]
        return Pipe(items) if body.type == "pipeline" else Seq(items)

    def children(self, n: TsNode) -> list[Node]:
        items: list[Node] = []
        for c in n.named_children:
            if c.type in ("comment", "variable_name", "heredoc_body", "heredoc_start", "heredoc_end"):
                continue
            if c.type in _WORDISH:  # a case subject, a for list: only its substitutions run
                items.extend(self.word(c).subs)
                continue
            items.append(self.node(c))
        if n.has_error and not any(isinstance(i, Opaque) for i in items) and n.type != "ERROR":
            bad = _first_error(n)
            if bad is not None:
                items.append(Opaque(_text(bad), UNREADABLE))
        return items

    def for_loop(self, n: TsNode) -> Node:
        var = n.child_by_field_name("variable")
        body = n.child_by_field_name("body")
        values = [self.word(v) for v in n.children_by_field_name("value")]
        has_in = any(c.type == "in" for c in n.children)
        subs = [s for w in values for s in w.subs]
        loop = Loop(
            _text(var) if var else "", values if has_in else None, self.node(body) if body is not None else Seq([])
        )
        return Seq([*subs, loop])

    def assignment_like(self, n: TsNode) -> Node:
        """`X=v`, `export X=$(cmd)`, `[[ ... ]]`: only substitutions run (and plain X=v is recorded)."""
        if n.type == "variable_assignment":
            name = n.child_by_field_name("name")
            value = n.child_by_field_name("value")
            word = self.word(value) if value is not None else Word.literal("")
            return Seq([*word.subs, Cmd([], [], [(_text(name) if name else "", word)], n.start_point[0] + 1)])
        items: list[Node] = []
        for c in n.named_children:
            if c.type == "variable_assignment":
                items.append(self.assignment_like(c))
            elif c.type in _WORDISH:
                items.extend(self.word(c).subs)
            elif c.named_child_count:
                items.extend(self.children(c))
        return Seq(items)

    def command(self, n: TsNode, redirs: list[Redir], extra: list[Word] | None = None) -> Node:
        """A simple command; `extra`: words tree-sitter hung on a redirection after its target
        (`rm -rf 2>/dev/null src`), which bash passes as arguments after the command's own."""
        words: list[Word] = []
        assigns: list[tuple[str, Word]] = []
        own: list[Redir] = []
        for c in n.named_children:
            if c.type == "variable_assignment":
                name = c.child_by_field_name("name")
                value = c.child_by_field_name("value")
                assigns.append((_text(name) if name else "", self.word(value) if value else Word.literal("")))
            elif c.type == "command_name":
                inner = c.named_children
                words.append(self.word(inner[0]) if inner else Word.literal(_text(c)))
            elif c.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                found, _rest, extra = self.redirect(c)
                own.extend(found)
                words.extend(extra)  # bash: every word after a redirection's target is an argument
            elif c.type == "comment":
                continue
            elif c.type == "ERROR":
                return Opaque(_text(c), UNREADABLE)
            elif c.type not in _WORDISH:  # `coproc ( rm -rf x )`: statements where a word would be
                words.append(Word(_text(c), [Part(DYN, _text(c))], [self.node(c)]))
            else:
                words.append(self.word(c))
        words.extend(extra or [])
        subs: list[Node] = [s for w in words for s in w.subs] + [s for _, w in assigns for s in w.subs]
        subs += [s for r in (*own, *redirs) if r.target is not None for s in r.target.subs]
        cmd = Cmd(words, own + redirs, assigns, n.start_point[0] + 1)
        return Seq([*subs, cmd]) if subs else cmd

    def redirected(self, n: TsNode) -> Node:
        body = n.child_by_field_name("body")
        redirs: list[Redir] = []
        after: list[tuple[str, Node]] = []
        extra: list[Word] = []
        for c in n.children_by_field_name("redirect"):
            found, rest, words = self.redirect(c)
            redirs.extend(found)
            after.extend(rest)
            extra.extend(words)
        if body is None:
            head: Node = Cmd(extra, redirs, [], n.start_point[0] + 1)
            subs = [s for w in extra for s in w.subs]
            head = Seq([*subs, head]) if subs else head
        elif body.type == "command":
            head = self.command(body, redirs, extra)
        elif extra:  # bash refuses words after the redirection of a compound command
            return Opaque(_text(n), "words follow the redirection of a compound command (bash rejects this)")
        elif body.type in ("pipeline", "list") and not body.has_error:
            head = self.trailing(body, redirs)
        else:  # `{ ...; } > f`, `while ...; done < f`: the redirection applies to every command inside
            head = self.node(body)
            _push_redirs(head, redirs)
        if not after:
            return head
        if after[0][0] == "|":
            tail: list[Node] = []
            for _, node in after:
                tail.extend(node.items if isinstance(node, Pipe) else [node])
            return Pipe([head, *tail])
        return Seq([head, *[node for _, node in after]])

    def redirect(self, n: TsNode) -> tuple[list[Redir], list[tuple[str, Node]], list[Word]]:
        """The redirection (and those nested in a heredoc's line: `cat <<EOF > f`), what
        tree-sitter hangs after a heredoc start (`<<EOF | sh`), and the words after the target,
        which bash reads as arguments of the command (`rm -rf 2>/dev/null src`)."""
        fd = ""
        op = ""
        target: Word | None = None
        body: str | None = None
        rest: list[tuple[str, Node]] = []
        nested: list[Redir] = []
        extra: list[Word] = []
        for c in n.children:
            if c.type == "file_descriptor":
                fd = _text(c)
            elif not c.is_named and not op:
                op = c.type
            elif c.type == "heredoc_body":
                body = _heredoc_text(c)
            elif c.type in ("heredoc_start", "heredoc_end"):
                continue
            elif c.type in ("file_redirect", "herestring_redirect", "heredoc_redirect"):
                found, more, words = self.redirect(c)
                nested.extend(found)
                rest.extend(more)
                extra.extend(words)
            elif c.type == "ERROR":
                rest.append((";", Opaque(_text(c), UNREADABLE)))
            elif c.type in _WORDISH and (target is not None or n.type == "heredoc_redirect"):
                extra.append(self.word(c))
            elif n.type == "heredoc_redirect" and c.is_named:
                rest.append(
                    (
                        "|" if c.type == "pipeline" and c.children and c.children[0].type == "|" else ";",
                        self.pipeline_tail(c),
                    )
                )
            elif c.is_named and target is None:
                target = self.word(c)
        if n.type == "herestring_redirect" and target is not None:
            body = target.value if target.value is not None else None
        return [Redir(op, fd, target, body), *nested], rest, extra

    def pipeline_tail(self, n: TsNode) -> Node:
        if n.type == "pipeline" and n.children and n.children[0].type == "|":
            return Pipe([self.node(c) for c in n.named_children])
        return self.node(n)

    def word(self, n: TsNode) -> Word:
        parts: list[Part] = []
        subs: list[Node] = []
        self._parts(n, parts, subs, quoted=False)
        return Word(_text(n), parts, subs)

    def _parts(self, n: TsNode, parts: list[Part], subs: list[Node], quoted: bool) -> None:
        kind = n.type
        literal = _LITERALS.get(kind)
        if literal is not None:
            parts.append(Part(LIT, *literal(n, quoted)))
        elif kind in ("string", "translated_string"):
            self._string(n, parts, subs)
        elif kind == "concatenation":
            for c in n.children:
                self._parts(c, parts, subs, quoted)
        elif kind == "simple_expansion":
            name = n.named_children[0] if n.named_children else None
            parts.append(Part(VAR, _text(name) if name else "", quoted))
        elif kind == "expansion":
            self._expansion(n, parts, subs, quoted)
        elif kind in ("command_substitution", "process_substitution"):
            subs.append(Seq([self.node(c) for c in n.named_children if c.type != "comment"]))
            parts.append(Part(DYN, _text(n), quoted))
        elif kind == "ERROR":
            subs.append(Opaque(_text(n), UNREADABLE))
            parts.append(Part(DYN, _text(n), quoted))
        elif n.child_count == 0 and not n.is_named:
            parts.append(Part(LIT, _text(n), quoted))
        else:  # arithmetic, arrays, anything else: known only at run time
            for c in n.named_children:
                self._parts(c, [], subs, quoted)
            parts.append(Part(DYN, _text(n), quoted))

    def _string(self, n: TsNode, parts: list[Part], subs: list[Node]) -> None:
        inner = [c for c in n.children if c.type != '"']
        if not inner:
            parts.append(Part(LIT, "", True))
        for c in inner:
            if c.type == "string_content":
                parts.append(Part(LIT, _unescape_dq(_text(c)), True))
            elif c.type == "$":  # a `$` that starts no expansion (`"$"`, `"a$"`) is the character itself, as in bash
                parts.append(Part(LIT, "$", True))
            else:
                self._parts(c, parts, subs, quoted=True)

    def _expansion(self, n: TsNode, parts: list[Part], subs: list[Node], quoted: bool) -> None:
        names = [c for c in n.named_children if c.type == "variable_name"]
        plain = len(n.named_children) == 1 and names
        parts.append(Part(VAR if plain else DYN, _text(names[0]) if plain else _text(n), quoted))
        for c in n.named_children:
            if c.type != "variable_name":
                self._parts(c, [], subs, quoted)  # substitutions inside run too: judged


# Word pieces that are text as they stand: (text, quoted) from the node and the quoting around it.
_LITERALS: dict[str, Callable[[TsNode, bool], tuple[str, bool]]] = {
    "word": lambda n, q: (_unescape(_text(n)), q),
    "number": lambda n, q: (_unescape(_text(n)), q),
    "extglob_pattern": lambda n, q: (_unescape(_text(n)), q),
    "raw_string": lambda n, q: (_text(n)[1:-1], True),
    "ansi_c_string": lambda n, q: (ansi_c(_text(n)[2:-1]), True),
}


def _push_redirs(node: Node, redirs: list[Redir]) -> Node:
    """`node` with `redirs` given to every command inside it."""
    if isinstance(node, Cmd):
        node.redirs.extend(redirs)
    elif isinstance(node, (Seq, Pipe)):
        for item in node.items:
            _push_redirs(item, redirs)
    elif isinstance(node, (Sub, Loop)):
        _push_redirs(node.body, redirs)
    return node


def _first_error(n: TsNode) -> TsNode | None:
    stack = [n]
    while stack:
        cur = stack.pop()
        if cur.type == "ERROR" or cur.is_missing:
            return cur
        stack.extend(reversed(cur.children))
    return None


def _heredoc_text(n: TsNode) -> str:
    return _text(n)
