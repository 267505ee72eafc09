#!/bin/sh
# Prints a well-formed verdict, then crashes: a crash is a fault even after a verdict.
echo '{"resolved":true}'
exit 3
