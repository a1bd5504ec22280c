"""The canon commands' option sets for the typer-free front door (see pylon/cli/fastpath.py).

`dispatch` calls the same handlers as the typer app (canon_handlers.py, canon_lint_handler.py).
"""

from __future__ import annotations

from pylon.cli.fastpath import FLAG, INT, MULTI, STR

_COMMON = {"--json": FLAG, "--root": STR, "--mount": MULTI}
# command -> (options, positional shape)
SPECS: dict[str, tuple[dict[str, str], str]] = {
    "init": (_COMMON, "none"),
    "read": (_COMMON, "one"),
    "write": ({**_COMMON, "--capsule": STR, "--body": STR, "--body-file": STR, "--scope": STR}, "one"),
    "journal": ({**_COMMON, "--body-file": STR, "--subject": MULTI, "--slug": STR}, "one?"),
    "map": (_COMMON, "one?"),
    "search": ({**_COMMON, "--journal": FLAG, "--limit": INT}, "many"),
    "resolve": ({**_COMMON, "--explain": FLAG}, "many"),
    "status": (_COMMON, "none"),
    "lint": ({**_COMMON, "--format": STR, "--strict": FLAG, "--fix": FLAG, "--base": STR, "--all": FLAG}, "any"),
}


def dispatch(command: str, pos: list[str], v: dict[str, object]) -> None:
    from pylon.cli import canon_handlers as h

    j, root, mounts = bool(v["--json"]), v["--root"], v["--mount"] or None
    one = pos[0] if pos else None
    if command == "init":
        h.do_init(j, root, mounts)  # type: ignore[arg-type]
    elif command == "read":
        h.do_read(pos[0], j, root, mounts)  # type: ignore[arg-type]
    elif command == "write":
        h.do_write(pos[0], v["--capsule"], v["--body"], v["--body-file"], v["--scope"], j, root, mounts)  # type: ignore[arg-type]
    elif command == "journal":
        h.do_journal(one, v["--body-file"], v["--subject"] or None, v["--slug"], j, root, mounts)  # type: ignore[arg-type]
    elif command == "map":
        h.do_map(one, j, root, mounts)  # type: ignore[arg-type]
    elif command == "search":
        limit = 10 if v["--limit"] is None else v["--limit"]
        h.do_search(pos, bool(v["--journal"]), limit, j, root, mounts)  # type: ignore[arg-type]
    elif command == "resolve":
        h.do_resolve(pos, bool(v["--explain"]), j, root, mounts)  # type: ignore[arg-type]
    elif command == "status":
        h.do_status(j, root, mounts)  # type: ignore[arg-type]
    elif command == "lint":
        from pylon.cli.canon_lint_handler import do_lint  # canon lint's own module (typer-free)

        fmt = "text" if v["--format"] is None else str(v["--format"])
        do_lint(pos, fmt, bool(v["--strict"]), bool(v["--fix"]), v["--base"], j, root, mounts,  # type: ignore[arg-type]
                bool(v["--all"]))
