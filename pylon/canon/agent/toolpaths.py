"""Paths an agent's tool call touches, found in its JSON input.

Two kinds of candidates: whole string values (`"file_path": "src/app.py"`), and tokens of
command strings (`sed -i s/a/b/ src/app.py`). A candidate counts when it exists, or its parent
folder does (a file about to be created), relative to the tool's working folder. Which paths the
call *changed* is decided by the tool: file-writing tools, `apply_patch` envelopes, and the
usual writing shapes of a shell command (redirections, `tee`, `sed -i`, `perl -i`, `mv`, `cp`,
`rm`, `touch`, `mkdir`, `patch`, `git mv|rm|checkout -- |restore|apply`). Shell text is read
once, by the guard's reader (pylon.guard.judge.reading), never by a word splitter of canon's own.
"""

from __future__ import annotations

import os

from pylon.devpaths import is_kernel_view

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterator

    from pylon.agents.events import ToolCall
    from pylon.guard.readout import Reading

# Claude Code's file tools, and Codex's apply_patch (which Codex also matches as Edit/Write).
WRITE_TOOLS = frozenset({"Write", "Edit", "MultiEdit", "NotebookEdit", "apply_patch"})
SHELL_TOOLS = frozenset({"Bash", "shell", "exec_command", "local_shell"})
_COMMAND_KEYS = frozenset({"command", "cmd", "script", "commands"})
_CONTENT_KEYS = frozenset({"content", "old_string", "new_string", "edits", "new_source", "patch"})
# Shell words after which the following operands are written to.
_WRITERS = frozenset({"tee", "rm", "touch", "mkdir", "rmdir", "truncate", "unlink", "shred"})
_LAST_IS_TARGET = frozenset({"mv", "cp", "install", "ln", "rsync"})
MAX_STRING = 8192  # longer values are file contents, not paths or commands


def counts(candidate: str, cwd: str | None) -> str | None:
    """The absolute path of `candidate` when it exists or its parent folder does, else None."""
    if not candidate or len(candidate) > 4096 or "\n" in candidate or "\0" in candidate:
        return None
    if candidate.startswith("~"):
        candidate = os.path.expanduser(candidate)
    full = os.path.normpath(os.path.join(cwd or "/", candidate))
    if is_kernel_view(full):  # `> /dev/null`, `/proc/self/fd/1`: never a file of a project
        return None
    if os.path.lexists(full):
        return full
    parent = os.path.dirname(full)
    return full if parent != full and os.path.isdir(parent) and _path_shaped(candidate) else None


def _path_shaped(token: str) -> bool:
    # A word that names nothing yet counts only when it looks like a file: a slash, or a name.ext.
    if "/" in token:
        return True
    stem, dot, ext = token.rpartition(".")
    return bool(dot and stem and ext and ext.isalnum() and len(ext) <= 10)


def command_paths(command: str, cwd: str) -> tuple[list[str], list[str]]:
    """(paths the command names, paths it writes): absolute, each once, in order. The command is
    read as the guard reads it (pylon.guard.judge.reading): the same parser and walk, so `cd DIR && ...`,
    `bash -c '...'`, `sudo`/`env` wrappers, variables set earlier and globs resolve for both."""
    from pylon.guard.readout import WRITING

    named: list[str] = []
    written: list[str] = []

    def add(into: list[str], word: str, here: str | None) -> None:
        # here None: the folder is known only at run time (`cd "$D"`), so only absolute paths count
        full = counts(word, here) if here is not None or word.startswith(("/", "~")) else None
        if full and full not in into:
            into.append(full)

    reading = reading_of(command, cwd)  # the PreToolUse's reading when it kept one (readout.py)
    for simple in reading.commands:
        here = simple.cwd
        words = [w or "" for w in simple.argv]  # a word known only at run time names nothing here
        program, args = simple.program, words[1:]
        stdin = next((t for op, t in simple.redirs if op == "<" and t), "")
        for word in words:
            for candidate in _token_candidates(word):
                add(named, candidate, here)
        for _op, target in simple.redirs:
            add(named, target or "", here)
        for word in _written_words(program, args, stdin, here):
            add(written, word, here)
        for op, target in simple.redirs:
            if op in WRITING:
                add(written, target or "", here)
    for text in reading.unread:  # no shell runs it as written; its words still name paths to surface
        for word in text.split():
            for candidate in _token_candidates(word.strip("'\"")):
                add(named, candidate, cwd)
    return named, written


def _written_words(program: str, args: list[str], stdin: str, cwd: str | None) -> list[str]:
    """The words of one command naming what it writes, by the command's usual writing shapes."""
    operands = _operands(args)
    if program in _WRITERS:
        return operands
    if program in _LAST_IS_TARGET and len(operands) >= 2:
        return operands[-1:] + (operands[:-1] if program == "mv" else [])
    if program in ("sed", "gsed", "perl"):
        return _in_place_targets(program, args)
    if program == "git" and cwd is not None:
        return _git_targets(args, cwd)
    if program == "patch" and cwd is not None:
        return _patch_targets(args, stdin, cwd)
    return []


