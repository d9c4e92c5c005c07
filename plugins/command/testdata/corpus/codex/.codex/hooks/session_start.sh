#!/bin/sh
# Adds the session's context.
echo "Codex context"
