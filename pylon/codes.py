"""THE table of error codes: every code pylon can print, its one exit status, and what it means.

One place: docs/errors.md is generated from it (`python -m pylon.codes > docs/errors.md`), and
tests/test_error_codes.py checks that every code raised anywhere under pylon/ is in it with the
exit status the raise gives. Imported only by that test and the generator, never by a command.

A code means one fault and has one exit status everywhere, under the rule of
docs/reference/cli.md: 1 refused, not found or findings; 2 usage or configuration (the command
line or a setting is wrong). The only exceptions are EDIT_EXIT's: `pylon read` and `pylon edit`
exit 4 (the file cannot be edited) for the file faults listed there.
"""

from __future__ import annotations

TITLE = "Error codes"
INTRO = """Stable kebab-case codes. Text mode prints `error[<code>]: ...`; JSON mode puts the code in
`error.code`. Each code names one fault and exits with one status everywhere: 1 when something
is refused, not found or has findings; 2 when the command line or a setting is wrong (a
malformed value, a revision that names no commit, a path outside the checkout); the edit codes
3 (suspicious), 4 (cannot edit) and 5 (no change) of `pylon read`/`pylon edit`. The one
exception: for `pylon read` and `pylon edit`, the file faults marked "4 in edits" exit 4.

This page is generated from `pylon/codes.py` (`python -m pylon.codes > docs/errors.md`);
`tests/test_error_codes.py` checks that it is current and that every code the source raises is
in it with its exit status."""

