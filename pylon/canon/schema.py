"""`schema.json`: a per-store contract for articles.

```json
{
  "schema_version": 1, "about": "...",
  "article": {
    "capsule": {"required": true, "max_chars": 300, "hint": "One dense line: what it is, what to know."},
    "title":   {"min_chars": 3},
    "body":    {"min_chars": 40, "max_chars": 8000}
  },
  "relations": {"refs": {"min_count": 1}, "orphan": {"warn": false}, "children": {"listed": false}}
}
```

This is pi-canon 0.3's shape. pylon's earlier flat shape (field rules at the top level) is still
enforced, with a warning that `canon lint --fix` rewrites it.

Fields `capsule`, `title` (the body's leading `# ` heading) and `body` take `required`,
`min_chars`, `max_chars`, `hint`; `relations.refs` (outgoing `[[links]]`, code excluded) takes
`required`, `min_count`, `hint`. `required` rejects a write that creates the article or touches
the field (`canon write`) and is a lint error; the bounds only warn. Keys starting with `$` (such
as `$schema`, `$comment`) are ignored. A broken file or an unknown key is reported in
`Schema.problems` and ignored: a schema never makes a command fail to run. This module reads the
file; schema_check.py checks an article against it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing costs start-up time on every `canon read`; annotations are strings
if TYPE_CHECKING:
    from typing import Any

    from pylon.canon.store import Store

FIELDS = ("capsule", "title", "body")
_FIELD_KEYS = {"required": bool, "min_chars": int, "max_chars": int, "hint": str}
_REFS_KEYS = {"required": bool, "min_count": int, "hint": str}

# What `canon init` writes: everything optional, bounds matching the lint thresholds.
# pi-canon 0.3's shape (`schema_version`, `about`, `article`, `relations`), so a store moves
# between the two tools unchanged.
DEFAULT_SCHEMA: dict[str, Any] = {
    "schema_version": 1,
    "about": "Article schema for this canon store: a rule marked required rejects a write that breaks it; "
    "every other rule warns. Fields: capsule, title (the body's leading # heading), body; rule keys: "
    "required, min_chars, max_chars, hint. relations.refs counts an article's outgoing [[links]].",
    "article": {
        "capsule": {
            "required": False,
            "max_chars": 1000,
            "hint": "One dense line stating the current truth about this asset.",
        },
        "title": {"required": False},
        "body": {"max_chars": 20000, "hint": "Split a large article into child articles."},
    },
    "relations": {
        "refs": {"required": False, "hint": "Link related articles with [[address]]."},
        "orphan": {"warn": False},
        "children": {"listed": False},
    },
}
# Relation rules pi-canon declares for graph-reading tools; accepted (and checked for shape),
# but not enforced here: pylon's own `orphan` lint rule is about assets on disk, not links.
_GRAPH_RELATIONS = {"orphan": {"warn": bool, "hint": str}, "children": {"listed": bool, "hint": str}}


class Rule:
    """The constraints on one field (or on `relations.refs`, where `minimum` is `min_count`)."""

    __slots__ = ("required", "min_chars", "max_chars", "hint")

    def __init__(
        self, required: bool = False, min_chars: int | None = None, max_chars: int | None = None, hint: str = ""
    ) -> None:
        self.required = required
        self.min_chars = min_chars
        self.max_chars = max_chars
        self.hint = hint


class SchemaProblem:
    """Something wrong in schema.json; `line` is 1-based in the file (0 when unknown)."""

    __slots__ = ("line", "message")

    def __init__(self, line: int, message: str) -> None:
        self.line = line
        self.message = message


class Schema:
    __slots__ = ("fields", "refs", "problems", "path", "flat")

    def __init__(self, path: str = "") -> None:
        self.flat = False  # field rules at the top level (pylon's earlier shape)
        self.fields: dict[str, Rule] = {}
        self.refs: Rule | None = None  # min_chars holds min_count
        self.problems: list[SchemaProblem] = []
        self.path = path

    @property
    def empty(self) -> bool:
        return not self.fields and self.refs is None


def dump_default() -> str:
    import json

    return json.dumps(DEFAULT_SCHEMA, indent=2) + "\n"


def load_schema(store: Store, *, use_cache: bool = False) -> Schema:
    """The store's schema; a missing file is an empty schema, a broken one is reported, never raised.

    `use_cache` (for `canon read`) takes the decoded JSON from pylon.canon.schema_cache when the
    file's bytes are unchanged, so a read of a store with a schema does not import json."""
    path = store.schema_file
    schema = Schema(path=path)
    from pylon.canon.safeio import SCHEMA_MAX, read_regular
    from pylon.errors import PylonError

    try:
        raw = read_regular(path, SCHEMA_MAX, "schema.json")
    except FileNotFoundError:
        return schema
    except PylonError as exc:  # a folder, a FIFO, /dev/zero, no permission: reported, ignored
        schema.problems.append(SchemaProblem(0, f"{exc.message.rstrip('.')}; schema.json is ignored"))
        return schema
    except OSError as exc:
        schema.problems.append(SchemaProblem(0, f"schema.json cannot be read ({exc.strerror}); it is ignored"))
        return schema
    # Decoded as "utf-8-sig" does, without loading that codec: one leading BOM is dropped.
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    if use_cache:
        from pylon.canon import schema_cache

        hit, data = schema_cache.cached(store, raw)
        if hit:  # these bytes decoded without error before, so they decode again
            return parse_schema(data, body.decode("utf-8"), schema)
    # json (which imports re) is loaded only when a store has a schema to decode.
    import json

    try:
        text = body.decode("utf-8")
        data = json.loads(text)
    except UnicodeDecodeError:
        schema.problems.append(SchemaProblem(0, "schema.json is not UTF-8 text; it is ignored"))
        return schema
    except json.JSONDecodeError as exc:
        schema.problems.append(SchemaProblem(exc.lineno, f"schema.json is not valid JSON ({exc.msg}); it is ignored"))
        return schema
    if use_cache:
        schema_cache.remember(store, raw, data)
    return parse_schema(data, text, schema)


