#!/usr/bin/env bash
# Build (or reuse) the sandbox images: the debootstrap base and the runtime image on top.
# Prints the runtime image name on stdout; progress goes to stderr.
#   containers/runtime/build.sh [--force-rebuild] [--no-enable-browser] [--base-image IMG]
set -euo pipefail
cd "$(dirname "$0")/../.."
bash containers/dev/ensure-docker.sh
export LITELLM_LOCAL_MODEL_COST_MAP=True
exec "${PYTHON:-.venv/bin/python}" -m openhands.runtime.utils.runtime_build "$@"
