#!/bin/sh
# Setup phase: work on a copy of the read-only snapshot and delete the stale output.
set -e
rm -rf /tmp/w
cp -R /workspace /tmp/w
chmod -R u+rwX /tmp/w
rm -f /tmp/w/out/report.txt
