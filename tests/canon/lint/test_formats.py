"""Output formats: text lines, JSON document, GitHub annotations, SARIF 2.1.0; repository-relative paths."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.canon.lint.conftest import LONG_BODY, Store, article
from tests.conftest import MakeRepo, git, run_cmd

TEXT_LINE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): (?P<sev>error|warning)\[(?P<rule>[a-z-]+)\] (?P<msg>.+)$")


def seeded(store: Store) -> Store:
    store.article("src", body="[[src/gone]] and 100% sure, really: yes\n" + LONG_BODY)
    store.article("notes/meeting", capsule=None, body=LONG_BODY)
    return store


def test_text_format(store: Store) -> None:
    result = seeded(store).lint()
    assert result.code == 1
    lines = result.out.splitlines()
    parsed = [TEXT_LINE.match(line) for line in lines]
    matches = [m for m in parsed if m is not None]
    assert len(matches) == len(lines), lines
    assert [(m["file"], m["line"], m["sev"], m["rule"]) for m in matches] == [
        (".canon/articles/notes/meeting.md", "1", "warning", "no-capsule"),
        (".canon/articles/notes/meeting.md", "1", "warning", "address-eventish"),
        (".canon/articles/src.md", "5", "error", "dead-link"),
    ]
    # The summary goes to stderr, never to stdout.
    assert "1 error, 2 warnings" in result.err and "canon lint:" not in result.out


def test_text_paths_follow_the_current_directory(store: Store) -> None:
    seeded(store)
    (store.root / "sub").mkdir()
    result = store.lint(cwd=store.root / "sub")
    assert result.out.splitlines()[-1].startswith("../.canon/articles/src.md:5: error[dead-link]")


def test_clean_text_prints_nothing_on_stdout(store: Store) -> None:
    store.article("a", body=LONG_BODY)
    result = store.lint()
    assert (result.code, result.out) == (0, "")
    assert result.err.strip() == "canon lint: clean (1 article, 0 journal entries)."


def test_json_format(store: Store) -> None:
    result = seeded(store).lint("--format", "json")
    assert result.code == 1
    doc = result.json()
    assert list(doc)[0] == "ok" and doc["ok"] is True
    assert (doc["clean"], doc["errors"], doc["warnings"], doc["articles"], doc["journal"]) == (False, 1, 2, 2, 0)
    assert doc["findings"][2] == {
        "rule": "dead-link",
        "severity": "error",
        "path": ".canon/articles/src.md",
        "line": 5,
        "message": "[[src/gone]] names no article (src governs it; link [[src]] instead)",
        "fixable": False,
    }
    assert doc["fixed"] == [] and Path(doc["base"]) == store.root
    assert result.err == ""  # exactly one document, nothing else
    assert store.lint("--json").json() == doc


def test_github_annotations_escape_properties_and_data(store: Store) -> None:
    store.article("odd, name: here", body="[[a%b]]\n" + LONG_BODY)
    result = store.lint("--format", "github")
    lines = result.out.splitlines()
    assert lines == [
        "::error file=.canon/articles/odd%2C name%3A here.md,line=5,title=canon dead-link::[[a%25b]] names no article",
    ]
    assert result.code == 1


def test_github_warning_level(store: Store) -> None:
    store.article("a", capsule=None, body=LONG_BODY)
    result = store.lint("--format", "github")
    assert result.out == (
        "::warning file=.canon/articles/a.md,line=1,title=canon no-capsule::no capsule: add one "
        "dense line stating what this asset is\n"
    )
    assert result.code == 0


def test_sarif(store: Store) -> None:
    seeded(store)
    result = store.lint("--format", "sarif")
    assert result.code == 1
    log = json.loads(result.out)
    assert log["version"] == "2.1.0" and "sarif-2.1.0" in log["$schema"]
    (run,) = log["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "canon"
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids))
    assert {
        "front-matter-invalid",
        "dead-link",
        "schema",
        "journal-name",
        "no-capsule",
        "capsule-too-long",
        "capsule-changelog",
        "body-large",
        "body-long",
        "tiny-child",
        "address-eventish",
        "orphan",
        "unknown-subject",
    } <= set(ids)
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")  # SARIF levels
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == store.root.resolve().as_uri() + "/"
    results = run["results"]
    assert [r["ruleId"] for r in results] == ["no-capsule", "address-eventish", "dead-link"]
    for r in results:
        assert ids[r["ruleIndex"]] == r["ruleId"]
        assert r["level"] in ("error", "warning") and r["message"]["text"]
        loc = r["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not loc["artifactLocation"]["uri"].startswith(("/", "file:"))
        assert loc["region"]["startLine"] >= 1
    assert results[2]["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": ".canon/articles/src.md", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 5},
    }


def test_sarif_clean_run_has_no_results(store: Store) -> None:
    store.article("a", body=LONG_BODY)
    result = store.lint("--format=sarif")
    assert result.code == 0
    assert json.loads(result.out)["runs"][0]["results"] == []


def test_paths_are_repository_relative_in_a_nested_project(make_repo: MakeRepo) -> None:
    repo = make_repo({"docs/.canon/articles/a.md": article(body="[[missing]]\n" + LONG_BODY), "docs/README": "x\n"})
    git(repo, "status")
    sub = repo / "docs"
    gh = run_cmd("canon", "lint", "--format", "github", cwd=sub)
    assert gh.out.startswith("::error file=docs/.canon/articles/a.md,line=5,")
    sarif = json.loads(run_cmd("canon", "lint", "--format", "sarif", cwd=sub).out)
    loc = sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert loc["uri"] == "docs/.canon/articles/a.md"
    assert sarif["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"] == repo.resolve().as_uri() + "/"
    text = run_cmd("canon", "lint", cwd=sub)
    assert text.out.startswith(".canon/articles/a.md:5: error[dead-link]")


def test_an_article_name_that_is_not_utf8_in_json_and_sarif(store: Store) -> None:
    import base64
    import os
    from urllib.parse import unquote_to_bytes

    store.article("src")
    name = b".canon/articles/src/x\xff.md"
    (store.canon / "articles/src").mkdir()
    (store.root / os.fsdecode(name)).write_bytes(article(body="[[nowhere]]\n" + LONG_BODY).encode())
    doc = store.lint("--json")
    assert doc.code == 1 and "\ufffd" not in doc.out
    dead = next(f for f in doc.json()["findings"] if f["rule"] == "dead-link")
    assert dead["path"] == ".canon/articles/src/x\\377.md" and base64.b64decode(dead["path_b64"]) == name
    sarif = store.lint("--format", "sarif")
    assert sarif.code == 1 and "\ufffd" not in sarif.out
    uris = {
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        for r in json.loads(sarif.out)["runs"][0]["results"]
    }
    assert {unquote_to_bytes(u) for u in uris} == {name}
