"""Level of detail for the article graph: folders the page has not opened collapse into one node.

An article is shown as itself when its parent folder is open (the top always is); otherwise it
counts towards the folder node just below the deepest open folder above it. Links between the
shown units are summed; a unit's marks (problems, dead links) add up. So a 20,000-article store is
drawn as its top folders first, and the page opens a folder by asking again with it in `open`.
"""

from __future__ import annotations

from pylon.canon.views.graph import Graph


def _unit(address: str, opened: set[str]) -> str:
    """The node that shows `address`: itself, or `folder/` (a folder node ends with `/`)."""
    mount, colon, path = address.rpartition(":") if ":" in address else ("", "", address)
    prefix = mount + colon
    parts = path.split("/")
    depth = 0  # how many leading segments are open folders
    while depth < len(parts) - 1 and prefix + "/".join(parts[: depth + 1]) in opened:
        depth += 1
    if depth == len(parts) - 1:
        return address
    return prefix + "/".join(parts[: depth + 1]) + "/"


def fold(graph: Graph, opened: list[str], limit: int = 300) -> dict[str, object]:
    """The graph with unopened folders collapsed; at most `limit` nodes (the largest units first)."""
    open_set = {f.rstrip("/") for f in opened}
    units: dict[str, dict[str, object]] = {}
    counted: dict[str, list[int]] = {}  # unit -> [articles, problems, dead], kept apart so they stay ints
    of: dict[str, str] = {}
    for node in graph.nodes:
        name = of[node.address] = _unit(node.address, open_set)
        unit = units.get(name)
        if unit is None:
            unit = units[name] = {
                "id": name,
                "folder": name.endswith("/"),
                "capsule": None,
                "asset": None,
                "asset_kind": None,
            }
            counted[name] = [0, 0, 0]
        counted[name][0] += 1
        counted[name][1] += node.problem is not None
        if not unit["folder"]:
            unit.update(capsule=node.capsule, asset=node.asset, asset_kind=node.asset_kind, scope=node.scope)
    for item in graph.dead:
        counted[of[str(item["source"])]][2] += 1
    for name, (articles, problems, dead) in counted.items():
        units[name].update(articles=articles, problems=problems, dead=dead)
    links: dict[tuple[str, str], int] = {}
    for edge in graph.edges:
        key = (of[edge.source], of[edge.target])
        if key[0] != key[1]:
            links[key] = links.get(key, 0) + 1
    order = sorted(units, key=lambda name: (-counted[name][0], name))
    cut = order[limit:]
    names = set(order[:limit])
    return {
        "open": sorted(open_set),
        "nodes": [units[name] for name in sorted(names)],
        "edges": [
            {"source": a, "target": b, "links": n} for (a, b), n in sorted(links.items()) if a in names and b in names
        ],
        "hidden": {"units": len(cut), "articles": sum(counted[name][0] for name in cut)},
        "counts": {"articles": len(graph.nodes), "links": len(graph.edges), "dead": len(graph.dead)},
    }
