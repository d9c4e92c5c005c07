#!/bin/bash
# Refuses the delete tool.
echo "codex: no deletes" >&2
exit 2
