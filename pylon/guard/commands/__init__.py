"""One command family each, judged by its own reading: find, git, interpreters, sed/awk/vim, python -c, SQL,
remote hosts and containers, wrappers."""
