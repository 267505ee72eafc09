#!/bin/sh
# /opt/ledgerbench/with-loader NAME PROGRAM [ARG...]: runs PROGRAM (a path in
# the image) of the bundle this script sits in through the bundle's own glibc
# loader and libraries, all under the bundle's root (the image mounted at
# /opt/ledgerbench/agent in a task's own environment, whose glibc may differ
# or be absent), as /opt/ledgerbench/deno runs Deno. NAME names the file
# containers/build_images.sh's glibc_bundle wrote for the image,
# /opt/ledgerbench/NAME-loader.env (LOADER_INTERP, LOADER_LIB_PATH). Run it
# with the bundle's own sh: "$root/bin/sh" "$root/opt/ledgerbench/with-loader".
set -eu
root="${0%/opt/ledgerbench/with-loader}"
[ "$root" != "$0" ] || root=""
. "$root/opt/ledgerbench/$1-loader.env"
program="$2"
shift 2
lib_path=""
for dir in $(echo "$LOADER_LIB_PATH" | tr ':' ' '); do
  lib_path="${lib_path:+$lib_path:}$root$dir"
done
exec "$root$LOADER_INTERP" --library-path "$lib_path" "$root$program" "$@"