# (heading, text under it, rows); a row is (code, exit status, when it is raised): one line per code, left
# as written by the formatter (fmt: off) and by the line-length rule (pyproject.toml), so a row reads as a row.
# fmt: off
SECTIONS: tuple[tuple[str, str, tuple[tuple[str, int, str], ...]], ...] = (
    ('## Shared',
     'Codes that mean the same fault in every part of pylon.',
     (
        ('usage', 2, 'the command line does not parse: an unknown option, a single-value option given twice, a bad or missing value, a value that looks like an option (the hint is the corrected line), a wrong number of arguments; also two ways of giving one input at once (TEXT/`--body` and `--body-file`, flags and `--ops-file`)'),
        ('bad-directory', 2, '`-C DIR` names no directory'),
        ('bad-session', 2, '`PYLON_SESSION` has characters outside `A-Za-z0-9._-`'),
        ('internal-error', 1, 'an unexpected failure; the traceback is in the named log file'),
        ('disk-full', 1, 'no space left on the device (or quota exceeded), including stdout on a full device; a file being edited keeps its old content, and whatever a canon write had begun (a new store) is removed again'),
        ('stdout-closed', 1, 'the command was started with stdout closed (`>&-`); nothing was done'),
        ('lock-timeout', 1, "another pylon process held a lock too long: the store's write lock (60 s), a file being edited (10 s, `PYLON_EDIT_LOCK_TIMEOUT`), the op log (600 s) or the owned-worktree registry (60 s; `ws new` 600 s), or `PYLON_WS_LOCK_TIMEOUT` seconds; `error.holder` is who holds it (`pid`, `command`, `since`, `op`) and the hint names the `kill` for a holder that hangs. A waiting ws command says so on stderr after 0.5 s"),
        ('file-exists', 1, '`pylon edit PATH --create`: something (a file, folder or symlink) is already at PATH; nothing was written'),
        ('not-found', 1, 'a file named on the command line does not exist: the file to read or edit, `ws cat PATH` (in the checkout, or in the baseline with `--base`), `--body-file`, `--ops-file`'),
        ('is-directory', 1, 'a folder where a file belongs: the path to read, edit or `ws cat`, a `--body-file`/`--ops-file`, or an article file (`<address>.md`) in the store'),
        ('not-regular', 1, 'a FIFO, socket or device where a file belongs (the path to read or edit, `ws cat`, `--body-file`/`--ops-file`, an article or entry file, `ws diff --output`, any file pylon would replace); nothing is renamed over it and nothing opens it for long, so nothing hangs (stdin, `-`, is read with the same bound instead)'),
        ('symlink-loop', 1, 'a path is a symbolic link that leads back to itself (or through more than 40 links)'),
        ('permission', 1, 'the file system refuses access (`EACCES`, `EPERM`, read-only file system): a file to read, an input file, or a write; for edits also a mode without any write bit (refused even for root unless `--force`), as for canon articles'),
        ('name-too-long', 2, 'a path or name is longer than the file system allows (a name over 255 bytes, a path of 4096 bytes or more): a path argument, or a canon address segment (an article\'s, 227: a write\'s temp file needs the rest); refused before anything is created'),
        ('too-large', 1, 'an input or file is over the size its reader accepts: an article over 8 MiB (what `canon read` refuses, so `canon write` and `canon journal` refuse such a body before writing; `--body-file`/stdin are read only up to that bound, `/dev/zero` included), an edit request (`--ops-file`, stdin) over 16 MiB; `schema.json`/`config.toml` over 1 MiB are reported and ignored'),
        ('too-long', 2, 'a capsule over 4,000 characters or a body or journal entry (its text and subjects) over 200,000, written by an agent (`pylon mcp`, the hooks); nothing is written (`error.limit`, `error.length`, `error.field`); a person at the command line is not bound'),
        ('unreadable', 1, 'a file cannot be read for another reason than permission (an I/O error)'),
        ('path-outside', 2, 'a path argument lies outside the checkout or project: absolute, with `..`, or through a symlink out of it (`ws cat`, `ws diff`, `ws restore` paths; canon paths outside the project and inside no mount); `error.reason` says which (`absolute`, `dotdot`, `symlink-outside`, `git-dir`; for a write through `pylon mcp` also `config`: a file that configures pylon or an agent client, and `canon-store`: a file in `.canon/`, which the canon tools write) where known'),
        ('bad-revision', 2, 'a revision argument names no commit: `--since` (neither a baseline of this checkout nor a git revision; `canon lint --since`, once `--base`), `ws new --from`, `canon mv --from-git REV`; or it shares no history with HEAD (`canon check --since`); on a shallow clone the hint names `git fetch --deepen` (`error.shallow` is true)'),
        ('not-a-git-checkout', 2, 'the current folder (or `-C DIR`) is not inside a git working tree, and the command reads git (every `ws` command, `canon check`/`mv --from-git`/`stale`/`coverage`, `canon lint --since`, `pylon sessions` and `pylon tokens` without `--all`)'),
        ('not-a-checkout', 2, 'inside a git directory or a bare repository, not a working tree'),
     )),
    ('## canon',
     'Every canon command changes no file when it fails with one of these (see [canon](reference/canon.md)).',
     (
        ('no-article', 1, '`canon read`: no article governs the address (hint: the exact `canon write` command); `canon mv OLD`: no article at exactly OLD'),
        ('unknown-mount', 1, '`name:address` names no configured or `--mount` mount'),
        ('not-a-directory', 1, 'a file sits where a store folder (`.canon/`, `articles/`, `journal/`, an address folder) belongs'),
        ('not-utf8', 1, 'an article, or a `--body-file`/stdin text, is not valid UTF-8'),
        ('front-matter-invalid', 1, '`canon write` to an article whose front matter is malformed (unclosed fence, invalid YAML, an owned key twice); `error.problems` lists them'),
        ('empty-body', 1, '`canon write` creating an article without a body; `canon journal` without text'),
        ('schema-required', 1, 'a write breaks a `required` rule of `schema.json` (creates the article or touches the field); `error.violations` lists them'),
        ('journal-full', 1, 'every `-N` name for one date and slug is taken (100,000 of them)'),
        ('symlink', 1, 'a write would go through a symbolic link inside `.canon/` (`.canon/` itself, `articles/`, `journal/`, an address folder, the article file); canon never writes through a link'),
        ('unwritable', 1, 'any other refusal of the file system while writing; nothing was written'),
        ('bad-text', 2, '`--capsule`/`--body`/journal text holds a NUL byte, or is not valid UTF-8'),
        ('bad-address', 2, '`canon write` to the empty address (the project root), inside `.canon/`, or an address holding a line break or other control character'),
        ('bad-scope', 2, '`--scope` other than `rule` or `asset`'),
        ('bad-slug', 2, '`--slug` holds no letter or digit'),
        ('bad-provenance', 2, '`--harness` (`canon journal`, `pylon mcp`) is not a client name (1-64 of `A-Za-z0-9._-`), or `canon journal --session` is empty, longer than 200 characters, or holds a line break or other control character'),
        ('bad-subject', 2, '`--subject` is the project root, or holds a line break or other control character (an entry is immutable)'),
        ('bad-query', 2, '`canon search` query has no word of two or more letters or digits'),
        ('bad-root', 2, '`--root DIR` is not a folder'),
        ('bad-mount', 2, 'a mount (config or `--mount`) is not a folder'),
        ('mount-conflict', 2, 'two mounts share one basename'),
        ('bad-config', 2, '`.canon/config.toml` is not valid TOML, or `mounts` is not a list of paths'),
     )),
    ('### canon lint',
     'Lint findings are not errors: they are printed as findings (exit 1); their rule ids are in\n[reference/canon.md](reference/canon.md#canon-lint-address). These codes mean lint could not run:',
     (
        ('no-store', 2, '`canon lint`/`check`/`mv`/`stale`/`coverage`: there is no `.canon/` at the project root (run `canon init`, or pass `--root DIR`)'),
        ('nothing-to-lint', 2, 'an ADDRESS given to `canon lint` selects no article or journal entry and no article governs it'),
     )),
    ('### agent hooks (canon hook, surface)',
     '',
     (
        ('agent-settings-invalid', 2, "`canon hook install`/`uninstall`, `guard install`/`uninstall`: the agent's settings file (`.claude/settings.json`, `.codex/hooks.json`) is not strict JSON (NaN, Infinity, a key repeated in one object) or its `hooks` are not in the documented shape (`\"hooks\": null`, a handler that is not an object); the file is left untouched"),
        ('agent-settings-read-only', 2, '`canon hook install`/`uninstall`, `guard install`/`uninstall`: the settings file (or the folder it would go in) is read-only; nothing is written'),
        ('unknown-agent', 2, 'an agent other than `claude-code` or `codex`'),
        ('bad-tool-input', 2, '`canon surface --tool-input`: the text is not JSON'),
     )),
    ('### canon check, mv, stale, coverage, lint --since (git-aware)',
     '',
     (
        ('article-exists', 1, '`canon mv`: an article already sits at NEW (or where a moved child would land); nothing was written'),
     )),
    ('### MCP server (pylon mcp)',
     'A tool call that fails answers with `isError: true`, the error document as structured content, and these codes or the command\'s own.',
     (
        ('bad-tool-call', 2, 'an MCP `tools/call` names no tool of `pylon mcp`, or its arguments do not fit the tool\'s input schema (an unknown argument, a value of the wrong JSON type, a required one missing)'),
     )),
    ('## edits',
     "`pylon read` and `pylon edit` (details in [reference/edits.md](reference/edits.md)). Request problems\n(exit 2 and 3) are all reported in one answer; in JSON each is in `error.problems` with the\noperation's `index` and `header`. When they have different codes the top-level code is\n`bad-request`.",
     (
        ('unknown-revision', 1, 'the tag was never issued for this file in this session (`PYLON_SESSION`), or was dropped (32 revisions per file are kept)'),
        ('stale-revision', 1, 'the file changed since the tag; the message lists what changed and whether each operation could be rebased; `--rebase` applies when all can'),
        ('changed-during-edit', 1, 'another program (not pylon) changed the file after the compare-and-swap read it, before the rename; nothing was written and its change is kept: read again and redo the edit'),
        ('bad-request', 2, 'several problems with different codes (listed in `problems`)'),
        ('syntax', 2, 'a header or `+` line the parser cannot read, a replace or insert without `+` lines, JSON that does not parse or has unknown fields, a NUL in new text'),
        ('line-number-prefix', 2, 'new lines start with `N:` as copied from `pylon read` output'),
        ('out-of-range', 2, 'a line outside `1..last` (`insert after` takes `0..last`); for `pylon read`, `--offset` past the last line'),
        ('overlap', 2, 'two replaced/deleted ranges overlap, an insertion is anchored on a replaced line, or `final-newline` is given twice'),
        ('same-boundary', 2, 'two insertions at the same place (`insert after 7` and `insert before 8`)'),
        ('unseen-lines', 2, 'a named line was not shown under that tag; the refusal prints up to 40 of them and marks them seen; after your own edit it also says where moved lines went'),
        ('suspicious-edit', 3, 'the first/last new line repeats the line just outside the change, or the indentation style (tabs/spaces) differs from the lines around; `--allow-echo` / `--allow-indent-mix`'),
        ('not-text', 4, 'the file has a NUL byte, is not valid UTF-8, or is not a regular file'),
        ('bad-state-dir', 2, 'the edit ledger cannot be kept under the state directory (`PYLON_STATE_DIR` names a file, or a folder that is not writable)'),
        ('no-change', 5, 'the operations leave the file byte-identical; nothing is written and the tag stays valid'),
        ('grep-timeout', 1, '`read` with `grep` through `pylon mcp`: the pattern ran over 10 s (nested repetition such as `(a+)+$` backtracks for ages) and was stopped; the server answers on'),
     )),
    ('## workspace',
     '',
     (
        ('git-missing', 2, 'the `git` program is not on PATH'),
        ('git-failed', 1, 'a git command pylon ran failed unexpectedly; its last stderr lines are quoted'),
        ('git-locked', 1, "a git lock file (`index.lock`, a ref's `.lock`) stayed in the way for 3 s: a git command is running, or one was killed; the hint is the `rm` that removes it when none is running"),
        ('capture-failed', 1, 'the working tree could not be read to capture it (unreadable file, broken filter driver)'),
        ('bad-baseline-name', 2, 'a baseline name outside 1-64 of `A-Za-z0-9._-` (or starting with `.`/`-`, `..`, `.lock`)'),
        ('unknown-baseline', 1, '`ws baseline NAME --delete` names no baseline of this checkout'),
        ('bad-out-path', 2, 'the folder of `ws diff --output FILE` does not exist'),
        ('path-refused', 1, '`ws cat`: a path inside `.git`, or the empty path (`error.reason`: `git-dir`, `empty`; `error.path`, plus `error.path_b64` when the path is not UTF-8); a path outside the checkout is `path-outside`, a folder `is-directory`, a FIFO, socket or device `not-regular`, a link loop `symlink-loop`, each with the same `error.reason`'),
        ('command-not-found', 127, '`ws run`: the command cannot be started'),
        ('bad-worktree-id', 2, '`ws new/path/rm/conflicts`: an id outside 1-64 of `A-Za-z0-9._-` (or starting with `.`/`-`, `..`, `.lock`)'),
        ('worktree-root-inside-checkout', 2, '`$PYLON_WORKTREE_ROOT` (or the default root) lies inside the checkout'),
        ('worktree-exists', 1, '`ws new ID`: an owned worktree (or a half-made one: `ws prune`) is registered under ID'),
        ('path-taken', 1, '`ws new ID`: `<root>/ID` already exists (nothing was created)'),
        ('worktree-root-not-folder', 2, '`$PYLON_WORKTREE_ROOT` (or the default root) names a file, or lies beneath one; every command that surveys owned worktrees refuses, nothing is created'),
        ('registry-unwritable', 1, "`ws new` (or an undo of `rm --force`): pylon's registry `<common dir>/pylon/owned/` cannot be made or written (a file in its place, a read-only folder); nothing was created"),
        ('registry-record-unreadable', 1, '`ws new ID`: the registry record `ID.json` exists but cannot be read (half-written, edited by hand); pylon never writes over it; the hint names the `mv` that moves it away (`ws list` counts it as foreign, `ws prune` lists it under `unresolved`)'),
        ('branch-taken', 1, '`ws new ID`: the branch `pylon-session-ID` already exists (nothing was created)'),
        ('nothing-to-start-from', 1, '`ws new` in a repository with no commit and no files'),
        ('unknown-worktree', 1, 'no owned worktree has that id (or it is gone or half-made: `ws prune`)'),
        ('foreign-worktree', 1, 'the id names a registry record that fails the ownership check (branch, path or lock changed by hand); pylon leaves it alone. Also a WorktreeRemove hook event naming a worktree pylon did not make (the hook exits 1 with the reason; the client keeps the worktree)'),
        ('cannot-keep', 1, '`ws rm ID --force`: the worktree holds what no snapshot can keep for `ws undo` (a nested repository with its own objects, a FIFO, a socket or a device; `error.paths`, `error.paths_total`); nothing was changed. A guard snapshot of a command that would destroy such a thing is not taken (the hook asks, naming them)'),
        ('worktree-has-work', 1, '`ws rm`: uncommitted paths or commits on no other branch; up to 20 paths are named (`error.paths`, `error.paths_total`, `error.commits`); `--force` snapshots and removes'),
        ('git-too-old', 2, '`ws conflicts`: git is older than 2.38 (no `git merge-tree --write-tree`)'),
        ('operation-in-progress', 1, '`ws move`/`move --back`/`restore`/`apply`: a merge, rebase, cherry-pick, revert or bisect is in progress in a checkout it would change (`error.in_progress`); the hint names the abort command'),
        ('index-unmerged', 1, '`ws move`/`restore`: the index has unresolved conflicts'),
        ('move-active', 1, "`ws move ID`: the main checkout holds another worktree's state already; `ws rm ID`: that worktree's state is in the main checkout; the hint names the `--back`"),
        ('no-active-move', 1, "`ws move ID --back`: that worktree's state is not in the main checkout"),
        ('worktree-changed', 1, '`ws move ID --back`: the worktree changed since the move (its work would be replaced); `ws undo` puts the main checkout back instead'),
        ('branch-moved', 1, '`ws move --back`/`undo`: a branch it would move back moved meanwhile (`error.branch`, `error.now`, `error.expected`); the hint keeps the new tip and names the `git branch -f`'),
        ('restore-blocked', 1, 'a restore (move, undo, `ws restore`) would replace a file the current state does not hold: an ignored file, or one made after the capture (`error.paths`, `error.paths_total`); nothing was changed'),
        ('changed-meanwhile', 1, 'a file a restore (apply, move, undo, `ws restore`) was about to replace or delete changed after the capture the op works from (`error.paths`, `error.paths_total`); nothing was written, and the op is closed (run the command again)'),
        ('other-checkout', 1, '`ws restore guard-<n>`: the snapshot was taken in another checkout (a worktree); the hint names the `pylon -C DIR ws restore` that reaches it'),
        ('unknown-snapshot', 1, '`ws restore NAME`: no baseline NAME of this checkout, no `refs/pylon/guard/<n>` for `guard-<n>`, no op n (or no state SIDE of it in this checkout) for `op-<n>[:SIDE]`; the hint names `pylon ws log`'),
        ('undo-conflicts', 1, '`ws undo`: lines the op changed were edited again since (`error.conflicts` with their regions, `error.total`; a staged entry: `where: index`); nothing was written; `--markers` writes both sides'),
        ('nothing-to-redo', 1, '`ws redo`: no undone op follows the last op in effect (a new op after an undo ends the walk)'),
        ('redo-unsupported', 1, '`ws redo` of an op not made of restores (`rm --force`): the hint names the command to run again'),
        ('bad-duration', 2, '`ws gc --older-than`: not a whole number with s, m, h, d or w'),
        ('missing-older-than', 2, '`ws gc` without `--older-than`'),
        ('op-interrupted', 1, 'a mutating command (`ws new` included) while an interrupted op waits (`error.op`, `error.kind`): `pylon ws undo` reverses it, `pylon ws undo --finish` completes it'),
        ('nothing-to-undo', 1, '`ws undo`: every op of the log is undone already (or the log is empty)'),
        ('nothing-to-finish', 1, '`ws undo --finish`: no op is interrupted'),
        ('checkout-gone', 1, '`ws undo`: a checkout the op changed no longer exists (a worktree removed outside pylon)'),
        ('apply-conflicts', 1, "`ws apply`: the session's changes conflict with the checkout; `error.conflicts` lists each path with its context; nothing was changed (the hint: `ws apply ID --markers` writes them as conflict markers)"),
        ('sync-conflicts', 1, "`ws sync`: the incoming changes conflict with the session's; `error.conflicts` as for apply; nothing was changed (the hint: `ws sync ID --markers`)"),
        ('sync-from-itself', 2, '`ws sync ID --from ID`: a session cannot be synced from itself'),
        ('apply-would-overwrite', 1, '`ws apply`: the result would replace ignored files (`error.paths`, `error.total`); nothing was changed'),
        ('apply-into-itself', 1, '`ws apply ID` run inside worktree ID itself'),
        ('nothing-to-commit', 1, '`ws finish ID --commit MSG`: the applies of the session (since its last finish) brought nothing that differs from HEAD; nothing is committed, the worktree is kept'),
        ('commit-hook-refused', 1, "`ws finish ID --commit MSG`: the repository's pre-commit, prepare-commit-msg or commit-msg hook exited non-zero (`error.hook`, `error.exit`, `error.output`), as it would refuse `git commit`; nothing is committed, the worktree is kept, the apply stays (`ws undo`); `--no-verify` skips pre-commit and commit-msg"),
        ('empty-commit-message', 2, '`ws finish ID --commit MSG`: the message is empty once the message hooks ran (git aborts such a commit too)'),
        ('apply-sparse-checkout', 1, '`ws apply` into a sparse checkout (files outside the cone are not on disk); nothing was changed'),
     )),
    ('## guard',
     '',
     (
        ('guard-no-command', 2, '`guard check`: none, or more than one, of `--command`, `--tool-input`, `-- CMD...`'),
        ('guard-bad-tool-input', 2, '`guard check --tool-input`: not JSON, or no string `command` in it'),
        ('guard-policy-invalid', 2, "`.pylon/guard.toml` or the user's `guard.toml` is not valid TOML or not in the documented shape (the hook then falls back to the defaults and says so)"),
        ('guard-snapshot-too-large', 1, "the hook's snapshot would exceed `[snapshot] max_bytes` (default 200 MiB); not taken, the policy's `over_limit` answers (`error.bytes`, `error.max_bytes`)"),
     )),
    ('## board (`pylon serve`)',
     ('The board answers refused requests over HTTP with codes of their own (403 `bad-token`, `bad-host`, '
      '`bad-origin`, `bad-csrf`, `actions-off`; 405 `bad-method`; 413 `bad-action`; '
      'docs/explanation/serve.md); those below end the command or an action.'),
     (
        ('serve-running', 1, '`pylon serve`: a board already runs for this checkout; the message names its address and pid, the hint a new login link to it (`error.url`)'),
        ('port-taken', 1, '`pylon serve --port N`: nothing can listen on 127.0.0.1:N (in use, or not allowed)'),
        ('bad-action', 1, "a board action that is not one of apply, sync, undo, restore, rm, lacks its `id`/`name`, or is not one JSON object of at most 64 KiB"),
     )),
    ('## agent sessions (`pylon sessions`, `pylon tokens`)',
     '',
     (
        ('unknown-session', 1, '`pylon tokens SESSION`: no session of Claude Code or Codex has that id or an id starting with it; without SESSION: none ran in this repository'),
        ('ambiguous-session', 1, '`pylon tokens SESSION`: several sessions\' ids start with SESSION (`error.matches` lists them); give more of the id'),
        ('bad-prices', 2, 'the price table override (`$PYLON_PRICES`, else `$XDG_CONFIG_HOME/pylon/prices.toml`) cannot be read, is not TOML, or an entry is not in the documented shape (docs/reference/serve.md)'),
     )),
)
# fmt: on

# The file faults for which `pylon read` and `pylon edit` exit 4 (the file cannot be edited).
EDIT_EXIT = 4
CANNOT_EDIT = frozenset(
    {"file-exists", "not-found", "is-directory", "permission", "symlink-loop", "lock-timeout", "not-regular"}
)


def table() -> dict[str, tuple[int, str]]:
    """code -> (exit status, meaning)."""
    return {code: (status, when) for _, _, rows in SECTIONS for code, status, when in rows}


def markdown() -> str:
    """docs/errors.md."""
    out = [f"# {TITLE}", "", INTRO, ""]
    for heading, text, rows in SECTIONS:
        out += [heading, ""]
        if text:
            out += [text, ""]
        if rows:
            out += ["| code | exit | when |", "|---|---|---|"]
            for code, status, when in rows:
                shown = f"{status} ({EDIT_EXIT} in edits)" if code in CANNOT_EDIT else str(status)
                out.append(f"| `{code}` | {shown} | {when} |")
            out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    import sys

    sys.stdout.write(markdown())
