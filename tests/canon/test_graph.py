"""`canon graph`: articles as nodes, [[links]] as edges, each article tied to the asset it governs.

The pi-canon store is the fixture pi-canon 0.1.2 wrote itself; its own answers (`list`, `resolve`,
recorded in pi-canon.json by the real pi-canon) are the oracle for the nodes and the links' targets.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article
from tests.conftest import Run

FIXTURE = Path(__file__).parent / "fixtures" / "pi-canon-0.1.2"


def _pi_canon() -> tuple[list[str], dict[str, str | None]]:
    answers = json.loads((FIXTURE / "pi-canon.json").read_text(encoding="utf-8"))["answers"]
    listed = next(a["list"] for a in answers if a["step"].get("api") == "list")
    resolved = {
        a["step"]["path"]: (a.get("article") or {}).get("path") for a in answers if a["step"].get("api") == "resolve"
    }
    return listed, resolved


def test_the_graph_of_a_store_pi_canon_wrote_agrees_with_pi_canon(tmp_path: Path, run: Run) -> None:
    root = tmp_path / "p"
    shutil.copytree(FIXTURE / "project", root)
    result = run("canon", "graph", "--json", cwd=root)
    assert result.code == 0, result.err
    doc = json.loads(result.out)
    listed, resolved = _pi_canon()
    assert sorted(n["address"] for n in doc["nodes"]) == sorted(listed)
    # docs/guide links [[src/core/config.ts]], [[src/my.pkg/mod.py]], [[README]]: each edge goes where
    # pi-canon's own resolve sends that path; the one pi-canon resolves to nothing is a dead link.
    targets = ["src/core/config.ts", "src/my.pkg/mod.py", "README"]
    edges = {e["target"] for e in doc["edges"] if e["source"] == "docs/guide"}
    assert edges == {resolved[t] for t in targets if resolved[t]}
    assert [d["target"] for d in doc["dead"] if d["source"] == "docs/guide"] == [
        t for t in targets if resolved[t] is None
    ]
    nodes = {n["address"]: n for n in doc["nodes"]}
    assert nodes["src/core/config"]["asset"] == "src/core/config.ts"
    assert nodes["src/core"]["asset"] == "src/core" and nodes["src/core"]["asset_kind"] == "folder"
    assert nodes["rules/no-network"]["asset"] is None  # a rule: nothing on disk has its address
    assert nodes["docs/guide"]["capsule"] == "- item"


def test_links_in_code_are_no_edges_and_the_formats_carry_the_same_graph(
    make_store: MakeStore, project: Path, run: Run
) -> None:
    make_store(
        articles={
            "src": article("The sources.", body="See [[src/app]] and [[docs]].\n\n```\n[[src/cli]]\n```\n"),
            "src/app": article("The app.", body='Back to [[src]]; `[[nowhere]]` is code. Quote: "x".\n'),
            "src/cli": article("The CLI."),
            "docs": article("Docs.", body="[[missing]]\n"),
        },
        files={"src/app.py": "x\n", "src/cli.py": "y\n"},
    )
    doc = json.loads(run("canon", "graph", "--format", "json", cwd=project).out)
    assert sorted((e["source"], e["target"]) for e in doc["edges"]) == [
        ("src", "docs"),
        ("src", "src/app"),
        ("src/app", "src"),
    ]
    assert [(d["source"], d["target"]) for d in doc["dead"]] == [("docs", "missing")]
    mermaid = run("canon", "graph", cwd=project).out
    assert mermaid.startswith("flowchart LR\n")
    assert mermaid.count(" --> ") == 3 and mermaid.count(" -.-> ") == 3  # src, src/app, src/cli have assets
    dot = run("canon", "graph", "--format", "dot", cwd=project).out
    assert dot.startswith("digraph canon {") and dot.rstrip().endswith("}")
    assert '"src" -> "src/app";' in dot and '"src/app" -> "asset:src/app.py" [style=dashed, arrowhead=none];' in dot


def test_an_address_limits_the_graph_to_its_neighbourhood(make_store: MakeStore, project: Path, run: Run) -> None:
    make_store(
        articles={
            "a": article("A.", body="[[b/one]]\n"),
            "b": article("B."),
            "b/one": article("One.", body="[[c]]\n"),
            "c": article("C.", body="[[d]]\n"),
            "d": article("D."),
        }
    )
    doc = json.loads(run("canon", "graph", "b", "--json", cwd=project).out)
    assert doc["address"] == "b"
    focus = {n["address"]: n["focus"] for n in doc["nodes"]}
    assert focus == {"b": True, "b/one": True, "a": False, "c": False}  # d is two links away
    assert sorted((e["source"], e["target"]) for e in doc["edges"]) == [("a", "b/one"), ("b/one", "c")]


def test_no_store_is_a_clear_error(project: Path, run: Run) -> None:
    result = run("canon", "graph", cwd=project)
    assert result.code == 2 and "error[no-store]" in result.err
