"""SQL given to `sqlite3`, `psql` and `mysql` (as arguments, -c/-e, a heredoc or -f FILE),
read with sqlglot: DROP, TRUNCATE, DELETE or UPDATE without WHERE, ALTER ... DROP destroy data.
A local SQLite file inside the checkout is snapshotted; a server's data is irreversible."""

from __future__ import annotations

from pylon.guard.paths import destroyed
from pylon.guard.verdict import IRREVERSIBLE, UNKNOWN, Finding

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pylon.guard.model import Cmd
    from pylon.guard.walk import Walk
    from pylon.guard.words import Arg, State

MAX_SQL = 256 << 10  # sqlglot takes seconds past this; longer SQL is unknown
_DIALECT = {"sqlite3": "sqlite", "psql": "postgres", "mysql": "mysql", "mariadb": "mysql", "duckdb": "duckdb"}
# Options that take a value, per client (so the SQL and the database are found after them).
_TAKES = {
    "sqlite3": {
        "-cmd",
        "-init",
        "-separator",
        "-newline",
        "-nullvalue",
        "-vfs",
        "-mmap",
        "-pagecache",
        "-lookaside",
        "-maxsize",
    },
    "psql": {
        "-d",
        "--dbname",
        "-h",
        "--host",
        "-p",
        "--port",
        "-U",
        "--username",
        "-v",
        "--set",
        "--variable",
        "-o",
        "--output",
        "-P",
        "--pset",
        "-F",
        "-R",
        "-T",
        "-L",
        "--log-file",
    },
    "duckdb": {"-cmd", "-init", "-separator", "-newline", "-nullvalue"},
    "mysql": {
        "-u",
        "--user",
        "-h",
        "--host",
        "-P",
        "--port",
        "-D",
        "--database",
        "-S",
        "--socket",
        "--default-character-set",
    },
}
_EXEC = {"psql": ("-c", "--command"), "mysql": ("-e", "--execute"), "mariadb": ("-e", "--execute"), "duckdb": ("-c",)}
# Client meta-commands that run a shell command, read SQL from a file, or overwrite files.
_META_SHELL = (".shell ", ".system ", "\\! ", "\\!")
_META_OTHER = (
    ".read",
    ".restore",
    ".save",
    ".backup",
    ".output",
    ".once",
    ".import",
    ".open",
    "\\i",
    "\\ir",
    "\\o",
    "\\copy",
    "\\w",
    "\\g ",
)


def destructive(sql: str, dialect: str) -> tuple[list[str], str | None]:
    """The destructive statements of `sql` (as text), or an error when it does not parse."""
    import logging

    import sqlglot
    from sqlglot import exp

    logging.getLogger("sqlglot").setLevel(logging.ERROR)  # its fallback warnings are not for the user

    # client meta-commands (.tables in sqlite3, \dt in psql) are not SQL; the ones that run a shell,
    # read files or write them are reported (as "META ...") for the caller to judge
    meta = [line.strip() for line in sql.splitlines() if line.lstrip().startswith((".", "\\"))]
    risky = ["META " + m for m in meta if m.startswith(_META_SHELL) or m.split(" ")[0] in _META_OTHER]
    text = "\n".join(line for line in sql.splitlines() if not line.lstrip().startswith((".", "\\")))
    if risky:
        return risky, None
    if len(text) > MAX_SQL:
        return [], f"{len(text):,} characters of SQL, more than pylon reads ({MAX_SQL:,})"
    if not text.strip():
        return [], None
    try:
        statements = sqlglot.parse(text, read=dialect)
    except Exception as exc:  # sqlglot raises its own ParseError/TokenError family
        return [], f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
    found: list[str] = []
    for s in statements:
        if s is None:
            continue
        bad = (
            isinstance(s, (exp.Drop, exp.TruncateTable))
            or (isinstance(s, (exp.Delete, exp.Update)) and s.args.get("where") is None)
            or (isinstance(s, exp.Alter) and s.find(exp.Drop) is not None)
            or (isinstance(s, exp.Command) and str(s.this).upper() in ("DROP", "TRUNCATE", "DELETE"))
        )
        if bad:
            found.append(s.sql(dialect=dialect)[:160])
    return found, None


