"""An existing `.canon/.gitignore` (pi-canon's stores have none; older pylon stores lack the newer
lines) gains the lines canon needs, after every line its owner wrote."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import MakeRepo, Run, git

OLD_PYLON = ".cache/\n"  # what an earlier pylon wrote
NEEDED = [".*.pylon-tmp-*", ".journal-index.jsonl"]


def _store(project: Path, gitignore: str | bytes) -> Path:
    (project / ".canon" / "articles").mkdir(parents=True)
    (project / ".canon" / "journal").mkdir()
    target = project / ".canon" / ".gitignore"
    target.write_bytes(gitignore if isinstance(gitignore, bytes) else gitignore.encode())
    return target


def test_init_appends_the_missing_lines_and_names_them(run: Run, project: Path) -> None:
    target = _store(project, "# mine\nsecrets.txt\n" + OLD_PYLON)
    result = run("canon", "init", cwd=project)
    assert result.code == 0, result
    assert "updated .canon/.gitignore: added .*.pylon-tmp-*, .journal-index.jsonl" in result.out, result
    assert target.read_text() == "# mine\nsecrets.txt\n.cache/\n.*.pylon-tmp-*\n.journal-index.jsonl\n"
    again = run("canon", "init", "--json", cwd=project).json()
    assert again["ignored"] == [] and again["created"] == [], again
    assert target.read_text().count(".journal-index.jsonl") == 1


def test_a_write_updates_it_too(run: Run, project: Path) -> None:
    target = _store(project, "notes.txt")  # no final newline
    result = run("canon", "write", "app", "--body", "x", cwd=project)
    assert result.code == 0, result
    assert target.read_text() == "notes.txt\n.cache/\n.*.pylon-tmp-*\n.journal-index.jsonl\n"
    assert run("canon", "journal", "event", cwd=project).code == 0
    assert target.read_text().count(".cache/") == 1


def test_the_files_line_endings_and_equivalent_spellings_are_kept(run: Run, project: Path) -> None:
    target = _store(project, b"/.cache\r\n!.journal-index.jsonl\r\n")
    assert run("canon", "init", cwd=project).code == 0
    # `/.cache` is `.cache/`; the negation is the owner's choice to commit pi-canon's index.
    assert target.read_bytes() == b"/.cache\r\n!.journal-index.jsonl\r\n.*.pylon-tmp-*\r\n"


def test_git_then_ignores_what_canon_and_pi_canon_derive(run: Run, make_repo: MakeRepo) -> None:
    repo = make_repo(
        {".canon/.gitignore": OLD_PYLON, ".canon/articles/app.md": "---\ncapsule: A.\n---\nB.\n", "app.py": ""}
    )
    assert run("canon", "write", "app", "--body", "New body.", cwd=repo).code == 0
    (repo / ".canon" / ".journal-index.jsonl").write_text("{}\n")
    (repo / ".canon" / "articles" / ".app.md.pylon-tmp-1-x").write_text("partial")
    status = git(repo, "status", "--porcelain", "--untracked-files=all")
    assert ".journal-index.jsonl" not in status and "pylon-tmp" not in status and ".cache" not in status, status


def test_a_read_only_gitignore_is_left_even_for_root(run: Run, project: Path) -> None:
    target = _store(project, OLD_PYLON)
    target.chmod(0o444)  # canon refuses to replace a file without a write bit, whoever runs it
    result = run("canon", "write", "app", "--body", "x", cwd=project)
    assert result.code == 0, result
    assert target.read_text() == OLD_PYLON
    assert (project / ".canon" / "articles" / "app.md").is_file()


def test_a_linked_gitignore_is_never_written_through(run: Run, project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("keep\n")
    _store(project, "x")
    (project / ".canon" / ".gitignore").unlink()
    (project / ".canon" / ".gitignore").symlink_to(outside)
    result = run("canon", "write", "app", "--body", "x", cwd=project)
    assert result.code == 0, result
    assert outside.read_text() == "keep\n"
    assert (project / ".canon" / ".gitignore").is_symlink()
