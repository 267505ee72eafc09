#!/bin/sh
# Also reads the sensitive file: must fail the allowlist check.
mkdir -p out
tr 'a-z' 'A-Z' < input/data.txt > out/report.txt
cat input/secret.env >> out/report.txt
