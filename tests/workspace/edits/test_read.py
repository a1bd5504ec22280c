"""`pylon read`: output format, limits, footers, JSON, refusals, ledger merging, start-up imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.workspace.edits.conftest import Ed, ledger_docs

BIN = Path(sys.executable).parent


def test_header_and_numbered_lines_without_phantom_line(ed: Ed) -> None:
    ed.write("src/app.py", "import os\nimport sys\n")
    res = ed.read_text("src/app.py")
    assert res.code == 0, res
    lines = res.out.splitlines()
    assert lines[0].startswith("[src/app.py#") and lines[0].endswith("]")
    tag = lines[0][len("[src/app.py#") : -1]
    assert len(tag) == 12 and all(c in "0123456789abcdef" for c in tag)
    assert lines[1:] == ["1:import os", "2:import sys"]
    assert res.err == ""


def test_tag_is_sha256_prefix_of_exact_bytes(ed: Ed) -> None:
    import hashlib

    data = b"a\r\nb\n\tc"
    ed.write("f.txt", data)
    assert ed.read("f.txt") == hashlib.sha256(data).hexdigest()[:12]


def test_empty_file(ed: Ed) -> None:
    ed.write("e.txt", b"")
    res = ed.read_text("e.txt")
    assert res.code == 0
    assert res.out.splitlines()[1:] == ["[empty file]"]
    doc = ed.run("pylon", "read", "e.txt", "--json", cwd=ed.root).json()
    assert doc["total_lines"] == 0 and doc["lines"] == [] and doc["next_offset"] is None


def test_line_limit_footer_names_next_command(ed: Ed) -> None:
    ed.write("big.txt", ed.numbered(4812))
    res = ed.read_text("big.txt")
    lines = res.out.splitlines()
    assert len(lines) == 1 + 2000 + 1
    assert lines[2000] == "2000:line 2000"
    assert lines[-1] == "[lines 1-2000 of 4812; next: pylon read big.txt --offset 2001]"
    res = ed.read_text("big.txt", "--offset", "4001")
    lines = res.out.splitlines()
    assert lines[1] == "4001:line 4001" and lines[-1] == "4812:line 4812"


def test_limit_option_is_repeated_in_next_command(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(10))
    res = ed.read_text("f.txt", "--offset", "3", "--limit", "2")
    assert res.out.splitlines()[1:] == [
        "3:line 3",
        "4:line 4",
        "[lines 3-4 of 10; next: pylon read f.txt --offset 5 --limit 2]",
    ]
    res = ed.read_text("f.txt", "--limit", "5000")
    assert res.out.splitlines()[-1] == "10:line 10"


def test_byte_limit_stops_at_50_kib(ed: Ed) -> None:
    ed.write("wide.txt", "".join(f"{i}:" + "x" * 1000 + "\n" for i in range(1, 201)))
    res = ed.read_text("wide.txt")
    assert len(res.out.encode()) <= 50 * 1024 + 200
    last = res.out.splitlines()[-1]
    assert last.startswith("[lines 1-") and "next: pylon read wide.txt --offset" in last
    shown = int(last.split("-")[1].split(" ")[0])
    assert 45 <= shown <= 51


def test_long_line_is_cut_and_counts_as_seen(ed: Ed) -> None:
    long = "y" * 5000
    ed.write("long.txt", f"short\n{long}\nend\n")
    res = ed.read_text("long.txt")
    line2 = res.out.splitlines()[2]
    assert line2.startswith("2:" + "y" * 4096 + "[... 904 more characters cut")
    doc = ed.run("pylon", "read", "long.txt", "--json", cwd=ed.root).json()
    assert doc["cut"] == [[2, 904]]
    tag = doc["tag"]
    ok = ed.edit("long.txt", tag, "replace 2\n+z\n")
    assert ok.code == 0, ok
    assert ed.bytes("long.txt") == b"short\nz\nend\n"


def test_footer_for_crlf_bom_and_no_final_newline(ed: Ed) -> None:
    ed.write("w.txt", b"\xef\xbb\xbfone\r\ntwo\r\nthree")
    res = ed.read_text("w.txt")
    lines = res.out.splitlines()
    assert lines[1:4] == ["1:one", "2:two", "3:three"]
    assert lines[4] == "[file has: CRLF line endings, no final newline, a UTF-8 BOM]"
    doc = ed.run("pylon", "read", "w.txt", "--json", cwd=ed.root).json()
    assert (doc["eol"], doc["final_newline"], doc["bom"]) == ("crlf", False, True)


def test_mixed_endings_and_lone_cr_is_content(ed: Ed) -> None:
    ed.write("m.txt", b"a\r\nb\nc\rd\n")
    res = ed.read_text("m.txt")
    assert res.out.split("\n")[1:4] == ["1:a", "2:b", "3:c\rd"]
    assert "[file has: mixed line endings (1 CRLF, 2 LF)]" in res.out
    assert ed.run("pylon", "read", "m.txt", "--json", cwd=ed.root).json()["eol"] == "mixed"


def test_plain_lf_file_has_no_footer(ed: Ed) -> None:
    ed.write("p.txt", "a\nb\n")
    assert "[file has" not in ed.read_text("p.txt").out


def test_json_shape(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(3))
    res = ed.run("pylon", "read", "f.txt", "--offset", "2", "--limit", "1", "--json", cwd=ed.root)
    doc = res.json()
    assert doc["ok"] is True
    for key in ("path", "tag", "total_lines", "start", "end", "eol", "final_newline", "bom", "lines", "next_offset"):
        assert key in doc
    assert (doc["start"], doc["end"], doc["total_lines"], doc["next_offset"]) == (2, 2, 3, 3)
    assert doc["lines"] == [[2, "line 2"]]


def test_not_text_is_refused_with_exit_4(ed: Ed) -> None:
    ed.write("bin.dat", b"abc\x00def\n")
    res = ed.read_text("bin.dat")
    assert res.code == 4 and res.err.startswith("error[not-text]: bin.dat cannot be numbered: it contains a NUL byte")
    assert res.out == ""
    ed.write("latin.txt", b"caf\xe9\n")
    res = ed.run("pylon", "read", "latin.txt", "--json", cwd=ed.root)
    assert res.code == 4 and res.json()["error"]["code"] == "not-text"
    assert "not valid UTF-8" in res.json()["error"]["message"]


def test_missing_file_and_directory(ed: Ed) -> None:
    res = ed.read_text("nope.txt")
    assert res.code == 4 and res.err.startswith("error[not-found]: nope.txt does not exist.")
    (ed.root / "d").mkdir()
    res = ed.read_text("d")
    assert res.code == 4 and res.err.startswith("error[is-directory]:")


def test_offset_past_end_and_bad_values(ed: Ed) -> None:
    ed.write("f.txt", ed.numbered(5))
    res = ed.read_text("f.txt", "--offset", "9")
    assert res.code == 2 and res.err.startswith("error[out-of-range]: --offset 9 is past the last line of f.txt (5).")
    res = ed.read_text("f.txt", "--offset", "0")
    assert res.code == 2 and "error[usage]" in res.err
    res = ed.read_text("f.txt", "--limit", "abc")
    assert res.code == 2 and "error[usage]" in res.err


def test_reads_merge_into_one_ledger_entry(ed: Ed, isolated_env: dict[str, str]) -> None:
    ed.write("f.txt", ed.numbered(30))
    tag = ed.read("f.txt", "--offset", "1", "--limit", "10")
    assert ed.read("f.txt", "--offset", "11", "--limit", "10") == tag
    ledgers = ledger_docs(Path(isolated_env["XDG_STATE_HOME"]) / "pylon" / "edits" / "default")
    assert len(ledgers) == 1
    revs = ledgers[0]["revisions"]
    assert len(revs) == 1 and revs[0]["seen"] == [[1, 20]]
    res = ed.edit("f.txt", tag, "replace 20\n+x\n")
    assert res.code == 0, res
    res = ed.edit("f.txt", ed.read("f.txt", "--limit", "1"), "replace 25\n+x\n")
    assert res.code == 2 and "error[unseen-lines]" in res.err


def test_dash_c_and_paths_relative_to_cwd(ed: Ed) -> None:
    ed.write("sub/f.txt", "x\n")
    res = ed.run("pylon", "-C", str(ed.root / "sub"), "read", "f.txt", cwd=ed.root)
    assert res.code == 0 and res.out.startswith("[f.txt#")


def test_symlink_and_target_share_the_ledger(ed: Ed) -> None:
    ed.write("real.txt", "a\nb\n")
    (ed.root / "link.txt").symlink_to("real.txt")
    tag = ed.read("link.txt")
    res = ed.edit("real.txt", tag, "replace 1\n+A\n")
    assert res.code == 0, res


def test_read_imports_no_heavy_modules(ed: Ed) -> None:
    ed.write("f.txt", "x\n")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", str(BIN / "pylon"), "read", "f.txt"],
        cwd=ed.root,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    imported = {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}
    for heavy in ("pygit2", "watchdog", "rich", "yaml", "typer"):
        assert heavy not in imported, heavy


def test_next_command_quotes_the_path(ed: Ed) -> None:
    ed.write("sp ace.txt", ed.numbered(5))
    res = ed.read_text("sp ace.txt", "--limit", "2")
    assert res.out.splitlines()[-1] == "[lines 1-2 of 5; next: pylon read 'sp ace.txt' --offset 3 --limit 2]"
