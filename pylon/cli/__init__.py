"""The command-line layer: typer apps that parse, call the libraries, render and exit. No logic."""
