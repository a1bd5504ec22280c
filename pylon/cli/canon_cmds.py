"""`canon` / `pylon canon`: project memory commands. Parse, call pylon.canon, render, exit.

Each command is its own one-command typer app, listed in LAZY: the `canon` group builds (and
imports) only the command that runs, because building all of them costs more start-up time than
any one command's work. The work itself is in pylon/cli/canon_handlers.py, shared with the
typer-free front door (canon_fast.py).
"""

from __future__ import annotations

from typing import Annotated, Any

import typer

from pylon.cli import canon_handlers as h
from pylon.cli.canon_opts import MountOpt, RootOpt
from pylon.cli.common import APP_SETTINGS, JsonOpt, global_options, lazy_group

_HERE = "pylon.cli.canon_cmds"
LAZY = {
    "init": (_HERE, "init_app", "Create the store (.canon/ with schema.json and .gitignore); idempotent."),
    "read": (_HERE, "read_app", "Print the article governing an address, with its newest journal entries."),
    "write": (_HERE, "write_app", "Create or update an article (blank fields are left untouched)."),
    "journal": (_HERE, "journal_app", "Append an immutable entry to the journal."),
    "map": (_HERE, "map_app", "List <address>: <capsule> for every article."),
    "search": (_HERE, "search_app", "Ranked full-text search over articles (and the journal)."),
    "resolve": (_HERE, "resolve_app", "Print the governing article of each path (--explain: every address tried)."),
    "status": (_HERE, "status_app", "Store path, mounts, counts, and this session's surfacing spend."),
    "lint": (_HERE, "lint_app", "Lint the store (exit 0 clean, 1 findings, 2 could not lint)."),
}

app = typer.Typer(
    name="canon",
    help="canon: project memory. One article per asset under .canon/articles/, an append-only journal, lint.",
    callback=global_options,
    cls=lazy_group(LAZY),
    **APP_SETTINGS,
)


def build_canon_app() -> typer.Typer:
    return app


def _one(name: str, fn: Any) -> typer.Typer:
    """A typer app holding the single command `name` (typer then builds a command, not a group)."""
    single = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    single.command(name, context_settings={"help_option_names": ["-h", "--help"]})(fn)
    return single


BodyFileOpt = Annotated[
    str | None, typer.Option("--body-file", metavar="FILE", help="Read the text from FILE (- for stdin).")
]
AddressArg = Annotated[str, typer.Argument(metavar="ADDRESS", help="An asset path or an address (lake:prices for a mount).")]


def init_cmd(json_: JsonOpt = False, root: RootOpt = None, mount: MountOpt = None) -> None:
    """Create the store (.canon/ with schema.json and .gitignore); idempotent."""
    h.do_init(json_, root, mount)


def read_cmd(address: AddressArg, json_: JsonOpt = False, root: RootOpt = None, mount: MountOpt = None) -> None:
    """Print the article governing ADDRESS (the nearest existing ancestor) and its newest journal entries."""
    h.do_read(address, json_, root, mount)


def write_cmd(
    address: AddressArg,
    capsule: Annotated[str | None, typer.Option("--capsule", help="One dense line; empty leaves it as it was.")] = None,
    body: Annotated[str | None, typer.Option("--body", help="The whole new body; empty leaves it as it was.")] = None,
    body_file: BodyFileOpt = None,
    scope: Annotated[str | None, typer.Option("--scope", help="rule (a cross-cutting rule) or asset (clears it).")] = None,
    json_: JsonOpt = False,
    root: RootOpt = None,
    mount: MountOpt = None,
) -> None:
    """Create or update an article. Blank fields are left untouched; a no-op write changes nothing."""
    h.do_write(address, capsule, body, body_file, scope, json_, root, mount)


def journal_cmd(
    text: Annotated[str | None, typer.Argument(metavar="[TEXT]", help="What happened: names, exact numbers, who said what.")] = None,
    body_file: BodyFileOpt = None,
    subject: Annotated[
        list[str] | None, typer.Option("--subject", metavar="ADDRESS", help="An article this entry is about; repeatable.")
    ] = None,
    slug: Annotated[str | None, typer.Option("--slug", help="File name slug (default: entry).")] = None,
    json_: JsonOpt = False,
    root: RootOpt = None,
    mount: MountOpt = None,
) -> None:
    """Append an immutable entry to the journal (journal/<UTC date>-<slug>[-N].md)."""
    h.do_journal(text, body_file, subject, slug, json_, root, mount)


def map_cmd(
    prefix: Annotated[str | None, typer.Argument(metavar="[PREFIX]", help="Only articles at or under this address or path.")] = None,
    json_: JsonOpt = False,
    root: RootOpt = None,
    mount: MountOpt = None,
) -> None:
    """List `<address>: <capsule>` for every article (project store, then mounts)."""
    h.do_map(prefix, json_, root, mount)


def search_cmd(
    query: Annotated[list[str], typer.Argument(metavar="QUERY...", help="Words to look for (ranked by BM25).")],
    journal: Annotated[bool, typer.Option("--journal", help="Search journal entries too.")] = False,
    limit: Annotated[int, typer.Option("--limit", metavar="N", help="Show at most N results.")] = 10,
    json_: JsonOpt = False,
    root: RootOpt = None,
    mount: MountOpt = None,
) -> None:
    """Ranked full-text search over address, capsule and body (journal entries with --journal)."""
    h.do_search(query, journal, limit, json_, root, mount)


def resolve_cmd(
    paths: Annotated[list[str], typer.Argument(metavar="PATH...", help="Asset paths or addresses.")],
    explain: Annotated[bool, typer.Option("--explain", help="Also list every address tried.")] = False,
    json_: JsonOpt = False,
    root: RootOpt = None,
    mount: MountOpt = None,
) -> None:
    """Print `<path><TAB><governing address or ->` for each path."""
    h.do_resolve(paths, explain, json_, root, mount)


def status_cmd(json_: JsonOpt = False, root: RootOpt = None, mount: MountOpt = None) -> None:
    """Store path, mounts, article and journal counts, and this session's surfacing spend."""
    h.do_status(json_, root, mount)


init_app = _one("init", init_cmd)
read_app = _one("read", read_cmd)
write_app = _one("write", write_cmd)
journal_app = _one("journal", journal_cmd)
map_app = _one("map", map_cmd)
search_app = _one("search", search_cmd)
resolve_app = _one("resolve", resolve_cmd)
status_app = _one("status", status_cmd)

# `canon lint` lives in its own module (formats, fixes); registered here (lazily, like the rest)
# so both entry points have it.
from pylon.cli.canon_lint_cmd import lint_cmd  # noqa: E402

lint_app = _one("lint", lint_cmd)
