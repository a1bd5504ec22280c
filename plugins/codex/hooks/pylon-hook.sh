#!/bin/sh
# The pylon plugin's hook command: `pylon hook AGENT`, or, when no `pylon` can be found on PATH, a
# refusal in the client's own format, so a tool call is never let through unchecked (fail closed):
# PreToolUse is denied with the reason (the model and the user read it), WorktreeCreate and
# WorktreeRemove fail with it (exit 1), other events only tell the user. POSIX sh: no jq, no bash.
agent=${1:-codex}
if command -v pylon >/dev/null 2>&1; then
  exec pylon hook "$agent"
fi
why="pylon is not on the PATH this client gave its hooks, so pylon's plugin could not check this tool call and refused it. Install pylon where the client finds it (pip install pylon-kit, or add its folder to PATH), or disable the pylon plugin; then try again. pylon doctor checks the installation."
event=$(sed -n 's/.*"hook_event_name"[[:space:]]*:[[:space:]]*"\([A-Za-z]*\)".*/\1/p' | head -n 1)
case $event in
  PreToolUse)
    printf '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"%s"},"systemMessage":"%s"}\n' "$why" "$why"
    ;;
  WorktreeCreate|WorktreeRemove)
    printf 'pylon: %s\n' "$why" >&2
    exit 1
    ;;
  SessionStart)
    printf '{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"%s"},"systemMessage":"%s"}\n' "$why" "$why"
    ;;
  *)
    printf '{"systemMessage":"%s"}\n' "$why"
    ;;
esac
exit 0
