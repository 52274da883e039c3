# Sourced by scripts/setup and scripts/python: where the project's Python lives and how to run it.
#
# The project needs Python >= 3.14.2 (Home Assistant 2026.10). A host that has one uses it
# directly. Otherwise, as root on a Debian-family host, a Python 3.14 root is bootstrapped from
# Debian's own packages with mmdebstrap (see ../shared/research/platform.md) and every command
# runs chrooted into it, in a private mount namespace so that no mount outlives the command.
# The virtual environment is always .venv in the repository; in the chroot the repository is
# bind-mounted at its own absolute path, so paths look the same inside and outside.

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY_ROOT="${CONTEXT_RETRIEVAL_PYTHON_ROOT:-/opt/context-retrieval/python3.14-root}"
PY_ROOT_SUITE="forky"
PY_ROOT_MIRROR="http://deb.debian.org/debian"
PY_ROOT_STAMP=".context-retrieval-root-v1"
MIN_PYTHON="3.14.2"
# The second environment: the newest Home Assistant release for the compatibility check (scripts/compat).
HA_NEXT_VENV=".venv-ha-2026.11"
PASS_ENV=(LLM_BASE_URL LLM_API_KEY LLM_MODEL TERM COLUMNS http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY)

log() { echo "[setup] $*" >&2; }

python_is_new_enough() {
  "$@" -c 'import sys; sys.exit(sys.version_info < (3, 14, 2))' >/dev/null 2>&1
}

# Print a host interpreter >= MIN_PYTHON, or nothing.
find_host_python() {
  local candidate
  for candidate in python3.14 python3 python; do
    if command -v "$candidate" >/dev/null 2>&1 && python_is_new_enough "$candidate"; then
      command -v "$candidate"
      return
    fi
  done
  if command -v pyenv >/dev/null 2>&1; then
    for candidate in "$(pyenv root)"/versions/3.1[4-9]*/bin/python3; do
      if [ -x "$candidate" ] && python_is_new_enough "$candidate"; then
        echo "$candidate"
        return
      fi
    done
  fi
}

HOST_PYTHON="$(find_host_python)"

# Run a command with the repository as working directory, in the project's environment.
run_in_env() {
  if [ -n "$HOST_PYTHON" ]; then
    (cd "$REPO" && PATH="$REPO/.venv/bin:$PATH" "$@")
    return
  fi
  local shared="$REPO/../shared" env_args=() name
  for name in "${PASS_ENV[@]}"; do
    if [ -n "${!name:-}" ]; then env_args+=("$name=${!name}"); fi
  done
  shared="$(cd "$shared" 2>/dev/null && pwd || true)"
  cp /etc/resolv.conf "$PY_ROOT/etc/resolv.conf"
  cp /etc/hosts "$PY_ROOT/etc/hosts"
  cp /etc/ssl/certs/ca-certificates.crt "$PY_ROOT/etc/ssl/certs/ca-certificates.crt"
  unshare --mount --propagation private -- /bin/bash -c '
    set -e
    root=$1 repo=$2 shared=$3; shift 3
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount --rbind /sys "$root/sys"
    for dir in "$repo" "$shared"; do
      [ -n "$dir" ] || continue
      mkdir -p "$root$dir"
      mount --bind "$dir" "$root$dir"
    done
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 \
      PATH="$repo/.venv/bin:/usr/local/bin:/usr/bin:/bin" \
      SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt \
      /bin/bash -c "cd \"$repo\" && exec env \"\$@\"" bash "$@"
  ' bash "$PY_ROOT" "$REPO" "$shared" "${env_args[@]}" "$@"
}

# The interpreter the virtual environment is made from, as seen where commands run.
base_python() {
  if [ -n "$HOST_PYTHON" ]; then echo "$HOST_PYTHON"; else echo /usr/bin/python3.14; fi
}

root_is_ready() {
  [ -f "$PY_ROOT/$PY_ROOT_STAMP" ] && [ -x "$PY_ROOT/usr/bin/python3.14" ] &&
    run_in_env python3.14 -c 'import sys, ssl, venv; sys.exit(sys.version_info < (3, 14, 2))' 2>/dev/null
}

# Build the Python 3.14 root from Debian's packages (about a minute and 450 MB).
bootstrap_root() {
  if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    echo "error: this project needs Python >= $MIN_PYTHON. Install one (python3.14 on PATH), or run" \
      "as root on a Debian-family host so that scripts/setup can bootstrap it." >&2
    exit 1
  fi
  if ! command -v mmdebstrap >/dev/null 2>&1; then
    log "installing mmdebstrap"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq mmdebstrap >/dev/null
  fi
  local staging="$PY_ROOT.staging"
  # Commands run in private mount namespaces, so nothing is mounted here; refuse to delete if it is.
  if findmnt -rn -o TARGET | grep -q "^$PY_ROOT"; then
    echo "error: something is mounted under $PY_ROOT; unmount it first" >&2
    exit 1
  fi
  rm -rf "$staging" "$PY_ROOT"
  mkdir -p "$(dirname "$PY_ROOT")"
  log "bootstrapping Python 3.14 from Debian $PY_ROOT_SUITE into $PY_ROOT"
  mmdebstrap --quiet --variant=apt \
    --aptopt='Acquire::Check-Valid-Until "false"' \
    --include=ca-certificates,gcc,python3.14,python3.14-venv,python3.14-dev \
    "$PY_ROOT_SUITE" "$staging" "$PY_ROOT_MIRROR"
  mkdir -p "$staging/etc/ssl/certs"
  touch "$staging/$PY_ROOT_STAMP"
  mv "$staging" "$PY_ROOT"
}

ensure_python() {
  if [ -n "$HOST_PYTHON" ]; then return; fi
  if ! root_is_ready; then bootstrap_root; fi
}
