"""`canon graph`: the store as a graph. Articles are nodes, `[[links]]` between them are edges
(resolved exactly as lint resolves them, pylon.canon.links), and each article is tethered to the
asset its address names on disk (a file less one extension, or a folder), when one exists.

The same data feeds `canon graph --format json|mermaid|dot` and the memory view of `pylon serve`.
With an ADDRESS the graph is that article's neighbourhood: the articles at or under it, and every
article one link away from them in either direction (marked `focus: false`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from pylon.canon.address import Address, drop_extension, mapped_names, to_address
from pylon.canon.store import Project, Store, walk_articles

FORMATS = ("json", "mermaid", "dot")


@dataclass(slots=True)
class Node:
    address: str  # `path` or `mount:path`
    capsule: str | None
    asset: str | None  # the governed file or folder, relative to the store's root; None when absent
    asset_kind: str | None  # "file" or "folder"
    focus: bool = True
    problem: str | None = None  # unreadable, not UTF-8, broken front matter
    scope: str | None = None


@dataclass(slots=True)
class Edge:
    source: str
    target: str
    line: int  # of the first link from source to target


@dataclass
class Graph:
    nodes: list[Node]
    edges: list[Edge]
    dead: list[dict[str, object]] = field(default_factory=list)  # links naming no article
    address: str | None = None  # the neighbourhood asked for

    def to_doc(self) -> dict[str, object]:
        return {
            "address": self.address,
            "nodes": [
                {
                    "address": n.address,
                    "capsule": n.capsule,
                    "asset": n.asset,
                    "asset_kind": n.asset_kind,
                    "focus": n.focus,
                    "scope": n.scope,
                    "problem": n.problem,
                }
                for n in self.nodes
            ],
            "edges": [{"source": e.source, "target": e.target, "line": e.line} for e in self.edges],
            "dead": self.dead,
            "counts": {"nodes": len(self.nodes), "edges": len(self.edges), "dead": len(self.dead)},
        }


def _stores(project: Project) -> list[Store]:
    return [project.store, *(project.mounts[name] for name in sorted(project.mounts))]


def _tether(store: Store, path: str, listings: dict[str, frozenset[str] | None]) -> tuple[str | None, str | None]:
    """The asset an article's address names in its store's tree: (relative path, kind) or (None, None)."""
    head, _, last = path.rpartition("/")
    folder = os.path.join(store.root_dir, head) if head else store.root_dir
    if folder not in listings:
        listings[folder] = mapped_names(folder)
    names = listings[folder]
    if names is None or last not in names:
        return None, None
    prefix = head + "/" if head else ""
    full = os.path.join(folder, last)
    if os.path.isdir(full):
        return prefix + last, "folder"
    if os.path.lexists(full):
        return prefix + last, "file"
    for name in sorted(os.listdir(folder)):
        if drop_extension(name) == last and not os.path.isdir(os.path.join(folder, name)):
            return prefix + name, "file"
    return None, None


def build(project: Project, address: str | None = None) -> Graph:
    """The whole store's graph, or the neighbourhood of `address` (an address or an asset path)."""
    from pylon.canon.frontmatter import parse
    from pylon.canon.links import check_links, extract_links
    from pylon.canon.safeio import read_regular
    from pylon.errors import PylonError

    stores = _stores(project)
    files = {store.mount: [a for a in walk_articles(store) if a.is_article] for store in stores}
    known: dict[str | None, set[str]] = {mount: {a.address for a in found} for mount, found in files.items()}
    nodes: dict[str, Node] = {}
    edges: dict[tuple[str, str], Edge] = {}
    dead: list[dict[str, object]] = []
    listings: dict[str, frozenset[str] | None] = {}
    for store in stores:
        for article in files[store.mount]:
            name = str(Address(store.mount, article.address))
            asset, kind = _tether(store, article.address, listings)
            node = nodes[name] = Node(
                name, None, asset if store.mount is None or asset is None else f"{store.mount}:{asset}", kind
            )
            try:
                text = read_regular(article.path, what="article").decode("utf-8")
            except (OSError, PylonError, UnicodeDecodeError) as exc:
                node.problem = "not valid UTF-8" if isinstance(exc, UnicodeDecodeError) else "cannot be read"
                continue
            doc = parse(text)
            node.capsule = doc.owned.get("capsule") or None
            node.scope = doc.owned.get("scope") or None
            if doc.problems:
                node.problem = f"front matter line {doc.problems[0].line}: {doc.problems[0].message}"
            for check in check_links(extract_links(doc.body, doc.body_line), store.mount, known):
                if not check.exists or check.address is None:
                    dead.append(
                        {
                            "source": name,
                            "target": check.link.target.strip(),
                            "line": check.link.line,
                            "reason": check.reason,
                        }
                    )
                    continue
                target = str(check.address)
                if target != name and (name, target) not in edges:
                    edges[(name, target)] = Edge(name, target, check.link.line)
    graph = Graph(list(nodes.values()), list(edges.values()), dead)
    return graph if address is None else neighbourhood(graph, project, address)


