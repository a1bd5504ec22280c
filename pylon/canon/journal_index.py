"""The journal index: subject -> entries ordered by `logged`, kept in `.canon/.cache/journal.sqlite`.

`canon read` shows the newest three entries about an article on every call, and a store can hold
tens of thousands of entries, so opening every entry on every read is out of the question. The
index is derived data (never committed: `.cache/` is git-ignored twice, by `.canon/.gitignore` and
by a `*` `.gitignore` inside the cache folder) and heals itself:

- The journal folder's mtime changes whenever a file is added, removed or renamed in it. When it
  equals the mtime recorded at the last indexing, the index is current and only the sqlite lookup
  runs (no listing, no entry is opened).
- Otherwise the folder is listed once; entries not yet indexed are read (only those), entries gone
  from disk are dropped. If the set of names did not change (an entry replaced by rename, as
  editors save), every entry is stat-ed and the changed ones are read again.
- A "racy" recording (mtime within RACY_NS of the listing, so a later add could share the same
  mtime tick) is re-checked by counting the listing on the next read, as git does for its index.

Healing takes sqlite's write lock, so concurrent readers never interleave half-updates. When the
cache cannot be written (read-only checkout), the index is computed in memory instead.
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False  # typing costs start-up time on every `canon read`; annotations are strings
if TYPE_CHECKING:
    import sqlite3
    from collections.abc import Iterable

    from pylon.canon.store import Store

SCHEMA_VERSION = 5  # 5: `rank` orders -9 before -11
CACHE_NAME = "journal.sqlite"
RACY_NS = 2_000_000_000  # 2 s: coarser than any filesystem timestamp granularity we expect


class JournalHits:
    """The newest entries about one subject (file names, newest first) and how many there are."""

    __slots__ = ("names", "total")

    def __init__(self, names: list[str], total: int) -> None:
        self.names = names
        self.total = total


def _is_entry_name(name: str) -> bool:
    """Entry candidates: `*.md` files, no dot files (temp files of exclusive creates are dotted)."""
    return name.endswith(".md") and not name.startswith(".")


def _raw_listing(folder: str) -> list[str]:
    try:
        return os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return []


def _listing(folder: str) -> list[str]:
    return [n for n in _raw_listing(folder) if _is_entry_name(n)]


def _open(store: Store) -> sqlite3.Connection | None:  # sqlite3 is imported lazily
    """Open (creating if needed) the cache database; None when the cache folder is not writable."""
    import sqlite3

    cache = store.cache_dir
    if os.path.islink(cache):
        return None  # a planted link would put the database anywhere; answer from the entries
    try:
        if not os.path.isdir(cache):
            os.makedirs(cache, exist_ok=True)
        ignore = os.path.join(cache, ".gitignore")
        if not os.path.lexists(ignore):
            from pylon.canon.safeio import CACHE_IGNORE

            try:  # never through a link planted meanwhile
                fd = os.open(ignore, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
            except FileExistsError:
                pass
            else:
                with os.fdopen(fd, "w", encoding="utf-8") as fh:
                    fh.write(CACHE_IGNORE)
        conn = sqlite3.connect(os.path.join(cache, CACHE_NAME), timeout=30, isolation_level=None)
    except (OSError, sqlite3.Error):
        return None
    try:
        # No fsync: this is derived data. An application crash cannot hurt it; a power cut can at
        # worst lose the last heal (the next read heals again) or corrupt the file, which is then
        # deleted and rebuilt. fsync made every heal ~25 ms slower.
        conn.execute("PRAGMA synchronous=OFF")
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version != SCHEMA_VERSION:
            _create_schema(conn)
    except sqlite3.DatabaseError:
        # A corrupt or foreign file: it is derived data, so start again.
        conn.close()
        _remove(store)
        try:
            conn = sqlite3.connect(os.path.join(cache, CACHE_NAME), timeout=30, isolation_level=None)
            _create_schema(conn)
        except (OSError, sqlite3.Error):
            return None
    return conn


def _create_schema(conn: sqlite3.Connection) -> None:
    # WAL: readers never wait for a heal.
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("BEGIN IMMEDIATE")
    try:
        if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
            conn.execute("COMMIT")  # another process created it while we waited
            return
        for table in ("meta", "entries", "subjects"):
            conn.execute(f"DROP TABLE IF EXISTS {table}")
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER)")
        conn.execute("CREATE TABLE entries (name TEXT PRIMARY KEY, logged TEXT, mtime_ns INTEGER, size INTEGER)")
        conn.execute("CREATE TABLE subjects (subject TEXT, logged TEXT, name TEXT, rank TEXT)")
        conn.execute("CREATE INDEX subjects_by_time ON subjects (subject, logged DESC, rank DESC)")
        conn.execute("CREATE INDEX subjects_by_name ON subjects (name)")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _meta(conn: sqlite3.Connection) -> dict[str, int]:
    return dict(conn.execute("SELECT key, value FROM meta").fetchall())


def _freshness(conn: sqlite3.Connection, folder: str, mtime_ns: int) -> str:
    """`current`, `stale`, or `settled` (racy before, verified now and safe to mark current)."""
    meta = _meta(conn)
    if meta.get("mtime_ns") != mtime_ns:
        return "stale"
    if meta.get("listed_ns", 0) - mtime_ns > RACY_NS:
        return "current"
    # Racy: an entry added in the same mtime tick as the last listing would be invisible to the
    # mtime check. Count the listing; equal counts with an unchanged mtime mean nothing was added.
    checked_ns = time.time_ns()
    if len(_raw_listing(folder)) != meta.get("count", -1):
        return "stale"
    if checked_ns - mtime_ns > RACY_NS:
        conn.execute("INSERT OR REPLACE INTO meta VALUES ('listed_ns', ?)", (checked_ns,))
        return "settled"
    return "current"


def _index_entry(conn: sqlite3.Connection, folder: str, name: str) -> None:
    from pylon.canon.journal import read_entry, sort_key

    path = os.path.join(folder, name)
    try:
        st = os.stat(path)
    except OSError:
        return
    if not os.path.isfile(path):
        return
    entry = read_entry(path)
    logged, rank = sort_key(entry.logged, name)
    conn.execute("INSERT OR REPLACE INTO entries VALUES (?, ?, ?, ?)", (name, logged, st.st_mtime_ns, st.st_size))
    conn.executemany(
        "INSERT INTO subjects VALUES (?, ?, ?, ?)",
        [(subject, logged, name, rank) for subject in dict.fromkeys(entry.subjects)],
    )


def _drop(conn: sqlite3.Connection, names: Iterable[str]) -> None:
    for name in names:
        conn.execute("DELETE FROM entries WHERE name = ?", (name,))
        conn.execute("DELETE FROM subjects WHERE name = ?", (name,))


def _heal(conn: sqlite3.Connection, folder: str) -> None:
    conn.execute("BEGIN IMMEDIATE")
    try:
        # Record the mtime seen *before* listing: anything added after it changes the mtime again.
        mtime_ns = os.stat(folder).st_mtime_ns
        if _freshness(conn, folder, mtime_ns) != "stale":
            conn.execute("COMMIT")  # healed by another process while we waited for the lock
            return
        raw = _raw_listing(folder)
        on_disk = set(raw)
        # Set arithmetic runs in C; 20,000 names per heal must not cost a Python loop each. The
        # indexed names come back as one string built inside sqlite, not 20,000 fetched rows.
        row = conn.execute("SELECT group_concat(name, char(10)) FROM entries").fetchone()
        indexed = set(row[0].split("\n")) if row and row[0] else set()
        gone = indexed - on_disk
        _drop(conn, gone)
        new = sorted(n for n in on_disk - indexed if _is_entry_name(n))
        if not new and not gone:
            # Same names, yet the folder changed: an entry was replaced (editor save by rename).
            stamps = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT name, mtime_ns, size FROM entries")}
            for name in stamps:
                try:
                    st = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                if (st.st_mtime_ns, st.st_size) != stamps[name]:
                    _drop(conn, [name])
                    new.append(name)
        for name in new:
            _index_entry(conn, folder, name)
        conn.executemany(
            "INSERT OR REPLACE INTO meta VALUES (?, ?)",
            [("mtime_ns", mtime_ns), ("listed_ns", time.time_ns()), ("count", len(raw))],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _in_memory(folder: str, subject: str, limit: int) -> JournalHits:
    """No writable cache: read every entry (slow, correct)."""
    from pylon.canon.journal import read_entry, sort_key

    hits = []
    for name in _listing(folder):
        path = os.path.join(folder, name)
        if not os.path.isfile(path):
            continue
        entry = read_entry(path)
        if subject in entry.subjects:
            hits.append((sort_key(entry.logged, name), name))
    hits.sort(reverse=True)
    return JournalHits([name for _, name in hits[:limit]], len(hits))


def newest(store: Store, subject: str, limit: int = 3) -> JournalHits:
    """The `limit` newest entries (by `logged`, then name) whose subjects include `subject`."""
    folder = store.journal_dir
    try:
        mtime_ns = os.stat(folder).st_mtime_ns
    except OSError:
        return JournalHits([], 0)
    conn = _open(store)
    if conn is None:
        return _in_memory(folder, subject, limit)
    try:
        import sqlite3

        try:
            if _freshness(conn, folder, mtime_ns) == "stale":
                _heal(conn, folder)
            rows = conn.execute(
                "SELECT name FROM subjects WHERE subject = ? ORDER BY logged DESC, rank DESC LIMIT ?",
                (subject, limit),
            ).fetchall()
            total = conn.execute("SELECT count(*) FROM subjects WHERE subject = ?", (subject,)).fetchone()[0]
        except sqlite3.OperationalError:
            # Locked past the timeout, disk full, read-only: the index is an optimisation only.
            return _in_memory(folder, subject, limit)
        except sqlite3.DatabaseError:
            # A damaged file: drop it (the next read rebuilds it) and answer from the entries.
            conn.close()
            _remove(store)
            return _in_memory(folder, subject, limit)
        return JournalHits([r[0] for r in rows], total)
    finally:
        conn.close()


def _remove(store: Store) -> None:
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(os.path.join(store.cache_dir, CACHE_NAME + suffix))
        except OSError:
            pass
