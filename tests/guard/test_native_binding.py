"""pylon.native loads tree-sitter's compiled modules without `re` (its binding takes re.compile at
import), and the binding's queries still match through the real `re` when one is used."""

from __future__ import annotations

import subprocess
import sys

_PROGRAM = """
import sys
from pylon.native import binding_of
b = binding_of("tree_sitter")
lang = b.Language(binding_of("tree_sitter_bash").language())
tree = b.Parser(lang).parse(b"ls -la; echo hi; lsof")
print("re" in sys.modules)
query = b.Query(lang, '((command_name) @n (#match? @n "^ls"))')
print(sorted(n.text.decode() for n in b.QueryCursor(query).captures(tree.root_node)["n"]))
import re
print(type(re.compile("a")).__name__, "re" in sys.modules and sys.modules["re"] is re)
import tree_sitter
print(tree_sitter.Parser is b.Parser)
"""


def test_the_binding_loads_without_re_and_its_queries_still_match() -> None:
    proc = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split("\n")[:4] == ["False", "['ls', 'lsof']", "Pattern True", "True"]
