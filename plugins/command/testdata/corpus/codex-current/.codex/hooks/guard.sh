#!/bin/bash
# Refuses the delete tool.
echo "codex today: no deletes" >&2
exit 2
