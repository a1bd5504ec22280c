"""pylon.agents.jsonio against the json package (the oracle): the same value, or the same error."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from pylon.agents.jsonio import dumps, loads
from tests.conftest import sized

_scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text()
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


def _same(a: object, b: object) -> bool:
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    if isinstance(a, dict) and isinstance(b, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def _outcome(fn: Callable[[Any], object], data: object) -> tuple[str, object]:
    try:
        return "ok", fn(data)
    except (ValueError, RecursionError) as exc:
        return type(exc).__name__, str(exc)


@settings(max_examples=sized(40, 300), deadline=None)
@given(_values)
def test_dumps_and_loads_match_json(value: object) -> None:
    text = json.dumps(value, ensure_ascii=False)
    assert dumps(value) == text
    assert _same(loads(text), json.loads(text))
    assert _same(loads(text.encode()), json.loads(text.encode()))


CASES = [
    b"",
    b" ",
    b"{}",
    b' {"a": 1} \n',
    b'{"a": 1} x',
    b'{"a": }',
    b"[1, 2",
    b"\xef\xbb\xbf{}",
    "{}".encode("utf-16"),
    '{"a": 1}'.encode("utf-32-le"),
    b'{"a": "\\ud800"}',
    b"\xff\xfe",
    b'{"a": NaN, "b": -Infinity}',
    b"1e400",
    b'{"a": "\xc3"}',
    b"\t\r\n[]\t",
    "\ufeff{}",
    b'{"x": "caf\xc3\xa9"}',
    b"[" * 100000 + b"]" * 100000,
    b"nul",
    b"tru",
]


def test_odd_inputs_give_what_json_gives() -> None:
    for data in CASES:
        got, want = _outcome(loads, data), _outcome(json.loads, data)
        assert got[0] == want[0], data[:40]
        if got[0] == "ok":
            assert _same(got[1], want[1]), data[:40]
        elif got[0] == "ValueError":
            assert got[1] == want[1], data[:40]


def test_dumps_refuses_what_json_refuses() -> None:
    for value in ({"a": {1, 2}}, {"a": object()}):
        try:
            json.dumps(value, ensure_ascii=False)
        except TypeError as exc:
            want = str(exc)
        try:
            dumps(value)
        except TypeError as exc:
            assert str(exc) == want
        else:
            raise AssertionError("dumps accepted what json refuses")
    assert dumps({1: "a", None: 2, 1.5: True}) == json.dumps({1: "a", None: 2, 1.5: True}, ensure_ascii=False)
