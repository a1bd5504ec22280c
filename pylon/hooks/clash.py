"""Before an agent writes a file: does another live worktree change the same file, and would this
write conflict with it? (pylon/workspace/worktrees/clash.py does the check.)

Asked with the guard on PreToolUse (entry.py) for Claude Code's Write, Edit, MultiEdit and
NotebookEdit, Codex's apply_patch, and the shell tool's writes as the guard's reading names them
(canon's `command_paths`: redirections, `cp`/`mv` targets, `sed -i`, `tee`, ...). The content
after the write is worked out for Write (its `content`), Edit and MultiEdit (their replacements
applied to the file as it is); for the others it cannot be told, and a file another worktree
changed is reported as touched rather than conflicting.

The answer names the other session, the path and the lines, as added context (and a line shown to
the user); with `[writes] on_conflict = "ask"` in `.pylon/worktrees.toml` a conflicting write
asks first (Codex, which does not enforce `ask`, is refused with the way to go ahead), and "off"
says nothing. A write whose merge is known to be clean says nothing: it would apply cleanly.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from pylon.agents.events import HookEvent
    from pylon.workspace.worktrees.clash import Finding

EDIT_TOOLS = frozenset({"Write", "Edit", "MultiEdit"})
# The programs whose words name files they write (canon's command_paths knows each shape), and the
# shells and wrappers a write may hide behind: a command naming none of them, with no `>`, writes
# nothing the reading would name, so it is not read a second time (the guard read it already).
WRITING = frozenset(
    {
        "tee",
        "rm",
        "touch",
        "mkdir",
        "rmdir",
        "truncate",
        "unlink",
        "shred",
        "mv",
        "cp",
        "install",
        "ln",
        "rsync",
        "sed",
        "gsed",
        "perl",
        "git",
        "patch",
        "sh",
        "bash",
        "zsh",
        "dash",
        "env",
        "sudo",
        "xargs",
        "eval",
        "exec",
        "nohup",
        "timeout",
        "nice",
        "command",
        "builtin",
        "time",
    }
)
SHOWN = 5  # findings spelled out in one answer


def judge(event: HookEvent) -> dict[str, Any]:
    from pylon.hooks.guard import FILE_TOOLS, SHELL_TOOLS

    if event.name != "PreToolUse" or (event.tool_name not in FILE_TOOLS and event.tool_name not in SHELL_TOOLS):
        return {}
    cwd = event.cwd if event.cwd and os.path.isdir(event.cwd) else os.getcwd()
    if not _has_others(cwd):  # the common case: one worktree, a few stat calls and nothing imported
        return {}
    targets = _targets(event, cwd)
    if not targets:
        return {}
    from pylon.findroot import find_root
    from pylon.workspace.worktrees.clash import check

    by_root: dict[str, dict[str, bytes | None]] = {}
    for full, after in targets.items():
        folder, base = os.path.split(full)
        root = find_root(folder if os.path.isdir(folder) else cwd)[0]
        if root is None:
            continue
        rel = os.path.relpath(os.path.join(os.path.realpath(folder), base), root)
        if rel.startswith("..") or rel.split(os.sep)[0] == ".git":
            continue
        by_root.setdefault(root, {})[rel] = after
    found: list[tuple[str, Finding]] = []
    for root, writes in by_root.items():
        found += [(root, f) for f in check(root, list(writes), writes) if f.conflict is not False]
    if not found:
        return {}
    return _answer(event, found)


def _targets(event: HookEvent, cwd: str) -> dict[str, bytes | None]:
    """Absolute path -> its content after the write (None: not known)."""
    from pylon.hooks.guard import SHELL_TOOLS

    if event.tool_name in SHELL_TOOLS:
        command = event.tool_input.get("command")
        if isinstance(command, list):
            import shlex

            command = shlex.join(str(w) for w in command)
        if not isinstance(command, str) or not command.strip() or not _may_write(command):
            return {}
        from pylon.canon.agent.toolpaths import command_paths

        return dict.fromkeys(command_paths(command, cwd)[1])
    from pylon.hooks.files import tool_paths

    paths = tool_paths(event) or []
    out: dict[str, bytes | None] = {}
    for path in paths:
        full = os.path.abspath(os.path.join(cwd, os.path.expanduser(path)))
        out[full] = _after(event, full) if event.tool_name in EDIT_TOOLS else None
    return out


def _may_write(command: str) -> bool:
    if ">" in command or "$" in command or "`" in command:
        return True
    words = {w.strip("'\"();&|{}!").rsplit("/", 1)[-1] for w in command.split()}
    return bool(words & WRITING)


def _has_others(cwd: str) -> bool:
    """Has the repository around `cwd` another worktree (a linked one, or the main one seen from a
    linked one)? From the `.git` entry and the admin folder alone: nothing else is imported."""
    from pylon.findroot import find_root

    root = find_root(cwd)[0]
    if root is None:
        return False
    dotgit = os.path.join(root, ".git")
    if not os.path.isdir(dotgit):
        return os.path.isfile(dotgit)  # a linked worktree: the main checkout is another
    try:
        return any(os.scandir(os.path.join(dotgit, "worktrees")))
    except OSError:
        return False


def _after(event: HookEvent, full: str) -> bytes | None:
    """The file's content once the Write/Edit/MultiEdit has run (None when it cannot be told)."""
    data = event.tool_input
    if event.tool_name == "Write":
        content = data.get("content")
        return content.encode("utf-8") if isinstance(content, str) else None
    try:
        with open(full, "rb") as fh:
            text = fh.read().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    edits = data.get("edits") if event.tool_name == "MultiEdit" else [data]
    if not isinstance(edits, list):
        return None
    for edit in edits:
        old, new = (edit.get("old_string"), edit.get("new_string")) if isinstance(edit, dict) else (None, None)
        if not isinstance(old, str) or not isinstance(new, str) or (old and old not in text):
            return None
        text = text.replace(old, new) if edit.get("replace_all") else text.replace(old, new, 1)
    return text.encode("utf-8")


