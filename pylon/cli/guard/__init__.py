"""Handlers of `pylon guard ...` and their rendering."""