def parse_schema(data: Any, text: str = "", schema: Schema | None = None) -> Schema:
    """Build a Schema from decoded JSON, reporting (and skipping) every key it does not understand."""
    schema = schema or Schema()

    def report(key_path: str, message: str) -> None:
        schema.problems.append(SchemaProblem(_line_of(text, key_path), f"schema.json {key_path}: {message}; ignored"))

    if not isinstance(data, dict):
        schema.problems.append(SchemaProblem(1, "schema.json must hold a JSON object; it is ignored"))
        return schema
    flat = [key for key in data if key in FIELDS]
    if flat:
        # pylon's earlier shape: the field rules at the top level. Still enforced, with a warning.
        schema.problems.append(
            SchemaProblem(
                _line_of(text, flat[0]),
                "schema.json puts field rules at the top level "
                '(pylon\'s earlier shape); they belong under "article". canon lint --fix moves them',
            )
        )
        schema.flat = True
    for key, value in data.items():
        if key.startswith("$") or key == "about":
            continue
        if key == "schema_version":
            if value != 1:
                report(key, "must be 1 (the only version defined)")
        elif key in FIELDS:
            _parse_field(key, value, key, schema, report)
        elif key == "article":
            for name, rule in _members(value, key, "must be an object of capsule, title, body rules", report):
                if name not in FIELDS:
                    report(f"article.{name}", "unknown field (expected capsule, title or body)")
                    continue
                _parse_field(name, rule, f"article.{name}", schema, report)
        elif key == "relations":
            for sub, sub_value in _members(value, key, 'must be an object such as {"refs": {"min_count": 1}}', report):
                if sub in _GRAPH_RELATIONS:
                    _parse_rule(sub_value, _GRAPH_RELATIONS[sub], f"relations.{sub}", report)
                    continue
                if sub != "refs":
                    report(f"relations.{sub}", "unknown relation (expected refs, orphan or children)")
                    continue
                schema.refs = _parse_rule(sub_value, _REFS_KEYS, "relations.refs", report)
        else:
            report(key, "unknown key (expected schema_version, about, article or relations)")
    return schema


def _members(value: Any, key: str, expected: str, report: Any) -> list[tuple[str, Any]]:
    """The (name, value) pairs of an object's members, `$`-keys left out; reported when not an object."""
    if not isinstance(value, dict):
        report(key, expected)
        return []
    return [(name, item) for name, item in value.items() if not name.startswith("$")]


def _parse_field(name: str, value: Any, where: str, schema: Schema, report: Any) -> None:
    rule = _parse_rule(value, _FIELD_KEYS, where, report)
    if rule is not None:
        schema.fields[name] = rule


def nested_shape(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with top-level field rules moved under `article` (what `canon lint --fix` writes)."""
    out: dict[str, Any] = {"schema_version": data.get("schema_version", 1)}
    article = dict(data.get("article") or {}) if isinstance(data.get("article"), dict) else {}
    for key, value in data.items():
        if key in FIELDS:
            article.setdefault(key, value)
        elif key not in ("schema_version", "article"):
            out[key] = value
    out["article"] = article
    if "relations" in out:
        out["relations"] = out.pop("relations")  # keep pi-canon's key order: article, then relations
    return out


def _parse_rule(value: Any, allowed: dict[str, type], where: str, report: Any) -> Rule | None:
    if not isinstance(value, dict):
        report(where, "must be an object of " + ", ".join(allowed))
        return None
    rule = Rule()
    for key, item in value.items():
        if key.startswith("$"):
            continue
        kind = allowed.get(key)
        if kind is None:
            report(f"{where}.{key}", "unknown key (allowed: " + ", ".join(allowed) + ")")
            continue
        if kind is int and (isinstance(item, bool) or not isinstance(item, int) or item < 0):
            report(f"{where}.{key}", "must be a whole number, 0 or more")
            continue
        if kind is not int and not isinstance(item, kind):
            report(f"{where}.{key}", f"must be {'true or false' if kind is bool else 'a string'}")
            continue
        if key == "min_count":
            rule.min_chars = item
        elif key in Rule.__slots__:  # `warn`/`listed` of graph relations are checked, not kept
            setattr(rule, key, item)
    if rule.min_chars is not None and rule.max_chars is not None and rule.min_chars > rule.max_chars:
        report(where, "min_chars is larger than max_chars; both bounds are ignored")
        rule.min_chars = rule.max_chars = None
    return rule


def _line_of(text: str, key_path: str) -> int:
    """Best-effort line of the last key of `key_path` in the JSON text (1 when not found)."""
    last = key_path.rsplit(".", 1)[-1]
    pos = text.find(f'"{last}"')
    return text.count("\n", 0, pos) + 1 if pos >= 0 else 1


# --- measuring an article -------------------------------------------------------------------------
