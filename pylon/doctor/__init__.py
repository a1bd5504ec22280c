"""`pylon doctor`: what is wrong with this installation and this checkout, each with its fix.

    installs.py   where pylon's hooks are installed for each client (settings files of each scope,
                  the pylon plugin), which events run twice, Codex's trust of each handler
    checks.py     the checks themselves (versions, hooks, the repository's op log, locks, worktrees,
                  watchers, kept states, the canon store) -> findings, each naming its fix

Nothing here touches the network or changes anything: it reads files and asks git. It sits above
the libraries (it reads agents, hooks, workspace and canon) and below pylon.cli.
"""
