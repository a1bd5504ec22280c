"""Every error code the source raises is documented in docs/errors.md (codes are a public API)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
CONSTRUCTORS = ("PylonError", "UsageError", "NotFoundError", "cannot_edit", "fail")


def raised_codes() -> dict[str, str]:
    found: dict[str, str] = {}
    for path in (ROOT / "pylon").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            value = node.args[0].value
            if name in CONSTRUCTORS and isinstance(value, str) and KEBAB.match(value):
                found.setdefault(value, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def test_every_raised_code_is_documented() -> None:
    codes = raised_codes()
    assert len(codes) > 30, "the scan found too few codes; has the error API changed?"
    doc = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    missing = {code: where for code, where in codes.items() if f"`{code}`" not in doc}
    assert not missing, f"document these codes in docs/errors.md: {missing}"
