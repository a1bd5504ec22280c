"""The registry's `pylon ws ...` declarations (workspace, owned worktrees, the op log), as plain data.

Part of THE command registry (pylon/cli/commands.py assembles it): each command is declared here
once; the handlers are named as "module:function" and imported only when their command runs.
"""

from __future__ import annotations

from pylon.cli.options import _DIFF3, _SINCE, IN, JSON
from pylon.cli.spec import ANY, FLAG, FLOAT, INT, MANY, OPTIONAL, REST, STR, Arg, Command, Opt

COMMANDS = (
    # -- workspace -----------------------------------------------------------------------------
    Command(
        "ws baseline",
        "Capture the checkout state (HEAD, index, working tree) as a named baseline.",
        "pylon ws baseline start",
        "pylon.cli.ws.core:baseline",
        args=(Arg("name", "[NAME]", "Baseline name, 1-64 of A-Za-z0-9._- (default: last).", OPTIONAL, "last"),),
        opts=(Opt("--delete", FLAG, "Delete the named baseline."), IN, JSON),
    ),
    Command(
        "ws changes",
        "Paths changed since a baseline: status, lines added and removed (bounded).",
        "pylon ws changes --since start",
        "pylon.cli.ws.core:changes",
        opts=(_SINCE, Opt("--limit", INT, "Most entries to list.", default=200, metavar="N", min=1), IN, JSON),
    ),
    Command(
        "ws diff",
        "Unified diff (git's format) against a baseline, bounded; --output FILE writes all of it.",
        "pylon ws diff --since start -- src/app.py",
        "pylon.cli.ws.stream:diff",
        args=(Arg("paths", "[PATH]...", "Literal paths (no globs).", ANY),),
        opts=(
            _SINCE,
            Opt("--max-files", INT, "Most files to show.", default=200, metavar="N", min=0),
            Opt("--max-lines", INT, "Most diff lines to show.", default=2000, metavar="N", min=0),
            Opt("--max-bytes", INT, "Most bytes to show.", default=65536, metavar="N", min=0),
            Opt("--output", STR, "Write the complete diff to FILE.", metavar="FILE", dest="out", aliases=("--out",)),
            IN,
            JSON,
        ),
    ),
    Command(
        "ws cat",
        "Confined read of one file of the checkout (or of its baseline with --base).",
        "pylon ws cat src/app.py --base --since start",
        "pylon.cli.ws.stream:cat",
        args=(Arg("path", "PATH", "A file of the checkout, relative to the current folder."),),
        opts=(
            Opt("--base", FLAG, "Print the baseline's version instead."),
            _SINCE,
            Opt("--max-bytes", INT, "Read at most N bytes.", default=1048576, metavar="N", min=1),
            IN,
            JSON,
        ),
    ),
    Command(
        "ws fingerprint",
        "A short stable fingerprint of the checkout state.",
        "pylon ws fingerprint",
        "pylon.cli.ws.core:fingerprint",
        opts=(
            IN,
            JSON,
        ),
    ),
    Command(
        "ws run",
        "Run a command and report exactly which files it changed; exits with its status.",
        "pylon ws run -- make generate",
        "pylon.cli.ws.stream:run",
        args=(Arg("command", "COMMAND...", "The command (after --); a single word runs through sh -c.", REST),),
        opts=(
            Opt("--limit", INT, "Most paths to list.", default=200, metavar="N", min=1),
            Opt(
                "--max-bytes",
                INT,
                "Show only the head and tail of the command's output within N bytes; "
                "all of it goes to a file under the state directory.",
                metavar="N",
                min=0,
                dest="max_output",
                aliases=("--max-output",),
            ),
            IN,
            JSON,
        ),
    ),
    Command(
        "ws watch",
        "Watch the checkout; print one line per settled batch of changes.",
        "pylon ws watch --since start",
        "pylon.cli.ws.stream:watch",
        opts=(
            _SINCE,
            Opt(
                "--timeout",
                FLOAT,
                "Stop after S seconds (without it: until stopped).",
                metavar="S",
                min=0,
                max=31_536_000,
            ),
            Opt(
                "--debounce",
                FLOAT,
                "Quiet time before a batch is reported.",
                default=0.2,
                metavar="S",
                min=0,
                dest="settle",
                aliases=("--settle",),
            ),
            IN,
            JSON,
        ),
    ),
    Command(
        "ws status",
        "Where you are: checkout, HEAD, baselines, watch, owned worktrees.",
        "pylon ws status",
        "pylon.cli.ws.core:status",
        opts=(
            IN,
            JSON,
        ),
    ),
    # -- owned worktrees -----------------------------------------------------------------------
    Command(
        "ws new",
        "Create an owned worktree that starts from the current (dirty) state; print its path.",
        "pylon ws new agent-1 --copy .env",
        "pylon.cli.ws.worktrees:new",
        args=(Arg("id", "[ID]", "1-64 of A-Za-z0-9._- (default: generated).", OPTIONAL),),
        opts=(
            Opt("--from", STR, "Start from this commit instead, with no dirty state.", metavar="REV", dest="from_rev"),
            Opt("--clean", FLAG, "Start from --from (default HEAD) without the dirty state."),
            Opt(
                "--copy",
                STR,
                "Also copy ignored files matching GLOB (gitignore syntax); repeatable.",
                metavar="GLOB",
                repeat=True,
            ),
            Opt(
                "--watch",
                FLAG,
                "Keep a `pylon ws watch` running in it, so `ws list` and `ws conflicts` "
                "need not scan it; `ws rm` stops it.",
            ),
            JSON,
        ),
        description="The worktree is on branch pylon-session-<ID> under the worktree root "
        "($PYLON_WORKTREE_ROOT, default $XDG_DATA_HOME/pylon/worktrees/<repo>-<hash>), locked in "
        "git with a reason naming pylon. Ignored files listed in .worktreeinclude are copied too.",
    ),
    Command(
        "ws list",
        "Owned worktrees: dirty counts, commits since baseline, last change, overlaps.",
        "pylon ws list --json",
        "pylon.cli.ws.worktrees:list_command",
        opts=(JSON,),
    ),
    Command(
        "ws path",
        'Print the path of an owned worktree (for cd "$(pylon ws path ID)").',
        "pylon ws path agent-1",
        "pylon.cli.ws.worktrees:path",
        args=(Arg("id", "ID", "The owned worktree's id."),),
        opts=(JSON,),
    ),
    Command(
        "ws rm",
        "Remove an owned worktree (refuses uncommitted or unmerged work without --force).",
        "pylon ws rm agent-1",
        "pylon.cli.ws.worktrees:rm",
        args=(Arg("id", "ID", "The owned worktree's id."),),
        opts=(
            Opt("--force", FLAG, "Remove anyway, after a snapshot under refs/pylon/trash/."),
            Opt("--keep-branch", FLAG, "Keep the branch pylon-session-<ID>."),
            JSON,
        ),
    ),
    Command(
        "ws prune",
        "Clean up owned leftovers: half-made worktrees, missing folders, orphan branches.",
        "pylon ws prune --dry-run",
        "pylon.cli.ws.worktrees:prune",
        opts=(Opt("--dry-run", FLAG, "Say what would be removed; change nothing."), JSON),
    ),
    Command(
        "ws conflicts",
        "Would owned worktrees conflict? Three-way merges that change nothing.",
        "pylon ws conflicts agent-1 agent-2",
        "pylon.cli.ws.worktrees:conflicts",
        args=(Arg("ids", "[ID]...", "Owned worktrees to check (default: all).", ANY),),
        opts=(JSON,),
    ),
    Command(
        "ws check",
        "Check files against every other live worktree's changes: what the write-time hook tells agents.",
        "pylon ws check src/app.py --json",
        "pylon.cli.ws.worktrees:check",
        args=(Arg("paths", "PATH...", "Files of this checkout, relative to the current folder.", MANY),),
        opts=(JSON,),
        description="For each other live worktree (the main checkout, owned sessions, the clients' own and "
        "plain git worktrees) that changed a PATH since the base the two share: who, which lines, "
        "and whether this checkout's version merges with theirs (`git merge-file`). Exit 1 when one "
        "would conflict.",
    ),
    Command(
        "ws apply",
        "Merge what an owned worktree changed since its baseline into this checkout (unstaged).",
        "pylon ws apply agent-1",
        "pylon.cli.ws.apply:apply",
        args=(Arg("id", "ID", "The owned worktree's id."),),
        opts=(
            Opt(
                "--markers",
                FLAG,
                "On a conflict, write git-style conflict markers (`checkout` / "
                "`session ID`) into the conflicting files and apply the rest.",
            ),
            _DIFF3,
            JSON,
        ),
        description="A three-way merge (base: the session baseline) of the session's committed and "
        "uncommitted work onto this checkout's working tree. The staged index and HEAD stay as "
        "they were; on a conflict nothing is changed (unless --markers). `pylon ws undo` "
        "reverses it.",
    ),
    Command(
        "ws sync",
        "Merge the checkout's current state (or another session's) into a session's worktree.",
        "pylon ws sync agent-1",
        "pylon.cli.ws.apply:sync",
        args=(Arg("id", "ID", "The owned worktree to bring up to date."),),
        opts=(
            Opt(
                "--from",
                STR,
                "Where the changes come from: checkout (default) or another session's id.",
                metavar="SOURCE",
                default="checkout",
                dest="from_id",
            ),
            Opt(
                "--markers",
                FLAG,
                "On a conflict, write git-style conflict markers (`session ID` / "
                "`checkout`) into the session's files and sync the rest.",
            ),
            _DIFF3,
            JSON,
        ),
        description="A three-way merge of the source's committed and uncommitted work into the session's "
        "working tree; the session's own uncommitted work is kept (it is one side of the merge), "
        "its index and HEAD are not touched. On a conflict nothing is changed (unless --markers). "
        "`pylon ws undo` reverses it.",
    ),
    Command(
        "ws finish",
        "This agent is done: apply its work here, then remove its worktree (one undoable op).",
        "pylon ws finish agent-1 --commit 'Add retries to the client'",
        "pylon.cli.ws.apply:finish",
        args=(Arg("id", "ID", "The owned worktree's id."),),
        opts=(
            Opt(
                "--commit",
                STR,
                "Also commit what the session's applies brought in, on the current branch, "
                "through the repository's git hooks, with this message.",
                metavar="MSG",
            ),
            Opt(
                "--no-verify",
                FLAG,
                "With --commit: skip the pre-commit and commit-msg hooks (as git commit --no-verify).",
            ),
            Opt("--keep-branch", FLAG, "Keep the branch pylon-session-<ID>."),
            JSON,
        ),
        description="`ws apply ID` then `ws rm ID` as one op: refused with nothing changed on a conflict "
        "(resolve with `ws apply ID --markers` or `ws sync ID` first). `pylon ws undo` brings "
        "the worktree back and the checkout to where it was. With a message to commit, it commits "
        "like `git commit` (hooks included) after an apply op of its own; a refused or empty commit "
        "keeps the worktree.",
    ),
    # -- op log: moves, undo, restore --------------------------------------------------------
    Command(
        "ws move",
        "Bring an owned worktree's state into the main checkout (--back: send it back).",
        "pylon ws move agent-1",
        "pylon.cli.ws.ops:move",
        args=(Arg("id", "ID", "The owned worktree's id."),),
        opts=(Opt("--back", FLAG, "Send the state back to the worktree and restore the main checkout exactly."), JSON),
        description="The main checkout's own state is parked in the op log (refs/pylon/ops/); HEAD is "
        "detached at the worktree's commit while its state is there. Refused during a merge, "
        "rebase, cherry-pick or bisect, or when a branch it would move to has moved.",
    ),
    Command(
        "ws undo",
        "Reverse the newest operation's own changes (move, apply, restore, rm --force); later work is kept.",
        "pylon ws undo",
        "pylon.cli.ws.ops:undo",
        opts=(
            Opt("--list", FLAG, "Show the op log instead, newest first.", dest="show_list"),
            Opt("--finish", FLAG, "Complete an interrupted operation instead of reversing it."),
            Opt(
                "--markers",
                FLAG,
                "On lines edited again since the op, write both sides with conflict "
                "markers instead of refusing (reversible: `pylon ws redo`).",
            ),
            JSON,
        ),
        description="The op's change is reversed by a three-way merge onto the checkout as it is now: paths "
        "edited since keep their edits, lines edited again are a conflict (nothing written, or "
        "--markers). Repeated undo walks further back; `pylon ws redo` reverses an undo. The "
        "state an undo replaces is kept in the op log (`pylon ws log`).",
    ),
    Command(
        "ws redo",
        "Reverse the newest undo (its own changes; later work is kept).",
        "pylon ws redo",
        "pylon.cli.ws.ops:redo",
        opts=(Opt("--markers", FLAG, "Write conflicting lines with conflict markers instead of refusing."), JSON),
        description="Walks forward over the ops undone since the last op still in effect, the most recently "
        "undone first. A new op after an undo ends the walk; `pylon ws restore op-N:before-undo` "
        "still reaches the state any undo replaced.",
    ),
    Command(
        "ws restore",
        "Bring the checkout (or PATHs) back to a baseline, guard snapshot or op state, byte for byte.",
        "pylon ws restore op-4:before src/",
        "pylon.cli.ws.ops:restore",
        args=(
            Arg(
                "name",
                "NAME",
                "A baseline name, guard-<n>, or op-<n>[:before|:after|:before-undo|:before-redo] (see `pylon ws log`).",
            ),
            Arg("paths", "[PATH]...", "Only these paths (relative to the current folder).", ANY),
        ),
        opts=(Opt("--dry-run", FLAG, "List what would change; change nothing."), JSON),
        description="Files, modes, symlinks, deletions and the staged index come back; ignored files are "
        "never touched (a restore that would replace one is refused). HEAD stays. Recorded in "
        "the op log: `pylon ws undo` reverses it.",
    ),
    Command(
        "ws log",
        "Every state pylon keeps for this checkout, newest first, with the command that restores it.",
        "pylon ws log",
        "pylon.cli.ws.log:log",
        opts=(Opt("--limit", INT, "Show at most N entries (default 50).", default=50, metavar="N", min=1), JSON),
        description="Baselines, op log entries (their before/after and undo states; this checkout's shell ops "
        "from pylon's store), this checkout's guard snapshots and trash of `ws rm --force` "
        "(refs/pylon/trash/): age, size, the command that made each, and the exact command that "
        "brings it back. What changed since the last kept state is recorded first.",
    ),
    Command(
        "ws gc",
        "Prune kept states older than DURATION (the newest of each kind stays without --all).",
        "pylon ws gc --older-than 30d",
        "pylon.cli.ws.log:gc",
        opts=(
            Opt("--older-than", STR, "Age: a number with s, m, h, d or w (e.g. 12h, 30d).", metavar="DURATION"),
            Opt("--all", FLAG, "Also prune the newest entry of each kind.", dest="prune_all"),
            Opt("--dry-run", FLAG, "List what would be pruned; change nothing."),
            JSON,
        ),
        description="Removes the refs only (git's own gc frees the objects later). Never prunes an op that "
        "is interrupted, the session baselines of owned worktrees, or anything newer than "
        "DURATION.",
    ),
)
