#!/usr/bin/env bash
# Make sure a Docker engine answers `docker info`.
#
# Fast path: an engine already answers -> exit 0 at once.
# Otherwise (root on Debian only): install Debian's docker.io when dockerd is missing,
# start dockerd in the background without systemd, and wait until it answers.
# Never pulls anything from a container registry.
#
# Env knobs:
#   DOCKERD_LOG        where dockerd writes its log (default /var/log/dockerd.log)
#   DOCKER_WAIT_SECS   how long to wait for the engine (default 60)
set -euo pipefail

DOCKERD_LOG="${DOCKERD_LOG:-/var/log/dockerd.log}"
DOCKER_WAIT_SECS="${DOCKER_WAIT_SECS:-60}"

say() { printf 'ensure-docker: %s\n' "$*" >&2; }
fail() {
    say "ERROR: $*"
    exit 1
}

engine_answers() { docker info >/dev/null 2>&1; }

if command -v docker >/dev/null 2>&1 && engine_answers; then
    exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
    fail "no Docker engine answers 'docker info' and this script is not root, so it cannot start one.
  Start your engine (e.g. 'sudo dockerd &' or Docker Desktop) or re-run this script as root."
fi

if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
    command -v apt-get >/dev/null 2>&1 ||
        fail "dockerd is missing and apt-get is not available. Install a Docker engine for this OS."
    say "dockerd not found; installing Debian's docker.io (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt_log="$(mktemp)"
    if ! { apt-get update -q && apt-get install -y -q --no-install-recommends docker.io; } \
        >"$apt_log" 2>&1; then
        tail -n 20 "$apt_log" >&2
        fail "'apt-get install -y docker.io' failed (log above). Fix apt access and re-run."
    fi
    rm -f "$apt_log"
    command -v dockerd >/dev/null 2>&1 || fail "docker.io installed but dockerd is still not on PATH."
fi

# An engine process may be starting already (e.g. a concurrent run of this script).
if ! pgrep -x dockerd >/dev/null 2>&1; then
    mkdir -p "$(dirname "$DOCKERD_LOG")"
    say "starting dockerd in the background (log: $DOCKERD_LOG)"
    # setsid: the engine must outlive this shell and ignore its job control signals.
    setsid nohup dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null &
fi

deadline=$((SECONDS + DOCKER_WAIT_SECS))
until engine_answers; do
    if ((SECONDS >= deadline)); then
        tail -n 30 "$DOCKERD_LOG" >&2 2>/dev/null || true
        fail "dockerd did not answer 'docker info' within ${DOCKER_WAIT_SECS}s (last log lines above).
  Look at $DOCKERD_LOG, then run: dockerd >>$DOCKERD_LOG 2>&1 &"
    fi
    sleep 1
    if ! pgrep -x dockerd >/dev/null 2>&1; then
        tail -n 30 "$DOCKERD_LOG" >&2 2>/dev/null || true
        fail "dockerd exited during startup (last log lines above; full log: $DOCKERD_LOG)."
    fi
done
say "Docker engine is up ($(docker version --format '{{.Server.Version}}' 2>/dev/null || echo unknown))"