# git's options that take a value as the next word (before the subcommand, and for restore).
_GIT_VALUE_OPTIONS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_RESTORE_VALUE_OPTIONS = frozenset({"-s", "--source", "--pathspec-from-file"})


def _git_targets(words: list[str], cwd: str) -> list[str]:
    """Files a git command writes in the working tree: both sides of `git mv`, what `git rm`
    removes, the paths of `git checkout [REV] -- PATHS` and `git restore` (not `--staged` alone),
    and the files the patches of `git apply` (not `--cached`) name."""
    i, base = 0, ""
    while i < len(words) and words[i].startswith("-"):
        if words[i] == "-C" and i + 1 < len(words):
            base = os.path.join(base, words[i + 1])  # paths below are relative to it
        i += 2 if words[i] in _GIT_VALUE_OPTIONS else 1
    if i >= len(words):
        return []
    sub, rest = words[i], words[i + 1 :]
    found: list[str] = []
    if sub in ("mv", "rm"):
        found = _operands(rest)
    elif sub == "checkout":
        found = rest[rest.index("--") + 1 :] if "--" in rest else []
    elif sub == "restore" and not ("--staged" in rest and "--worktree" not in rest and "-W" not in rest):
        skip = False  # (`--staged` alone changes only the index)
        for word in rest:
            if skip:
                skip = False
            elif word in _RESTORE_VALUE_OPTIONS:
                skip = True
            elif not word.startswith("-"):
                found.append(word)
    elif sub == "apply" and "--cached" not in rest:
        found = [p for patch in _operands(rest) for p in diff_paths(os.path.join(base, patch), cwd)]
        return found  # diff_paths answers relative to cwd already
    return [os.path.join(base, word) for word in found]


def _in_place_targets(program: str, words: list[str]) -> list[str]:
    """What `sed -i` / `perl -i` write: each file they edit in place and, with a suffix (`-i.bak`,
    `-pi.orig`, `--in-place=.bak`), its backup beside it; the command line read as the guard reads
    it (pylon.guard.inplace: `-ie` is `-i` with suffix `e`, the program is the first operand only
    when no `-e`/`-f` gave one)."""
    from pylon.guard.inplace import read_line

    line = read_line(program, list(words))
    if not line.in_place:
        return []
    edited = [words[i] for i in line.files]
    return edited + [backup for f in edited if line.suffix and (backup := _backup_name(f, line.suffix))]


def _backup_name(path: str, suffix: str) -> str:
    """The backup `-i SUFFIX` keeps beside the file ("" for a suffix with `*`, whose placement
    differs between sed and perl versions: not guessed)."""
    return "" if "*" in suffix else path + suffix


def _patch_targets(words: list[str], stdin: str, cwd: str) -> list[str]:
    """What `patch` writes: an explicit FILE operand, else the files its diff names (read from
    `< DIFF` or `-i DIFF`/`--input=DIFF`)."""
    source = stdin
    for i, word in enumerate(words):
        if word in ("-i", "--input") and i + 1 < len(words):
            source = words[i + 1]
        elif word.startswith("--input="):
            source = word.partition("=")[2]
    operands = [w for w in _operands(words) if w != source]
    if operands:
        return operands[:1]
    return diff_paths(source, cwd) if source else []


def diff_paths(patch: str, cwd: str, limit: int = 1 << 20) -> list[str]:
    """The files a unified diff (a file on disk) changes, as paths relative to `cwd`: each
    `+++`/`---` name with the fewest leading components stripped that names something here
    (the `-pN` a user would pass), `/dev/null` skipped."""
    try:
        with open(os.path.join(cwd, patch), "rb") as fh:
            data = fh.read(limit)
    except OSError:
        return []
    found: list[str] = []
    for raw in data.split(b"\n"):
        if not raw.startswith((b"+++ ", b"--- ")):
            continue
        name = raw[4:].split(b"\t")[0].strip().decode("utf-8", "surrogateescape")
        if not name or name == "/dev/null":
            continue
        parts = name.split("/")
        for strip in range(len(parts)):
            candidate = "/".join(parts[strip:])
            if counts(candidate, cwd):
                if candidate not in found:
                    found.append(candidate)
                break
    return found


def _operands(words: list[str]) -> list[str]:
    """The non-option words of a command (its redirections are apart already)."""
    return [word for word in words if not word.startswith("-")]


def _token_candidates(word: str) -> list[str]:
    if word.startswith("-"):
        _, eq, value = word.partition("=")
        return [value] if eq else []
    return [word] if word else []


