"""The README's first command: scripts/demo walks through every part and succeeds."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent


# slow: the demo runs every part (about 20 s of CPU, the default tier's longest test); each step it
# takes is tested on its own in the default tier, and the full tier (.ci/run) runs the whole demo
@pytest.mark.slow
def test_demo_runs_every_part() -> None:
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "demo")], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    out = proc.stdout
    for expected in (
        "Wrote src/core/config.",  # canon write
        "src/core/config governs src/core/config/deep.py",  # nearest-ancestor resolution
        "canon lint: clean",
        "Applied 1 operation(s) to src/core/config.py.",  # numbered edit
        "error[stale-revision]",  # an old tag is refused
        "modified +1 -0           src/core/config.py",  # ws changes
        "added    +1 -0           src/new.txt",  # ws run report
        "created .canon/, .canon/articles/",  # the first write makes the store
        "[2 lines match]",  # read --grep
        "error[usage]: --limit was given twice",  # one parser, no last-wins
        "pylon: since start (baseline, ",  # what changes/diff compare against
        "Usage: pylon ws changes [OPTIONS]",  # help from the registry
        "conflict: agent-a <-> agent-b: 1 path(s)",  # owned worktrees and early conflict warning
        "watching it in the background (pid ",  # ws new --watch (ws rm --force stops it)
        "reversible: `rm -rf src/core` removes src/core inside the checkout (line 2)",  # guard check
        "irreversible: `git push --force origin main` overwrites the remote's history",  # guard check
        "pylon: the checkout's state before this command is kept (op ",  # the hook's note before it
        "undid `shell: rm -rf src/core` (op ",  # what it changed is an op, and ws undo reverses it
        "kept the changes made since the last op that no op recorded (1 path(s)): src/later.py",  # later work
        "bytes left out; all of it: ",  # ws run --max-bytes
        "Installed canon's claude-code hooks in ",  # canon hook install
        "- src/core/config (updated ",  # the hook surfaces the governing capsule
        '{"decision": "block", "reason": "canon: you changed files these articles govern',  # the Stop reminder
        "undid `rm agent-b --force`",  # the op log: a forced removal comes back
        "moved worktree agent-a's state into",  # ws move
        "moved worktree agent-a's state back",  # ws move --back
        "tools: read edit canon_read",  # pylon mcp lists the registry's MCP tools (raw JSON-RPC lines)
        "canon_read src/core/config.py -> Loads layered config",  # and a tools/call answers
        "GET /api/agents without the key: 403",  # pylon serve refuses a request without its key
        "GET /api/agents (X-Pylon-Token): worktrees ['agent-a', 'agent-b', 'agent-c']",  # and answers with it
        "flowchart LR",  # canon graph --format mermaid
        "error[article-not-updated] changed, but its article src/core/config did not change",  # canon check
        "1 of 2 tracked files have a governing article",  # canon coverage
        "applied agent-a: 1 path(s) changed in the working tree",  # ws apply
        "undid `apply agent-a`",  # and its undo
        "pylon: kept 1 path(s) changed since: NOTES.txt",  # the undo reverses the op, not later work
        "redid `apply agent-a`",  # and is reversible in turn
        "pylon: merged what agent-a changed since its last apply (op ",  # a second apply merges only the new work
    ):
        assert expected in out or expected in proc.stderr, expected
    assert "Traceback" not in proc.stderr


def _ramdisk() -> ModuleType:
    import importlib.util

    spec = importlib.util.spec_from_file_location("ramdisk", ROOT / "scripts" / "ramdisk.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_ramdisk_folder_is_made_private_and_used_again(tmp_path: Path) -> None:
    import os
    import stat

    ramdisk = _ramdisk()
    folder = ramdisk.private_folder(str(tmp_path), room_needed=1)
    assert folder == f"{tmp_path}/pylon-tests-{os.getuid()}"
    assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o700
    Path(folder, "kept").write_text("a failed test's folder\n")
    assert ramdisk.private_folder(str(tmp_path), room_needed=1) == folder
    assert Path(folder, "kept").read_text() == "a failed test's folder\n"


@pytest.mark.parametrize("kind", ["link", "open to others", "a file", "no room"])
def test_a_ramdisk_folder_that_is_not_private_or_roomy_is_never_used(tmp_path: Path, kind: str) -> None:
    import os

    ramdisk = _ramdisk()
    name = tmp_path / f"pylon-tests-{os.getuid()}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    if kind == "link":
        name.symlink_to(elsewhere)
    elif kind == "open to others":
        name.mkdir()
        name.chmod(0o755)
    elif kind == "a file":
        name.write_text("")
    room = 1 << 62 if kind == "no room" else 1
    assert ramdisk.private_folder(str(tmp_path), room_needed=room) is None
    assert sorted(p.name for p in elsewhere.iterdir()) == []


def test_only_a_tmpfs_mount_point_counts_as_a_ramdisk(tmp_path: Path) -> None:
    ramdisk = _ramdisk()
    mounts = tmp_path / "mounts"
    mounts.write_text("proc /proc proc rw 0 0\ntmpfs /dev/shm tmpfs rw,size=1k 0 0\n/dev/vda / ext4 rw 0 0\n")
    assert ramdisk.is_tmpfs("/dev/shm", str(mounts))
    assert not ramdisk.is_tmpfs("/", str(mounts))
    assert not ramdisk.is_tmpfs("/dev", str(mounts))
    assert not ramdisk.is_tmpfs("/dev/shm", str(tmp_path / "missing"))


@pytest.mark.parametrize(
    ("env", "ramdisk"),
    [
        ({}, True),
        ({"TMPDIR": "/tmp"}, True),
        ({"TMPDIR": "/tmp/"}, True),
        ({"TMPDIR": "/var/tmp"}, False),
        ({"PYLON_TEST_TIER": "full"}, False),
        ({"PYLON_TEST_RAMDISK": "0"}, False),
    ],
)
def test_the_script_chooses_the_ramdisk_only_for_the_default_tier_and_the_default_tmpdir(
    env: dict[str, str], ramdisk: bool
) -> None:
    import os
    import sys

    ramdisk_script = _ramdisk()
    if not ramdisk_script.is_tmpfs("/dev/shm") or ramdisk_script.private_folder("/dev/shm") is None:
        pytest.skip("this machine has no tmpfs at /dev/shm with room, or its folder there is not private")
    base = {k: v for k, v in os.environ.items() if k not in ("TMPDIR", "PYLON_TEST_TIER", "PYLON_TEST_RAMDISK")}
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "ramdisk.py")], env={**base, **env}, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == (f"/dev/shm/pylon-tests-{os.getuid()}\n" if ramdisk else "")
