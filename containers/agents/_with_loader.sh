#!/bin/sh
# /opt/ledgerbench/with-loader PROGRAM [ARG...]: runs PROGRAM (a path in the
# image) of the bundle this script sits in through the bundle's own glibc
# loader and libraries, all under the bundle's root (the image mounted at
# /opt/ledgerbench/agent in a task's own environment, whose glibc may differ
# or be absent), as /opt/ledgerbench/deno runs Deno. The loader and the
# libraries' directories are the image's /opt/ledgerbench/loader.env
# (LOADER_INTERP, LOADER_LIB_PATH), written by containers/build_images.sh's
# glibc_bundle. Run it with the bundle's own sh:
# "$root/bin/sh" "$root/opt/ledgerbench/with-loader" PROGRAM ...
set -eu
root="${0%/opt/ledgerbench/with-loader}"
[ "$root" != "$0" ] || root=""
. "$root/opt/ledgerbench/loader.env"
program="$1"
shift
lib_path=""
for dir in $(echo "$LOADER_LIB_PATH" | tr ':' ' '); do
  lib_path="${lib_path:+$lib_path:}$root$dir"
done
exec "$root$LOADER_INTERP" --library-path "$lib_path" "$root$program" "$@"
