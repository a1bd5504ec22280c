"""The registry is the one declaration of every command: complete, documented, and what runs.

sqlite-utils-style checks: every command has a summary, an example and a docs section that names
each of its options; every option has help; every handler exists and types exactly the
registry's attributes.
"""

from __future__ import annotations

import ast
import re
from importlib import import_module
from pathlib import Path

import pytest

from pylon.cli import commands as registry
from pylon.cli.spec import FLAG, Command

ROOT = Path(__file__).resolve().parents[2]
DOCS = {p.relative_to(ROOT / "docs").as_posix(): p.read_text(encoding="utf-8") for p in (ROOT / "docs").rglob("*.md")}
COMMANDS = list(registry.COMMANDS)
IDS = [c.name for c in COMMANDS]
METAVAR = re.compile(
    r"^\[?[A-Z][A-Z0-9_]*(#[A-Z]+)?(\|[A-Z]+)?\]?(\.\.\.)?( \[?[A-Z][A-Z\-\[\]]*\]?)?$|^A\[-B\]( TEXT)?$"
)


def doc_section(command: Command) -> str:
    """The docs text under the heading that starts with the command's name, up to the next heading
    of the same or a higher level, in any page under docs/ (benchmarks, architecture and the
    generated reference do not count as its docs)."""
    for name, text in sorted(DOCS.items()):
        if name in ("benchmarks.md", "architecture.md", "reference.md", "errors.md"):  # the last two are generated
            continue
        lines = text.splitlines()
        for i, line in enumerate(lines):
            title = line.lstrip("#").strip().strip("`")
            if line.startswith("#") and re.match(rf"(pylon )?{re.escape(command.name)}(\s|`|$)", title):
                level = len(line) - len(line.lstrip("#"))
                end = next(
                    (
                        j
                        for j in range(i + 1, len(lines))
                        if lines[j].startswith("#") and len(lines[j]) - len(lines[j].lstrip("#")) <= level
                    ),
                    len(lines),
                )
                return "\n".join(lines[i:end])
    return ""


def test_names_are_unique_and_groups_exist() -> None:
    names = [c.name for c in (*registry.GROUPS, *registry.COMMANDS)]
    assert len(names) == len(set(names))
    for command in COMMANDS:
        if len(command.words) > 1:
            assert registry.lookup(" ".join(command.words[:-1])) is not None, command.name


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_every_command_has_summary_example_and_docs(command: Command) -> None:
    assert command.summary and command.summary[0].isupper() and command.summary.endswith("."), command.summary
    assert len(command.summary) <= 100
    shown = command.name if command.name.startswith("canon") else f"pylon {command.name}"
    assert shown in command.example, f"the example of {command.name} does not run it: {command.example}"
    section = doc_section(command)
    assert section, f"no heading in docs/ names `{command.name}`"
    for opt in command.opts:
        if not opt.hidden and opt.name not in ("--json", "--root", "--mount", "--in"):  # shared: docs/reference/cli.md
            assert opt.name in section, f"docs section of {command.name} does not mention {opt.name}"


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_every_option_has_help_and_a_consistent_metavar(command: Command) -> None:
    for opt in (*command.opts, *registry.ROOT_OPTS):
        assert opt.help.strip(), f"{command.name} {opt.name} has no help"
        assert opt.name.startswith("--") or opt.name == "-C"
        if opt.kind == FLAG:
            assert not opt.metavar, opt.name
        else:
            assert METAVAR.match(opt.metavar), f"{command.name} {opt.name}: metavar {opt.metavar!r}"
        if opt.choices:
            assert opt.default is None or opt.default in opt.choices
    for arg in command.args:
        assert arg.help.strip() and METAVAR.match(arg.metavar), (command.name, arg.metavar)


def _parsed(module_name: str) -> ast.Module:
    return ast.parse(Path(import_module(module_name).__file__ or "").read_text(encoding="utf-8"))


def _fields(module_name: str, cls: str) -> set[str]:
    """The attributes a Protocol class declares, with those of its bases (followed across imports)."""
    tree = _parsed(module_name)
    classes = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)}
    if cls not in classes:
        origin = next(
            n.module
            for n in ast.walk(tree)
            if isinstance(n, ast.ImportFrom)
            for a in n.names
            if (a.asname or a.name) == cls
        )
        assert origin, f"{cls} is neither defined nor imported in {module_name}"
        return _fields(origin, cls)
    node = classes[cls]
    own = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id != "Protocol":
            own |= _fields(module_name, base.id)
    return own


def _handler_fields(module_name: str, function: str) -> set[str]:
    func = next(n for n in _parsed(module_name).body if isinstance(n, ast.FunctionDef) and n.name == function)
    assert len(func.args.args) == 1, f"{module_name}:{function} takes one arguments object"
    annotation = func.args.args[0].annotation
    assert isinstance(annotation, ast.Name), f"{module_name}:{function} must type its arguments object"
    assert func.returns is not None and ast.unparse(func.returns) == "int", f"{function} must return an exit code"
    return _fields(module_name, annotation.id)


@pytest.mark.parametrize("command", COMMANDS, ids=IDS)
def test_every_handler_exists_and_types_exactly_the_declared_values(command: Command) -> None:
    module_name, _, function = command.handler.partition(":")
    assert callable(getattr(import_module(module_name), function, None)), command.handler
    declared = {o.dest for o in command.opts if o.dest not in registry.DISPATCHED} | {a.dest for a in command.args}
    assert _handler_fields(module_name, function) == declared, command.name


def test_registry_defaults_agree_with_the_libraries() -> None:
    from pylon.workspace.edits import window
    from pylon.workspace.tracking import cat, diff

    d = registry.lookup("ws diff")
    c = registry.lookup("ws cat")
    assert isinstance(d, Command) and isinstance(c, Command)
    assert [getattr(d.option(n), "default", None) for n in ("--max-files", "--max-lines", "--max-bytes")] == [
        diff.MAX_FILES,
        diff.MAX_LINES,
        diff.MAX_BYTES,
    ]
    read, limit, max_bytes = registry.lookup("read"), None, c.option("--max-bytes")
    assert max_bytes is not None and max_bytes.default == cat.MAX_BYTES
    assert isinstance(read, Command) and (limit := read.option("--limit")) is not None and "2000" in limit.help
    assert window.MAX_LINES == 2000


def test_the_registry_module_imports_nothing_heavy() -> None:
    import subprocess
    import sys

    code = "import sys, pylon.cli.commands, pylon.cli.argv; print(' '.join(sorted(sys.modules)))"
    names = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split())
    assert not {n for n in names if n.split(".")[0] in ("typer", "rich", "yaml", "pygit2", "json", "re", "typing")}
