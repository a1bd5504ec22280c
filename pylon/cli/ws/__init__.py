"""Handlers of `pylon ws ...` and their rendering."""
