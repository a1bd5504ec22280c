"""A package's compiled `_binding` module, loaded without running the package's __init__.

tree_sitter's __init__ imports typing and tree_sitter_bash's importlib.resources: costs the guard
hook would pay before every shell command for nothing it uses.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def binding_of(package: str) -> Any:
    """`package._binding`, registered under that name (so a later `import package` uses this very
    module); None when no compiled `_binding` lies in the package's folder."""
    import importlib.machinery  # only what the import system already loaded (importlib.util costs more)
    import os
    import sys

    name = f"{package}._binding"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.machinery.PathFinder.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for entry in sorted(os.listdir(folder)):
            if entry.startswith("_binding.") and entry.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                path = os.path.join(folder, entry)
                loader = importlib.machinery.ExtensionFileLoader(name, path)
                with _ReOnDemand():
                    module = loader.create_module(importlib.machinery.ModuleSpec(name, loader, origin=path))
                    loader.exec_module(module)
                sys.modules[name] = module
                return module
    return None


class _ReOnDemand:
    """While a binding initialises, `re` is a stand-in whose `compile` loads the real module when
    first called. tree_sitter's binding takes `re.compile` at import, for query predicates
    (`#match?`) the guard never uses: loading `re` for it costs a hook about 8 million
    instructions. The stand-in leaves sys.modules when the block ends (a later `import re` gets
    the real module); a binding that keeps its `compile` gets the real `re.compile` on each call."""

    def __enter__(self) -> None:
        import sys

        self.placed = "re" not in sys.modules
        if self.placed:
            stand_in = type(sys)("re")
            stand_in.compile = _compile  # type: ignore[attr-defined]
            sys.modules["re"] = stand_in

    def __exit__(self, *exc: object) -> None:
        import sys

        if self.placed and getattr(sys.modules.get("re"), "compile", None) is _compile:
            del sys.modules["re"]


def _compile(pattern: Any, flags: int = 0) -> Any:
    import sys

    if getattr(sys.modules.get("re"), "compile", None) is _compile:
        del sys.modules["re"]  # still the stand-in (called while a binding initialises)
    import re

    return re.compile(pattern, flags)
