"""Front matter that round-trips byte for byte.

We never re-serialise YAML: the front-matter block is kept as raw lines, and only the lines of the
owned keys (`capsule`, `updated`, `scope`) are ever replaced, inserted or removed. Every other line
(foreign keys, block lists, comments) survives every write untouched and in order. YAML parsing
(python-frontmatter) is used only to validate, in `yaml_problems`, and imported lazily.
"""

from __future__ import annotations

from pylon.canon.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

OWNED = ("capsule", "updated", "scope")
_BOM = "\ufeff"
_SPECIAL_CHARS = set(":#[]{},&*!|>%@\\\"'`")
_DIGITS = "0123456789"


class _LazyPattern:
    """A regex compiled (and `re` imported) on first use: parsing articles needs no regex, and
    importing re (with enum, functools and the compiler) costs ~6 ms of every `canon read`."""

    def __init__(self, pattern: str, verbose: bool = False) -> None:
        self.pattern, self.verbose = pattern, verbose
        self._compiled: re.Pattern[str] | None = None

    def match(self, text: str) -> re.Match[str] | None:
        if self._compiled is None:
            import re

            self._compiled = re.compile(self.pattern, re.VERBOSE if self.verbose else 0)
        return self._compiled.match(text)


# Plain scalars YAML 1.1 (PyYAML) would not read back as the same string.
_YAML_TYPED = _LazyPattern(
    r"""^(?:
        y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF
      | ~|null|Null|NULL
      | [-+]?(?:0|[1-9][0-9_]*)            # int
      | [-+]?0b[01_]+ | [-+]?0x[0-9a-fA-F_]+ | [-+]?0[0-7_]+ | [-+]?0o[0-7_]+
      | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?   # sexagesimal
      | [-+]?(?:[0-9][0-9_]*)?\.[0-9_]*(?:[eE][-+]?[0-9]+)? | [-+]?[0-9][0-9_]*(?:[eE][-+]?[0-9]+)
      | [-+]?\.(?:inf|Inf|INF) | \.(?:nan|NaN|NAN)
      | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?
        (?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?
      | =
    )$""",
    verbose=True,
)


class Problem(Record):
    """A front-matter defect; `line` is 1-based in the file."""

    __slots__ = ("line", "message")

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message


class Document:
    """An article split into its parts. `render()` of an unmodified Document gives back the input."""

    __slots__ = ("bom", "open_fence", "fm_lines", "close_fence", "body", "owned", "spans", "problems", "newline")

    def __init__(self) -> None:
        self.bom = ""
        self.open_fence = ""  # "---\n" (with its terminator) or "" when there is no front matter
        self.fm_lines: list[str] = []  # raw lines between the fences, terminators kept
        self.close_fence = ""
        self.body = ""
        self.owned: dict[str, str] = {}
        # key -> (first index, end index) into fm_lines of the line(s) holding that key's value
        self.spans: dict[str, tuple[int, int]] = {}
        self.problems: list[Problem] = []
        self.newline = "\n"

    @property
    def has_front_matter(self) -> bool:
        return bool(self.open_fence)

    @property
    def body_line(self) -> int:
        """1-based line number of the body's first line in the file."""
        if not self.has_front_matter:
            return 1
        return len(self.fm_lines) + (2 if self.close_fence else 1) + 1

    def render(self) -> str:
        return self.bom + self.open_fence + "".join(self.fm_lines) + self.close_fence + self.body

    def set(self, key: str, value: str | None) -> None:
        """Set an owned key (None removes it), touching no other front-matter line."""
        assert key in OWNED
        if value is None:
            if key in self.spans:
                start, end = self.spans[key]
                del self.fm_lines[start:end]
                self._reindex()
            return
        line = f"{key}: {format_value(key, value)}{self.newline}"
        if not self.has_front_matter:
            self.open_fence, self.close_fence = f"---{self.newline}", f"---{self.newline}"
        if key in self.spans:
            start, end = self.spans[key]
            self.fm_lines[start:end] = [line]
        else:
            # Keep owned keys in canonical order: after the nearest owned key that comes before it.
            at = 0
            for earlier in OWNED[: OWNED.index(key)]:
                if earlier in self.spans:
                    at = max(at, self.spans[earlier][1])
            if self.fm_lines and not self.fm_lines[-1].endswith("\n") and at == len(self.fm_lines):
                self.fm_lines[-1] += self.newline
            self.fm_lines.insert(at, line)
        self.owned[key] = value
        self._reindex()

    def _reindex(self) -> None:
        fresh = _scan_owned(self.fm_lines, first_line=2)
        self.owned, self.spans = fresh[0], fresh[1]


