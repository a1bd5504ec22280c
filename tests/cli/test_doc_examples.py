"""Every `pylon`/`canon` command line shown in README.md, the guide (pylon/cli/guide/*.md) and
docs/**/*.md parses with the registry's parser: no unknown command or option, no usage error, no
deprecated spelling. In-process (pylon.cli.argv.parse), so it costs milliseconds and catches a
doc that drifted from the registry.

What counts as shown: every line of a fenced ```sh / ```bash block (heredoc bodies skipped), and
every line that starts with `$ ` in any fenced block (```console, plain ```), and every line of a
plain or ```console block that starts with `pylon `/`canon ` and a word or option. Within a line, each
simple command (split at `;`, `&&`, `||`, `|`, `&`, and inside `$(...)`) whose first word,
after `VAR=value` assignments, is `pylon` or `canon` is parsed; redirections are dropped.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from pylon.cli.argv import parse
from pylon.errors import PylonError

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [
    ROOT / "README.md",
    *sorted((ROOT / "pylon" / "cli" / "guide").glob("*.md")),
    *sorted((ROOT / "docs").rglob("*.md")),
]
OPERATORS = {";", "&&", "||", "|", "&", "(", ")", ";;", "|&"}
REDIRECTS = {"<", ">", ">>", "<<", "<<<", ">&", "<&", "&>", "&>>", ">|", "<<-"}


def _strip_comment(line: str) -> str:
    """The line up to an unquoted `#` that starts a word (`F#TAG` is not a comment)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i]
    return line


def shell_lines(text: str) -> list[tuple[int, str]]:
    """(line number, command text) of every shell line shown in a markdown text."""
    found: list[tuple[int, str]] = []
    fence, heredoc, pending = "", "", ""
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("```"):
            fence = "" if fence else (stripped[3:].strip() or "plain")
            heredoc, pending = "", ""
            continue
        if not fence:
            continue
        if heredoc:
            heredoc = "" if stripped == heredoc else heredoc
            continue
        if pending:
            command, pending = pending + " " + stripped, ""
        elif stripped.startswith("$ "):
            command = stripped[2:]
        elif fence in ("sh", "bash", "shell") and stripped:
            command = stripped
        elif fence in ("plain", "console", "text") and re.match(r"(pylon|canon) [a-z-]+( |$)", stripped):
            command = stripped  # a command line shown without a prompt
        else:
            continue
        if command.endswith("\\"):
            pending = command[:-1]
            continue
        marker = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", command)
        heredoc = marker.group(1) if marker else ""
        found.append((number, command))
    return found


def pylon_commands(command: str) -> list[list[str]]:
    """The argv (program first) of each `pylon`/`canon` simple command in one shell line."""
    lexer = shlex.shlex(_strip_comment(command), posix=True, punctuation_chars=True)
    lexer.whitespace_split, lexer.commenters = True, ""
    tokens = list(lexer)
    found: list[list[str]] = []
    for token in tokens:  # command substitutions: `cd "$(pylon ws path agent-1)"`
        for inner in re.findall(r"\$\(([^()]*)\)", token):
            found += pylon_commands(inner)
    simple: list[list[str]] = [[]]
    skip = False
    for i, token in enumerate(tokens):
        if skip:
            skip = False
        elif token in OPERATORS:
            simple.append([])
        elif token in REDIRECTS:
            skip = True  # the redirection's target
            if simple[-1] and simple[-1][-1].isdigit() and i and tokens[i - 1] == simple[-1][-1]:
                simple[-1].pop()  # `2>`: the descriptor
        else:
            simple[-1].append(token)
    for words in simple:
        while words and re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", words[0]):
            words = words[1:]
        if words[:1] in (["pylon"], ["canon"]):
            found.append(words)
    return found


def examples() -> list[tuple[str, list[str]]]:
    cases = []
    for path in SOURCES:
        for number, command in shell_lines(path.read_text(encoding="utf-8")):
            for argv in pylon_commands(command):
                cases.append((f"{path.relative_to(ROOT)}:{number}", argv))
    return cases


CASES = examples()


def test_the_extractor_finds_the_examples() -> None:
    """A guard against an extractor that silently finds nothing."""
    assert len(CASES) > 100, len(CASES)
    assert {where.split(":")[0] for where, _ in CASES} >= {
        "README.md",
        "docs/reference.md",
        "docs/tutorial.md",
        "docs/how-to/memory.md",
        "docs/how-to/numbered-edits.md",
        "docs/how-to/parallel-agents.md",
    }
    assert pylon_commands('cd "$(pylon ws path a1)" && X=1 canon map src 2>/dev/null | head  # note') == [
        ["pylon", "ws", "path", "a1"],
        ["canon", "map", "src"],
    ]
    assert pylon_commands("pylon edit f.py#abc --replace 2 'x  # y'") == [
        ["pylon", "edit", "f.py#abc", "--replace", "2", "x  # y"]
    ]


@pytest.mark.parametrize("where,argv", CASES, ids=[f"{w} {' '.join(a)[:60]}" for w, a in CASES])
def test_every_shown_command_line_parses(where: str, argv: list[str]) -> None:
    try:
        parsed = parse(argv[0], argv[1:])
    except PylonError as error:
        pytest.fail(f"{where}: `{shlex.join(argv)}` does not parse: {error}")
    assert parsed.help != "bare", f"{where}: `{shlex.join(argv)}` names a group, not a command"
    assert not parsed.notes, f"{where}: `{shlex.join(argv)}` uses a deprecated spelling: {parsed.notes}"


def inline_synopses() -> list[tuple[str, str, list[str]]]:
    """(where, command name, options named) of each inline `pylon ...`/`canon ...` span in the prose
    that names a command of the registry (a synopsis such as `pylon ws rm ID [--force]`)."""
    from pylon.cli import commands as registry

    found = []
    for path in SOURCES:
        if path.name == "reference.md":
            continue
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"(?<!`)`((?:pylon|canon) [^`\n]+)`", text):
            words = match.group(1).split()
            words = words[1:] if words[0] == "pylon" else words
            name = ""
            for word in words:
                if registry.lookup(f"{name} {word}".strip()) is None:
                    break
                name = f"{name} {word}".strip()
            if isinstance(registry.lookup(name), registry.Command):
                options = re.findall(r"(?<![\w-])--[a-z][a-z0-9-]*", match.group(1))
                line = text.count("\n", 0, match.start()) + 1
                found.append((f"{path.relative_to(ROOT)}:{line}", name, options))
    return found


def test_every_option_a_synopsis_names_exists() -> None:
    """Inline synopses in the prose (`pylon ws cat PATH [--base]`) are not command lines, but the
    options they name must be options of that command (or the root's, or an old spelling)."""
    from pylon.cli import commands as registry

    synopses = inline_synopses()
    assert len(synopses) > 150, len(synopses)
    root = {opt.name for opt in registry.ROOT_OPTS}
    wrong = []
    for where, name, options in synopses:
        command = registry.lookup(name)
        assert isinstance(command, registry.Command)
        known = {n for opt in command.opts for n in (opt.name, *opt.aliases)} | root | {"--help"}  # old
        # spellings are named where the docs say they are deprecated; command lines may not use them
        wrong += [f"{where}: `{name}` has no option {option}" for option in options if option not in known]
    assert not wrong, "\n".join(wrong)
