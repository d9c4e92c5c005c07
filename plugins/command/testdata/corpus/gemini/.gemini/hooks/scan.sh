#!/bin/bash
# Refuses the delete tool, passes the rest.
if grep -q '"tool_name":"delete"'; then echo "gemini: no deletes" >&2; exit 2; fi
exit 0
