"""`pylon ws run --max-bytes N`: head and tail within the bound, the whole output in a file."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import MakeRepo
from tests.conftest import run_cmd as run


def test_long_output_is_cut_to_head_and_tail_and_kept_whole(make_repo: MakeRepo, isolated_env: dict[str, str]) -> None:
    root = make_repo({"a.txt": "a\n"})
    script = "i=1; while [ $i -le 5000 ]; do echo line $i; i=$((i+1)); done; echo oops >&2; exit 4"
    r = run("pylon", "ws", "run", "--max-bytes", "400", "--", "sh", "-c", script, cwd=root)
    assert r.code == 4, r
    said = re.search(r"the whole output \((\d+) bytes\) is in (\S+)", r.err)
    assert said is not None, r
    whole = Path(said.group(2))
    data = whole.read_bytes()
    assert whole.is_relative_to(Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "runs")
    assert data.startswith(b"line 1\nline 2\n") and data.endswith(b"line 5000\noops\n")
    assert f"({len(data)} bytes)" in r.err
    out = r.out.encode()
    marker = re.search(rb"\[\.\.\. (\d+) bytes left out; all of it: (\S+) \.\.\.\]\n", out)
    assert marker is not None and marker.group(2).decode() == str(whole)
    head, tail = out[: marker.start()], out[marker.end() :]
    assert len(head) + len(tail) <= 400 and data.startswith(head) and data.endswith(tail)
    assert int(marker.group(1)) == len(data) - len(head) - len(tail)
    assert tail.endswith(b"oops\n") and head.endswith(b"\n")


def test_short_output_is_shown_whole_and_json_carries_it(make_repo: MakeRepo) -> None:
    root = make_repo({"a.txt": "a\n"})
    r = run("pylon", "ws", "run", "--max-bytes", "1000", "--json", "--", "sh", "-c", "printf 'ok\\377\\n'", cwd=root)
    doc = r.json()
    assert r.code == 0 and doc["output"]["bytes"] == 4 and doc["output"]["omitted"] == 0
    assert not doc["output"]["truncated"] and doc["output"]["head_b64"] == "b2v/Cg=="
    assert Path(doc["output"]["path"]).read_bytes() == b"ok\xff\n"
