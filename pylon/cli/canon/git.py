"""Handlers of the git-aware canon commands: `check`, `mv`, `stale`, `coverage` (pylon.canon.git)."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.canon.store import Project
    from pylon.cli.canon.core import StoreArgs

    class CheckArgs(StoreArgs, Protocol):
        staged: bool
        since: str | None
        warn_only: bool
        format: str

    class MvArgs(StoreArgs, Protocol):
        addresses: list[str]
        from_git: bool
        dry_run: bool

    class StaleArgs(StoreArgs, Protocol):
        days: int
        limit: int

    class CoverageArgs(StoreArgs, Protocol):
        limit: int


def _project(args: StoreArgs) -> Project:
    from pylon.cli.canon.core import project_from
    from pylon.errors import UsageError

    project = project_from(args)
    if not project.store.exists():
        raise UsageError(
            "no-store",
            f"No .canon/ store at {project.root}, so no article governs anything.",
            "Run `canon init` to create one, or pass --root DIR.",
        )
    return project


def check(args: CheckArgs) -> int:
    """Judge the change set; exit 1 on findings unless --warn-only."""
    from pylon.canon.git.check import check as run_check
    from pylon.cli.canon import git_render as render
    from pylon.errors import UsageError

    if args.staged and args.since is not None:
        raise UsageError(
            "usage",
            "--staged and --since judge different change sets; give one of them.",
            "canon check --staged   (pre-commit) or   canon check --since origin/main   (CI)",
        )
    report = run_check(_project(args), staged=args.staged, since=args.since)
    render.check(report, "json" if args.json else args.format, args.warn_only)
    return 1 if report.failed and not args.warn_only else 0


def mv(args: MvArgs) -> int:
    from pylon.canon.git import mv as moves
    from pylon.cli.canon import git_render as render
    from pylon.errors import UsageError

    project = _project(args)
    words = list(args.addresses)
    if args.from_git:
        if len(words) > 1:
            raise UsageError(
                "usage",
                "canon mv --from-git takes at most one revision (REV), not OLD NEW.",
                "canon mv --from-git [REV]",
            )
        plans = moves.plan_from_git(project, words[0] if words else None)
    else:
        if len(words) != 2:
            raise UsageError(
                "usage",
                f"canon mv needs OLD and NEW (got {len(words)} address"
                f"{'es' * (len(words) != 1)}), or --from-git [REV].",
                "canon mv src/old src/new",
            )
        plans = [moves.plan_move(project, words[0], words[1])]
    results = [moves.apply(project, plan, dry_run=args.dry_run) for plan in plans]
    render.mv(results, args.dry_run, args.json, args.from_git)
    return 0


def stale(args: StaleArgs) -> int:
    from pylon.canon.git.history import stale as run_stale
    from pylon.cli.canon import git_render as render

    report = run_stale(_project(args), days=args.days)
    render.stale(report, args.limit, args.json, sys.stdout.isatty())
    return 0


def coverage(args: CoverageArgs) -> int:
    from pylon.canon.git.history import coverage as run_coverage
    from pylon.cli.canon import git_render as render

    report = run_coverage(_project(args))
    render.coverage(report, args.limit, args.json, sys.stdout.isatty(), os.getcwd())
    return 0
