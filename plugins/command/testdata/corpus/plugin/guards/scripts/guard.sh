#!/bin/bash
# Refuses the delete tool, naming the plugin's root it runs from.
echo "plugin guard at $CLAUDE_PLUGIN_ROOT: no deletes" >&2
exit 2
