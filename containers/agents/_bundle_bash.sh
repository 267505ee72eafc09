#!/bin/sh
# /opt/ledgerbench/shell/bash: the image's bash, run from the bundle this file
# sits in through the bundle's loader and libraries (with-loader), for a task
# environment without a bash of its own: the agents whose shell tool runs
# bash (Claude Code, the Gemini CLI) are pointed at it (CLAUDE_CODE_SHELL, or
# this directory first in PATH), since the bundle's /bin/bash alone cannot
# find its libraries there.
root="${0%/opt/ledgerbench/shell/bash}"
exec "$root/bin/sh" "$root/opt/ledgerbench/with-loader" /bin/bash "$@"
