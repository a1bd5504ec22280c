"""Handlers of `canon ...` and their rendering."""
