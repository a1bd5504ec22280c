"""The building blocks of the registry (commands.py): the root and its options, and the options
several commands share. Plain data; commands.py re-exports what other modules read by name."""

from __future__ import annotations

from pylon.cli.spec import FLAG, INT, STR, Arg, Group, Opt, Tool

# The root itself (`pylon`), and its options (also those of `canon`), read before the first word.
ROOT = Group("", "pylon: git-centric workspace and memory toolkit. Start with `pylon guide`.", "pylon guide")
ROOT_OPTS = (
    Opt("-C", STR, "Run as if started in DIR (like git -C); repeatable.", metavar="DIR", repeat=True, dest="directory"),
    Opt(
        "--color",
        STR,
        "Colour: auto (a terminal only), always or never.",
        default="auto",
        metavar="WHEN",
        choices=("auto", "always", "never"),
    ),
    Opt("--version", FLAG, "Print the version and exit."),
)

JSON = Opt("--json", FLAG, "Print exactly one JSON document on stdout.")
# `--in ID`: the command runs in the owned worktree ID, as if started at its top folder. The
# dispatcher (main.py) changes directory before the handler runs, so handlers never see it.
IN = Opt("--in", STR, "Run in the owned worktree ID (as if started at its top folder).", metavar="ID", dest="in_id")
DISPATCHED = frozenset({IN.dest})
_ROOT = Opt(
    "--root",
    STR,
    "The folder holding .canon/ (default: the nearest ancestor with .canon/, never above "
    "the repository's top; else that top).",
    metavar="DIR",
)
_MOUNT = Opt(
    "--mount", STR, "Mount another folder's .canon/ as <basename>:...; repeatable.", metavar="DIR", repeat=True
)
CANON = (JSON, _ROOT, _MOUNT)
_BODY_FILE = Opt("--body-file", STR, "Read the text from FILE (- for stdin).", metavar="FILE")
_DIFF3 = Opt("--diff3", FLAG, "With --markers: add the base section (`||||||| base`) to each conflict.")
_SINCE = Opt(
    "--since",
    STR,
    "Baseline name or git revision (default: the session baseline, else `last`, else HEAD).",
    metavar="NAME|REV",
)

# Which agent settings file `canon hook install|uninstall` changes, and how.
_HOOK_FILE = (
    Opt("--project", FLAG, "The project's settings file (the default)."),
    Opt("--user", FLAG, "The user's settings file (~/.claude, ~/.codex)."),
    Opt("--dry-run", FLAG, "Print the diff; write nothing."),
    *CANON,
)

_GUARD_SCOPE = (*_HOOK_FILE[:3], JSON)  # `guard install|uninstall`: the same files, no store options
AGENTS = ("claude-code", "codex")  # the agents whose hooks pylon answers and installs (pylon.agents.events)

# `canon journal`: who wrote the entry (front matter `harness:` and `session:`, as pi-canon writes them).
_PROVENANCE = (
    Opt("--harness", STR, "The agent client writing the entry (claude-code, codex, ...).", metavar="NAME"),
    Opt("--session", STR, "The agent session's id.", metavar="ID"),
)
# `pylon edit` as an MCP tool: the text-form operations come as an argument (stdin carries the protocol).
_EDIT_TOOL = Tool(
    stdin=(
        "ops",
        (
            "Edit operations in the text form `pylon edit` reads on stdin: `replace A-B`, "
            "`delete A-B`, `insert after N`, `insert before N`, each followed by its new lines prefixed "
            "with `+`."
        ),
    )
)
_AGENT = Arg("agent", "AGENT", "claude-code or codex.", choices=AGENTS)  # the hook commands' argument
# `pylon serve`: the board's port and what it may do.
_SERVE = (
    Opt(
        "--port",
        INT,
        "Listen on this port (default 0: the system picks a free one).",
        default=0,
        metavar="N",
        min=0,
        max=65535,
    ),
    Opt("--open", FLAG, "Open the board in the default browser too (with a login link of its own)."),
    Opt("--allow-actions", FLAG, "Let the page run apply, sync, undo, restore and rm (each an op in the log)."),
    JSON,
)
_GRAPH_FORMAT = Opt(
    "--format",
    STR,
    "mermaid, dot (Graphviz) or json.",
    default="mermaid",
    metavar="FORMAT",
    choices=("mermaid", "dot", "json"),
)  # `canon graph`
