"""canon's commands in THE command registry (pylon/cli/commands.py assembles it): the memory
(init, read, write, journal, map, search, resolve, status), lint, the git-aware commands, the
agent surfaces and the watcher, each declared once as plain data.
"""

from __future__ import annotations

from pylon.cli.options import (
    _AGENT,
    _BODY_FILE,
    _GRAPH_FORMAT,
    _HOOK_FILE,
    _MOUNT,
    _PROVENANCE,
    _ROOT,
    AGENTS,
    CANON,
)
from pylon.cli.spec import ANY, FLAG, FLOAT, INT, MANY, OPTIONAL, STR, Arg, Command, Opt, Tool

COMMANDS = (
    Command(
        "canon init",
        "Create the store (.canon/ with schema.json and .gitignore); idempotent.",
        "canon init",
        "pylon.cli.canon.core:init",
        opts=CANON,
    ),
    Command(
        "canon read",
        "Print the article governing an address, with its newest journal entries.",
        "canon read src/core/config.py",
        "pylon.cli.canon.core:read",
        args=(Arg("address", "ADDRESS", "An asset path or an address (lake:prices for a mount)."),),
        opts=CANON,
        description="The governing article is the nearest existing ancestor of the address.",
        mcp=Tool(),
    ),
    Command(
        "canon write",
        "Create or update an article (blank fields are left untouched).",
        'canon write src/app.py --capsule "Entry point; parses flags." --body "..."',
        "pylon.cli.canon.core:write",
        args=(Arg("address", "ADDRESS", "An asset path or an address (lake:prices for a mount)."),),
        opts=(
            Opt("--capsule", STR, "One dense line; empty leaves it as it was.", metavar="TEXT"),
            Opt("--body", STR, "The whole new body; empty leaves it as it was.", metavar="TEXT"),
            _BODY_FILE,
            Opt("--scope", STR, "rule (a cross-cutting rule) or asset (clears it).", metavar="SCOPE"),
            *CANON,
        ),
        description="A write that changes nothing writes nothing. Without a store, it creates the one "
        "`canon init` makes first.",
        mcp=Tool(),
    ),
    Command(
        "canon journal",
        "Append an immutable entry to the journal.",
        'canon journal "Raised the timeout to 30 s after the outage" --subject src/net/client.py',
        "pylon.cli.canon.core:journal",
        args=(Arg("text", "[TEXT]", "What happened: names, exact numbers, who said what.", OPTIONAL),),
        opts=(
            _BODY_FILE,
            Opt("--subject", STR, "An article this entry is about; repeatable.", metavar="ADDRESS", repeat=True),
            Opt("--slug", STR, "File name slug (default: entry).", metavar="SLUG"),
            *_PROVENANCE,
            *CANON,
        ),
        description="Entries are named journal/<UTC date>-<slug>[-N].md and never rewritten.",
        mcp=Tool(),
    ),
    Command(
        "canon map",
        "List <address>: <capsule> for every article.",
        "canon map src/",
        "pylon.cli.canon.core:catalog",
        args=(Arg("prefix", "[PREFIX]", "Only articles at or under this address or path.", OPTIONAL),),
        opts=CANON,
        mcp=Tool(),
    ),
    Command(
        "canon search",
        "Ranked full-text search over articles (and the journal).",
        "canon search retry timeout",
        "pylon.cli.canon.core:search",
        args=(Arg("query", "QUERY...", "Words to look for (ranked by BM25).", MANY),),
        opts=(
            Opt("--journal", FLAG, "Search journal entries too."),
            Opt("--limit", INT, "Show at most N results.", default=10, metavar="N", min=1),
            *CANON,
        ),
        mcp=Tool(),
    ),
    Command(
        "canon resolve",
        "Print the governing article of each path (--explain: every address tried).",
        "canon resolve src/app.py docs/intro.md",
        "pylon.cli.canon.core:resolve",
        args=(Arg("paths", "PATH...", "Asset paths or addresses.", MANY),),
        opts=(Opt("--explain", FLAG, "Also list every address tried."), *CANON),
        mcp=Tool(),
    ),
    Command(
        "canon status",
        "Store path, mounts, article and journal counts, and this session's surfacing spend.",
        "canon status",
        "pylon.cli.canon.core:status",
        opts=CANON,
    ),
    Command(
        "canon lint",
        "Lint the store (exit 0 clean, 1 findings, 2 could not lint).",
        "canon lint --format github",
        "pylon.cli.canon.lint:lint",
        args=(
            Arg(
                "addresses",
                "[ADDRESS]...",
                "Addresses or paths; each selects its article and those below it (default: the whole store).",
                ANY,
            ),
        ),
        opts=(
            Opt(
                "--format",
                STR,
                "text, json, github (workflow annotations) or sarif.",
                default="text",
                metavar="FORMAT",
                choices=("text", "json", "github", "sarif"),
            ),
            Opt("--strict", FLAG, "Warnings fail too (exit 1)."),
            Opt("--fix", FLAG, "Apply safe fixes (quoting, capsule folding, pasted front matter) first."),
            Opt("--all", FLAG, "Text format: list every finding (default: the first 200, then counts)."),
            Opt(
                "--since",
                STR,
                "journal-changed: entries in REV must be unchanged (default HEAD, in git).",
                metavar="REV",
                dest="base",
                aliases=("--base",),
            ),
            *CANON,
        ),
        mcp=Tool(),
    ),
    # -- canon, git-aware (pylon/canon/git/) ---------------------------------------------------
    Command(
        "canon check",
        "The write-after gate: changed assets whose article did not change (exit 1 on findings).",
        "canon check --staged",
        "pylon.cli.canon.git:check",
        opts=(
            Opt("--staged", FLAG, "Judge the index, what the next commit records (the pre-commit hook)."),
            Opt(
                "--since",
                STR,
                "Judge what HEAD adds since its merge-base with REV, plus the working tree (CI: --since origin/main).",
                metavar="REV",
            ),
            Opt("--warn-only", FLAG, "Report findings as warnings and exit 0."),
            Opt(
                "--format",
                STR,
                "text, json, github (workflow annotations) or sarif.",
                default="text",
                metavar="FORMAT",
                choices=("text", "json", "github", "sarif"),
            ),
            *CANON,
        ),
        description="Without --staged or --since: the working tree (and untracked files) against HEAD. Git "
        "sees a rename once it is staged (git mv, git add -A).",
        mcp=Tool(),
    ),
    Command(
        "canon mv",
        "Move an article and its children; rewrite inbound [[links]]; journal the move.",
        "canon mv src/old src/new --dry-run",
        "pylon.cli.canon.git:mv",
        args=(
            Arg(
                "addresses",
                "[ADDRESS]...",
                "OLD NEW: the article's address (or asset path) and the new one; "
                "with --from-git at most one word, the revision REV.",
                ANY,
            ),
        ),
        opts=(
            Opt("--from-git", FLAG, "Move every article whose asset git saw renamed since REV (default HEAD)."),
            Opt("--dry-run", FLAG, "Print the plan (moves, rewritten links); change nothing."),
            *CANON,
        ),
        description="Refuses a move onto an existing article. Journal entries are never rewritten.",
    ),
    Command(
        "canon stale",
        "Articles whose governed assets changed in git history after the article did.",
        "canon stale --days 30",
        "pylon.cli.canon.git:stale",
        opts=(
            Opt(
                "--days",
                INT,
                "Only articles at least N days behind their newest asset change.",
                default=0,
                metavar="N",
                min=0,
            ),
            Opt("--limit", INT, "Most articles to list (text; --json lists all).", default=50, metavar="N", min=1),
            *CANON,
        ),
    ),
    Command(
        "canon coverage",
        "Share of tracked files with an article; largest ungoverned folders; broad articles.",
        "canon coverage",
        "pylon.cli.canon.git:coverage",
        opts=(Opt("--limit", INT, "Rows per table (text; --json lists all).", default=10, metavar="N", min=1), *CANON),
    ),
    Command(
        "canon graph",
        "The article graph: [[links]] between articles, each tied to the asset it governs.",
        "canon graph --format mermaid src/",
        "pylon.cli.canon.graph:graph",
        args=(Arg("address", "[ADDRESS]", "Only this article, those under it and their neighbours.", OPTIONAL),),
        opts=(_GRAPH_FORMAT, *CANON),
    ),
    # -- canon for agents (surfacing, hooks, watch) ---------------------------------------------
    Command(
        "canon surface",
        "Show, once per session, the capsules of the articles governing these paths.",
        "canon surface src/app.py --changed",
        "pylon.cli.canon.agent:surface",
        args=(Arg("paths", "[PATH]...", "Paths touched (none: show what waits from earlier calls).", ANY),),
        opts=(
            Opt("--changed", FLAG, "The paths were modified: arm the reminder of `canon settle`."),
            Opt(
                "--tool-input",
                STR,
                "A tool call's JSON input (or a whole hook event): surface its paths.",
                metavar="JSON",
            ),
            *CANON,
        ),
        description="Budget: 4000 capsule characters per session (then pointer lines), ~2000 characters per "
        "message (the rest waits). The session is PYLON_SESSION.",
    ),
    Command(
        "canon settle",
        "Name the articles whose assets changed but which were not written since; clear.",
        "canon settle",
        "pylon.cli.canon.agent:settle",
        opts=CANON,
    ),
    Command(
        "canon hook claude-code",
        "Answer one Claude Code hook event (JSON on stdin) in its hook JSON.",
        "canon hook claude-code < event.json",
        "pylon.cli.canon.agent:hook_claude_code",
        opts=(_ROOT, _MOUNT),
        description="Always exits 0 with one JSON answer: a malformed or unknown event is a no-op.",
    ),
    Command(
        "canon hook codex",
        "Answer one Codex hook event (JSON on stdin) in its hook JSON.",
        "canon hook codex < event.json",
        "pylon.cli.canon.agent:hook_codex",
        opts=(_ROOT, _MOUNT),
        description="Always exits 0 with one JSON answer: a malformed or unknown event is a no-op.",
    ),
    Command(
        "canon hook install",
        "Merge canon's hook entries into an agent's settings file (idempotent).",
        "canon hook install claude-code --dry-run",
        "pylon.cli.canon.agent:hook_install",
        args=(
            Arg("agent", "AGENT", "claude-code (.claude/settings.json) or codex (.codex/hooks.json).", choices=AGENTS),
        ),
        opts=_HOOK_FILE,
    ),
    Command(
        "canon hook uninstall",
        "Remove canon's hook entries from an agent's settings file.",
        "canon hook uninstall codex --user",
        "pylon.cli.canon.agent:hook_uninstall",
        args=(_AGENT,),
        opts=_HOOK_FILE,
    ),
    Command(
        "canon watch",
        "Watch .canon/ and re-lint what changes, printing findings as they appear.",
        "canon watch --json",
        "pylon.cli.canon.agent:watch",
        opts=(
            Opt(
                "--timeout",
                FLOAT,
                "Stop after S seconds (without it: until stopped).",
                metavar="S",
                min=0,
                max=31_536_000,
            ),
            Opt("--debounce", FLOAT, "Quiet time before changed files are linted.", default=0.2, metavar="S", min=0),
            *CANON,
        ),
    ),
)
