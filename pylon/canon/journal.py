"""The journal: one immutable file per event, `journal/<UTC date>-<slug>[-N].md`.

Entries are created with an exclusive create (never overwritten, never edited). Each one starts
with `subject: [a, b]` and `logged: <UTC instant>` front matter. `read_entry` reads one back for
the index, lint and search; it never imports yaml.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pylon.canon.subjects import JOURNAL_NAME, decode_subjects, encode_subjects
from pylon.errors import PylonError, UsageError

if TYPE_CHECKING:
    from pylon.canon.address import Address
    from pylon.canon.store import Project

SLUG_MAX = 60
DEFAULT_SLUG = "entry"
# Give up after this many numbered names for one date and slug (a runaway loop guard, not a limit
# anyone should meet: 200 concurrent writers use -2 .. -200).
_MAX_SUFFIX = 100_000
_LOGGED = re.compile(r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?$")


@dataclass
class JournalEntry:
    """One journal file as read back. `problems` lists what is wrong with it (never raised)."""

    name: str
    subjects: list[str] = field(default_factory=list)
    logged: str | None = None
    text: str = ""
    problems: list[str] = field(default_factory=list)


def slugify(text: str) -> str:
    """Lower-cased; runs of anything but a-z/0-9 become `-`; trimmed; at most SLUG_MAX; default `entry`."""
    slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    slug = slug[:SLUG_MAX].rstrip("-")
    return slug or DEFAULT_SLUG


def utc_now() -> datetime:
    return datetime.now(UTC)


def logged_instant(now: datetime) -> str:
    """`2026-08-10T12:34:56.123456Z`: microseconds so entries of one second still order."""
    return now.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def render_entry(subjects: list[str], logged: str, text: str, provenance: dict[str, str] | None = None) -> str:
    """The entry file; `provenance` adds `harness:` and `session:` lines after `logged`, as pi-canon writes them."""
    from pylon.canon.subjects import encode_item

    body = text if text.endswith("\n") else text + "\n"
    extra = "".join(f"{key}: {encode_item(value)}\n" for key, value in (provenance or {}).items())
    return f"---\nsubject: {encode_subjects(subjects)}\nlogged: {logged}\n{extra}---\n{body}"


def _entry_name(date: str, slug: str, n: int) -> str:
    return f"{date}-{slug}.md" if n == 1 else f"{date}-{slug}-{n}.md"


def _first_free_guess(folder: Path, date: str, slug: str) -> int:
    """The first number whose name is free in one listing, so a busy day does not try -2, -3...
    one exclusive create at a time (the create still decides: another writer may win the race)."""
    try:
        names = set(os.listdir(folder))
    except FileNotFoundError:
        return 1
    n = 1
    while _entry_name(date, slug, n) in names:
        n += 1
    return n


def create_entry(
    journal_dir: Path,
    subjects: list[str],
    text: str,
    slug: str,
    now: datetime | None = None,
    provenance: dict[str, str] | None = None,
) -> Path:
    """Create the entry file exclusively: `<date>-<slug>.md`, else `-2`, `-3`, ...; returns its path."""
    from pylon.canon.safeio import StoreDir

    now = now or utc_now()
    date = now.strftime("%Y-%m-%d")
    data = render_entry(subjects, logged_instant(now), text, provenance).encode("utf-8")
    from pylon.canon.safeio import check_size

    check_size(data, "The journal entry")
    n = _first_free_guess(journal_dir, date, slug)
    # Through a descriptor of journal/ opened without following links: a `journal` link planted
    # in the store is refused, never written through.
    with StoreDir(str(journal_dir.parent), [journal_dir.name]) as folder:
        while n < _MAX_SUFFIX:
            name = _entry_name(date, slug, n)
            if folder.create(name, data):
                return journal_dir / name
            n += 1
    raise PylonError("journal-full", f"Every name for {date}-{slug} is taken.", "Pass a different --slug.")


def check_slug(slug: str) -> str:
    """A `--slug` given by hand goes through the same rules (and must leave something)."""
    clean = slugify(slug)
    if not re.search(r"[a-z0-9]", slug.lower()):
        raise UsageError(
            "bad-slug",
            f"--slug {slug!r} has no letters or digits.",
            'canon journal "..." --slug short-name',
        )
    return clean


# ---- reading entries back -------------------------------------------------------------------

_KEY = re.compile(r"^(subject|subjects|logged):(?:[ \t]+(.*?))?[ \t]*$")


def parse_entry(name: str, text: str) -> JournalEntry:
    """Read `subject` and `logged` from an entry's front matter without yaml."""
    from pylon.canon.frontmatter import decode_value, parse

    entry = JournalEntry(name=name)
    if not JOURNAL_NAME.match(name):
        entry.problems.append(f"{name} is not named <YYYY-MM-DD>-<slug>[-N].md")
    doc = parse(text)
    entry.text = doc.body
    if not doc.has_front_matter:
        entry.problems.append("no front matter (subject, logged)")
        return entry
    if not doc.close_fence:
        entry.problems.append("front matter opened with --- is never closed")
        return entry
    lines = [ln.rstrip("\r\n") for ln in doc.fm_lines]
    seen: set[str] = set()
    i = 0
    while i < len(lines):
        match = _KEY.match(lines[i])
        i += 1
        if not match:
            continue
        key, value = match.group(1), (match.group(2) or "")
        key = "subject" if key == "subjects" else key
        if key in seen:
            entry.problems.append(f"{key} is given twice")
            continue
        seen.add(key)
        if key == "subject":
            if not value:
                # A block list written by hand: `subject:` then `  - a` lines.
                items: list[str] = []
                while i < len(lines) and re.match(r"^\s*-(\s|$)", lines[i]):
                    item = lines[i].strip()[1:].strip()
                    try:
                        items.append(decode_value(item) if item else "")
                    except ValueError as exc:
                        entry.problems.append(f"subject item {item!r}: {exc}")
                    i += 1
                entry.subjects = [s for s in items if s]
                continue
            try:
                entry.subjects = decode_subjects(value)
            except ValueError as exc:
                entry.problems.append(f"subject list {value!r} is malformed: {exc}")
        else:
            try:
                logged = decode_value(value)
            except ValueError as exc:
                entry.problems.append(f"logged {value!r}: {exc}")
                continue
            if not _LOGGED.match(logged):
                entry.problems.append(f"logged {logged!r} is not an ISO-8601 instant")
            entry.logged = logged
    if "subject" not in seen:
        entry.problems.append("no subject list")
    if "logged" not in seen:
        entry.problems.append("no logged instant")
    return entry


