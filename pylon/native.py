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
                module = loader.create_module(importlib.machinery.ModuleSpec(name, loader, origin=path))
                loader.exec_module(module)
                sys.modules[name] = module
                return module
    return None
