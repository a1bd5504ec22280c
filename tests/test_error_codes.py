"""One fault, one code, one exit status: every code the source raises is in pylon/codes.py's table
with the exit status the raise gives, and docs/errors.md is generated from that table."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from pylon import codes
from pylon.errors import Exit

ROOT = Path(__file__).resolve().parent.parent
KEBAB = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")
# Constructors whose first argument is an error code, and the exit status each gives by default.
CONSTRUCTORS = {
    "PylonError": Exit.FAILED,
    "UsageError": Exit.USAGE,
    "NotFoundError": Exit.FAILED,
    "cannot_edit": Exit.CANNOT_EDIT,
    "fail": None,
    "Problem": None,
}
# The edit request problems (`Problem(code, ...)`) exit 2, or 3 when suspicious (problems.py).
EXITS = {name: getattr(Exit, name) for name in dir(Exit) if name.isupper()}


def _exit_of(call: ast.Call, name: str) -> int | None:
    """The exit status a raise gives: its `exit_code=` (a literal or Exit.X), else its class's."""
    for keyword in call.keywords:
        if keyword.arg == "exit_code":
            value = keyword.value
            if isinstance(value, ast.Constant) and isinstance(value.value, int):
                return value.value
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "Exit":
                return EXITS[value.attr]
            return None  # computed: checked where it is computed
    return CONSTRUCTORS[name]


def raised_codes() -> dict[str, list[tuple[str, int | None]]]:
    """code -> [(where, exit status or None)] for every raise site found in pylon/."""
    found: dict[str, list[tuple[str, int | None]]] = {}
    for path in sorted((ROOT / "pylon").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)):
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            value = node.args[0].value
            if name in CONSTRUCTORS and isinstance(value, str) and KEBAB.match(value):
                where = f"{path.relative_to(ROOT)}:{node.lineno}"
                found.setdefault(value, []).append((where, _exit_of(node, name)))
    # Written without a constructor: main.py reports a closed stdout before anything is imported.
    found.setdefault("stdout-closed", []).append(("pylon/cli/main.py", Exit.FAILED))
    return found


def test_every_raised_code_is_in_the_table_with_its_exit_status() -> None:
    raised = raised_codes()
    assert len(raised) > 60, "the scan found too few codes; has the error API changed?"
    table = codes.table()
    missing = {code: sites[0][0] for code, sites in raised.items() if code not in table}
    assert not missing, f"add these codes to pylon/codes.py (then regenerate docs/errors.md): {missing}"
    wrong = []
    for code, sites in raised.items():
        status = table[code][0]
        allowed = {status, codes.EDIT_EXIT} if code in codes.CANNOT_EDIT else {status}
        if code in ("suspicious-edit", "bad-request"):
            allowed |= {Exit.USAGE, Exit.SUSPICIOUS}  # a request's problems share one answer (problems.py)
        wrong += [
            f"{where}: {code} exits {got}, the table says {status}"
            for where, got in sites
            if got is not None and got not in allowed
        ]
    assert not wrong, "one code, one exit status:\n" + "\n".join(wrong)


def test_the_table_is_well_formed() -> None:
    seen: set[str] = set()
    for _, _, rows in codes.SECTIONS:
        for code, status, when in rows:
            assert KEBAB.match(code), code
            assert code not in seen, f"{code} is in the table twice: one fault, one row"
            seen.add(code)
            assert status in (1, 2, 3, 4, 5, 127), (code, status)
            assert when and "|" not in when.replace("\\|", ""), code
    assert seen >= codes.CANNOT_EDIT


def test_every_code_in_the_table_is_raised_somewhere() -> None:
    """No stale rows: each code is raised in the source (or written by the failure renderer)."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "pylon").rglob("*.py") if p.name != "codes.py")
    spelt_otherwise = {"stdout-closed": "error[stdout-closed]", "bad-baseline-name": 'f"bad-{what}-name"'}
    stale = [
        code for code in codes.table() if f'"{code}"' not in source and spelt_otherwise.get(code, code) not in source
    ]
    assert not stale, f"codes in pylon/codes.py that nothing raises: {stale}"


def test_docs_errors_md_is_generated_from_the_table() -> None:
    doc = (ROOT / "docs" / "errors.md").read_text(encoding="utf-8")
    assert doc == codes.markdown(), "docs/errors.md is stale: run `python -m pylon.codes > docs/errors.md`"