def _span(lines: list[list[int]]) -> str:
    """`line 3`, `lines 3-5, 9`, `the lines after 7` (a deletion there)."""
    shown = [f"{s}" if n == 1 else f"{s}-{s + n - 1}" if n else f"after {s - 1}" for s, n in lines[:6]]
    many = len(lines) > 1 or (lines and lines[0][1] > 1)
    more = f" (+{len(lines) - 6} more)" if len(lines) > 6 else ""
    return ("lines " if many else "line ") + ", ".join(shown) + more if lines else "lines ?"


def describe(finding: Finding, tool: str = "this write") -> str:
    """One finding as a sentence: who, what, which lines, and what to do about it."""
    other = finding.other
    if finding.deleted:
        theirs = f"{other['label']} ({other['path']}) deleted {finding.path}"
    elif finding.binary:
        theirs = f"{other['label']} ({other['path']}) changed {finding.path} (binary or large: no lines)"
    else:
        theirs = f"{other['label']} ({other['path']}) changed {_span(finding.lines)} of {finding.path}"
    if finding.conflict:
        head = f"{tool} would conflict: {theirs}"
        if finding.ours:
            head += f", where {tool} changes {_span(finding.ours)}"
    else:
        head = f"{tool} touches a file another worktree changed: {theirs}"
    if other["kind"] == "session":
        nxt = f"see it with `pylon ws conflicts {other['id']}`"
    else:
        nxt = f"see its version with `git -C {_q(other['path'])} diff {finding.base[:12]} -- {_q(finding.path)}`"
    return f"{head} (since {finding.base[:12]}; {nxt})."


def _q(text: str) -> str:
    import shlex

    return shlex.quote(text)


def _answer(event: HookEvent, found: list[tuple[str, Finding]]) -> dict[str, Any]:
    from pylon.agents import answers
    from pylon.workspace.worktrees.clash import conflict_mode

    mode, problem = conflict_mode(found[0][0])
    if mode == "off":
        return {}
    tool = f"this {event.tool_name}"
    lines = [describe(f, tool) for _, f in found[:SHOWN]]
    if len(found) > SHOWN:
        lines.append(f"... and {len(found) - SHOWN} more (`pylon ws check PATH...` lists them all)")
    text = "pylon: " + "\npylon: ".join(lines) + (f"\npylon: {problem}" if problem else "")
    if mode == "ask" and any(f.conflict for _, f in found):
        if event.agent == "codex":  # Codex does not enforce `ask` (it fails open): refuse, and say how to go ahead
            return answers.deny(
                event,
                text + "\nAsk the user; to let such writes through, set [writes] on_conflict = "
                '"context" in .pylon/worktrees.toml.',
            )
        return answers.ask(event, text)
    return answers.message(text, answers.context(event, text))
