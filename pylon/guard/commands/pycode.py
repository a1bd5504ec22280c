"""`python -c CODE` through `ast`: the calls that delete, overwrite or run shell commands."""

from __future__ import annotations

from pylon.guard.verdict import UNKNOWN, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ast

    from pylon.guard.walk import Walk
    from pylon.guard.words import State

# Calls by their last name: what they do to their first argument.
_REMOVE = frozenset({"remove", "unlink", "rmtree", "rmdir", "removedirs", "truncate"})
_RUN = frozenset(
    {
        "system",
        "popen",
        "run",
        "call",
        "check_call",
        "check_output",
        "Popen",
        "getoutput",
        "getstatusoutput",
        "spawnl",
        "spawnlp",
        "spawnv",
        "spawnvp",
        "execv",
        "execvp",
        "execl",
        "execlp",
    }
)
_WRITE_MODES = ("w", "x", "a", "+")
_DYNAMIC = frozenset({"exec", "eval", "compile", "__import__"})


def judge_python(walk: Walk, code: str, state: State, words: str, line: int) -> None:
    import ast

    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        walk.add(Finding(UNKNOWN, f"`{words}`: the Python code does not parse", code[:200], line=line))
        return
    from pylon.guard.words import Arg

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = _name(node.func)
        if name in _DYNAMIC:
            walk.add(Finding(UNKNOWN, f"`{words}` runs Python code built at run time ({name})", name, line=line))
        elif name in _REMOVE or name in ("write_text", "write_bytes", "open"):
            target = _first_path(node)
            if name == "open" and not _writes(node):
                continue
            verb = "removes" if name in _REMOVE else "overwrites"
            from pylon.guard.paths import destroyed

            arg = Arg(target, False, target or ast.unparse(node)[:120])
            destroyed(
                walk,
                state,
                [arg],
                verb=verb,
                words=f"{words}: {ast.unparse(node)[:120]}",
                line=line,
                must_exist=verb == "overwrites",
            )
        elif name in _RUN:
            _run(walk, node, state, words, line)


def _name(func: ast.expr) -> str:
    import ast

    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _literal(node: ast.expr) -> str | None:
    import ast

    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Call) and _name(node.func) in ("Path", "PurePath") and node.args:
        return _literal(node.args[0])
    return None


def _first_path(call: ast.Call) -> str | None:
    """The path a call acts on: its first argument, or the Path(...) it is a method of."""
    import ast

    if call.args:
        value = _literal(call.args[0])
        if value is not None or not isinstance(call.func, ast.Attribute):
            return value
    if isinstance(call.func, ast.Attribute):
        return _literal(call.func.value)
    return None


def _writes(call: ast.Call) -> bool:
    import ast

    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    if mode is None:
        return False
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str):
        return any(m in mode.value for m in _WRITE_MODES) and "a" not in mode.value
    return True


def _run(walk: Walk, call: ast.Call, state: State, words: str, line: int) -> None:
    """subprocess/os.system: a string is shell text; a list of literals is one command line."""
    import ast
    import shlex

    if not call.args:
        return
    first = call.args[0]
    text = _literal(first)
    if text is None and isinstance(first, (ast.List, ast.Tuple)):
        items = [_literal(e) for e in first.elts]
        if all(i is not None for i in items):
            text = shlex.join([i for i in items if i is not None])
    if text is None:
        walk.add(
            Finding(
                UNKNOWN,
                f"`{words}` runs a command built at run time: {ast.unparse(call)[:120]}",
                ast.unparse(call)[:120],
                line=line,
            )
        )
        return
    walk.script(text, state.copy(), line)
