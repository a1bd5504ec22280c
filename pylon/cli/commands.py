"""THE command registry: every pylon command declared once, as plain data.

The parser (argv.py) runs every invocation from these entries; help and shell completion
(help.py) and the docs test read them too. A handler is named as "module:function" and imported
only when its command runs. Adding an option means its Opt here, its use in the handler, and its
line in the docs; nothing else.
"""

from __future__ import annotations

from pylon.cli.canon_commands import COMMANDS as CANON_COMMANDS

# ROOT, ROOT_OPTS, DISPATCHED and AGENTS are read by other modules as registry.X
from pylon.cli.options import (  # noqa: F401
    _AGENT,
    _BODY_FILE,
    _EDIT_TOOL,
    _GRAPH_FORMAT,
    _GUARD_SCOPE,
    _HOOK_FILE,
    _MOUNT,
    _PROVENANCE,
    _ROOT,
    _SERVE,
    AGENTS,
    CANON,
    DISPATCHED,
    IN,
    JSON,
    ROOT,
    ROOT_OPTS,
)
from pylon.cli.spec import ANY, FLAG, FLOAT, INT, OPTIONAL, PAIR, STR, Arg, Command, Group, Opt, Tool
from pylon.cli.ws_commands import COMMANDS as WS_COMMANDS

GROUPS = (
    Group(
        "canon", "Project memory: articles, journal, lint (the same as the `canon` command).", "canon read src/app.py"
    ),
    Group(
        "canon hook",
        "Agent hooks: answer Claude Code or Codex hook events; install them in its settings.",
        "canon hook install claude-code",
    ),
    Group(
        "ws", "Workspace: baselines, changes, diffs, confined reads, owned worktrees.", "pylon ws changes --since start"
    ),
    Group(
        "guard",
        "Every shell command undoable: its state kept before it; ask only about what none gives back.",
        "pylon guard check --command 'rm -rf build/'",
    ),
    Group(
        "hook",
        "Agent hooks: the one entry for every pylon part (guard, canon, worktrees); install it.",
        "pylon hook install claude-code",
    ),
)

