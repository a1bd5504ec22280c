"""Handler of `pylon doctor [--json]`: pylon.doctor checks, one line per finding with its fix."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class DoctorArgs(Protocol):
        json: bool


MARK = {"ok": "ok     ", "note": "note   ", "problem": "PROBLEM"}


def doctor(args: DoctorArgs) -> int:
    from pylon.cli import output
    from pylon.doctor.checks import failed, run

    found = run(os.getcwd())
    bad = failed(found)
    if args.json:
        output.ok_json(
            {"healthy": not bad, "problems": sum(1 for f in found if f["status"] == "problem"), "findings": found}
        )
        return 1 if bad else 0
    lines = []
    for f in found:
        lines.append(f"{MARK[f['status']]} {f['check']}: {f['message']}")
        if f["fix"] and f["status"] != "ok":
            lines.append(f"        fix: {f['fix']}")
    problems = sum(1 for f in found if f["status"] == "problem")
    lines.append(f"{problems} problem(s)" if problems else "no problems found")
    output.out("\n".join(lines) + "\n")
    return 1 if bad else 0
