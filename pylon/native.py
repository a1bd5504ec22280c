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
    import importlib.machinery
    import importlib.util
    import os
    import sys

    name = f"{package}._binding"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.find_spec(package)
    for folder in (spec.submodule_search_locations or []) if spec else []:
        for entry in sorted(os.listdir(folder)):
            if entry.startswith("_binding.") and entry.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES)):
                loader = importlib.machinery.ExtensionFileLoader(name, os.path.join(folder, entry))
                binding_spec = importlib.util.spec_from_loader(name, loader)
                if binding_spec is not None:
                    module = importlib.util.module_from_spec(binding_spec)
                    loader.exec_module(module)
                    sys.modules[name] = module
                    return module
    return None
