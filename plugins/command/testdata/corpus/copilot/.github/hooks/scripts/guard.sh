#!/bin/bash
# Denies the delete tool, lets the rest run; says what it checks first.
input=$(cat)
echo '{"type": "progress", "message": "Checking policy..."}'
if [[ "$input" == *'"toolName":"delete"'* && "$GUARD_MODE" == strict ]]; then
  echo '{"permissionDecision": "deny", "permissionDecisionReason": "copilot: no deletes"}'
  exit 0
fi
echo '{"permissionDecision": "allow"}'
