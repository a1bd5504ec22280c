"""Handler of `canon graph`: the article graph (pylon.canon.views.graph) as JSON, Mermaid or DOT."""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs start-up time; annotations are strings
if TYPE_CHECKING:
    from typing import Protocol

    from pylon.cli.canon.core import StoreArgs

    class GraphArgs(StoreArgs, Protocol):
        address: str | None
        format: str


def graph(args: GraphArgs) -> int:
    from pylon.canon.views import graph as articles
    from pylon.cli import output
    from pylon.cli.canon.git import _project

    found = articles.build(_project(args), args.address)
    fmt = "json" if args.json else args.format
    if fmt == "json":
        output.ok_json_safe(found.to_doc())
    else:
        output.write(articles.mermaid(found) if fmt == "mermaid" else articles.dot(found))
    return 0
