"""Hostile and broken stores and arguments, across every canon command.

Every case must end with no traceback, no hang (each run has a timeout), exactly one JSON document
with `--json`, and no file changed when the command refuses (`"ok": false`). Data-driven: a store
scenario times a command, plus hostile arguments per command.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, entry, snapshot
from tests.conftest import Run

GOOD = article("Good.", "A good body.\n")


def _art(root: Path, name: str) -> Path:
    return root / ".canon" / "articles" / f"{name}.md"


def _write(path: Path, data: bytes | str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)


def _sock(path: Path) -> None:
    # bound through the folder's descriptor, as pylon's hook helper binds its own: a socket's address
    # holds at most 107 bytes, fewer than a test folder's path may have
    s = socket.socket(socket.AF_UNIX)
    folder = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY)
    try:
        s.bind(f"/proc/self/fd/{folder}/{path.name}")
    except OSError:
        pytest.skip("cannot bind a unix socket here")
    finally:
        os.close(folder)
        s.close()


def _swap_for_link(folder: Path, outside: Path) -> None:
    folder.rename(outside / folder.name)
    folder.symlink_to(outside / folder.name)


def _link_out_article(r: Path, o: Path) -> None:
    _write(o / "victim.md", GOOD)
    _art(r, "a").symlink_to(o / "victim.md")


def _read_only_article(r: Path, o: Path) -> None:
    _write(_art(r, "a"), GOOD)
    os.chmod(_art(r, "a"), 0o444)


def _huge_article(r: Path, o: Path) -> None:
    _write(_art(r, "a"), GOOD)
    os.truncate(_art(r, "a"), 9 * 1024 * 1024)


def _articles_is_a_file(r: Path, o: Path) -> None:
    shutil.rmtree(r / ".canon/articles")
    _write(r / ".canon/articles", "x")


SCENARIOS: dict[str, Callable[[Path, Path], object]] = {
    "unclosed-front-matter": lambda r, o: _write(_art(r, "a"), "---\ncapsule: x\nbody\n"),
    "invalid-yaml": lambda r, o: _write(_art(r, "a"), "---\ncapsule: x\nfoo: [1,\n---\nbody\n"),
    "owned-twice": lambda r, o: _write(_art(r, "a"), "---\ncapsule: x\ncapsule: y\n---\nbody\n"),
    "invalid-utf8": lambda r, o: _write(_art(r, "a"), b"---\ncapsule: \xff\xfe\n---\n\xc3(\n"),
    "nul-byte": lambda r, o: _write(_art(r, "a"), b"---\ncapsule: x\n---\nbo\0dy\n"),
    "fifo-article": lambda r, o: os.mkfifo(_art(r, "a")),
    "socket-article": lambda r, o: _sock(_art(r, "a")),
    "link-out-article": _link_out_article,
    "link-out-articles": lambda r, o: _swap_for_link(r / ".canon" / "articles", o),
    "link-out-journal": lambda r, o: _swap_for_link(r / ".canon" / "journal", o),
    "link-to-dev-zero": lambda r, o: _art(r, "a").symlink_to("/dev/zero"),
    "broken-link": lambda r, o: _art(r, "a").symlink_to(o / "missing.md"),
    "link-loop-folder": lambda r, o: (r / ".canon/articles/loop").symlink_to(r / ".canon/articles"),
    "folder-named-md": lambda r, o: _art(r, "a").mkdir(),
    "read-only-article": _read_only_article,
    "long-name": lambda r, o: _write(_art(r, "x" * 250), GOOD),
    "huge-article": _huge_article,
    "schema-broken-json": lambda r, o: _write(r / ".canon/schema.json", "{ not json"),
    "schema-unknown-keys": lambda r, o: _write(r / ".canon/schema.json", '{"article": {"capsul": 1}, "x": []}'),
    "schema-fifo": lambda r, o: os.mkfifo(r / ".canon/schema.json"),
    "schema-dev-zero": lambda r, o: (r / ".canon/schema.json").symlink_to("/dev/zero"),
    "config-broken": lambda r, o: _write(r / ".canon/config.toml", "mounts = [\n"),
    "config-bad-mount": lambda r, o: _write(r / ".canon/config.toml", 'mounts = ["../nowhere"]\n'),
    "journal-binary": lambda r, o: _write(r / ".canon/journal/2026-01-01-x.md", os.urandom(512)),
    "journal-fifo": lambda r, o: os.mkfifo(r / ".canon/journal/2026-01-01-fifo.md"),
    "journal-no-front-matter": lambda r, o: _write(r / ".canon/journal/2026-01-01-old.md", "Old entry.\n"),
    "capsule-line-separator": lambda r, o: _write(_art(r, "a"), "---\ncapsule: a\u2028b\u0085c\n---\nbody\n"),
    "temp-leftover": lambda r, o: _write(r / ".canon/articles/.a.md.pylon-tmp-1-dead", "partial"),
    "articles-is-a-file": _articles_is_a_file,
}

COMMANDS: list[tuple[str, ...]] = [
    ("read", "a"),
    ("write", "a", "--capsule", "New.", "--body", "New body."),
    ("journal", "Raised `limit` to 30s.", "--subject", "a"),
    ("map",),
    ("search", "body"),
    ("search", "body", "--journal"),
    ("resolve", "a", "src/x.py"),
    ("status",),
    ("lint",),
    ("lint", "--fix"),
    ("init",),
]


def _check(run: Run, root: Path, outside: Path, args: tuple[str, ...], stdin: bytes | None = None) -> None:
    before, before_out = snapshot(root), snapshot(outside)
    r = run("canon", *args, "--json", cwd=root, timeout=30, input=stdin)
    assert "Traceback" not in r.err and "internal-error" not in r.out, r
    doc = json.loads(r.out)  # exactly one JSON document (json.loads refuses trailing data)
    assert isinstance(doc, dict) and "ok" in doc, r
    assert snapshot(outside) == before_out, r  # nothing outside the project is ever touched
    if doc["ok"] is False:
        assert r.code != 0 and doc["error"]["code"] and doc["error"]["message"], r
        assert snapshot(root) == before, r  # a refusal changes nothing


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: "-".join(a[:2]).replace(" ", ""))
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_hostile_store(run: Run, make_store: MakeStore, tmp_path: Path, scenario: str, args: tuple[str, ...]) -> None:
    root = make_store(articles={"good": GOOD}, journal={"2026-01-01-ok.md": entry("[good]", "2026-01-01T00:00:00Z")})
    outside = tmp_path / "outside"
    outside.mkdir()
    SCENARIOS[scenario](root, outside)
    try:
        _check(run, root, outside, args)
    finally:
        for folder, _dirs, files in os.walk(root):  # let pytest clean up read-only files
            for name in files:
                path = Path(folder) / name
                if not path.is_symlink() and stat.S_ISREG(path.lstat().st_mode):
                    os.chmod(path, 0o644)


HOSTILE_ARGS: list[tuple[str, ...]] = [
    ("write", "a\nb", "--body", "x"),
    ("write", "x" * 300, "--body", "x"),
    ("write", "a/" + "y" * 256 + "/b", "--body", "x"),
    ("write", "a", "--body-file", "-"),  # stdin: NUL (argv cannot carry a NUL byte)
    ("write", "a", "--capsule", "bad\x85nul\u2028", "--body-file", "-"),
    ("write", "", "--body", "x"),
    ("write", "../../etc/passwd", "--body", "x"),
    ("write", "/etc/passwd", "--body", "x"),
    ("write", ".canon/schema", "--body", "x"),
    ("write", "a", "--scope", "weird"),
    ("write", "nomount:x", "--body", "x"),
    ("write", "a", "--body-file", "/dev/null"),
    ("write", "a", "--body-file", "/nonexistent"),
    ("write", "a", "--body", "x", "--body-file", "-"),
    ("journal", "text", "--subject", "a\nb"),
    ("journal", "text", "--subject", ""),
    ("journal", "text", "--slug", "!!!"),
    ("journal", "--body-file", "-"),
    ("journal", ""),
    ("journal", "text", "--subject", "../../outside"),
    ("read", ""),
    ("read", "../x"),
    ("read", "nomount:x"),
    ("read", "x" * 5000),
    ("search", "!"),
    ("search", "a", "--limit", "0"),
    ("resolve", "/etc"),
    ("map", "../.."),
    ("lint", "nothing-here"),
    ("lint", "--format", "bogus"),
]


@pytest.mark.parametrize("args", HOSTILE_ARGS, ids=lambda a: "-".join(x[:12] for x in a[:2]).replace("\n", "NL"))
def test_hostile_arguments(run: Run, make_store: MakeStore, tmp_path: Path, args: tuple[str, ...]) -> None:
    root = make_store(articles={"a": GOOD})
    outside = tmp_path / "outside"
    outside.mkdir()
    _check(run, root, outside, args, stdin=b"stdin\0body\n\xff")


def test_the_suite_is_large_enough() -> None:
    assert len(SCENARIOS) * len(COMMANDS) + len(HOSTILE_ARGS) >= 200