COMMANDS = (
    # -- the root ------------------------------------------------------------------------------
    Command(
        "guide",
        "Print the compact usage guide for agents (paste it into a system prompt).",
        "pylon guide edits",
        "pylon.cli.root:guide",
        args=(Arg("part", "[PART]", "One part only: overview, canon, edits, workspace or guard.", OPTIONAL),),
        opts=(JSON,),
    ),
    Command(
        "help",
        "Show the help of a command (the same as COMMAND --help).",
        "pylon help ws diff",
        "pylon.cli.root:help_command",
        args=(Arg("command", "[COMMAND]...", "The command's words.", ANY),),
        opts=(JSON,),
        description="With --json: the command's declaration (usage, arguments, options, sub-commands) as one document.",
    ),
    Command(
        "completion",
        "Print the shell completion script for pylon and canon (bash, zsh or fish).",
        'eval "$(pylon completion bash)"',
        "pylon.cli.root:completion",
        args=(Arg("shell", "SHELL", "bash, zsh or fish."),),
        opts=(JSON,),
        description="Add the example line to ~/.bashrc (zsh: ~/.zshrc); fish: "
        "`pylon completion fish > ~/.config/fish/completions/pylon.fish`.",
    ),
    Command(
        "doctor",
        "Check the installation and this checkout: versions, hooks, interrupted ops, leftovers.",
        "pylon doctor",
        "pylon.cli.doctor:doctor",
        opts=(JSON,),
        description="No network, nothing changed. Each finding names the command that fixes it; exit 1 when "
        "something is wrong. docs/how-to/troubleshoot.md.",
    ),
    Command(
        "mcp",
        "Serve canon and the numbered edits as MCP tools over stdio (for agent clients).",
        "pylon mcp",
        "pylon.mcp.command:serve",
        opts=(
            Opt(
                "--harness",
                STR,
                "The agent client, written as `harness:` on journal entries (default: detected, else mcp).",
                metavar="NAME",
            ),
        ),
        description="Each tool runs its command with --json in this process; docs/reference/agents.md.",
    ),
    # -- numbered edits ------------------------------------------------------------------------
    Command(
        "read",
        "Print a file with absolute line numbers and a revision tag.",
        "pylon read src/app.py --offset 200",
        "pylon.cli.edit:read",
        args=(Arg("path", "PATH", "The file, relative to the current folder."),),
        opts=(
            Opt(
                "--offset",
                INT,
                "First line to show (with --grep: first line to search).",
                default=1,
                metavar="N",
                min=1,
            ),
            Opt("--limit", INT, "Lines to show (at most 2000).", metavar="N", min=1),
            Opt("--grep", STR, "Show only lines matching this Python regular expression.", metavar="PATTERN"),
            Opt(
                "--context",
                INT,
                "With --grep: lines to show before and after each match (default 0).",
                metavar="N",
                min=0,
                max=50,
            ),
            IN,
            JSON,
        ),
        description="At most 2000 lines / 50 KiB per call. Every line printed is recorded as seen for the "
        "tag; `pylon edit PATH#TAG` may then change it.",
        mcp=Tool(),
    ),
    Command(
        "edit",
        "Apply whole-line edits to a file read with `pylon read`.",
        "printf 'replace 3\\n+new text\\n' | pylon edit src/app.py#b6285c57e879",
        "pylon.cli.edit:edit",
        args=(Arg("target", "PATH#TAG", "The file and the tag printed by `pylon read` (with --create: PATH)."),),
        opts=(
            Opt("--tag", STR, "The tag, when PATH is given alone.", metavar="TAG"),
            Opt("--create", FLAG, "Make PATH as a new file from `insert after 0` lines; refused if it exists."),
            Opt("--ops-file", STR, "Read operations from FILE (- for stdin).", metavar="FILE"),
            Opt(
                "--replace",
                PAIR,
                "Replace lines A-B with the one line TEXT; repeatable.",
                metavar="A[-B] TEXT",
                repeat=True,
            ),
            Opt("--delete", STR, "Delete lines A-B; repeatable.", metavar="A[-B]", repeat=True),
            Opt(
                "--insert-after",
                PAIR,
                "Insert the one line TEXT after line N (0: at the top); repeatable.",
                metavar="N TEXT",
                repeat=True,
            ),
            Opt(
                "--insert-before",
                PAIR,
                "Insert the one line TEXT before line N; repeatable.",
                metavar="N TEXT",
                repeat=True,
            ),
            Opt("--rebase", FLAG, "If the file changed, apply where the untouched target lines are now."),
            Opt("--dry-run", FLAG, "Validate and print the diff; write nothing."),
            Opt("--show", FLAG, "Print the changed regions with their new numbers (they count as seen)."),
            Opt("--allow-echo", FLAG, "Allow new text that repeats the line just outside its range."),
            Opt("--allow-indent-mix", FLAG, "Allow tab/space indentation unlike the lines around."),
            Opt("--force", FLAG, "Edit a file whose mode has no write bit (possible only as root)."),
            IN,
            JSON,
        ),
        description="Operations come on stdin, from --ops-file, or as one-line flags (all of them apply, "
        "in one snapshot). Text form: `replace A-B`, `delete A-B`, `insert after N`, "
        "`insert before N`, `final-newline yes|no`, each followed by its new lines prefixed with "
        "`+`. Numbers refer to the tagged revision. `pylon edit new.py --create --insert-after 0 'x = 1'` (or "
        "`insert after 0` and its lines on stdin) makes a new file and prints its tag. "
        "Exit: 0 applied, 1 unknown or stale tag, 2 bad request, 3 suspicious, 4 cannot edit, 5 no change.",
        mcp=_EDIT_TOOL,
    ),
    *CANON_COMMANDS,  # pylon/cli/canon_commands.py: canon's memory, lint, git-aware and agent commands
    *WS_COMMANDS,  # pylon/cli/ws_commands.py: workspace, owned worktrees, the op log
    Command(
        "serve",
        "A local web board of this checkout: agents, conflicts, timeline, memory (127.0.0.1 only).",
        "pylon serve --port 0",
        "pylon.cli.serve:serve",
        opts=_SERVE,
        description="Prints a login link that opens the board once (then a session cookie); other requests are "
        "refused. Read-only unless --allow-actions. Ctrl-C stops it. docs/how-to/board.md.",
    ),
    # -- the agents' sessions (pylon/sessions/) -------------------------------------------------
    Command(
        "sessions",
        "The coding agents' sessions in this repository's worktrees: phase, tool calls, tokens, cost.",
        "pylon sessions --json",
        "pylon.cli.sessions:sessions",
        args=(
            Arg(
                "view",
                "[VIEW]",
                "`statusline`: print one line for Claude Code's status line (its status "
                "JSON on stdin) instead of the list.",
                OPTIONAL,
                choices=("statusline",),
            ),
        ),
        opts=(
            Opt("--watch", FLAG, "Keep running: print each session again whenever it changes."),
            Opt("--timeout", FLOAT, "With --watch: stop after S seconds.", metavar="S", min=0, max=31_536_000),
            Opt("--all", FLAG, "Every session in the clients' folders, whatever folder it ran in."),
            JSON,
        ),
        description="Read from Claude Code's transcripts ($CLAUDE_CONFIG_DIR, default ~/.claude) and Codex's "
        "($CODEX_HOME, default ~/.codex), newest first; nothing is sent anywhere. "
        "docs/how-to/sessions.md.",
    ),
    Command(
        "tokens",
        "Where a session's tokens went: per tool, repeated reads, failed edits, pylon read's savings.",
        "pylon tokens 05defe4d --json",
        "pylon.cli.sessions:tokens",
        args=(
            Arg(
                "session",
                "[SESSION]",
                "A session id, or the start of one (default: the newest session in this repository).",
                OPTIONAL,
            ),
        ),
        opts=(Opt("--all", FLAG, "Without SESSION: the newest session anywhere, not only in this repository."), JSON),
        description="Counts, sizes and hashes only: no prompt, file content or command text is printed. "
        "Payload tokens are estimated at 4 bytes a token.",
    ),
    # -- guard -----------------------------------------------------------------------------------
    Command(
        "guard check",
        "Classify a shell command: safe, reversible, irreversible or unknown, with reasons.",
        "pylon guard check --command 'git clean -fdx'",
        "pylon.cli.guard.core:check",
        args=(Arg("words", "[CMD]...", "The command as words (after --).", ANY),),
        opts=(
            Opt("--command", STR, "The command as one shell string (may hold several lines).", metavar="STRING"),
            Opt("--tool-input", STR, 'A Bash tool input or hook event as JSON ({"command": ...}).', metavar="JSON"),
            JSON,
        ),
        description="Exit 0 when safe, 1 otherwise (the verdict is in the output). Nothing is run.",
    ),
    Command(
        "guard explain",
        "Print the guard policy in force and the file each setting came from.",
        "pylon guard explain",
        "pylon.cli.guard.core:explain",
        opts=(JSON,),
    ),
    Command(
        "hook claude-code",
        "Answer one Claude Code hook event (JSON on stdin) for every pylon part installed.",
        "pylon hook claude-code < event.json",
        "pylon.cli.hook:hook_claude_code",
        opts=(_ROOT, _MOUNT),
        description="What `pylon hook install`, `guard install` and `canon hook install` write, once per event: "
        "PreToolUse goes to the guard (the state kept before a shell command; file tools) and the "
        "write-time conflict check, PostToolBatch to the guard (the op of the batch's last shell "
        "command; each earlier one ends at the next PreToolUse) and canon, a PostToolUse of the shell "
        "(an older install) to the guard, WorktreeCreate/WorktreeRemove make and remove owned "
        "worktrees (the path, or nothing, on stdout; exit 1 with the reason on a refusal), the others "
        "to canon. Otherwise always exits 0 with one JSON answer.",
    ),
    Command(
        "hook codex",
        "Answer one Codex hook event (JSON on stdin) for every pylon part installed.",
        "pylon hook codex < event.json",
        "pylon.cli.hook:hook_codex",
        opts=(_ROOT, _MOUNT),
        description="As `pylon hook claude-code`, in Codex's format; Codex has no worktree events. "
        "--root and --mount are canon's, as on `canon hook codex`.",
    ),
    Command(
        "hook install",
        "Merge pylon's hook entries (guard, canon, worktrees) into an agent's settings (idempotent).",
        "pylon hook install claude-code --dry-run",
        "pylon.cli.hook:install",
        args=(
            Arg("agent", "AGENT", "claude-code (.claude/settings.json) or codex (.codex/hooks.json).", choices=AGENTS),
        ),
        opts=_GUARD_SCOPE,
        description="One `pylon hook AGENT` handler per event, in place of any older pylon handler; warns when "
        "the pylon plugin runs the same hooks already (each event would run twice).",
    ),
    Command(
        "hook uninstall",
        "Remove every pylon hook entry from an agent's settings file.",
        "pylon hook uninstall codex --user",
        "pylon.cli.hook:uninstall",
        args=(_AGENT,),
        opts=_GUARD_SCOPE,
    ),
    Command(
        "guard hook",
        "Answer one hook event of an agent's shell tool for the guard alone (JSON on stdin).",
        "pylon guard hook claude-code < event.json",
        "pylon.cli.guard.core:hook",
        args=(_AGENT,),
        description="The state is kept before every command; safe: no output; reversible: a note naming what it "
        "destroys and `pylon ws undo`; irreversible or unknown: the policy's ask/deny/allow. "
        "Always exits 0. The event: "
        '`{"hook_event_name": "PreToolUse", "tool_name": "Bash", "cwd": "/repo", '
        '"tool_input": {"command": "rm -rf src"}}`.',
    ),
    Command(
        "guard install",
        "Merge the guard hook into an agent's settings file (idempotent).",
        "pylon guard install claude-code --dry-run",
        "pylon.cli.guard.core:install",
        args=(
            Arg("agent", "AGENT", "claude-code (.claude/settings.json) or codex (.codex/hooks.json).", choices=AGENTS),
        ),
        opts=_GUARD_SCOPE,
    ),
    Command(
        "guard uninstall",
        "Remove the guard hook from an agent's settings file.",
        "pylon guard uninstall codex --user",
        "pylon.cli.guard.core:uninstall",
        args=(_AGENT,),
        opts=_GUARD_SCOPE,
    ),
)

_BY_NAME = {c.name: c for c in (*GROUPS, *COMMANDS)}


def lookup(name: str) -> Command | Group | None:
    """The command or group named by its words joined with spaces (`ws diff`), or None."""
    return _BY_NAME.get(name)


def children(prefix: str) -> list[Command | Group]:
    """The commands and groups one word below `prefix` ("" for the root), sorted by name."""
    depth = len(prefix.split()) + 1 if prefix else 1
    found = [
        c for c in (*GROUPS, *COMMANDS) if len(c.words) == depth and (not prefix or c.name.startswith(prefix + " "))
    ]
    return sorted(found, key=lambda c: c.name)
