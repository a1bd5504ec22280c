"""Handlers of `pylon sessions [statusline]` and `pylon tokens`: pylon.sessions reads, these render."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from pylon.sessions.collect import Session
    from pylon.sessions.where import Places

    class SessionsArgs(Protocol):
        view: str | None
        watch: bool
        timeout: float | None
        all: bool
        json: bool

    class TokensArgs(Protocol):
        session: str | None
        all: bool
        json: bool


STATUSLINE_INPUT = 1024 * 1024  # Claude Code's status line JSON is a few kilobytes


def _places(everywhere: bool) -> Places | None:
    """This repository's worktrees, or None for `--all` (outside a checkout: None too, with --all)."""
    from pylon.errors import PylonError, UsageError
    from pylon.sessions import codex, where

    try:
        return where.places(os.getcwd(), codex.home())
    except PylonError as exc:
        if everywhere:
            return None  # outside a checkout, --all still lists everything
        if exc.code in ("not-a-git-checkout", "not-a-checkout"):
            raise UsageError(
                exc.code, exc.message, "cd into the repository, or add --all for every session in the clients' folders."
            ) from None
        raise


def sessions(args: SessionsArgs) -> int:
    from pylon.errors import UsageError

    if args.view == "statusline":
        if args.watch or args.all:
            raise UsageError(
                "usage",
                "`pylon sessions statusline` takes no --watch or --all: Claude Code runs it "
                "with its status JSON on stdin.",
                "pylon sessions statusline < status.json",
            )
        return statusline()
    if args.timeout is not None and not args.watch:
        raise UsageError("usage", "--timeout applies to --watch only.", "pylon sessions --watch --timeout 60")
    from pylon.cli import output
    from pylon.cli import sessions_render as render

    places = _places(args.all)
    if args.watch:
        from pylon.sessions.watch import watch

        return render.stream(watch(None if args.all else places, timeout=args.timeout), args.json)
    from pylon.sessions.collect import collect, document

    found = collect(places, within=not args.all)
    doc = document(found, places)
    if args.json:
        output.ok_json(doc)
    else:
        output.write(render.table(doc))
    return 0


def statusline() -> int:
    """Claude Code's status line: one line, always exit 0 (a failing command blanks the line)."""
    from pylon.cli import output
    from pylon.sessions.statusline import line, worktree_name

    event: Any = {}
    try:
        if not sys.stdin.isatty():
            from pylon.agents.jsonio import loads
            from pylon.inputs import read_stdin

            data = read_stdin(STATUSLINE_INPUT, what="status line JSON", hint="")
            event = loads(data) if data.strip() else {}
        text = line(event if isinstance(event, dict) else {})
    except Exception:  # a status line never fails: the worktree at least
        text = worktree_name(os.getcwd())
    output.out(text)
    return 0


def tokens(args: TokensArgs) -> int:
    from pylon.cli import output
    from pylon.cli import sessions_render as render
    from pylon.sessions.collect import collect
    from pylon.sessions.meter import meter

    places = _places(args.all or bool(args.session))
    found = collect(places, within=not (args.all or args.session))
    session = _pick(found, args.session, places)
    doc = meter(session)
    if args.json:
        output.ok_json(doc)
    else:
        output.write(render.tokens(doc))
    return 0


def _pick(found: list[Session], wanted: str | None, places: Places | None) -> Session:
    from pylon.errors import NotFoundError

    if not wanted:
        if found:
            return found[0]
        where = places.main_root if places is not None else "the clients' folders"
        raise NotFoundError(
            "unknown-session", f"No Claude Code or Codex session ran in {where}.", "pylon sessions --all"
        )
    exact = [s for s in found if s.id == wanted]
    matches = exact or [s for s in found if s.id.startswith(wanted)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise NotFoundError("unknown-session", f"No session's id is or starts with {wanted!r}.", "pylon sessions --all")
    shown = ", ".join(s.id for s in matches[:5]) + (" ..." if len(matches) > 5 else "")
    raise NotFoundError(
        "ambiguous-session",
        f"{len(matches)} sessions' ids start with {wanted!r}: {shown}.",
        f"pylon tokens {matches[0].id}",
        details={"matches": [s.id for s in matches]},
    )
