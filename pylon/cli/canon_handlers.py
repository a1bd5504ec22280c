"""What each `canon` command does once its arguments are parsed: call pylon.canon, render.

Shared by the typer app (pylon/cli/canon_cmds.py) and the typer-free front door
(pylon/cli/canon_fast.py), so both paths behave identically. Library modules are imported inside
each handler: a command pays only for what it uses.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings anyway
if TYPE_CHECKING:
    from pylon.canon.store import Project


def project_from(root: str | None, mounts: list[str] | None) -> Project:
    """The project as seen from the current directory, with --root/--mount applied."""
    from pylon.canon.store import open_project

    return open_project(root=root, mounts=list(mounts or []))


def do_init(json_: bool, root: str | None, mounts: list[str] | None) -> None:
    from pylon.canon.init import init
    from pylon.cli import canon_render as render

    render.init(init(project_from(root, mounts)), json_)


def do_read(address: str, json_: bool, root: str | None, mounts: list[str] | None) -> None:
    from pylon.canon.article import read_article, standing_notes
    from pylon.cli import canon_render as render

    project = project_from(root, mounts)
    view = read_article(project, address)
    view.notes.extend(standing_notes(project, view))
    render.read(view, address, json_)


def do_write(
    address: str,
    capsule: str | None,
    body: str | None,
    body_file: str | None,
    scope: str | None,
    json_: bool,
    root: str | None,
    mounts: list[str] | None,
) -> None:
    from pylon.canon.article import write_article
    from pylon.cli import canon_render as render

    text = render.text_input(body, body_file, "--body")
    project = project_from(root, mounts)
    result = write_article(project, address, capsule=capsule, body=text, scope=scope)
    render.write(project, result, json_)


def do_journal(
    text: str | None,
    body_file: str | None,
    subjects: list[str] | None,
    slug: str | None,
    json_: bool,
    root: str | None,
    mounts: list[str] | None,
) -> None:
    from pylon.canon.journal import journal
    from pylon.cli import canon_render as render

    body = render.text_input(text, body_file, "TEXT")
    project = project_from(root, mounts)
    render.journal(journal(project, body or "", list(subjects or []), slug), json_)


def do_map(prefix: str | None, json_: bool, root: str | None, mounts: list[str] | None) -> None:
    from pylon.canon.catalog import iter_catalog
    from pylon.cli import canon_render as render

    render.catalog(iter_catalog(project_from(root, mounts), prefix), json_)


def do_search(
    query: list[str], journal: bool, limit: int, json_: bool, root: str | None, mounts: list[str] | None
) -> None:
    from pylon.canon.search import search
    from pylon.cli import canon_render as render

    result = search(project_from(root, mounts), " ".join(query), journal=journal, limit=limit)
    render.search(result, json_)


def do_resolve(paths: list[str], explain: bool, json_: bool, root: str | None, mounts: list[str] | None) -> None:
    from pylon.canon.address import resolve, to_address
    from pylon.cli import canon_render as render

    project = project_from(root, mounts)
    rows = [(path, resolve(to_address(path, project), project)) for path in paths]
    render.resolutions(rows, explain, json_)


def do_status(json_: bool, root: str | None, mounts: list[str] | None) -> None:
    from pylon.canon.status import status
    from pylon.cli import canon_render as render

    render.status(status(project_from(root, mounts)), json_)
