"""`pylon read` and `pylon edit`: typer declarations (help, usage errors); the work is in edit_handlers.

Plain command lines skip this module: the front door (fastpath.py with edit_fast.py) calls the
same handlers without importing typer.
"""

from typing import Annotated, Any

import typer

from pylon.cli.common import APP_SETTINGS, JsonOpt
from pylon.cli.edit_handlers import do_edit, do_read

read_app = typer.Typer(**APP_SETTINGS)
edit_app = typer.Typer(**APP_SETTINGS)
# A repeatable two-value option, one (LINES, TEXT) tuple per occurrence. typer 0.28 refuses
# list[tuple[str, str]], so the annotation says `list[tuple]` and the click type is given the way
# click documents for multi-value options, `type=(str, str)` (arity 2).
Pairs = list[tuple]
PAIR_TYPE: Any = (str, str)


@read_app.command("read")
def read_cmd(
    path: Annotated[str, typer.Argument(help="File to read (relative to the current folder).", show_default=False)],
    offset: Annotated[int, typer.Option("--offset", metavar="N", help="First line to show (1-based).")] = 1,
    limit: Annotated[int | None, typer.Option("--limit", metavar="N", help="Lines to show (at most 2000).")] = None,
    grep: Annotated[str | None, typer.Option("--grep", metavar="PATTERN", help="Show only the lines matching "
                                             "this Python regular expression (with --offset: from line N on).")] = None,
    context: Annotated[int | None, typer.Option("--context", metavar="N", help="With --grep: N lines before and "
                                                "after each match (0-50, default 0).")] = None,
    json_: JsonOpt = False,
) -> None:
    """Print PATH with absolute line numbers and a revision tag (at most 2000 lines / 50 KiB).

    Every line printed is recorded as seen for that tag; `pylon edit PATH#TAG` may then change it.
    """
    do_read(path, offset, limit, json_, grep, context)


@edit_app.command("edit")
def edit_cmd(
    target: Annotated[str, typer.Argument(metavar="PATH#TAG", help="File and the tag printed by `pylon read`.",
                                          show_default=False)],
    tag: Annotated[str | None, typer.Option("--tag", metavar="TAG", help="The tag, when PATH is given alone.")] = None,
    ops_file: Annotated[str | None, typer.Option("--ops-file", metavar="FILE",
                                                 help="Read operations from FILE (- for stdin).")] = None,
    replace: Annotated[Pairs | None, typer.Option(
        "--replace", click_type=PAIR_TYPE, metavar="A[-B] TEXT",
        help="Replace lines A-B with the one line TEXT (repeatable).")] = None,
    delete: Annotated[list[str] | None, typer.Option(
        "--delete", metavar="A[-B]", help="Delete lines A-B (repeatable).")] = None,
    insert_after: Annotated[Pairs | None, typer.Option(
        "--insert-after", click_type=PAIR_TYPE, metavar="N TEXT",
        help="Insert the one line TEXT after line N (0: at the top; repeatable).")] = None,
    insert_before: Annotated[Pairs | None, typer.Option(
        "--insert-before", click_type=PAIR_TYPE, metavar="N TEXT",
        help="Insert the one line TEXT before line N (repeatable).")] = None,
    rebase: Annotated[bool, typer.Option("--rebase", help="If the file changed, apply where the untouched "
                                         "target lines are now.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Validate and print the diff; write nothing.")] = False,
    show: Annotated[bool, typer.Option("--show", help="Print the changed regions with their new numbers "
                                       "(they count as seen).")] = False,
    allow_echo: Annotated[bool, typer.Option("--allow-echo", help="Allow new text that repeats the line just "
                                             "outside its range.")] = False,
    allow_indent_mix: Annotated[bool, typer.Option("--allow-indent-mix", help="Allow tab/space indentation "
                                                   "unlike the lines around.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Apply whole-line operations to PATH#TAG (text or JSON form on stdin, or one-line flags).

    Text form: `replace A-B`, `delete A-B`, `insert after N`, `insert before N`, `final-newline yes|no`,
    each followed by its new lines prefixed with `+`. Numbers refer to the tagged revision; repeated
    one-line flags make one request too.
    Exit: 0 applied, 1 unknown/stale tag, 2 bad request, 3 suspicious, 4 cannot edit, 5 no change.
    """
    do_edit(target, tag, ops_file, replace, delete, insert_after, insert_before, rebase, dry_run, show,
            allow_echo, allow_indent_mix, json_)
