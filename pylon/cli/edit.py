"""Handlers of `pylon read` and `pylon edit`: call pylon.workspace.edits, render text or JSON."""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.workspace.edits.ops import Op
    from pylon.workspace.edits.reading import ReadResult

    class ReadArgs(Protocol):
        path: str
        offset: int
        limit: int | None
        grep: str | None
        context: int | None
        json: bool

    class EditArgs(Protocol):
        target: str
        tag: str | None
        ops_file: str | None
        replace: list[tuple[str, str]]
        delete: list[str]
        insert_after: list[tuple[str, str]]
        insert_before: list[tuple[str, str]]
        rebase: bool
        dry_run: bool
        show: bool
        allow_echo: bool
        allow_indent_mix: bool
        force: bool
        create: bool
        json: bool


def read(args: ReadArgs) -> int:
    from pylon.cli import edit_render

    res: ReadResult
    if args.grep is not None:
        from pylon.workspace.edits.grep import grep

        res = grep(
            args.path, args.grep, 0 if args.context is None else args.context, args.offset, args.limit, defer_seen=True
        )
        render = edit_render.render_grep
    else:
        if args.context is not None:
            from pylon.errors import UsageError

            raise UsageError(
                "usage",
                "--context only applies with --grep.",
                f"pylon read {edit_render.quote(args.path)} --grep PATTERN --context {args.context}",
            )
        from pylon.workspace.edits.reading import read as read_window

        res = read_window(args.path, args.offset, args.limit, defer_seen=True)
        render = edit_render.render_read
    if args.json:
        from pylon.cli.output import ok_json

        ok_json(res.to_json())
    else:
        sys.stdout.write(render(res))
    # Seen only once printed: a failed write (a full device, a closed pipe) raises above, and
    # lines nobody saw must not be editable.
    sys.stdout.flush()
    res.mark_seen()
    return 0


# The largest edit request read (--ops-file or stdin): more than any file worth editing by line numbers.
REQUEST_MAX = 16 * 1024 * 1024


def _request(ops_file: str | None) -> bytes:
    from pylon.errors import UsageError
    from pylon.inputs import read_input

    hint = (
        "Pass a regular file of edit operations (at most 16 MiB), or - for stdin: pylon edit PATH#TAG --ops-file FILE"
    )
    if ops_file is None and (sys.stdin is None or sys.stdin.isatty()):
        raise UsageError(
            "usage",
            "No operations given: pipe them on stdin, or use --ops-file or a one-line flag.",
            "printf 'replace 3\\n+new text\\n' | pylon edit PATH#TAG",
        )
    return read_input(ops_file or "-", REQUEST_MAX, option="--ops-file", what="edit request", hint=hint)


def edit(args: EditArgs) -> int:
    from pylon.cli.output import ok_json, warn
    from pylon.workspace.edits.editing import edit as apply_request
    from pylon.workspace.edits.editing import split_target

    if args.create:
        return _create(args)
    path, norm = split_target(args.target, args.tag)
    request = _ops(args)
    res = apply_request(
        path,
        norm,
        request,
        rebase=args.rebase,
        dry_run=args.dry_run,
        show=args.show,
        allow_echo=args.allow_echo,
        allow_indent_mix=args.allow_indent_mix,
        force=args.force,
    )
    for w in res.warnings:
        warn(w)
    if args.json:
        ok_json(res.to_json())
    else:
        from pylon.cli.edit_render import render_edit
        from pylon.cli.output import write

        write(render_edit(res))  # flushed: the --show lines count as seen only once printed
    res.mark_seen()
    return 0


def _create(args: EditArgs) -> int:
    from pylon.cli.output import ok_json, write
    from pylon.errors import UsageError
    from pylon.workspace.edits.create import check_target, create

    path = check_target(args.target, args.tag)
    for flag, used in (
        ("--rebase", args.rebase),
        ("--dry-run", args.dry_run),
        ("--show", args.show),
        ("--force", args.force),
    ):
        if used:
            raise UsageError(
                "usage",
                f"{flag} does not apply with --create (the file is new).",
                f"pylon edit {path} --create --insert-after 0 'first line'",
            )
    res = create(path, _ops(args))
    if args.json:
        ok_json(res.to_json())
    else:
        made = f" (made folder{'s' if len(res.folders) > 1 else ''} {', '.join(res.folders)})" if res.folders else ""
        write(f"Created {path} with {res.nlines} line(s){made}. New revision: [{path}#{res.tag}].\n")
    return 0


def _ops(args: EditArgs) -> bytes | list[Op]:
    from pylon.errors import Exit, UsageError

    if args.replace or args.delete or args.insert_after or args.insert_before:
        if args.ops_file is not None:
            raise UsageError("usage", "Use either one-line flags or --ops-file, not both.", "pylon edit --help")
        from pylon.workspace.edits.ops import from_flags
        from pylon.workspace.edits.problems import request_error

        request, problems = from_flags(args.replace, args.delete, args.insert_after, args.insert_before)
        if problems:
            err = request_error(problems, "Fix the flag and run the command again.")
            err.exit_code = Exit.USAGE
            raise err
        return request
    return _request(args.ops_file)