def read_entry(path: str | Path) -> JournalEntry:
    """Read one journal file; problems (bad name, bad UTF-8, missing keys) are listed, not raised."""
    from pylon.canon.safeio import read_regular

    path = Path(path)
    try:
        raw = read_regular(str(path), what="journal entry")
    except IsADirectoryError:
        return JournalEntry(name=path.name, problems=["is a folder, not a file"])
    except PylonError as exc:  # a FIFO, a socket, a huge file: a problem, never a hang
        return JournalEntry(name=path.name, problems=[exc.message])
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return JournalEntry(name=path.name, problems=[f"not valid UTF-8 (byte {exc.start})"])
    return parse_entry(path.name, text)


def sort_key(entry_logged: str | None, name: str) -> tuple[str, str]:
    """Ordering key: by `logged` (normalised to UTC text; the file name's date when absent, as in
    every pi-canon 0.1 entry), then by name with its `-N` suffix compared as a number, so `-11`
    is newer than `-9` and both newer than the unnumbered first entry."""
    return (normalize_logged(entry_logged) if entry_logged else name[:10], name_rank(name))


def name_rank(name: str) -> str:
    """`2026-01-01-x-9.md` -> `2026-01-01-x` NUL `00000009`: text order is creation order."""
    stem = name[:-3] if name.endswith(".md") else name
    base, dash, digits = stem.rpartition("-")
    if dash and digits.isdigit() and len(digits) <= 8 and len(base) > 10:
        return f"{base}\0{int(digits):08d}"
    return f"{stem}\0{1:08d}"


def normalize_logged(logged: str) -> str:
    """Turn any accepted instant into `YYYY-MM-DDTHH:MM:SS.ffffffZ` so text order is time order."""
    text = logged.strip()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z", text):
        return text
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return text
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=UTC)
    return logged_instant(stamp.astimezone(UTC))


