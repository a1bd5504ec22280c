"""`canon search`: ranked full-text search, BM25 over address, capsule and body.

Tokens are runs of letters and digits of at least two characters, lower-cased, so `db` and `s3`
are searchable. The address and the capsule count more than the body (they are repeated in the
scored text: address x3, capsule x2), the usual cheap stand-in for per-field BM25 weights.
Journal entries join the ranking only with `--journal`. Nothing is cached: search reads the store.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from dataclasses import dataclass

from pylon.canon.frontmatter import parse
from pylon.canon.safeio import read_regular
from pylon.canon.store import Project
from pylon.canon.views.catalog import stores
from pylon.errors import PylonError, UsageError

_TOKEN = re.compile(r"[^\W_]{2,}")
K1, B = 1.2, 0.75
ADDRESS_WEIGHT, CAPSULE_WEIGHT = 3, 2


@dataclass
class Hit:
    kind: str  # "article" | "journal"
    address: str  # the article address, or `journal/<file name>`
    capsule: str | None
    score: float
    snippet: str = ""


@dataclass
class SearchResult:
    query: str
    terms: list[str]
    hits: list[Hit]
    total: int  # how many documents matched in all
    journal_matches: int = 0  # without --journal and no article hit: entries that would match

    @property
    def more(self) -> int:
        return self.total - len(self.hits)


def tokens(text: str) -> list[str]:
    return [t.lower() for t in _TOKEN.findall(text)]


@dataclass
class _Doc:
    kind: str
    address: str
    capsule: str | None
    body: str
    counts: Counter[str]
    length: int


def _article_docs(project: Project) -> list[_Doc]:
    docs: list[_Doc] = []
    for store in stores(project):
        prefix = f"{store.mount}:" if store.mount else ""
        for address, file in store.iter_articles():
            try:
                text = read_regular(str(file), what="article").decode("utf-8", "replace")
            except (OSError, PylonError):
                continue  # a FIFO, a huge file, a vanished one: not searchable, never waited on
            doc = parse(text)
            capsule = doc.owned.get("capsule") or None
            full = prefix + address
            words = tokens(full) * ADDRESS_WEIGHT + tokens(capsule or "") * CAPSULE_WEIGHT + tokens(doc.body)
            docs.append(_Doc("article", full, capsule, doc.body, Counter(words), len(words)))
    return docs


def _journal_docs(project: Project) -> list[_Doc]:
    import os

    from pylon.canon.journal import read_entry

    folder = project.store.journal
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".md") and not n.startswith("."))
    except OSError:
        return []
    docs: list[_Doc] = []
    for name in names:
        path = folder / name
        if not path.is_file():
            continue
        entry = read_entry(path)
        words = (
            tokens(name[11:-3]) * ADDRESS_WEIGHT
            + tokens(" ".join(entry.subjects)) * CAPSULE_WEIGHT
            + tokens(entry.text)
        )
        docs.append(_Doc("journal", f"journal/{name}", None, entry.text, Counter(words), len(words)))
    return docs


def _snippet(body: str, terms: set[str], width: int = 100) -> str:
    for line in body.splitlines():
        if terms & set(tokens(line)):
            line = " ".join(line.split())
            return line if len(line) <= width else line[: width - 1] + "…"
    return ""


def search(project: Project, query: str, *, journal: bool = False, limit: int = 10) -> SearchResult:
    terms = list(dict.fromkeys(tokens(query)))
    if not terms:
        raise UsageError(
            "bad-query",
            f"The query {query!r} has no word of two or more letters or digits to search for.",
            'canon search "config loader"',
        )
    if limit < 1:
        raise UsageError("usage", f"--limit must be 1 or more, not {limit}.", "canon search QUERY --limit 10")
    docs = _article_docs(project) + (_journal_docs(project) if journal else [])
    n = len(docs)
    avg = (sum(d.length for d in docs) / n) if n else 1.0
    df = {t: sum(1 for d in docs if t in d.counts) for t in terms}
    scored: list[tuple[float, _Doc]] = []
    for d in docs:
        score = 0.0
        for t in terms:
            tf = d.counts.get(t, 0)
            if not tf:
                continue
            idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * d.length / (avg or 1.0)))
        if score > 0:
            scored.append((score, d))
    scored.sort(key=lambda pair: (-pair[0], pair[1].address))
    wanted = set(terms)
    hits = [Hit(d.kind, d.address, d.capsule, round(score, 4), _snippet(d.body, wanted)) for score, d in scored[:limit]]
    result = SearchResult(query, terms, hits, len(scored))
    if not scored and not journal:
        # Nothing in the articles: say whether --journal would find it, rather than "nothing".
        result.journal_matches = sum(1 for d in _journal_docs(project) if wanted & d.counts.keys())
    return result
