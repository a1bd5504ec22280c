"""canon: the project-memory library. Returns data and raises PylonError; never imports typer/rich."""
