"""Handlers of the `canon` commands (= `pylon canon ...`): call pylon.canon, render, exit status.

Library modules are imported inside each handler: a command pays only for what it uses.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.canon.store import Project

    class StoreArgs(Protocol):  # what every canon command takes
        json: bool
        root: str | None
        mount: list[str]

    class AddressArgs(StoreArgs, Protocol):
        address: str

    class WriteArgs(AddressArgs, Protocol):
        capsule: str | None
        body: str | None
        body_file: str | None
        scope: str | None

    class JournalArgs(StoreArgs, Protocol):
        text: str | None
        body_file: str | None
        subject: list[str]
        slug: str | None
        harness: str | None
        session: str | None

    class MapArgs(StoreArgs, Protocol):
        prefix: str | None

    class SearchArgs(StoreArgs, Protocol):
        query: list[str]
        journal: bool
        limit: int

    class ResolveArgs(StoreArgs, Protocol):
        paths: list[str]
        explain: bool


def project_from(args: StoreArgs) -> Project:
    """The project as seen from the current directory, with --root/--mount applied."""
    from pylon.canon.store import open_project

    return open_project(root=args.root, mounts=list(args.mount))


def init(args: StoreArgs) -> int:
    from pylon.canon.init import init as make_store
    from pylon.cli.canon import render

    render.init(make_store(project_from(args)), args.json)
    return 0


def read(args: AddressArgs) -> int:
    from pylon.canon.article import read_article
    from pylon.canon.lint.remarks import standing_notes
    from pylon.cli.canon import render

    project = project_from(args)
    view = read_article(project, args.address)
    view.notes.extend(standing_notes(project, view))
    render.read(view, args.address, args.json)
    _session_mark(project, "read", str(view.address))
    return 0


def _session_mark(project: Project, verb: str, address: str) -> None:
    """With PYLON_SESSION set, `read` marks the article seen and `write` marks it updated for
    surfacing (docs/explanation/agents.md). Nothing is imported or touched without a session."""
    import os

    if not os.environ.get("PYLON_SESSION"):
        return
    from pylon.canon.agent import session

    (session.mark_seen if verb == "read" else session.mark_written)(project, address)


def write(args: WriteArgs) -> int:
    from pylon.canon.article_write import write_article
    from pylon.canon.lint.remarks import after_write
    from pylon.cli.canon import render

    text = render.text_input(args.body, args.body_file, "--body")
    project = project_from(args)
    result = write_article(project, args.address, capsule=args.capsule, body=text, scope=args.scope)
    _session_mark(project, "write", str(result.address))
    if args.json:
        render.write(result, after_write(project, result) if result.changed else [], True)
        return 0
    render.write(result, None, False)
    if result.changed:
        sys.stdout.flush()  # the write is reported before its advice (which runs lint) is computed
        render.write_advice(after_write(project, result))
    return 0


def journal(args: JournalArgs) -> int:
    from pylon.canon.journal import journal as log_entry
    from pylon.canon.text import check_provenance
    from pylon.cli.canon import render

    provenance = check_provenance(args.harness, args.session)
    body = render.text_input(args.text, args.body_file, "TEXT")
    project = project_from(args)
    render.journal(log_entry(project, body or "", list(args.subject), args.slug, provenance), args.json)
    return 0


def catalog(args: MapArgs) -> int:
    from pylon import boundary
    from pylon.canon.views.catalog import iter_catalog
    from pylon.cli.canon import render

    # an agent's map (a confined entry point) is bounded; a person's lists everything
    render.catalog(
        iter_catalog(project_from(args), args.prefix), args.json, args.prefix, bounded=boundary.current() is not None
    )
    return 0


def search(args: SearchArgs) -> int:
    from pylon import boundary
    from pylon.canon.views.search import search as run_search
    from pylon.cli.canon import render

    result = run_search(project_from(args), " ".join(args.query), journal=args.journal, limit=args.limit)
    render.search(result, args.json, bounded=boundary.current() is not None)  # an agent's answer is bounded
    return 0


def resolve(args: ResolveArgs) -> int:
    from pylon.canon.address import resolve as governing
    from pylon.canon.address import to_address
    from pylon.cli.canon import render

    project = project_from(args)
    rows = [(path, governing(to_address(path, project), project)) for path in args.paths]
    render.resolutions(rows, args.explain, args.json)
    return 0


def status(args: StoreArgs) -> int:
    from pylon.canon.views.status import status as store_status
    from pylon.cli.canon import render

    render.status(store_status(project_from(args)), args.json)
    return 0
