#!/bin/sh
# Reads only the allowed input.
mkdir -p out
tr 'a-z' 'A-Z' < input/data.txt > out/report.txt
