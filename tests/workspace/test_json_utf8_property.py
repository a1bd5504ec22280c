"""Every ws JSON document (successes and refusals) decodes as strict UTF-8, whatever bytes a path
holds, and a path's exact bytes come back from its `_b64` companion (a property over random names).

The walk: two owned worktrees add the same random byte name with different content (a conflict
that names it), the checkout adds another; then conflicts, list, apply, changes, status, move and
its undo, the refusal of `rm` (its details list the path), `rm --force`, undo, prune. Three
random name pairs by default (each walk is 14 commands); `PYLON_JSON_EXAMPLES` asks for more.
"""

from __future__ import annotations

import base64
import itertools
import json
import os
import subprocess
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.conftest import MakeRepo, sized, start_cmd
from tests.workspace.wt_helpers import new

COUNTER = itertools.count()

names = st.binary(min_size=1, max_size=10).filter(
    lambda b: (
        b"/" not in b
        and b"\0" not in b
        and b not in (b".", b"..")
        and not b.startswith(b".git")
        and not b.endswith(b".log")
        and b != b"build"
        and b"\n" not in b
    )
)


def run(cwd: Path, *args: str) -> dict:
    proc = start_cmd("pylon", *args, "--json", cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = proc.communicate(timeout=120)
    text = out.decode("utf-8", "strict")  # the property: raises on any byte that is not UTF-8
    doc = json.loads(text)
    assert isinstance(doc, dict) and "ok" in doc, (args, text, err)
    assert doc["ok"] or doc["error"]["code"] != "internal-error", (args, doc)
    return doc


def byte_paths(doc: object) -> set[bytes]:
    """Every path the document holds, as bytes: `X_b64` where present, else UTF-8 `X`."""
    found: set[bytes] = set()
    if isinstance(doc, dict):
        for key, value in doc.items():
            if key.endswith("_b64") and isinstance(value, str):
                found.add(base64.b64decode(value))
            elif key.endswith("_b64") and isinstance(value, list):
                found |= {base64.b64decode(v) for v in value if isinstance(v, str)}
            elif isinstance(value, str) and f"{key}_b64" not in doc:
                found.add(value.encode())
            elif isinstance(value, list) and f"{key}_b64" not in doc:
                found |= {v.encode() for v in value if isinstance(v, str)}
            found |= byte_paths(value) if isinstance(value, (dict, list)) else set()
    elif isinstance(doc, list):
        for item in doc:
            found |= byte_paths(item) if isinstance(item, (dict, list)) else set()
    return found


@settings(
    max_examples=int(os.environ.get("PYLON_JSON_EXAMPLES") or sized(1, 5)),  # and the two examples below
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(ours=names, mine=names)
@example(ours=b"caf\xe9 \xff.txt", mine=b"\xfe.txt")  # not UTF-8 both: every run takes the lossless form
@example(ours=b"\x80\r", mine=b"\x01")  # git's line input drops a CR before the newline (found by hypothesis)
def test_ws_documents_are_strict_utf8_for_any_path_bytes(make_repo: MakeRepo, ours: bytes, mine: bytes) -> None:
    if ours == mine:
        mine += b"-2"
    repo = make_repo(files={"seed.txt": "seed\n"}, name=f"repo-{next(COUNTER)}")
    a, b = (Path(str(new(repo, wid)["path"])) for wid in ("a", "b"))
    for root, text in ((a, b"from a\n"), (b, b"from b\n")):
        with open(os.path.join(os.fsencode(root), ours), "wb") as fh:
            fh.write(text)
    with open(os.path.join(os.fsencode(repo), mine), "wb") as fh:
        fh.write(b"the person's\n")

    conflicts = run(repo, "ws", "conflicts")
    assert ours in byte_paths(conflicts["pairs"])  # a <-> b both added it
    run(repo, "ws", "list")
    applied = run(repo, "ws", "apply", "a")
    assert ours in byte_paths(applied["files"])
    assert mine in byte_paths(run(repo, "ws", "changes")["files"])
    run(repo, "ws", "status")
    run(repo, "ws", "undo")
    run(repo, "ws", "undo", "--list")
    refused = run(repo, "ws", "rm", "b")
    assert refused["error"]["code"] == "worktree-has-work" and ours in byte_paths(refused["error"])
    run(repo, "ws", "rm", "b", "--force")
    run(repo, "ws", "undo")
    run(repo, "ws", "move", "b")
    run(repo, "ws", "move", "b", "--back")
    run(repo, "ws", "prune")