def _split_lines(text: str) -> list[str]:
    """Lines ending in `\n` (so `\r\n` too). Not str.splitlines: it also breaks at U+2028,
    U+2029, U+0085, \v, \f and \x1c-\x1e, which a value may hold, and would cut it short."""
    if not text:
        return []
    lines = text.split("\n")
    out = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        out.append(lines[-1])
    return out


def parse(text: str) -> Document:
    """Split `text` into BOM, front matter (raw lines) and body; decode owned keys; note problems."""
    doc = Document()
    if text.startswith(_BOM):
        doc.bom, text = _BOM, text[1:]
    first_end = text.find("\n")
    first = text if first_end < 0 else text[: first_end + 1]
    if first.rstrip("\r\n") != "---":
        doc.body = text
        return doc
    doc.newline = "\r\n" if first.endswith("\r\n") else "\n"
    doc.open_fence = first
    rest = _split_lines(text[len(first) :])
    for i, line in enumerate(rest):
        if line.rstrip("\r\n") in ("---", "..."):
            doc.fm_lines = rest[:i]
            doc.close_fence = line
            doc.body = "".join(rest[i + 1 :])
            break
    else:
        doc.fm_lines = rest
        doc.problems.append(Problem(1, "front matter opened with --- is never closed"))
    doc.owned, doc.spans, problems = _scan_owned(doc.fm_lines, first_line=2)
    doc.problems.extend(problems)
    return doc


def _owned_line(raw: str) -> tuple[str | None, str]:
    """(key, value) of a line `capsule|updated|scope: value` (the regex
    `^(capsule|updated|scope):(?:[ \t]+(.*?))?[ \t]*$`, without importing re); (None, "") else."""
    key, colon, rest = raw.partition(":")
    if not colon or key not in OWNED or rest[:1] not in ("", " ", "\t"):
        return None, ""
    return key, rest.strip(" \t")


def _scan_owned(lines: list[str], first_line: int) -> tuple[dict[str, str], dict[str, tuple[int, int]], list[Problem]]:
    owned: dict[str, str] = {}
    spans: dict[str, tuple[int, int]] = {}
    problems: list[Problem] = []
    i = 0
    while i < len(lines):
        raw = lines[i].rstrip("\r\n")
        key, value = _owned_line(raw)
        if key is None:
            i += 1
            continue
        # Continuation lines (indented) belong to this value: folded block or multi-line plain.
        end = i + 1
        while end < len(lines) and (lines[end][:1] in (" ", "\t") or not lines[end].strip()):
            if not lines[end].strip() and (end + 1 >= len(lines) or lines[end + 1][:1] not in (" ", "\t")):
                break
            end += 1
        continuation = [ln.strip() for ln in lines[i + 1 : end]]
        try:
            decoded = decode_value(value, continuation)
        except ValueError as exc:
            problems.append(Problem(first_line + i, f"{key}: {exc}"))
            decoded = value
        if key in spans:
            problems.append(Problem(first_line + i, f"owned key {key!r} is given twice"))
        else:
            owned[key] = decoded
            spans[key] = (i, end)
        i = end
    return owned, spans, problems


def decode_value(value: str, continuation: list[str] | None = None) -> str:
    """Read a plain, double-quoted, single-quoted or block (`>`/`|`) scalar as YAML would."""
    continuation = continuation or []
    value = value.strip()
    if value[:1] in (">", "|") and _is_block_header(value):
        joiner = " " if value[0] == ">" else "\n"
        return joiner.join(line for line in continuation).strip()
    if value.startswith('"'):
        whole = " ".join([value, *continuation]) if continuation else value
        return _decode_double(whole)
    if value.startswith("'"):
        whole = " ".join([value, *continuation]) if continuation else value
        if len(whole) < 2 or not whole.endswith("'"):
            raise ValueError("single-quoted value is not closed")
        return whole[1:-1].replace("''", "'")
    plain = " ".join([value, *continuation]).strip() if continuation else value
    comment = _comment_start(plain) if "#" in plain else -1
    if comment >= 0:
        plain = plain[:comment].rstrip()
    return plain


