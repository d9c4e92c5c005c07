#!/bin/bash
# Passes every call; reads its input as a guard would.
cat > /dev/null
exit 0
