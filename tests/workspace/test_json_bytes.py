"""Bytes that are not UTF-8 (file names, diff content) in `--json`: valid JSON, nothing lost.

The rule: a string field whose bytes are not UTF-8 is written with those bytes escaped as git
does (`\\377`), and a companion `<field>_b64` holds the exact bytes (base64). Every document must
decode as strict UTF-8 and parse.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path

from tests.conftest import script
from tests.workspace.helpers import commit_all, git, write_files

BAD = b"caf\xff.txt"


def _json(repo: Path, *args: str) -> dict:
    proc = subprocess.run([script("pylon"), *args], cwd=repo, capture_output=True, timeout=60)
    doc = json.loads(proc.stdout.decode("utf-8", "strict"))  # raises on a raw 0xff byte
    assert doc.get("ok") is True, (args, doc)
    return doc


def test_every_ws_json_document_is_valid_and_lossless(repo: Path) -> None:
    write_files(repo, {"latin.txt": b"caf\xe9\n"})
    commit_all(repo, "latin-1 content")
    with open(os.path.join(os.fsencode(repo), BAD), "wb") as fh:
        fh.write(b"new\n")
    (repo / "latin.txt").write_bytes(b"th\xe9\n")

    doc = _json(repo, "ws", "changes", "--json")
    (bad,) = [f for f in doc["files"] if "path_b64" in f]
    assert bad["path"] == "caf\\377.txt"
    assert base64.b64decode(bad["path_b64"]) == BAD
    untracked = subprocess.run(["git", "ls-files", "-z", "--others"], cwd=repo, capture_output=True).stdout
    assert base64.b64decode(bad["path_b64"]) + b"\0" == untracked  # git's own bytes
    assert [f for f in doc["files"] if f["path"] == "latin.txt"][0].get("path_b64") is None

    diff = _json(repo, "ws", "diff", "--since", "HEAD", "--json", "latin.txt")
    git_diff = subprocess.run(["git", "diff", "HEAD", "--", "latin.txt"], cwd=repo, capture_output=True).stdout
    assert base64.b64decode(diff["diff_b64"]) == git_diff  # exact, where U+FFFD used to stand
    assert "\ufffd" not in diff["diff"] and "-caf\\351" in diff["diff"]

    cat = _json(repo, "ws", "cat", "latin.txt", "--json")
    assert base64.b64decode(cat["content_b64"]) == b"th\xe9\n" and cat["content"] == "th\\351\n"
    assert cat["utf8"] is False

    for args in (
        ("ws", "baseline", "--json"),
        ("ws", "fingerprint", "--json"),
        ("ws", "status", "--json"),
        ("ws", "diff", "--json"),
        ("ws", "run", "--json", "--", "true"),
    ):
        _json(repo, *args)

    run = _json(repo, "ws", "run", "--json", "--", "sh", "-c", "printf x > \"$(printf 'r\\376')\"")
    (made,) = run["files"]
    assert base64.b64decode(made["path_b64"]) == b"r\xfe" and made["path"] == "r\\376"

    watch = subprocess.run(
        [script("pylon"), "ws", "watch", "--json", "--since", "HEAD", "--timeout", "0.5"],
        cwd=repo,
        capture_output=True,
        timeout=60,
    )
    lines = [json.loads(x) for x in watch.stdout.decode("utf-8", "strict").splitlines() if x.strip()]
    lines = [line for line in lines if line["event"] == "batch"]
    assert any(f.get("path_b64") == base64.b64encode(BAD).decode() for f in lines[0]["files"])


def test_a_refusal_naming_a_bad_path_is_valid_json(repo: Path) -> None:
    proc = subprocess.run(
        [script("pylon").encode(), b"ws", b"cat", b"/etc/\xff", b"--json"], cwd=repo, capture_output=True, timeout=60
    )
    doc = json.loads(proc.stdout.decode("utf-8", "strict"))
    assert doc["error"]["code"] == "path-outside" and doc["error"]["reason"] == "absolute"
    assert base64.b64decode(doc["error"]["path_b64"]) == b"/etc/\xff"
    git(repo, "status")  # the checkout is untouched
