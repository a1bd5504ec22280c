"""Helpers for the numbered-edit tests: read a tag, send a request, look at exact bytes."""

from __future__ import annotations

import builtins
import marshal
from pathlib import Path

import pytest

from tests.conftest import Result, Run


def ledger_docs(folder: Path) -> list[dict]:
    """The decoded ledgers in a session folder (`PYLNLED1` + marshal), as the engine stores them."""
    docs = []
    for path in sorted(folder.glob("*.ledger")):
        raw = path.read_bytes()
        assert raw[:8] == b"PYLNLED1", path
        docs.append(marshal.loads(raw[8:]))
    return docs


class Ed:
    """`ed.read("f.txt")` -> tag; `ed.edit("f.txt", tag, "replace 1\\n+x\\n")` -> Result. Runs the real `pylon`."""

    def __init__(self, run: Run, root: Path) -> None:
        self.run = run
        self.root = root

    @staticmethod
    def numbered(n: int, prefix: str = "line") -> str:
        return "".join(f"{prefix} {i}\n" for i in range(1, n + 1))

    def write(self, name: str, data: bytes | str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
        return path

    def bytes(self, name: str) -> bytes:
        return (self.root / name).read_bytes()

    def read(self, name: str, *args: str, env: dict[str, str] | None = None) -> str:
        res = self.run("pylon", "read", name, "--json", *args, cwd=self.root, env=env)
        assert res.code == 0, res
        return res.json()["tag"]

    def read_text(self, name: str, *args: str, env: dict[str, str] | None = None) -> Result:
        return self.run("pylon", "read", name, *args, cwd=self.root, env=env)

    def edit(
        self,
        name: str,
        tag: str,
        request: str | builtins.bytes | None = None,
        *args: str,
        env: dict[str, str] | None = None,
    ) -> Result:
        return self.run(
            "pylon",
            "edit",
            f"{name}#{tag}",
            *args,
            cwd=self.root,
            input=request if request is not None else b"",
            env=env,
        )

    def edit_json(self, name: str, tag: str, request: str, *args: str, env: dict[str, str] | None = None) -> Result:
        return self.edit(name, tag, request, "--json", *args, env=env)


@pytest.fixture
def ed(run: Run, tmp_path: Path) -> Ed:
    root = tmp_path / "work"
    root.mkdir()
    return Ed(run, root)
