"""A real full disk during `pylon edit`: a small tmpfs filled to the last block (needs root and
`mount -t tmpfs`; skipped with the reason otherwise)."""

from __future__ import annotations

import contextlib
from pathlib import Path

from tests.canon.test_disk_errors import small_tmpfs  # noqa: F401 - the fixture: a 64 KiB tmpfs
from tests.workspace.edits.conftest import Ed


def _fill(folder: Path) -> None:
    """Write until the file system refuses (ENOSPC): then not one more block fits."""
    with open(folder / "filler", "wb", buffering=0) as fh, contextlib.suppress(OSError):
        for _ in range(1 << 16):  # 64 MiB at most; the tmpfs holds 64 KiB
            fh.write(b"x" * 1024)


def test_an_edit_that_cannot_be_written_is_disk_full_and_changes_nothing(ed: Ed, small_tmpfs: Path) -> None:  # noqa: F811
    folder = small_tmpfs / "w"
    folder.mkdir()
    data = "".join(f"line {i}\n" for i in range(1, 2001)).encode()  # about 18 KiB
    (folder / "f.txt").write_bytes(data)
    tag = ed.read(str(folder / "f.txt"))  # the ledger lives outside the tmpfs (the test's state dir)
    _fill(folder)
    res = ed.edit_json(str(folder / "f.txt"), tag, "replace 1000\n+the new line one thousand, longer than before\n")
    assert res.code == 1, res
    err = res.json()["error"]
    assert err["code"] == "disk-full" and "Traceback" not in res.err, res
    assert (folder / "f.txt").read_bytes() == data
    assert sorted(p.name for p in folder.iterdir()) == ["f.txt", "filler"]  # no temp file left
    # Once there is room again, the same request with the same tag succeeds.
    (folder / "filler").unlink()
    again = ed.edit(str(folder / "f.txt"), tag, "replace 1000\n+the new line one thousand, longer than before\n")
    assert again.code == 0, again
    assert (folder / "f.txt").read_bytes() == data.replace(
        b"line 1000\n", b"the new line one thousand, longer than before\n"
    )
