"""Differential: after `canon mv`, every link resolves, by the real pi-canon's own rule, to where the
same link resolved before, moved along (pi-canon 0.3.0's CanonStore.read and normalize, run with tsx).

Needs the pi-canon oracle (../shared/oracles/pi-canon.git beside the checkout, or PI_CANON_REPO) and
a `tsx` binary (PI_CANON_TSX, else `tsx` on PATH; `npm install --prefix DIR tsx` gives one); skipped
without them, failed without them in CI (tests/canon/helpers.py). Links inside code
are left out on purpose: pi-canon resolves them, canon ignores code (docs/explanation/canon.md).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.canon.git.conftest import BODY, GitStore
from tests.canon.helpers import pi_canon_source, pi_canon_tsx

TSX = pi_canon_tsx()

SCRIPT = """
import { CanonStore, normalize } from "./extensions/lib/store.ts";
const store = new CanonStore(process.argv[2]);
const out: Record<string, (string | null)[]> = {};
for (const path of store.list()) {
  const body = store.read(path)!.body;
  out[path] = [...body.matchAll(/\\[\\[([^\\]|#]+)[^\\]]*\\]\\]/g)].map((m) => {
    const target = m[1].trim().replace(/\\.md$/, "");
    return store.read(target)?.path ?? store.read(normalize(target))?.path ?? null;
  });
}
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def pi_canon(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = pi_canon_source(tmp_path_factory.mktemp("pi-canon"), "extensions/lib", "package.json")
    (folder / "links.ts").write_text(SCRIPT, encoding="utf-8")
    return folder


def resolved(pi_canon: Path, store: Path) -> dict[str, list[str | None]]:
    proc = subprocess.run([TSX, "links.ts", str(store / ".canon")], cwd=pi_canon, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


def test_links_resolve_where_pi_canon_resolved_them(repo: GitStore, pi_canon: Path) -> None:
    repo.article("src/core/loader", body="Up: [[src/core]], self: [[src/core/loader|me]].\n" + BODY)
    repo.article("src/core/loader/deep", body="[[src/core/loader#Use]] and [[ src/core.md ]]\n" + BODY)
    repo.article(
        "docs",
        body="[[src/core|Core]] [[src]] [[src/core/loader.md]] [[src/gone]] [[src/core/x.py]]\n"
        "[[src/core/loader/deep#A b]] [[src/corex]] [[src/core/loader.ts]]\n" + BODY,
    )
    repo.article("src", body="Children: [[src/core]], [[src/core/loader/deep|deep one]].\n" + BODY)
    before = resolved(pi_canon, repo.root)
    assert before["docs"][:3] == ["src/core", "src", "src/core/loader"]  # the oracle resolves what we think
    assert repo.canon("mv", "src/core", "src/engine").code == 0
    after = resolved(pi_canon, repo.root)
    mapping = {
        "src/core": "src/engine",
        "src/core/loader": "src/engine/loader",
        "src/core/loader/deep": "src/engine/loader/deep",
    }
    assert sorted(after) == sorted(mapping.get(a, a) for a in before)
    for address, targets in before.items():
        assert after[mapping.get(address, address)] == [mapping.get(t, t) if t else None for t in targets], address
