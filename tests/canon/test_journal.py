"""`canon journal`: immutable entries, names, subjects that read back exactly, concurrency."""

from __future__ import annotations

import re
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pylon.canon.journal import read_entry
from tests.canon.conftest import MakeStore
from tests.canon.helpers import article, snapshot, today
from tests.conftest import Run, script

LOGGED = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$")


def entries(root: Path) -> list[str]:
    return sorted(p.name for p in (root / ".canon" / "journal").iterdir())


def test_journal_creates_a_dated_entry_with_subject_and_logged(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/core/config": article("Config.")})
    r = run("canon", "journal", "Raised the timeout.", "--subject", "src/core/config", cwd=root)
    assert r.code == 0, r
    name = f"{today()}-entry.md"
    assert r.out == f"Logged {name}.\n"
    text = (root / ".canon" / "journal" / name).read_text()
    lines = text.splitlines()
    assert lines[0] == "---" and lines[1] == "subject: [src/core/config]"
    assert lines[2].startswith("logged: ") and LOGGED.match(lines[2][8:])
    logged = datetime.strptime(lines[2][8:], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
    assert abs((datetime.now(UTC) - logged).total_seconds()) < 60
    assert lines[3:] == ["---", "Raised the timeout."]


def test_collisions_get_numbered_suffixes(run: Run, project: Path) -> None:
    names = []
    for _ in range(4):
        r = run("canon", "journal", "x", "--slug", "Deploy", cwd=project)
        assert r.code == 0, r
        names.append(r.out.strip().removeprefix("Logged ").removesuffix("."))
    d = today()
    assert names == [f"{d}-deploy.md", f"{d}-deploy-2.md", f"{d}-deploy-3.md", f"{d}-deploy-4.md"]


@pytest.mark.parametrize(
    ("slug", "expected"),
    [
        ("Hello, World!", "hello-world"),
        ("--Trim__me--", "trim-me"),
        ("ÜBER straße", "ber-stra-e"),
        ("a" * 80, "a" * 60),
        ("word-" * 20, ("word-" * 12)[:60].rstrip("-")),
    ],
)
def test_slug_rules(run: Run, project: Path, slug: str, expected: str) -> None:
    r = run("canon", "journal", "x", f"--slug={slug}", cwd=project)  # = : a value may start with --
    assert r.code == 0, r
    assert r.out == f"Logged {today()}-{expected}.md.\n"
    assert len(expected) <= 60


def test_a_slug_with_nothing_usable_is_refused(run: Run, project: Path) -> None:
    r = run("canon", "journal", "x", "--slug", "!!!", cwd=project)
    assert r.code == 2 and "error[bad-slug]" in r.err, r
    assert list(project.iterdir()) == []


@pytest.mark.parametrize(
    "subjects",
    [
        ["plain/address"],
        ["with, comma", "notes/at 10:30"],
        ["lake:prices", "lake:deep/nested"],
        ["spaces in name", 'quote"s', "it's", "[brackets]", "#hash", "-dash"],
    ],
)
def test_subjects_read_back_exactly(run: Run, project: Path, tmp_path: Path, subjects: list[str]) -> None:
    lake = tmp_path / "lake"
    (lake / ".canon" / "articles").mkdir(parents=True)
    args = [a for s in subjects for a in ("--subject", s)]
    r = run("canon", "journal", "--json", "text", *args, "--mount", str(lake), cwd=project)
    assert r.code == 0, r
    doc = r.json()
    assert doc["subjects"] == subjects
    back = read_entry(project / ".canon" / "journal" / doc["name"])
    assert back.subjects == subjects and back.problems == []
    import yaml

    front = (project / ".canon" / "journal" / doc["name"]).read_text().split("---\n")[1]
    assert yaml.safe_load(front)["subject"] == subjects


def test_subject_paths_become_the_governing_article(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"src/core": article("Core.")}, files={"src/core/config.ts": "x"})
    r = run("canon", "journal", "--json", "x", "--subject", "src/core/config.ts", "--subject", "src/core", cwd=root)
    assert r.code == 0, r
    assert r.json()["subjects"] == ["src/core"]
    assert run("canon", "read", "--json", "src/core/config.ts", cwd=root).json()["journal"] == [r.json()["name"]]


def test_unknown_subject_is_a_warning_not_a_failure(run: Run, project: Path) -> None:
    r = run("canon", "journal", "x", "--subject", "no/such/thing.py", cwd=project)
    assert r.code == 0, r
    assert "warning[unknown-subject]: subject no/such/thing names no article" in r.err


def test_values_the_article_lacks_are_warned_about(run: Run, make_store: MakeStore) -> None:
    root = make_store(articles={"svc": article("Service.", "Timeout is 30s; uses `load_config`.\n")})
    r = run(
        "canon",
        "journal",
        "Raised timeout from 30s to 45s, `MAX_RETRIES` now 5; see retryPolicy and 512 MB.",
        "--subject",
        "svc",
        cwd=root,
    )
    assert r.code == 0, r
    line = next(ln for ln in r.err.splitlines() if "values-not-in-article" in ln)
    for value in ("`MAX_RETRIES`", "`45s`", "`retryPolicy`", "`512 MB`"):
        assert value in line
    assert "`30s`" not in line
    r = run("canon", "journal", "Nothing special happened today.", "--subject", "svc", cwd=root)
    assert "values-not-in-article" not in r.err


def test_text_from_file_and_stdin(run: Run, project: Path) -> None:
    (project / "note.txt").write_text("From a file.\n")
    r = run("canon", "journal", "--json", "--body-file", "note.txt", cwd=project)
    assert r.code == 0, r
    assert (project / ".canon" / "journal" / r.json()["name"]).read_text().endswith("---\nFrom a file.\n")
    r = run("canon", "journal", "--json", "--body-file", "-", "--slug", "piped", cwd=project, input="From stdin.\n")
    assert r.code == 0, r
    assert r.json()["name"] == f"{today()}-piped.md"


def test_empty_text_is_refused_and_nothing_is_created(run: Run, project: Path) -> None:
    for args in ([], [""], ["  \n"]):
        r = run("canon", "journal", *args, cwd=project)
        assert r.code == 1, r
        assert r.err.startswith("error[empty-body]: A journal entry needs text.")
    r = run("canon", "journal", "--body-file", "-", cwd=project, input="")
    assert r.code == 1 and "error[empty-body]" in r.err
    assert list(project.iterdir()) == []


def test_journal_always_lives_in_the_project_store(run: Run, project: Path, tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    (lake / ".canon" / "articles").mkdir(parents=True)
    (lake / ".canon" / "articles" / "prices.md").write_text("---\ncapsule: Prices.\n---\nB.\n")
    before = snapshot(lake)
    r = run(
        "canon", "journal", "--json", "Prices moved.", "--subject", "lake:prices", "--mount", str(lake), cwd=project
    )
    assert r.code == 0, r
    assert (project / ".canon" / "journal" / r.json()["name"]).is_file()
    assert snapshot(lake) == before
    doc = run("canon", "read", "--json", "lake:prices", "--mount", str(lake), cwd=project).json()
    assert doc["journal"] == [r.json()["name"]]


def test_there_is_no_command_to_edit_or_delete_entries(run: Run, project: Path) -> None:
    r = run("canon", "--help", cwd=project)
    commands = {ln.split()[0] for ln in r.out.splitlines() if ln.startswith("  ") and ln.split()}
    assert not commands & {"edit", "delete", "rm", "amend", "unjournal"}


@pytest.mark.slow
def test_200_concurrent_journal_processes_make_200_distinct_entries(project: Path) -> None:
    (project / ".canon" / "journal").mkdir(parents=True)
    canon = script("canon")
    procs = [
        subprocess.Popen(
            [canon, "journal", f"entry number {i}", "--slug", "race", "--subject", "x"],
            cwd=project,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i in range(200)
    ]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0] * 200, [o[1] for o in outs if o[1]][:3]
    names = entries(project)
    assert len(names) == 200
    reported = sorted(o[0].decode().strip().removeprefix("Logged ").removesuffix(".") for o in outs)
    assert reported == names
    texts = sorted((project / ".canon" / "journal" / n).read_text().split("---\n", 2)[2] for n in names)
    assert texts == sorted(f"entry number {i}\n" for i in range(200))
    assert not [n for n in (project / ".canon" / "journal").iterdir() if n.name.startswith(".")]
