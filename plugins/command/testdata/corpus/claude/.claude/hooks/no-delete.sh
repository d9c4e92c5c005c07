#!/bin/bash
# Refuses every call of the delete tool.
echo "deleting is not allowed here" >&2
exit 2