def neighbourhood(graph: Graph, project: Project, address: str) -> Graph:
    """The articles at or under `address`, and those one link away from them (focus False); `graph`
    is left as it was (the board keeps it for the next question)."""
    from pylon.canon.address import resolve

    where = to_address(address, project)
    found = resolve(where, project).governing
    centre = found if found is not None and found.path != "" else where
    prefix = str(centre)

    def inside(name: str) -> bool:
        return name == prefix or name.startswith(prefix + "/")

    focus = {n.address for n in graph.nodes if inside(n.address)}
    near = {e.target for e in graph.edges if e.source in focus} | {e.source for e in graph.edges if e.target in focus}
    from dataclasses import replace

    kept = [replace(n, focus=n.address in focus) for n in graph.nodes if n.address in focus or n.address in near]
    names = {n.address for n in kept}
    edges = [
        e for e in graph.edges if e.source in names and e.target in names and (e.source in focus or e.target in focus)
    ]
    dead = [d for d in graph.dead if d["source"] in focus]
    return Graph(kept, edges, dead, prefix)


def _quoted(text: str, quote: str) -> str:
    """Text inside a double-quoted label: the quote and backslashes escaped, one line."""
    text = " ".join(text.split())
    if quote == "dot":
        return text.replace("\\", "\\\\").replace('"', '\\"')
    return text.replace('"', "#quot;")  # Mermaid's entity for a quote inside a quoted label


def mermaid(graph: Graph) -> str:
    """A Mermaid flowchart: articles as rounded nodes, assets as plain boxes behind dotted tethers."""
    ids = {n.address: f"a{i}" for i, n in enumerate(graph.nodes)}
    lines = ["flowchart LR"]
    for node in graph.nodes:
        lines.append(f'  {ids[node.address]}("{_quoted(node.address, "mermaid")}")')
        if node.asset:
            lines.append(f'  {ids[node.address]}_asset["{_quoted(node.asset, "mermaid")}"]')
            lines.append(f"  {ids[node.address]} -.-> {ids[node.address]}_asset")
    lines += [f"  {ids[e.source]} --> {ids[e.target]}" for e in graph.edges]
    lines += [f"  class {ids[n.address]} neighbour" for n in graph.nodes if not n.focus]
    return "\n".join(lines) + "\n"


def dot(graph: Graph) -> str:
    """Graphviz DOT: articles as ellipses, assets as boxes joined by dashed tethers."""
    lines = ["digraph canon {", "  rankdir=LR;", "  node [shape=ellipse];"]
    for node in graph.nodes:
        name = _quoted(node.address, "dot")
        style = "" if node.focus else " [style=dashed]"
        lines.append(f'  "{name}"{style};')
        if node.asset:
            asset = _quoted("asset:" + node.asset, "dot")
            lines.append(f'  "{asset}" [shape=box, label="{_quoted(node.asset, "dot")}"];')
            lines.append(f'  "{name}" -> "{asset}" [style=dashed, arrowhead=none];')
    lines += [f'  "{_quoted(e.source, "dot")}" -> "{_quoted(e.target, "dot")}";' for e in graph.edges]
    return "\n".join(lines) + "\n}\n"
