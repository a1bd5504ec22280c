"""The labelled corpus (tests/guard/corpus/commands.txt): every command gets its expected verdict.

The bars of the spec are checked as totals too: no destructive command (reversible,
irreversible) is ever classified safe, and at most 2% of the safe commands are flagged.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from pylon.guard.context import Context
from pylon.guard.judge.classify import classify
from tests.guard.conftest import DCG, ESCAPES, PEERS, entries

ENTRIES = entries()
DCG_ENTRIES = entries(DCG)
ESCAPE_ENTRIES = entries(ESCAPES)
PEER_ENTRIES = entries(PEERS)


def verdict_of(command: str, checkout: tuple[Path, dict[str, str]]) -> str:
    root, env = checkout
    # /tmp is not temporary here: the fixture itself lies under it (a checkout normally does not)
    ctx = Context(str(root), str(root), env=env, branch="main", tmp_dirs=[env["TMPDIR"], "/var/tmp"])
    return classify(command, ctx).verdict


def test_the_corpus_is_large_and_labelled() -> None:
    verdicts = [v for v, _, _ in ENTRIES]
    assert len(ENTRIES) >= 250
    assert set(verdicts) == {"safe", "reversible", "irreversible", "unknown"}
    assert all(source for _, source, _ in ENTRIES) and all(cmd for _, _, cmd in ENTRIES)


@pytest.mark.parametrize(
    ("expected", "source", "command"),
    ENTRIES + ESCAPE_ENTRIES,
    ids=[f"{i:03d}-{v}" for i, (v, _, _) in enumerate(ENTRIES)]
    + [f"escape-{i:03d}-{v}" for i, (v, _, _) in enumerate(ESCAPE_ENTRIES)],
)
def test_corpus_verdict(expected: str, source: str, command: str, corpus_checkout: tuple[Path, dict[str, str]]) -> None:
    got = verdict_of(command, corpus_checkout)
    assert got == expected, f"{source}: {command!r} is {got}, expected {expected}"


def test_no_destructive_command_is_safe_and_few_safe_ones_are_flagged(
    corpus_checkout: tuple[Path, dict[str, str]],
) -> None:
    got = [(v, verdict_of(c, corpus_checkout)) for v, _, c in ENTRIES]
    missed = [i for i, (want, have) in enumerate(got) if want != "safe" and have == "safe"]
    safe = [have for want, have in got if want == "safe"]
    flagged = sum(1 for have in safe if have != "safe")
    assert not missed, f"destructive commands judged safe: {[ENTRIES[i][2] for i in missed]}"
    assert flagged <= 0.02 * len(safe)


def _peer_verdict(command: str, checkout: tuple[Path, dict[str, str]]) -> str:
    """As the peers' own tests assume, the system's temporary folder (/tmp, or the one the run was
    given, which holds this fixture) is a temporary folder here."""
    root, env = checkout
    system = tempfile.gettempdir()
    ctx = Context(str(root), str(root), env=env, branch="main", tmp_dirs=[env["TMPDIR"], "/var/tmp", "/tmp", system])
    return classify(command, ctx).verdict


@pytest.mark.parametrize(
    ("expected", "source", "command"),
    DCG_ENTRIES + PEER_ENTRIES,
    ids=[f"dcg-{i:03d}-{v}" for i, (v, _, _) in enumerate(DCG_ENTRIES)]
    + [f"peer-{i:03d}-{v}" for i, (v, _, _) in enumerate(PEER_ENTRIES)],
)
def test_published_corpora_case_by_case(
    expected: str, source: str, command: str, corpus_checkout: tuple[Path, dict[str, str]]
) -> None:
    """dcg's, safety-net's and Codex's labelled cases: pylon's verdict for each; a difference in kind
    (the peer denies or asks what pylon calls safe, or allows what pylon flags) says why."""
    got = _peer_verdict(command, corpus_checkout)
    assert got == expected, f"{source}: {command!r} is {got}, expected {expected}"
    label = source.split(" differs:")[0].rsplit("(", 1)[1].split(": ")[1].rstrip(")")
    if (label in ("deny", "ask") and got == "safe") or (label == "allow" and got in FLAGGED):
        assert "differs:" in source, f"undocumented difference from the peer: {source}"


# Flagged = not allowed to run unasked (the count): reversible runs after a snapshot.
FLAGGED = ("irreversible", "unknown")
# Peer allow cases that destroy what nobody can get back: kept flagged (docs/explanation/guard.md says why).
DELIBERATE = {
    "rm -rf /tmp",
    "rm -r /some/path",
    "rm -R /some/path",
    "rm -f /some/path",
    "git push --force --force-with-lease",
    "git push -f --force-with-lease",
    "git push --force-with-lease",
    "git push --force-with-lease origin main",
    "git push --force-with-lease=refs/heads/main",
}


def test_peer_totals() -> None:
    """The measured totals of docs/explanation/guard.md: deny cases pylon judges safe, allow cases it flags."""
    denies = [(v, c) for v, s, c in PEER_ENTRIES if "deny)" in s.split(" differs:")[0]]
    allows = [(v, c) for v, s, c in PEER_ENTRIES if "allow)" in s.split(" differs:")[0]]
    assert (len(denies), len(allows)) == (221, 159)
    missed = [c for v, c in denies if v == "safe"]
    assert len(missed) == 49  # each a listed difference (test_published_corpora_case_by_case)
    flagged = {c for v, c in allows if v in FLAGGED}
    assert flagged == DELIBERATE  # 8 of 159 (5.0%) counting them, 0 of 151 without
    rest = [c for v, c in allows if c not in DELIBERATE]
    assert len(flagged - DELIBERATE) <= 0.02 * len(rest)
