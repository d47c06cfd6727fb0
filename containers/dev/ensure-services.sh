#!/usr/bin/env bash
# Make sure the binaries of the scale-out services are installed: Redis, PostgreSQL 15, nginx
# and Debian's docker-registry. Nothing is started here: tests and `make cluster` run each
# daemon themselves, on loopback ports, with data folders of their own.
#
# Fast path: everything is on the machine -> exit 0 at once. Otherwise (root on Debian only)
# the missing packages come from apt.
set -euo pipefail

say() { printf 'ensure-services: %s\n' "$*" >&2; }

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
[[ -x /usr/lib/postgresql/15/bin/initdb ]] || missing+=(postgresql)
command -v nginx >/dev/null 2>&1 || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
command -v docker-registry >/dev/null 2>&1 || missing+=(docker-registry)

((${#missing[@]} == 0)) && exit 0

if [[ "$(id -u)" -ne 0 ]]; then
    say "missing: ${missing[*]}. Install them with: sudo apt-get install -y ${missing[*]}"
    exit 1
fi
command -v apt-get >/dev/null 2>&1 || { say "apt-get is not available; install: ${missing[*]}"; exit 1; }

say "installing ${missing[*]} (apt-get)"
export DEBIAN_FRONTEND=noninteractive
log="$(mktemp)"
install() { apt-get install -y -q --no-install-recommends "${missing[@]}"; }
if ! { install || { apt-get update -q && install; }; } >"$log" 2>&1; then
    tail -n 20 "$log" >&2
    say "apt-get install failed (log above)"
    exit 1
fi
rm -f "$log"
# Debian starts nothing without systemd, but be sure no packaged daemon holds a port.
pkill -x nginx 2>/dev/null || true