def _is_block_header(value: str) -> bool:
    """`value` is a block scalar header (the regex `[>|][+-]?[0-9]?`, whole)."""
    rest = value[1:]
    if rest[:1] in ("+", "-") and rest:
        rest = rest[1:]
    if rest[:1] and rest[0] in _DIGITS:
        rest = rest[1:]
    return value[:1] in (">", "|") and not rest


def _comment_start(text: str) -> int:
    """Offset of the first ` #` or tab-`#` (where a plain scalar's comment starts), else -1."""
    hits = [at for at in (text.find(" #"), text.find("\t#")) if at >= 0]
    return min(hits) if hits else -1


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "/": "/", "0": "\0", " ": " ", "e": "\x1b"}


def _decode_double(value: str) -> str:
    out: list[str] = []
    i = 1
    while i < len(value):
        ch = value[i]
        if ch == '"':
            if value[i + 1 :].strip() and not value[i + 1 :].strip().startswith("#"):
                raise ValueError("text after the closing quote")
            return "".join(out)
        if ch == "\\":
            nxt = value[i + 1 : i + 2]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
                continue
            width = {"x": 2, "u": 4, "U": 8}.get(nxt)
            if width:
                digits = value[i + 2 : i + 2 + width]
                if len(digits) == width and all(c in "0123456789abcdefABCDEF" for c in digits):
                    out.append(chr(int(digits, 16)))
                    i += 2 + width
                    continue
            raise ValueError(f"unknown escape \\{nxt} in double-quoted value")
        out.append(ch)
        i += 1
    raise ValueError("double-quoted value is not closed")


def needs_quotes(value: str) -> bool:
    """True when YAML would not read `value` back, written plain, as the same string."""
    if not value or value != value.strip() or any(c in _SPECIAL_CHARS for c in value):
        return True
    if value[0] in "-?" and (len(value) == 1 or value[1] in " \t") or value.startswith(("---", "...")):
        return True
    if any(_escaped(c) for c in value):
        return True
    return bool(_YAML_TYPED.match(value))


def _escaped(c: str) -> bool:
    """Characters written as escapes: controls (C0, DEL, C1 such as U+0085, which YAML reads as a
    line break), U+2028/U+2029 (YAML line breaks), the BOM, and lone surrogates."""
    o = ord(c)
    return o < 32 or 0x7F <= o <= 0x9F or o in (0x2028, 0x2029, 0xFEFF) or 0xD800 <= o <= 0xDFFF


def quote(value: str) -> str:
    escaped = (
        value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t").replace("\r", "\\r")
    )
    escaped = "".join(
        (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}") if _escaped(c) else c for c in escaped
    )
    return f'"{escaped}"'


def format_value(key: str, value: str) -> str:
    """How an owned value is written: plain when safe; `updated` is a plain date by design."""
    import re  # the write path only

    if key == "updated" and re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", value):
        return value
    return quote(value) if needs_quotes(value) else value


def fold_capsule(capsule: str) -> str:
    """A capsule is one line: line breaks (with the blanks around them) fold to single spaces."""
    import re  # the write path only

    return re.sub(r"[ \t]*(?:\r\n|\r|\n)[ \t\r\n]*", " ", capsule).strip()


def yaml_problems(doc: Document) -> list[Problem]:
    """Validate the front-matter block as YAML through python-frontmatter (lazy import)."""
    if not doc.has_front_matter or not doc.close_fence:
        return []
    import yaml
    from frontmatter.default_handlers import YAMLHandler

    block = "".join(doc.fm_lines)
    # libyaml's loader when present: same verdicts, many times faster (lint reads thousands).
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        data = YAMLHandler().load(block, Loader=loader)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + (mark.line if mark is not None else 0)
        reason = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return [Problem(line, f"front matter is not valid YAML: {reason}")]
    except (ValueError, TypeError, OverflowError) as exc:
        # The constructor rejects well-formed scalars it cannot build, e.g. `updated: 2026-13-45`.
        return [Problem(2, f"front matter is not valid YAML: {exc}")]
    if data is not None and not isinstance(data, dict):
        return [Problem(2, "front matter must be a mapping of keys to values")]
    return []
