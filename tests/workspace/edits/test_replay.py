"""The replay benchmark as a test: a small history full of byte-level edge cases replays exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.conftest import MakeRepo

ROOT = Path(__file__).resolve().parents[3]

VERSIONS: list[dict[str, bytes]] = [
    {
        "a.txt": b"".join(b"line %d\n" % i for i in range(1, 40)),
        "w.txt": b"one\r\ntwo\r\nthree\r\nfour\r\n",
        "bom.txt": b"\xef\xbb\xbffirst\nsecond\n",
        "nofinal.txt": b"x\ny",
        "empty.txt": b"",
        "long.txt": b"short\n" + b"L" * 9000 + b"\nend\n",
        "tabs.go": b"func f() {\n\treturn 1\n}\n",
        "mixed.txt": b"a\r\nb\nc\r\nd\n",
    },
    {
        "a.txt": b"".join(b"line %d\n" % i for i in range(1, 40) if i % 7).replace(b"line 20\n", b"twenty\nmore\n"),
        "w.txt": b"zero\r\none\r\nTWO\r\nthree\r\nfour\r\nfive\r\n",
        "bom.txt": b"\xef\xbb\xbfheader\nfirst\nsecond\n",
        "nofinal.txt": b"x\ny\nz",
        "empty.txt": b"now has text\n",
        "long.txt": b"short\n" + b"M" * 9001 + b"\nend\n",
        "tabs.go": b"func f() {\n\tx := 2\n\treturn x\n}\n",
        "mixed.txt": b"a\r\nB\nc\r\nd\ne\n",
    },
    {
        "a.txt": b"only line\n",
        "w.txt": b"zero\r\none\r\n",
        "bom.txt": b"\xef\xbb\xbf",
        "nofinal.txt": b"x\ny\nz\n",  # gains its final newline
        "empty.txt": b"now has text",  # loses it
        "long.txt": b"",
        "tabs.go": b"func f() {\n\treturn 3\n}\n",
        "mixed.txt": b"A\r\nB\nc\r\n",
    },
]


def test_replay_of_edge_case_history_is_exact(make_repo: MakeRepo, tmp_path: Path) -> None:
    repo = make_repo(files=dict(VERSIONS[0]))
    for version in VERSIONS[1:]:
        for name, data in version.items():
            (repo / name).write_bytes(data)
        subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
        subprocess.run(["git", "commit", "-q", "-m", "next"], cwd=repo, check=True)
    proc = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "edits_replay.py"),
            "--repo",
            str(repo),
            "--no-record",
            "--cli-sample",
            "30",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    line = proc.stdout.splitlines()[0]
    files = int(line.split(" files,")[0].split()[-1])
    exact = int(line.split(" exact matches")[0].split()[-1])
    assert "3 commits" in line and files >= 20, line
    # Creating CRLF content in an empty file is the one thing a request cannot say (new lines in
    # an empty file get LF): the root commit's w.txt and mixed.txt. Everything else is exact.
    assert exact == files - 2, proc.stdout
    assert "2 line-ending-only, 0 BOM changes" in line, line
    # Lines over 4096 characters count as seen when printed cut: no request needs a retry.
    assert "0 long-line retries" in line, line
    not_exact = [x for x in proc.stdout.splitlines() if "not exact" in x]
    assert len(not_exact) == 2 and all("w.txt" in x or "mixed.txt" in x for x in not_exact), proc.stdout
    assert f"CLI sample {exact}/{exact} exact" in line, line
