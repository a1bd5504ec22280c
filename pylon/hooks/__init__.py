"""The agents' hook: one process per event answers for every pylon part installed.

`pylon hook claude-code|codex` (cli/hook.py) reads one event and hands it to entry.answer, which
asks the parts that event concerns (guard before a tool runs, canon around sessions and after
tools) and combines their answers in the agent's format. Each part imports only what its event
needs, so a shell call pays for the bash grammar and nothing of canon, and a Stop pays for canon
only. This package sits between the libraries (pylon.guard, pylon.canon, pylon.workspace,
pylon.agents) and pylon.cli; it never imports pylon.cli, typer or rich.

    entry.py     the event in, the parts asked, their answers combined (a deny/ask wins; contexts join)
    guard.py     the guard's answer to a PreToolUse of the shell tool (classify, policy, snapshot)
    files.py     the guard's answer to the agents' own file tools (Write/Edit/MultiEdit/NotebookEdit,
                 Codex's apply_patch): snapshot what they overwrite that git cannot give back; pruning
    install.py   the one hook entry per event in the agent's settings, whichever parts are installed
"""
