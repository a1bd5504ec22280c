"""canon's git-aware commands: `check`, `mv`, `stale`, `coverage`, and lint's `journal-changed`.

The canon core (store, address, article, lint, ...) never imports this package
(tests/test_layers.py), so `canon read` and `canon lint` outside git pay nothing for it.
"""
