"""One lossless encoding for bytes that are not UTF-8 in JSON documents of the workspace.

Paths come from git and the file system as bytes; pylon keeps them as `str` decoded with
`surrogateescape` (each undecodable byte becomes one code point U+DC80..U+DCFF). JSON cannot carry
those code points as UTF-8, so a document is made safe before it is printed:

- a string field `X` holding such bytes is written readable, with each undecodable byte escaped
  as git escapes it in quoted paths (backslash and three octal digits: `caf\\377.txt`), and a
  companion field `X_b64` holds the exact bytes in base64;
- in a list of strings the companion is a list of the same length (null for entries that were
  UTF-8 already);
- byte content (a diff, a file) goes through `bytes_fields`: UTF-8 text as is, otherwise the
  same escaped text plus `X_b64`.

So a field without `_b64` is exactly its bytes in UTF-8, and a reader that needs bytes takes
`X_b64` when present. No `re`/`base64` import: the hot paths avoid both (binascii is C).
"""

from __future__ import annotations

from binascii import b2a_base64


def _clean(text: str) -> bool:
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def escape(text: str) -> str:
    """The readable form: undecodable bytes as `\\ooo`, any other lone surrogate as `\\uXXXX`."""
    out = []
    for ch in text:
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:
            out.append(f"\\{code - 0xDC00:03o}")
        elif 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)


def _b64(text: str) -> str | None:
    try:
        return b2a_base64(text.encode("utf-8", "surrogateescape"), newline=False).decode("ascii")
    except UnicodeEncodeError:
        return None  # not bytes from the file system (a lone surrogate): the escape is all there is


def text_fields(name: str, text: str) -> dict[str, str]:
    """`{name: text}` for a clean string, else `{name: escaped text, name_b64: exact bytes}` (for
    formats whose objects cannot take a companion beside the string, such as SARIF's message)."""
    if _clean(text):
        return {name: text}
    encoded = _b64(text)
    return {name: escape(text), **({f"{name}_b64": encoded} if encoded is not None else {})}


def bytes_fields(name: str, data: bytes) -> dict[str, str]:
    """`{name: text}` for UTF-8 content, else `{name: escaped text, name_b64: exact bytes}`."""
    try:
        return {name: data.decode("utf-8")}
    except UnicodeDecodeError:
        text = data.decode("utf-8", "surrogateescape")
        return {name: escape(text), f"{name}_b64": b2a_base64(data, newline=False).decode("ascii")}


def safe(doc: object) -> object:
    """A copy of a JSON-ready document with every non-UTF-8 string encoded as described above."""
    if isinstance(doc, dict):
        out: dict[object, object] = {}
        for key, value in doc.items():
            if isinstance(value, str) and not _clean(value):
                out[key] = escape(value)
                encoded = _b64(value)
                if encoded is not None and f"{key}_b64" not in doc:
                    out[f"{key}_b64"] = encoded
            elif isinstance(value, list) and any(isinstance(v, str) and not _clean(v) for v in value):
                out[key] = [escape(v) if isinstance(v, str) else safe(v) for v in value]
                out[f"{key}_b64"] = [None if not isinstance(v, str) or _clean(v) else _b64(v) for v in value]
            else:
                out[key] = safe(value)
        return out
    if isinstance(doc, list):
        return [safe(v) for v in doc]
    if isinstance(doc, str) and not _clean(doc):
        return escape(doc)
    return doc
