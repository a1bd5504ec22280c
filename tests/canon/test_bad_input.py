"""Bad input: each case gets its error code and exit status, no traceback, and no file changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, snapshot
from tests.conftest import Run

BROKEN = {
    "unclosed": "---\ncapsule: Cap.\nno closing fence\n",
    "badyaml": "---\ncapsule: Cap.\nowner: [unclosed\n---\nBody.\n",
    "twice": "---\ncapsule: One.\ncapsule: Two.\n---\nBody.\n",
    "badquote": '---\ncapsule: "not closed\n---\nBody.\n',
}


@pytest.fixture
def store(make_store: MakeStore) -> Path:
    root = make_store(
        articles={"good": article("Good.", "Body.\n"), **BROKEN},
        files={"src/app.py": "x", "notes.txt": "x"},
    )
    (root / ".canon" / "articles" / "latin1.md").write_bytes("---\ncapsule: caf\xe9\n---\nx\n".encode("latin-1"))
    (root / ".canon" / "articles" / "folder.md").mkdir()
    return root


CASES = [
    # (argv, exit, code)
    (["write", "unclosed", "--capsule", "New."], 1, "front-matter-invalid"),
    (["write", "badyaml", "--body", "New body."], 1, "front-matter-invalid"),
    (["write", "twice", "--capsule", "Three."], 1, "front-matter-invalid"),
    (["write", "badquote", "--body", "x"], 1, "front-matter-invalid"),
    (["write", "latin1", "--body", "x"], 1, "not-utf8"),
    (["read", "latin1"], 1, "not-utf8"),
    (["write", "folder", "--capsule", "C.", "--body", "B."], 1, "is-directory"),
    (["read", "folder"], 1, "is-directory"),
    (["read", "folder/child"], 1, "is-directory"),
    (["read", "nothing/here"], 1, "no-article"),
    (["write", "new", "--capsule", "C."], 1, "empty-body"),
    (["write", "new", "--capsule", "C.", "--body", ""], 1, "empty-body"),
    (["journal", ""], 1, "empty-body"),
    (["write", "../outside", "--capsule", "C.", "--body", "B."], 2, "path-outside"),
    (["read", "../../etc/passwd"], 2, "path-outside"),
    (["journal", "x", "--subject", "../up"], 2, "path-outside"),
    (["resolve", "/tmp"], 2, "path-outside"),
    (["write", "nomount:x", "--capsule", "C.", "--body", "B."], 1, "unknown-mount"),
    (["read", "nomount:x"], 1, "unknown-mount"),
    (["write", "good", "--scope", "weird"], 2, "bad-scope"),
    (["write", "good", "--body-file", "no-such-file"], 1, "not-found"),
    (["write", "good", "--body-file", "src"], 1, "is-directory"),
    (["journal", "--body-file", "no-such-file"], 1, "not-found"),
    (["journal", "x", "--slug", "---"], 2, "bad-slug"),
    (["journal", "x", "--subject", "."], 2, "bad-subject"),
    (["search", "?"], 2, "bad-query"),
    (["read", "good", "--root", "no-such-dir"], 2, "bad-root"),
    (["read", "good", "--mount", "no-such-dir"], 2, "bad-mount"),
    (["read"], 2, "usage"),
    (["write", "good", "--bogus"], 2, "usage"),
]


@pytest.mark.parametrize(("argv", "exit_code", "code"), CASES, ids=[" ".join(c[0]) for c in CASES])
def test_bad_input_is_refused_cleanly(run: Run, store: Path, argv: list[str], exit_code: int, code: str) -> None:
    before = snapshot(store)
    r = run("canon", *argv, cwd=store)
    assert r.code == exit_code, r
    assert r.out == ""
    assert r.err.startswith(f"error[{code}]: "), r
    assert "Traceback" not in r.err
    assert "hint: " in r.err
    assert snapshot(store) == before
    j = run("canon", *argv, "--json", cwd=store)
    assert j.code == exit_code, j
    doc = j.json()
    assert doc["ok"] is False and doc["error"]["code"] == code and doc["error"]["hint"]
    assert snapshot(store) == before


def test_front_matter_refusal_names_the_line_and_lists_problems(run: Run, store: Path) -> None:
    r = run("canon", "write", "twice", "--capsule", "Three.", "--json", cwd=store)
    err = r.json()["error"]
    assert err["message"].startswith(
        f"{store / '.canon' / 'articles' / 'twice.md'}:3: owned key 'capsule' is given twice"
    )
    assert err["problems"] == [{"line": 3, "message": "owned key 'capsule' is given twice"}]
    r = run("canon", "write", "badyaml", "--body", "x", cwd=store)
    assert "front matter is not valid YAML" in r.err, r


def test_body_file_with_invalid_utf8(run: Run, store: Path) -> None:
    (store / "bad.txt").write_bytes(b"caf\xe9\n")
    before = snapshot(store)
    for argv in (["write", "good", "--body-file", "bad.txt"], ["journal", "--body-file", "bad.txt"]):
        r = run("canon", *argv, cwd=store)
        assert r.code == 1 and r.err.startswith("error[not-utf8]: --body-file bad.txt is not valid UTF-8"), r
    r = run("canon", "write", "good", "--body-file", "-", cwd=store, input=b"\xff\xfe\x00")
    assert r.code == 1 and "error[not-utf8]" in r.err, r
    assert snapshot(store) == before


def test_a_file_in_place_of_the_article_folder(run: Run, make_store: MakeStore) -> None:
    root = make_store(files={".canon/articles/src": "a file where the folder src/ belongs"})
    before = snapshot(root)
    r = run("canon", "write", "src/app", "--capsule", "C.", "--body", "B.", cwd=root)
    assert r.code == 1 and r.err.startswith("error[not-a-directory]:"), r
    assert snapshot(root) == before


def test_a_file_in_place_of_the_store_folders(run: Run, project: Path) -> None:
    (project / ".canon").mkdir()
    (project / ".canon" / "journal").write_text("not a folder")
    before = snapshot(project)
    r = run("canon", "journal", "x", cwd=project)
    assert r.code == 1 and r.err.startswith("error[not-a-directory]:"), r
    assert snapshot(project) == before
