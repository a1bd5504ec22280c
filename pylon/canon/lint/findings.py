"""Findings and the rule catalogue: stable ids, default severities, descriptions, fixability."""

from __future__ import annotations

from pylon.canon.record import Frozen

ERROR, WARNING = "error", "warning"
# A note informs and never fails a lint, not even under --strict (SARIF and GitHub know the level).
NOTE = "note"


class RuleInfo(Frozen):
    __slots__ = ("id", "severity", "summary", "help", "fixable")
    id: str
    severity: str  # the default; `schema` reports bounds as warnings
    summary: str  # one line: what it finds
    help: str  # what to do about it
    fixable: bool

    def __init__(self, id: str, severity: str, summary: str, help: str, fixable: bool = False) -> None:
        self._init(id=id, severity=severity, summary=summary, help=help, fixable=fixable)


RULES: dict[str, RuleInfo] = {
    r.id: r
    for r in (
        RuleInfo(
            "front-matter-invalid",
            ERROR,
            "Front matter is unterminated, is not valid YAML, gives an owned key twice, or an owned value "
            "that YAML would read as another type.",
            "Close the block with ---, fix the YAML, keep one line per owned key; `canon lint --fix` quotes "
            "owned values.",
            True,
        ),
        RuleInfo(
            "unquoted-value",
            WARNING,
            "An owned value written unquoted that YAML reads as another type or cannot parse (`yes`, `123`, "
            "`null`, `2026-01-01`, `- item`, `? q`), as pi-canon writes them; canon reads the text shown.",
            "`canon lint --fix` quotes it (or any canon write of that field does).",
            True,
        ),
        RuleInfo(
            "dead-link",
            ERROR,
            "A [[target]] or [[target|label]] outside code that names no article.",
            "Link the exact address of an existing article (`canon map` lists them), or create the article.",
        ),
        RuleInfo(
            "schema",
            ERROR,
            "The article breaks a schema.json rule (required: error; min/max bounds: warning), or "
            "schema.json itself has a problem (warning; the broken part is ignored).",
            "Fill in the required field, or keep it within the bounds the schema's hint describes.",
        ),
        RuleInfo(
            "journal-name",
            ERROR,
            "A file or folder in journal/ not named <YYYY-MM-DD>-<slug>[-N].md with a real date.",
            "Log entries with `canon journal`; rename or remove stray files.",
        ),
        RuleInfo(
            "unreadable",
            ERROR,
            "An article or journal file that cannot be read as UTF-8 text (invalid UTF-8, a folder named "
            "*.md, a broken link, a special file, no permission).",
            "Re-save the file as UTF-8, or remove it.",
        ),
        RuleInfo(
            "symlink",
            ERROR,
            "A symbolic link inside .canon/ (an article, articles/, journal/ or an entry): writes refuse "
            "to go through it, since a link can aim a write at any file the user can write.",
            "Replace the link with the real file or folder (or delete it).",
        ),
        RuleInfo(
            "temp-file",
            WARNING,
            "A `.<name>.pylon-tmp-*` file a killed write left behind (the next write of that article removes it).",
            "Delete it; it holds no committed content.",
        ),
        RuleInfo(
            "nul-byte",
            ERROR,
            "An article contains a NUL byte (git and editors then treat it as binary).",
            "Remove the NUL bytes; canon write refuses text that holds them.",
        ),
        RuleInfo(
            "no-capsule",
            WARNING,
            "The article has no capsule.",
            'Add one dense line: canon write ADDRESS --capsule "..."',
        ),
        RuleInfo(
            "capsule-too-long",
            WARNING,
            "The capsule is over 1000 characters.",
            "Keep the capsule to one dense line; move detail into the body.",
        ),
        RuleInfo(
            "capsule-multiline",
            WARNING,
            "The capsule spans several lines.",
            "A capsule is one line; `canon lint --fix` folds its line breaks into spaces.",
            True,
        ),
        RuleInfo(
            "capsule-changelog",
            WARNING,
            "The capsule reads like a change log entry (Added/Updated/Fixed..., fix:, a date).",
            "State the current truth; record events with `canon journal`.",
        ),
        RuleInfo(
            "pasted-front-matter",
            WARNING,
            "The body starts with a second, pasted front-matter block.",
            "Remove it; `canon lint --fix` does when it agrees with the real front matter.",
            True,
        ),
        RuleInfo(
            "body-large",
            WARNING,
            "The body is over 20000 characters.",
            "Split it into child articles (one per sub-asset).",
        ),
        RuleInfo(
            "body-long", WARNING, "The body is over 8000 characters.", "Tighten it, or split parts into child articles."
        ),
        RuleInfo(
            "tiny-child",
            WARNING,
            "A nested article with a body under 400 characters whose parent article exists.",
            "Fold it into the parent article and delete it.",
        ),
        RuleInfo(
            "address-eventish",
            WARNING,
            "An address with a log/journal/session/meeting segment or a date, that maps to no asset.",
            "Articles hold current truth per asset; record events with `canon journal`.",
        ),
        RuleInfo(
            "orphan",
            WARNING,
            "A nested article whose parent folder exists on disk but nothing on disk maps to its address "
            "(scope: rule articles are exempt).",
            "Move it with the asset (`canon mv OLD NEW`), delete it, or mark it `scope: rule`.",
        ),
        RuleInfo(
            "unknown-subject",
            WARNING,
            "A journal entry's subject names no article.",
            "Create the article, or use the address of an existing one in later entries.",
        ),
    )
}