def _sql_line(walk: Walk, name: str, client: str, args: list[Arg], state: State) -> tuple[list[Arg], list[Arg]]:
    """(the SQL its options give: -c/-e/--command=/--execute=/-cmd/-f FILE, its positional words)."""
    takes = _TAKES[name if name == "duckdb" else client]
    sqls: list[Arg] = []
    positional: list[Arg] = []
    i = 1
    while i < len(args):
        text = args[i].text
        if text is not None and text in _EXEC.get(name, ()) and i + 1 < len(args):
            sqls.append(args[i + 1])
            i += 1
        elif text is not None and text.startswith(("--command=", "--execute=")):
            sqls.append(type(args[i])(text.split("=", 1)[1], False, args[i].raw))
        elif text == "-cmd" and i + 1 < len(args):
            sqls.append(args[i + 1])
        elif text in ("-f", "--file") and i + 1 < len(args):
            sqls.append(_file_sql(walk, args[i + 1], state))
            i += 1
        elif text is not None and text.startswith("-") and text != "-":
            i += 1 if text in takes else 0
        else:
            positional.append(args[i])
        i += 1
    return sqls, positional


def judge_sql(
    walk: Walk, name: str, args: list[Arg], cmd: Cmd, state: State, words: str, upstream: Cmd | None = None
) -> None:
    client = "mysql" if name == "mariadb" else name
    if client == "duckdb":
        client = "sqlite3"  # the same shape: DATABASE [SQL...], a file database inside the checkout
    sqls, positional = _sql_line(walk, name, client, args, state)
    database: Arg | None = None
    if client == "sqlite3":
        database = positional[0] if positional else None
        sqls.extend(positional[1:])
    if not sqls:  # SQL given as arguments (or -c/-e): the client does not read its input then
        from pylon.guard.stdin import stdin_input

        body, why = stdin_input(walk, cmd, upstream, state)
        if body is not None:
            sqls.append(type(args[0])(body, False, "(its input)"))
        elif why:
            sqls.append(type(args[0])(None, False, f"(its input: {why})"))
    statements = _statements(walk, name, sqls, words, cmd.line)
    if not statements:
        return
    said = "; ".join(statements[:3])
    if client == "sqlite3" and database is not None and database.text not in (None, ":memory:", ""):
        destroyed(walk, state, [database], verb=f"runs `{said}` on", words=words, line=cmd.line, recursive=False)
    elif client != "sqlite3":  # sqlite3 without a file: an in-memory database
        walk.add(Finding(IRREVERSIBLE, f"`{words}` runs `{said}` on a database server", said, line=cmd.line))


def _statements(walk: Walk, name: str, sqls: list[Arg], words: str, line: int) -> list[str]:
    """The destructive statements of the SQL given (client commands that run a shell or touch files
    are unknown; SQL that does not parse too)."""
    statements: list[str] = []
    for s in sqls:
        if s.text is None:
            walk.add(Finding(UNKNOWN, f"`{words}` runs SQL known only when it runs", s.raw, line=line))
            continue
        found, error = destructive(s.text, _DIALECT[name])
        if error:
            walk.add(Finding(UNKNOWN, f"`{words}`: the SQL does not parse ({error})", s.raw[:200], line=line))
        statements.extend(found)
    meta = [m[5:] for m in statements if m.startswith("META ")]
    if meta:
        walk.add(
            Finding(
                UNKNOWN,
                f"`{words}` runs the client command `{meta[0][:120]}`, which runs a shell or reads or writes files",
                meta[0][:200],
                line=line,
            )
        )
    return [m for m in statements if not m.startswith("META ")]


def _file_sql(walk: Walk, arg: Arg, state: State) -> Arg:
    from pylon.guard.words import Arg as A

    if arg.text is None:
        return arg
    try:
        with open(walk.ctx.absolute(arg.text, state.cwd or walk.ctx.cwd), encoding="utf-8", errors="replace") as fh:
            return A(fh.read(1 << 20), False, arg.raw)
    except OSError:
        return A(None, False, arg.raw)
