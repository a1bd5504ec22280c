"""JSON in and out of a hook process without importing the json package.

`import json` loads `re` (json.decoder compiles its patterns at import), and `re` loads enum,
functools and collections: about 30 million instructions, as much again as the interpreter's
own start, paid by every hook process before it reads a byte. The C accelerator `_json`, which
json itself calls, decodes and encodes without any of that. `loads` and `dumps` give exactly what
`json.loads(data)` and `json.dumps(obj, ensure_ascii=False)` give: anything the fast way does
not handle plainly (a byte-order mark or UTF-16/32 input, a decoding error, trailing data, an
object the encoder refuses, no `_json`) is handed to the json package, which then answers (or
raises) as it always does.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WS = " \t\n\r"  # JSON's whitespace (json.decoder.WHITESPACE)
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """What `_json.make_scanner` reads off json's JSONDecoder, with json's defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def _undecodable(data: bytes) -> bool:
    """Bytes json would not read as plain UTF-8 (a BOM, or UTF-16/32: a NUL in the first four)."""
    return data[:3] == b"\xef\xbb\xbf" or b"\x00" in data[:4]


def scanner() -> Any:
    """The C scanner json itself uses, with json's defaults: `scan(text, index) -> (value, end)`
    (ImportError on a Python without `_json`)."""
    from _json import make_scanner

    return make_scanner(_Context())  # type: ignore[arg-type]


def loads(data: bytes | str) -> Any:
    """`json.loads(data)`, without importing json when the input is well formed."""
    try:
        text: str | None = None
        if isinstance(data, str):
            text = data
        elif not _undecodable(data):
            text = data.decode("utf-8", "surrogatepass")
        if text is not None and not text.startswith("\ufeff"):
            start = len(text) - len(text.lstrip(_WS))
            value, end = scanner()(text, start)
            if not text[end:].strip(_WS):
                return value
    except Exception:  # whatever it was (another Python's _json too), json answers
        pass
    import json  # the slow way answers, or raises json's own error

    return json.loads(data)


def _refuse(obj: object) -> Any:
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


def dumps(obj: Any, *, ascii: bool = False, sort_keys: bool = False, compact: bool = False) -> str:
    """`json.dumps(obj, ensure_ascii=ascii, sort_keys=sort_keys)` (`compact`: separators `,` and `:`),
    without importing json (`ascii`: every character past ASCII escaped, lone surrogates of
    undecodable file names included, as json does)."""
    key_sep, item_sep = (":", ",") if compact else (": ", ", ")
    try:
        from _json import encode_basestring, encode_basestring_ascii, make_encoder

        quote = encode_basestring_ascii if ascii else encode_basestring
        encode = make_encoder({}, _refuse, quote, None, key_sep, item_sep, sort_keys, False, True)
        return "".join(encode(obj, 0))
    except Exception:  # json answers, or raises its own error
        pass
    import json

    return json.dumps(obj, ensure_ascii=ascii, sort_keys=sort_keys, separators=(item_sep, key_sep))
