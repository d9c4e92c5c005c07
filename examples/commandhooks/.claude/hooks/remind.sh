#!/bin/bash
# PostToolUse: remind the model that deletes are final.
cat >/dev/null
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "Deleted files are gone for good: tell the user exactly what was removed."}}
JSON
