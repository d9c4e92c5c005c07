#!/usr/bin/env python3
"""PreToolUse: refuse deletes that could wipe the project."""
import json
import sys

event = json.load(sys.stdin)
args = event.get("tool_input", {})
path = args.get("path", "").strip()
parts = [p for p in path.split("/") if p not in ("", ".")]

reason = None
if ".." in parts:
    reason = f"'{path}' climbs out of the project: deletes stay inside it."
elif args.get("recursive") and not parts:
    reason = "A recursive delete of the whole project is never allowed."

if reason:
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "deny",
            "permissionDecisionReason": reason,
        }
    }))
sys.exit(0)
