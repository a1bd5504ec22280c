"""Property: for generated destructive command lines run against generated checkouts (tracked,
modified, staged, untracked, ignored, executable and symlinked files), the hook path as a client
runs it (PreToolUse, bash, PostToolUse), then `pylon ws undo`, gives back a byte-identical tree
(bits, folders, links), index, HEAD, refs and stash.

Seeded (random.Random), so every failure names its seed and replays exactly. 200 cases over 40
checkouts in the full tier. tests/keep/test_hook_property.py generates commands with hypothesis.
"""

from __future__ import annotations

import json
import os
import random
import shlex
from pathlib import Path

import pytest

from tests.conftest import git, run_cmd, sized
from tests.keep.hookpath import run_through_hooks, whole_state

CHECKOUTS = sized(4, 40)
PER_CHECKOUT = 5
WORDS = ["alpha", "beta", "gamma", "delta"]


def build(root: Path, rng: random.Random) -> dict[str, list[str]]:
    """A random checkout; returns its files by kind (tracked, ignored, untracked, dirs)."""
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    (root / ".gitignore").write_text("*.log\nign/\n")
    dirs = ["a", "a/b", "c", "c/d e"]
    tracked: list[str] = []
    for i in range(rng.randint(3, 8)):
        rel = f"{rng.choice(dirs)}/f{i}.txt"
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(f"{rng.choice(WORDS)} {i}\n".encode() + bytes([rng.randrange(256)]) + b"\n")
        if rng.random() < 0.3:
            os.chmod(path, 0o755)
        tracked.append(rel)
    if rng.random() < 0.7:
        os.symlink(os.path.basename(tracked[0]), root / (tracked[0] + ".lnk"))
        tracked.append(tracked[0] + ".lnk")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "base")
    for rel in rng.sample(tracked, k=min(2, len(tracked))):  # modified, some of them staged
        if not os.path.islink(root / rel):
            (root / rel).write_bytes(b"changed " + rel.encode() + b"\n")
            if rng.random() < 0.5:
                git(root, "add", rel)
                (root / rel).write_bytes(b"changed again " + rel.encode() + b"\n")
    untracked = []
    for i in range(rng.randint(1, 3)):
        rel = f"{rng.choice(dirs)}/new{i}.txt"
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(f"untracked {i}\n")
        untracked.append(rel)
    ignored = []
    for i in range(rng.randint(1, 3)):
        rel = rng.choice([f"{rng.choice(dirs)}/run{i}.log", f"ign/cache{i}.bin"])
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_bytes(bytes(rng.randrange(256) for _ in range(16)))
        ignored.append(rel)
    if rng.random() < 0.3:
        os.symlink("nowhere", root / "c" / "dangling")
        untracked.append("c/dangling")
    return {"tracked": tracked, "untracked": untracked, "ignored": ignored, "dirs": dirs}


def command(rng: random.Random, files: dict[str, list[str]]) -> str:
    q = shlex.quote
    plain = [f for f in files["tracked"] + files["untracked"] if not f.endswith((".lnk", "dangling"))]
    some = rng.choice(plain)
    other = rng.choice(plain)
    folder = rng.choice(files["dirs"])
    forms = [
        f"rm -rf {q(folder)}",
        f"rm -f {q(some)}",
        f"rm -rf {q(folder)}/*",
        "rm -rf ign",
        f"git checkout -- {q(folder)}",
        "git checkout -- .",
        "git reset --hard",
        f"git restore {q(folder)}",
        "git clean -fd",
        "git clean -fdx",
        "git clean -fX",
        f"git clean -fdx {q(folder)}",
        f"find {q(folder)} -name '*.txt' -delete",
        "find . -name '*.log' -delete",
        f"sed -i 's/a/Z/g' {q(some)}",
        f": > {q(some)}",
        f"echo overwritten > {q(some)}",
        f"truncate -s 0 {q(some)}",
        f"mv -f {q(some)} {q(other)}" if some != other else f"rm {q(some)}",
        f"cp {q(some)} {q(other)}" if some != other else f"shred -u {q(some)}",
        f"python3 -c {q(f'import shutil; shutil.rmtree({folder!r})')}",
    ]
    first = rng.choice(forms)
    shape = rng.randrange(5)
    if shape == 0:
        return first
    if shape == 1:
        return f"bash -c {q(first)}"
    if shape == 2:
        return f"echo step one\n{first}"
    if shape == 3:
        return f"{first}; {rng.choice(forms)}"
    return f"env LC_ALL=C timeout 30 {first}"


@pytest.mark.parametrize("seed", range(CHECKOUTS))
def test_hook_run_undo_is_byte_identical(seed: int, tmp_path: Path) -> None:
    rng = random.Random(seed)
    root = tmp_path / "repo"
    files = build(root, rng)
    destroyed = 0
    for case in range(PER_CHECKOUT):
        line = command(rng, files)
        before = whole_state(root)
        reply, _ran = run_through_hooks(root, line)
        assert "permissionDecision" not in json.dumps(reply), (seed, case, line, reply)
        destroyed += whole_state(root) != before
        undone = run_cmd("pylon", "ws", "undo", cwd=root)
        assert undone.code == 0 or "nothing-to-undo" in undone.err, (seed, case, line, undone)
        assert whole_state(root) == before, (seed, case, line)
    assert destroyed >= 2, f"seed {seed}: only {destroyed} of {PER_CHECKOUT} commands changed anything"