def _strings(value: object, key: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield key, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, k if isinstance(k, str) else "")
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)


def input_paths(tool_input: object, cwd: str) -> tuple[list[str], list[str]]:
    """(paths named, paths written by shell words) found anywhere in a JSON tool input."""
    from pylon.agents.events import patch_paths

    named: list[str] = []
    written: list[str] = []

    def add(into: list[str], full: str | None) -> None:
        if full and full not in into:
            into.append(full)

    for key, text in _strings(tool_input):
        if len(text) > MAX_STRING or key in _CONTENT_KEYS:
            if key in ("patch",) or text.startswith("*** Begin Patch"):
                for path in patch_paths(text):
                    add(named, counts(path, cwd))
            continue
        if text.startswith("*** Begin Patch"):
            for path in patch_paths(text):
                add(named, counts(path, cwd))
            continue
        whole = counts(text.strip(), cwd) if "\n" not in text.strip() else None
        if whole and (key not in _COMMAND_KEYS or " " not in text.strip()):
            add(named, whole)
            continue
        if key in _COMMAND_KEYS or any(c.isspace() for c in text.strip()):
            got, wrote = command_paths(text, cwd)
            for full in got:
                add(named, full)
            for full in wrote:
                add(written, full)
    return named, written


def call_paths(call: ToolCall, cwd: str) -> tuple[list[str], list[str]]:
    """(paths the call touched, the subset it changed) for one tool call."""
    from pylon.agents.events import patch_paths

    named, written = input_paths(call.input, cwd)
    if call.name == "apply_patch" or (call.name in ("Edit", "Write") and "command" in call.input):
        command = call.input.get("command")
        paths = [counts(p, cwd) for p in patch_paths(command)] if isinstance(command, str) else []
        changed = [p for p in paths if p]
        return _merge(named, changed), changed
    if call.name in WRITE_TOOLS:
        target = call.input.get("file_path") or call.input.get("notebook_path") or call.input.get("path")
        full = counts(target, cwd) if isinstance(target, str) else None
        return _merge(named, [full] if full else []), [full] if full else []
    if call.name in SHELL_TOOLS or "command" in call.input:
        return named, written
    if writes_files(call.name):  # an MCP or other tool whose name says it writes: what it names changed
        return named, named
    return named, []


# Name endings (letters and digits only, lower case) of tools that change the files they name,
# whatever server or prefix they come with (`mcp__fs__write_file`, `filesystem.edit_file`); the
# same list pi-canon keeps. Any other tool surfaces what it names but arms no reminder.
_WRITING_ENDINGS = (
    "applypatch",
    "write",
    "writefile",
    "edit",
    "editfile",
    "multiedit",
    "notebookedit",
    "createfile",
    "deletefile",
    "movefile",
    "renamefile",
    "replaceinfile",
    "strreplaceeditor",
)


def writes_files(tool: str) -> bool:
    compact = "".join(ch for ch in tool.lower() if ch.isascii() and ch.isalnum())
    return bool(compact) and compact.endswith(_WRITING_ENDINGS)


def _merge(first: list[str], second: list[str]) -> list[str]:
    return first + [p for p in second if p not in first]


def reading_of(text: str, cwd: str) -> Reading:
    """The guard's reading of `text` in `cwd`: the one this process took from the PreToolUse hook
    or made already (guard/readout.py), else a new one (which imports the parser)."""
    from pylon.guard.readout import remembered

    found = remembered(text, cwd)
    if found is not None:
        return found
    from pylon.guard.judge.reading import read

    return read(text, cwd)


def canon_verbs(command: str, cwd: str = ".") -> list[tuple[str, str]]:
    """(`read` | `write`, ADDRESS) for each `canon read X` / `canon write X` / `pylon canon ...` in
    a shell command (read as the guard reads it), so the hook marks what the agent read."""
    found: list[tuple[str, str]] = []
    for simple in reading_of(command, cwd).commands:
        words = [w or "" for w in simple.argv]
        if len(words) >= 2 and simple.program == "pylon" and words[1] == "canon":
            words = words[1:]
        if not words or os.path.basename(words[0]) != "canon":
            continue
        rest = words[1:]
        while rest and rest[0].startswith("-"):  # root options: -C DIR, --color WHEN
            rest = rest[2:] if rest[0] in ("-C", "--color") else rest[1:]
        if len(rest) >= 2 and rest[0] in ("read", "write"):
            words_left = iter(rest[1:])
            for word in words_left:
                if word in _VALUE_OPTIONS:
                    next(words_left, None)
                elif word and not word.startswith("-"):
                    found.append((rest[0], word))
                    break
    return found


_VALUE_OPTIONS = frozenset({"--capsule", "--body", "--body-file", "--scope", "--root", "--mount"})
