"""THE command registry: every pylon command declared once, as plain data.

The parser (argv.py) runs every invocation from these entries; help and shell completion
(help.py) and the docs test read them too. A handler is named as "module:function" and imported
only when its command runs. Adding an option means its Opt here, its use in the handler, and its
line in the docs; nothing else.
"""

from __future__ import annotations

from pylon.cli.spec import ANY, FLAG, FLOAT, INT, MANY, ONE, OPTIONAL, PAIR, REST, STR, Arg, Command, Group, Opt, Tool

# ROOT, ROOT_OPTS, DISPATCHED and AGENTS are read by other modules as registry.X
from pylon.cli.options import AGENTS, CANON, DISPATCHED, IN, JSON, ROOT, ROOT_OPTS  # noqa: F401
from pylon.cli.options import (_AGENT, _BODY_FILE, _DIFF3, _EDIT_TOOL, _GRAPH_FORMAT, _GUARD_SCOPE, _HOOK_FILE, _MOUNT,
                                _PROVENANCE, _ROOT, _SERVE, _SINCE)

GROUPS = (
    Group("canon", "Project memory: articles, journal, lint (the same as the `canon` command).", "canon read src/app.py"),
    Group("canon hook", "Agent hooks: answer Claude Code or Codex hook events; install them in its settings.",
          "canon hook install claude-code"),
    Group("ws", "Workspace: baselines, changes, diffs, confined reads, owned worktrees.", "pylon ws changes --since start"),
    Group("guard", "Destructive shell commands: classify them; snapshot before the reversible ones.",
          "pylon guard check --command 'rm -rf build/'"),
)

