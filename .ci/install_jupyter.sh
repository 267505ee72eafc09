#!/usr/bin/env bash
# Make headless Jupyter with the Deno kernel available, idempotently.
#
# 1. apt-get install Debian's jupyter-client, jupyter-nbconvert and
#    python3-ipykernel when `jupyter nbconvert` is missing (PyPI is not
#    reachable from our machines; Debian's packages are);
# 2. register the Deno kernel (`deno jupyter --install --force`) with the
#    pinned Deno from node_modules. The kernelspec records the absolute path of
#    the deno binary that installed it, so it is rewritten on every run: a CI
#    clone in another folder must not start a kernel from a stale checkout;
# 3. check that the kernelspec is listed and points at an executable deno.
#
# Run from anywhere; needs node_modules (npm ci) already installed.
# Environment: JUPYTER_KERNEL_NAME (default "deno").
set -euo pipefail
cd "$(dirname "$0")/.."

export PYDEVD_DISABLE_FILE_VALIDATION=1  # silence ipykernel's debugger notice
KERNEL_NAME="${JUPYTER_KERNEL_NAME:-deno}"

sudo_if_needed() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v jupyter >/dev/null 2>&1 || ! jupyter nbconvert --version >/dev/null 2>&1 \
  || ! /usr/bin/python3 -c 'import ipykernel' >/dev/null 2>&1; then
  echo "install_jupyter: installing jupyter-client jupyter-nbconvert python3-ipykernel" >&2
  export DEBIAN_FRONTEND=noninteractive
  sudo_if_needed apt-get update -qq
  sudo_if_needed apt-get install -y -qq jupyter-client jupyter-nbconvert python3-ipykernel >/dev/null
fi

# tools/deno execs the pinned binary, so the kernelspec records its real path.
tools/deno jupyter --install --force --name "$KERNEL_NAME" --display "Deno (ledgerbench)" >&2

spec_dir="$(jupyter kernelspec list --json | /usr/bin/python3 -c \
  "import json,sys; print(json.load(sys.stdin)['kernelspecs'].get('$KERNEL_NAME', {}).get('resource_dir', ''))")"
if [ -z "$spec_dir" ]; then
  echo "install_jupyter: error: kernel '$KERNEL_NAME' is not listed by 'jupyter kernelspec list'" >&2
  exit 1
fi
kernel_deno="$(/usr/bin/python3 -c "import json; print(json.load(open('$spec_dir/kernel.json'))['argv'][0])")"
if [ ! -x "$kernel_deno" ]; then
  echo "install_jupyter: error: kernel '$KERNEL_NAME' starts '$kernel_deno', which is not executable" >&2
  exit 1
fi
echo "install_jupyter: kernel '$KERNEL_NAME' in $spec_dir runs $kernel_deno ($("$kernel_deno" --version | head -1))" >&2
