#!/bin/sh
# Exits 0 without printing a verdict.
exit 0