# `journal-changed` is decided from git (pylon/canon/git/journal.py, rules_journal_changed.py); the
# whole-store lint adds it in a git checkout.
RULES["journal-changed"] = RuleInfo(
    "journal-changed",
    ERROR,
    "A journal entry that exists in the base revision (--base, default HEAD) was modified or deleted: the "
    "journal is append-only.",
    "Restore the entry (`git checkout REV -- PATH`) and record the correction as a new entry with `canon journal`.",
)


class Finding(Frozen):
    __slots__ = ("rule", "severity", "message", "path", "line", "fixable")
    rule: str
    severity: str
    message: str
    path: str  # POSIX path relative to the report base (the repository root, else the project root)
    line: int
    fixable: bool

    def __init__(self, rule: str, severity: str, message: str, path: str, line: int = 1, fixable: bool = False) -> None:
        self._init(rule=rule, severity=severity, message=message, path=path, line=line, fixable=fixable)

    def to_dict(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
            "fixable": self.fixable,
        }


def finding(
    rule: str, message: str, path: str, line: int = 1, severity: str | None = None, fixable: bool | None = None
) -> Finding:
    info = RULES[rule]
    return Finding(
        rule, severity or info.severity, message, path, max(1, line), info.fixable if fixable is None else fixable
    )


# Findings on committed journal entries, which no edit may fix (pylon/canon/lint/committed.py).
RULES["legacy-journal"] = RuleInfo(
    "legacy-journal",
    NOTE,
    "Journal entries already committed to git carry warnings (no `logged` or `subject`, as pi-canon 0.1.x "
    "wrote them; a subject naming no article): counted in one note, never a failure.",
    "Nothing to do: entries are immutable, and `logged` falls back to the file name's date. New entries "
    "from `canon journal` carry both.",
)

# An article pi-canon stored for a dotted folder (`src/my.pkg` as `src/my`; pylon/canon/address.py).
RULES["dotted-folder"] = RuleInfo(
    "dotted-folder",
    WARNING,
    "An article pi-canon stored for a folder whose name has a dot under the shorter name (`src/my.pkg/` as "
    "`src/my`): canon reads it for that folder, and says how to give it the folder's own address.",
    "Move it: canon mv OLD NEW (the finding names both).",
)