COMMANDS = (
    # -- the root ------------------------------------------------------------------------------
    Command("guide", "Print the compact usage guide for agents (paste it into a system prompt).", "pylon guide edits",
            "pylon.cli.root:guide",
            args=(Arg("part", "[PART]", "One part only: overview, canon, edits, workspace or guard.", OPTIONAL),),
            opts=(JSON,)),
    Command("help", "Show the help of a command (the same as COMMAND --help).", "pylon help ws diff",
            "pylon.cli.root:help_command", args=(Arg("command", "[COMMAND]...", "The command's words.", ANY),),
            opts=(JSON,), description="With --json: the command's declaration (usage, arguments, options, "
                                      "sub-commands) as one document."),
    Command("completion", "Print the shell completion script for pylon and canon (bash, zsh or fish).",
            'eval "$(pylon completion bash)"', "pylon.cli.root:completion",
            args=(Arg("shell", "SHELL", "bash, zsh or fish."),), opts=(JSON,),
            description="Add the example line to ~/.bashrc (zsh: ~/.zshrc); fish: "
                        "`pylon completion fish > ~/.config/fish/completions/pylon.fish`."),
    Command("mcp", "Serve canon and the numbered edits as MCP tools over stdio (for agent clients).", "pylon mcp",
            "pylon.cli.mcp_serve:serve", opts=(Opt("--harness", STR, "The agent client, written as `harness:` on "
                                                   "journal entries (default: detected, else mcp).", metavar="NAME"),),
            description="Each tool runs its command with --json in this process; docs/canon-agents.md (MCP server)."),
    # -- numbered edits ------------------------------------------------------------------------
    Command("read", "Print a file with absolute line numbers and a revision tag.", "pylon read src/app.py --offset 200",
            "pylon.cli.edit:read",
            args=(Arg("path", "PATH", "The file, relative to the current folder."),),
            opts=(Opt("--offset", INT, "First line to show (with --grep: first line to search).", default=1,
                      metavar="N", min=1),
                  Opt("--limit", INT, "Lines to show (at most 2000).", metavar="N", min=1),
                  Opt("--grep", STR, "Show only lines matching this Python regular expression.", metavar="PATTERN"),
                  Opt("--context", INT, "With --grep: lines to show before and after each match (default 0).",
                      metavar="N", min=0, max=50),
                  IN, JSON),
            description="At most 2000 lines / 50 KiB per call. Every line printed is recorded as seen for the "
                        "tag; `pylon edit PATH#TAG` may then change it.", mcp=Tool()),
    Command("edit", "Apply whole-line edits to a file read with `pylon read`.",
            "printf 'replace 3\\n+new text\\n' | pylon edit src/app.py#b6285c57e879", "pylon.cli.edit:edit",
            args=(Arg("target", "PATH#TAG", "The file and the tag printed by `pylon read` (with --create: PATH)."),),
            opts=(Opt("--tag", STR, "The tag, when PATH is given alone.", metavar="TAG"),
                  Opt("--create", FLAG, "Make PATH as a new file from `insert after 0` lines; refused if it exists."),
                  Opt("--ops-file", STR, "Read operations from FILE (- for stdin).", metavar="FILE"),
                  Opt("--replace", PAIR, "Replace lines A-B with the one line TEXT; repeatable.", metavar="A[-B] TEXT",
                      repeat=True),
                  Opt("--delete", STR, "Delete lines A-B; repeatable.", metavar="A[-B]", repeat=True),
                  Opt("--insert-after", PAIR, "Insert the one line TEXT after line N (0: at the top); repeatable.",
                      metavar="N TEXT", repeat=True),
                  Opt("--insert-before", PAIR, "Insert the one line TEXT before line N; repeatable.",
                      metavar="N TEXT", repeat=True),
                  Opt("--rebase", FLAG, "If the file changed, apply where the untouched target lines are now."),
                  Opt("--dry-run", FLAG, "Validate and print the diff; write nothing."),
                  Opt("--show", FLAG, "Print the changed regions with their new numbers (they count as seen)."),
                  Opt("--allow-echo", FLAG, "Allow new text that repeats the line just outside its range."),
                  Opt("--allow-indent-mix", FLAG, "Allow tab/space indentation unlike the lines around."),
                  Opt("--force", FLAG, "Edit a file whose mode has no write bit (possible only as root)."),
                  IN, JSON),
            description="Operations come on stdin, from --ops-file, or as one-line flags (all of them apply, "
                        "in one snapshot). Text form: `replace A-B`, `delete A-B`, `insert after N`, "
                        "`insert before N`, `final-newline yes|no`, each followed by its new lines prefixed with "
                        "`+`. Numbers refer to the tagged revision. `pylon edit new.py --create --insert-after 0 'x = 1'` (or "
                        "`insert after 0` and its lines on stdin) makes a new file and prints its tag. Exit: 0 applied, 1 unknown or stale tag, "
                        "2 bad request, 3 suspicious, 4 cannot edit, 5 no change.", mcp=_EDIT_TOOL),
    # -- canon ---------------------------------------------------------------------------------
    Command("canon init", "Create the store (.canon/ with schema.json and .gitignore); idempotent.", "canon init",
            "pylon.cli.canon.core:init", opts=CANON),
    Command("canon read", "Print the article governing an address, with its newest journal entries.",
            "canon read src/core/config.py", "pylon.cli.canon.core:read",
            args=(Arg("address", "ADDRESS", "An asset path or an address (lake:prices for a mount)."),), opts=CANON,
            description="The governing article is the nearest existing ancestor of the address.", mcp=Tool()),
    Command("canon write", "Create or update an article (blank fields are left untouched).",
            'canon write src/app.py --capsule "Entry point; parses flags." --body "..."', "pylon.cli.canon.core:write",
            args=(Arg("address", "ADDRESS", "An asset path or an address (lake:prices for a mount)."),),
            opts=(Opt("--capsule", STR, "One dense line; empty leaves it as it was.", metavar="TEXT"),
                  Opt("--body", STR, "The whole new body; empty leaves it as it was.", metavar="TEXT"),
                  _BODY_FILE,
                  Opt("--scope", STR, "rule (a cross-cutting rule) or asset (clears it).", metavar="SCOPE"),
                  *CANON),
            description="A write that changes nothing writes nothing. Without a store, it creates the one "
                        "`canon init` makes first.", mcp=Tool()),
    Command("canon journal", "Append an immutable entry to the journal.",
            'canon journal "Raised the timeout to 30 s after the outage" --subject src/net/client.py',
            "pylon.cli.canon.core:journal",
            args=(Arg("text", "[TEXT]", "What happened: names, exact numbers, who said what.", OPTIONAL),),
            opts=(_BODY_FILE,
                  Opt("--subject", STR, "An article this entry is about; repeatable.", metavar="ADDRESS", repeat=True),
                  Opt("--slug", STR, "File name slug (default: entry).", metavar="SLUG"),
                  *_PROVENANCE, *CANON),
            description="Entries are named journal/<UTC date>-<slug>[-N].md and never rewritten.", mcp=Tool()),
    Command("canon map", "List <address>: <capsule> for every article.", "canon map src/", "pylon.cli.canon.core:catalog",
            args=(Arg("prefix", "[PREFIX]", "Only articles at or under this address or path.", OPTIONAL),), opts=CANON,
            mcp=Tool()),
    Command("canon search", "Ranked full-text search over articles (and the journal).", "canon search retry timeout",
            "pylon.cli.canon.core:search",
            args=(Arg("query", "QUERY...", "Words to look for (ranked by BM25).", MANY),),
            opts=(Opt("--journal", FLAG, "Search journal entries too."),
                  Opt("--limit", INT, "Show at most N results.", default=10, metavar="N", min=1),
                  *CANON), mcp=Tool()),
    Command("canon resolve", "Print the governing article of each path (--explain: every address tried).",
            "canon resolve src/app.py docs/intro.md", "pylon.cli.canon.core:resolve",
            args=(Arg("paths", "PATH...", "Asset paths or addresses.", MANY),),
            opts=(Opt("--explain", FLAG, "Also list every address tried."), *CANON), mcp=Tool()),
    Command("canon status", "Store path, mounts, article and journal counts, and this session's surfacing spend.",
            "canon status", "pylon.cli.canon.core:status", opts=CANON),
    Command("canon lint", "Lint the store (exit 0 clean, 1 findings, 2 could not lint).", "canon lint --format github",
            "pylon.cli.canon.lint:lint",
            args=(Arg("addresses", "[ADDRESS]...", "Addresses or paths; each selects its article and those below it "
                      "(default: the whole store).", ANY),),
            opts=(Opt("--format", STR, "text, json, github (workflow annotations) or sarif.", default="text",
                      metavar="FORMAT", choices=("text", "json", "github", "sarif")),
                  Opt("--strict", FLAG, "Warnings fail too (exit 1)."),
                  Opt("--fix", FLAG, "Apply safe fixes (quoting, capsule folding, pasted front matter) first."),
                  Opt("--all", FLAG, "Text format: list every finding (default: the first 200, then counts)."),
                  Opt("--since", STR, "journal-changed: entries in REV must be unchanged (default HEAD, in git).",
                      metavar="REV", dest="base", aliases=("--base",)),
                  *CANON), mcp=Tool()),
    # -- canon, git-aware (pylon/canon/git/) ---------------------------------------------------
    Command("canon check", "The write-after gate: changed assets whose article did not change (exit 1 on findings).",
            "canon check --staged", "pylon.cli.canon.git:check",
            opts=(Opt("--staged", FLAG, "Judge the index, what the next commit records (the pre-commit hook)."),
                  Opt("--since", STR, "Judge what HEAD adds since its merge-base with REV, plus the working tree "
                      "(CI: --since origin/main).", metavar="REV"),
                  Opt("--warn-only", FLAG, "Report findings as warnings and exit 0."),
                  Opt("--format", STR, "text, json, github (workflow annotations) or sarif.", default="text",
                      metavar="FORMAT", choices=("text", "json", "github", "sarif")),
                  *CANON),
            description="Without --staged or --since: the working tree (and untracked files) against HEAD. Git "
                        "sees a rename once it is staged (git mv, git add -A).", mcp=Tool()),
    Command("canon mv", "Move an article and its children; rewrite inbound [[links]]; journal the move.",
            "canon mv src/old src/new --dry-run", "pylon.cli.canon.git:mv",
            args=(Arg("addresses", "[ADDRESS]...", "OLD NEW: the article's address (or asset path) and the new one; "
                      "with --from-git at most one word, the revision REV.", ANY),),
            opts=(Opt("--from-git", FLAG, "Move every article whose asset git saw renamed since REV (default HEAD)."),
                  Opt("--dry-run", FLAG, "Print the plan (moves, rewritten links); change nothing."),
                  *CANON),
            description="Refuses a move onto an existing article. Journal entries are never rewritten."),
    Command("canon stale", "Articles whose governed assets changed in git history after the article did.",
            "canon stale --days 30", "pylon.cli.canon.git:stale",
            opts=(Opt("--days", INT, "Only articles at least N days behind their newest asset change.", default=0,
                      metavar="N", min=0),
                  Opt("--limit", INT, "Most articles to list (text; --json lists all).", default=50, metavar="N",
                      min=1),
                  *CANON)),
    Command("canon coverage", "Share of tracked files with an article; largest ungoverned folders; broad articles.",
            "canon coverage", "pylon.cli.canon.git:coverage",
            opts=(Opt("--limit", INT, "Rows per table (text; --json lists all).", default=10, metavar="N", min=1),
                  *CANON)),
    Command("canon graph", "The article graph: [[links]] between articles, each tied to the asset it governs.",
            "canon graph --format mermaid src/", "pylon.cli.canon.graph:graph",
            args=(Arg("address", "[ADDRESS]", "Only this article, those under it and their neighbours.", OPTIONAL),),
            opts=(_GRAPH_FORMAT, *CANON)),
    # -- canon for agents (surfacing, hooks, watch) ---------------------------------------------
    Command("canon surface", "Show, once per session, the capsules of the articles governing these paths.",
            "canon surface src/app.py --changed", "pylon.cli.canon.agent:surface",
            args=(Arg("paths", "[PATH]...", "Paths touched (none: show what waits from earlier calls).", ANY),),
            opts=(Opt("--changed", FLAG, "The paths were modified: arm the reminder of `canon settle`."),
                  Opt("--tool-input", STR, "A tool call's JSON input (or a whole hook event): surface its paths.",
                      metavar="JSON"),
                  *CANON),
            description="Budget: 4000 capsule characters per session (then pointer lines), ~2000 characters per "
                        "message (the rest waits). The session is PYLON_SESSION."),
    Command("canon settle", "Name the articles whose assets changed but which were not written since; clear.",
            "canon settle", "pylon.cli.canon.agent:settle", opts=CANON),
    Command("canon hook claude-code", "Answer one Claude Code hook event (JSON on stdin) in its hook JSON.",
            "canon hook claude-code < event.json", "pylon.cli.canon.agent:hook_claude_code", opts=(_ROOT, _MOUNT),
            description="Always exits 0 with one JSON answer: a malformed or unknown event is a no-op."),
    Command("canon hook codex", "Answer one Codex hook event (JSON on stdin) in its hook JSON.",
            "canon hook codex < event.json", "pylon.cli.canon.agent:hook_codex", opts=(_ROOT, _MOUNT),
            description="Always exits 0 with one JSON answer: a malformed or unknown event is a no-op."),
    Command("canon hook install", "Merge canon's hook entries into an agent's settings file (idempotent).",
            "canon hook install claude-code --dry-run", "pylon.cli.canon.agent:hook_install",
            args=(Arg("agent", "AGENT", "claude-code (.claude/settings.json) or codex (.codex/hooks.json).",
                      choices=AGENTS),),
            opts=_HOOK_FILE),
    Command("canon hook uninstall", "Remove canon's hook entries from an agent's settings file.",
            "canon hook uninstall codex --user", "pylon.cli.canon.agent:hook_uninstall",
            args=(_AGENT,),
            opts=_HOOK_FILE),
    Command("canon watch", "Watch .canon/ and re-lint what changes, printing findings as they appear.",
            "canon watch --json", "pylon.cli.canon.agent:watch",
            opts=(Opt("--timeout", FLOAT, "Stop after S seconds (without it: until stopped).", metavar="S", min=0, max=31_536_000),
                  Opt("--debounce", FLOAT, "Quiet time before changed files are linted.", default=0.2, metavar="S",
                      min=0),
                  *CANON)),
    # -- workspace -----------------------------------------------------------------------------
    Command("ws baseline", "Capture the checkout state (HEAD, index, working tree) as a named baseline.",
            "pylon ws baseline start", "pylon.cli.ws.core:baseline",
            args=(Arg("name", "[NAME]", "Baseline name, 1-64 of A-Za-z0-9._- (default: last).", OPTIONAL, "last"),),
            opts=(Opt("--delete", FLAG, "Delete the named baseline."), IN, JSON)),
    Command("ws changes", "Paths changed since a baseline: status, lines added and removed (bounded).",
            "pylon ws changes --since start", "pylon.cli.ws.core:changes",
            opts=(_SINCE, Opt("--limit", INT, "Most entries to list.", default=200, metavar="N", min=1), IN, JSON)),
    Command("ws diff", "Unified diff (git's format) against a baseline, bounded; --output FILE writes all of it.",
            "pylon ws diff --since start -- src/app.py", "pylon.cli.ws.stream:diff",
            args=(Arg("paths", "[PATH]...", "Literal paths (no globs).", ANY),),
            opts=(_SINCE,
                  Opt("--max-files", INT, "Most files to show.", default=200, metavar="N", min=0),
                  Opt("--max-lines", INT, "Most diff lines to show.", default=2000, metavar="N", min=0),
                  Opt("--max-bytes", INT, "Most bytes to show.", default=65536, metavar="N", min=0),
                  Opt("--output", STR, "Write the complete diff to FILE.", metavar="FILE", dest="out",
                      aliases=("--out",)),
                  IN, JSON)),
    Command("ws cat", "Confined read of one file of the checkout (or of its baseline with --base).",
            "pylon ws cat src/app.py --base --since start", "pylon.cli.ws.stream:cat",
            args=(Arg("path", "PATH", "A file of the checkout, relative to the current folder."),),
            opts=(Opt("--base", FLAG, "Print the baseline's version instead."), _SINCE,
                  Opt("--max-bytes", INT, "Read at most N bytes.", default=1048576, metavar="N", min=1), IN, JSON)),
    Command("ws fingerprint", "A short stable fingerprint of the checkout state.", "pylon ws fingerprint",
            "pylon.cli.ws.core:fingerprint", opts=(IN, JSON,)),
    Command("ws run", "Run a command and report exactly which files it changed; exits with its status.",
            "pylon ws run -- make generate", "pylon.cli.ws.stream:run",
            args=(Arg("command", "COMMAND...", "The command (after --); a single word runs through sh -c.", REST),),
            opts=(Opt("--limit", INT, "Most paths to list.", default=200, metavar="N", min=1),
                  Opt("--max-bytes", INT, "Show only the head and tail of the command's output within N bytes; "
                      "all of it goes to a file under the state directory.", metavar="N", min=0, dest="max_output",
                      aliases=("--max-output",)),
                  IN, JSON)),
    Command("ws watch", "Watch the checkout; print one line per settled batch of changes.",
            "pylon ws watch --since start", "pylon.cli.ws.stream:watch",
            opts=(_SINCE,
                  Opt("--timeout", FLOAT, "Stop after S seconds (without it: until stopped).", metavar="S", min=0, max=31_536_000),
                  Opt("--debounce", FLOAT, "Quiet time before a batch is reported.", default=0.2, metavar="S", min=0,
                      dest="settle", aliases=("--settle",)),
                  IN, JSON)),
    Command("ws status", "Where you are: checkout, HEAD, baselines, watch, owned worktrees.", "pylon ws status",
            "pylon.cli.ws.core:status", opts=(IN, JSON,)),
    # -- owned worktrees -----------------------------------------------------------------------
    Command("ws new", "Create an owned worktree that starts from the current (dirty) state; print its path.",
            "pylon ws new agent-1 --copy .env", "pylon.cli.ws.worktrees:new",
            args=(Arg("id", "[ID]", "1-64 of A-Za-z0-9._- (default: generated).", OPTIONAL),),
            opts=(Opt("--from", STR, "Start from this commit instead, with no dirty state.", metavar="REV",
                      dest="from_rev"),
                  Opt("--clean", FLAG, "Start from --from (default HEAD) without the dirty state."),
                  Opt("--copy", STR, "Also copy ignored files matching GLOB (gitignore syntax); repeatable.",
                      metavar="GLOB", repeat=True),
                  Opt("--watch", FLAG, "Keep a `pylon ws watch` running in it, so `ws list` and `ws conflicts` "
                      "need not scan it; `ws rm` stops it."),
                  JSON),
            description="The worktree is on branch pylon-session-<ID> under the worktree root "
                        "($PYLON_WORKTREE_ROOT, default $XDG_DATA_HOME/pylon/worktrees/<repo>-<hash>), locked in "
                        "git with a reason naming pylon. Ignored files listed in .worktreeinclude are copied too."),
    Command("ws list", "Owned worktrees: dirty counts, commits since baseline, last change, overlaps.",
            "pylon ws list --json", "pylon.cli.ws.worktrees:list_command", opts=(JSON,)),
    Command("ws path", "Print the path of an owned worktree (for cd \"$(pylon ws path ID)\").",
            "pylon ws path agent-1", "pylon.cli.ws.worktrees:path",
            args=(Arg("id", "ID", "The owned worktree's id."),), opts=(JSON,)),
    Command("ws rm", "Remove an owned worktree (refuses uncommitted or unmerged work without --force).",
            "pylon ws rm agent-1", "pylon.cli.ws.worktrees:rm",
            args=(Arg("id", "ID", "The owned worktree's id."),),
            opts=(Opt("--force", FLAG, "Remove anyway, after a snapshot under refs/pylon/trash/."),
                  Opt("--keep-branch", FLAG, "Keep the branch pylon-session-<ID>."),
                  JSON)),
    Command("ws prune", "Clean up owned leftovers: half-made worktrees, missing folders, orphan branches.",
            "pylon ws prune --dry-run", "pylon.cli.ws.worktrees:prune",
            opts=(Opt("--dry-run", FLAG, "Say what would be removed; change nothing."), JSON)),
    Command("ws conflicts", "Would owned worktrees conflict? Three-way merges that change nothing.",
            "pylon ws conflicts agent-1 agent-2", "pylon.cli.ws.worktrees:conflicts",
            args=(Arg("ids", "[ID]...", "Owned worktrees to check (default: all).", ANY),), opts=(JSON,)),
    Command("ws apply", "Merge what an owned worktree changed since its baseline into this checkout (unstaged).",
            "pylon ws apply agent-1", "pylon.cli.ws.apply:apply",
            args=(Arg("id", "ID", "The owned worktree's id."),),
            opts=(Opt("--markers", FLAG, "On a conflict, write git-style conflict markers (`checkout` / "
                      "`session ID`) into the conflicting files and apply the rest."),
                  _DIFF3, JSON),
            description="A three-way merge (base: the session baseline) of the session's committed and "
                        "uncommitted work onto this checkout's working tree. The staged index and HEAD stay as "
                        "they were; on a conflict nothing is changed (unless --markers). `pylon ws undo` "
                        "reverses it."),
    Command("ws sync", "Merge the checkout's current state (or another session's) into a session's worktree.",
            "pylon ws sync agent-1", "pylon.cli.ws.apply:sync",
            args=(Arg("id", "ID", "The owned worktree to bring up to date."),),
            opts=(Opt("--from", STR, "Where the changes come from: checkout (default) or another session's id.",
                      metavar="SOURCE", default="checkout", dest="from_id"),
                  Opt("--markers", FLAG, "On a conflict, write git-style conflict markers (`session ID` / "
                      "`checkout`) into the session's files and sync the rest."),
                  _DIFF3, JSON),
            description="A three-way merge of the source's committed and uncommitted work into the session's "
                        "working tree; the session's own uncommitted work is kept (it is one side of the merge), "
                        "its index and HEAD are not touched. On a conflict nothing is changed (unless --markers). "
                        "`pylon ws undo` reverses it."),
    Command("ws finish", "This agent is done: apply its work here, then remove its worktree (one undoable op).",
            "pylon ws finish agent-1 --commit 'Add retries to the client'", "pylon.cli.ws.apply:finish",
            args=(Arg("id", "ID", "The owned worktree's id."),),
            opts=(Opt("--commit", STR, "Also commit the applied paths on the current branch, with this message.",
                      metavar="MSG"),
                  Opt("--keep-branch", FLAG, "Keep the branch pylon-session-<ID>."),
                  JSON),
            description="`ws apply ID` then `ws rm ID` as one op: refused with nothing changed on a conflict "
                        "(resolve with `ws apply ID --markers` or `ws sync ID` first). `pylon ws undo` brings "
                        "the worktree back and the checkout (and branch, with --commit) to where they were."),
    # -- op log: moves, undo, restore --------------------------------------------------------
    Command("ws move", "Bring an owned worktree's state into the main checkout (--back: send it back).",
            "pylon ws move agent-1", "pylon.cli.ws.ops:move",
            args=(Arg("id", "ID", "The owned worktree's id."),),
            opts=(Opt("--back", FLAG, "Send the state back to the worktree and restore the main checkout exactly."),
                  JSON),
            description="The main checkout's own state is parked in the op log (refs/pylon/ops/); HEAD is "
                        "detached at the worktree's commit while its state is there. Refused during a merge, "
                        "rebase, cherry-pick or bisect, or when a branch it would move to has moved."),
    Command("ws undo", "Reverse the newest operation's own changes (move, apply, restore, rm --force); later work is kept.",
            "pylon ws undo", "pylon.cli.ws.ops:undo",
            opts=(Opt("--list", FLAG, "Show the op log instead, newest first.", dest="show_list"),
                  Opt("--finish", FLAG, "Complete an interrupted operation instead of reversing it."),
                  Opt("--markers", FLAG, "On lines edited again since the op, write both sides with conflict "
                      "markers instead of refusing (reversible: `pylon ws redo`)."),
                  JSON),
            description="The op's change is reversed by a three-way merge onto the checkout as it is now: paths "
                        "edited since keep their edits, lines edited again are a conflict (nothing written, or "
                        "--markers). Repeated undo walks further back; `pylon ws redo` reverses an undo. The "
                        "state an undo replaces is kept in the op log (`pylon ws log`)."),
    Command("ws redo", "Reverse the newest undo (its own changes; later work is kept).",
            "pylon ws redo", "pylon.cli.ws.ops:redo",
            opts=(Opt("--markers", FLAG, "Write conflicting lines with conflict markers instead of refusing."), JSON),
            description="Walks forward over the ops undone since the last op still in effect, the most recently "
                        "undone first. A new op after an undo ends the walk; `pylon ws restore op-N:before-undo` "
                        "still reaches the state any undo replaced."),
    Command("ws restore", "Bring the checkout (or PATHs) back to a baseline, guard snapshot or op state, byte for byte.",
            "pylon ws restore op-3:before src/", "pylon.cli.ws.ops:restore",
            args=(Arg("name", "NAME", "A baseline name, guard-<n>, or op-<n>[:before|:after|:before-undo|"
                      ":before-redo] (see `pylon ws log`)."),
                  Arg("paths", "[PATH]...", "Only these paths (relative to the current folder).", ANY)),
            opts=(Opt("--dry-run", FLAG, "List what would change; change nothing."), JSON),
            description="Files, modes, symlinks, deletions and the staged index come back; ignored files are "
                        "never touched (a restore that would replace one is refused). HEAD stays. Recorded in "
                        "the op log: `pylon ws undo` reverses it."),
    Command("ws log", "Every state pylon keeps for this checkout, newest first, with the command that restores it.",
            "pylon ws log", "pylon.cli.ws.log:log",
            opts=(Opt("--limit", INT, "Show at most N entries (default 50).", default=50, metavar="N", min=1), JSON),
            description="Baselines, op log entries (their before/after and undo states), guard snapshots "
                        "(refs/pylon/guard/) and trash of `ws rm --force` (refs/pylon/trash/): age, size, the "
                        "command that made each, and the exact command that brings it back."),
    Command("ws gc", "Prune kept states older than DURATION (the newest of each kind stays without --all).",
            "pylon ws gc --older-than 30d", "pylon.cli.ws.log:gc",
            opts=(Opt("--older-than", STR, "Age: a number with s, m, h, d or w (e.g. 12h, 30d).", metavar="DURATION"),
                  Opt("--all", FLAG, "Also prune the newest entry of each kind.", dest="prune_all"),
                  Opt("--dry-run", FLAG, "List what would be pruned; change nothing."), JSON),
            description="Removes the refs only (git's own gc frees the objects later). Never prunes an op that "
                        "is interrupted, the session baselines of owned worktrees, or anything newer than "
                        "DURATION."),
    Command("serve", "A local web board of this checkout: agents, conflicts, timeline, memory (127.0.0.1 only).",
            "pylon serve --open", "pylon.cli.serve:serve", opts=_SERVE,
            description="Prints a URL with a random token; requests without it are refused. Read-only unless "
                        "--allow-actions. Ctrl-C stops it. docs/serve.md."),
    # -- guard -----------------------------------------------------------------------------------
    Command("guard check", "Classify a shell command: safe, reversible, irreversible or unknown, with reasons.",
            "pylon guard check --command 'git clean -fdx'", "pylon.cli.guard.core:check",
            args=(Arg("words", "[CMD]...", "The command as words (after --).", ANY),),
            opts=(Opt("--command", STR, "The command as one shell string (may hold several lines).", metavar="STRING"),
                  Opt("--tool-input", STR, "A Bash tool input or hook event as JSON ({\"command\": ...}).",
                      metavar="JSON"),
                  JSON),
            description="Exit 0 when safe, 1 otherwise (the verdict is in the output). Nothing is run."),
    Command("guard explain", "Print the guard policy in force and the file each setting came from.",
            "pylon guard explain", "pylon.cli.guard.core:explain", opts=(JSON,)),
    Command("hook", "Answer one hook event of an agent (JSON on stdin) for every pylon part installed.",
            "pylon hook claude-code < event.json", "pylon.cli.hook:hook",
            args=(_AGENT,),
            description="What `guard install` and `canon hook install` write, once per event: PreToolUse goes to the "
                        "guard (shell and file tools), the others to canon. Always exits 0 with one JSON answer."),
    Command("guard hook", "Answer one PreToolUse event of an agent's shell tool (JSON on stdin).",
            "pylon guard hook claude-code < event.json", "pylon.cli.guard.core:hook",
            args=(_AGENT,),
            description="safe: no output; reversible: snapshot, then a note naming `pylon ws restore guard-<n>`; "
                        "irreversible or unknown: the policy's ask/deny/allow. Always exits 0. The event: "
                        "`{\"hook_event_name\": \"PreToolUse\", \"tool_name\": \"Bash\", \"cwd\": \"/repo\", "
                        "\"tool_input\": {\"command\": \"rm -rf src\"}}`."),
    Command("guard install", "Merge the guard hook into an agent's settings file (idempotent).",
            "pylon guard install claude-code --dry-run", "pylon.cli.guard.core:install",
            args=(Arg("agent", "AGENT", "claude-code (.claude/settings.json) or codex (.codex/hooks.json).",
                      choices=AGENTS),),
            opts=_GUARD_SCOPE),
    Command("guard uninstall", "Remove the guard hook from an agent's settings file.",
            "pylon guard uninstall codex --user", "pylon.cli.guard.core:uninstall",
            args=(_AGENT,),
            opts=_GUARD_SCOPE),
)

_BY_NAME = {c.name: c for c in (*GROUPS, *COMMANDS)}


def lookup(name: str) -> Command | Group | None:
    """The command or group named by its words joined with spaces (`ws diff`), or None."""
    return _BY_NAME.get(name)


def children(prefix: str) -> list[Command | Group]:
    """The commands and groups one word below `prefix` ("" for the root), sorted by name."""
    depth = len(prefix.split()) + 1 if prefix else 1
    found = [c for c in (*GROUPS, *COMMANDS)
             if len(c.words) == depth and (not prefix or c.name.startswith(prefix + " "))]
    return sorted(found, key=lambda c: c.name)