def is_entry_name(name: str) -> bool:
    return bool(JOURNAL_NAME.match(name))


# ---- `canon journal` --------------------------------------------------------------------------


@dataclass
class JournalResult:
    path: Path
    name: str
    subjects: list[str]
    logged: str
    advice: list = field(default_factory=list)  # list[pylon.canon.advice.Advice]
    # Store files and folders this entry created (relative to the project root, as `canon init`
    # prints them); empty when the store was already complete.
    created_store: list[str] = field(default_factory=list)
    provenance: dict[str, str] = field(default_factory=dict)  # harness, session (when given)


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # bytes that are not UTF-8 reach argv as lone surrogates
        return False
    return True


def subject_address(project: Project, arg: str) -> tuple[str, Address | None]:
    """A `--subject` as stored: the address of the article governing it when one does (so the entry
    shows on that article's `canon read`), else the address itself. Returns (subject, governing)."""
    from pylon.canon.address import resolve, to_address
    from pylon.canon.text import has_control

    if has_control(arg) or not arg.isascii() and not _utf8(arg):
        # An entry is immutable: a subject with a line break would break its front matter forever.
        raise UsageError(
            "bad-subject",
            f"--subject {arg!r} holds a line break or another control character, or is not UTF-8.",
            'canon journal "..." --subject src/app.py',
        )
    address = to_address(arg, project)
    if not address.path:
        raise UsageError(
            "bad-subject",
            f"--subject {arg!r} is the project root, which no article describes.",
            'canon journal "..." --subject src/app.py',
        )
    governing = resolve(address, project).governing
    return str(governing or address), governing


def journal(
    project: Project,
    text: str,
    subjects: list[str] | None = None,
    slug: str | None = None,
    provenance: dict[str, str] | None = None,
) -> JournalResult:
    """Create one journal entry in the project store (never in a mount); never overwrite one.
    `provenance` (check_provenance): who wrote it, as `harness:`/`session:` front matter."""
    from pylon.canon.advice import Advice, missing_values, value_warning
    from pylon.canon.init import ensure_store, relative_paths
    from pylon.canon.text import check_text

    check_text(text, "TEXT")
    if not text.strip():
        raise PylonError(
            "empty-body",
            "A journal entry needs text.",
            'canon journal "what happened, with names and exact numbers" --subject ADDRESS',
        )
    clean_slug = check_slug(slug) if slug else DEFAULT_SLUG
    stored: list[str] = []
    governing_of: dict[str, Address | None] = {}
    for arg in subjects or []:
        subject, governing = subject_address(project, arg)
        if subject not in stored:
            stored.append(subject)
            governing_of[subject] = governing
    from pylon.canon.text import check_entry

    check_entry(text, stored)  # where an agent writes: subjects count toward the entry's limit
    from pylon.canon.safeio import check_path_length

    # The longest name this entry could take (`-<suffix>` included), checked before anything is made.
    longest = f"{utc_now():%Y-%m-%d}-{clean_slug}-{_MAX_SUFFIX}.md"
    check_path_length(os.path.join(project.store.journal_dir, longest), "Run canon from a project with a shorter path.")
    created = relative_paths(ensure_store(project.store), project.root)
    now = utc_now()
    path = create_entry(project.store.journal, stored, text.strip("\n"), clean_slug, now, provenance)
    result = JournalResult(
        path, path.name, stored, logged_instant(now), created_store=created, provenance=dict(provenance or {})
    )
    for subject in stored:
        governing = governing_of[subject]
        if governing is None:
            result.advice.append(
                Advice(
                    "unknown-subject",
                    f"subject {subject} names no article, so no `canon read` will list this entry. "
                    f'Create it: canon write {subject} --capsule "..." --body "..."',
                )
            )
            continue
        article = project.store_for(governing.mount).article_path(governing.path)
        from pylon.canon.safeio import read_regular

        try:
            article_text = read_regular(str(article), what="article").decode("utf-8")
        except (OSError, UnicodeDecodeError, PylonError):
            continue
        missing = missing_values(text, article_text)
        if missing:
            result.advice.append(value_warning(subject, missing))
    return result
