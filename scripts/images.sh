#!/usr/bin/env bash
# Builds service images from docker/service.Dockerfile with buildah (vfs storage, chroot
# isolation: no daemon, no overlay mounts, no user namespaces needed) and checks each one for
# real: it holds no test files, no TypeScript sources that could run and no dev dependencies,
# and it starts as uid 1000 on a read-only root filesystem against the servers in
# NATS_URL / DATABASE_URL / REDIS_URL and answers /readyz. Prints each image's size.
#
#   bash scripts/images.sh [service...]        (default: gateway voice-bot)
#
# No registry of images is reachable here, so the Dockerfile's base (node:20-bookworm-slim) is
# made locally once per machine: a minimal Debian 12 root from debootstrap plus this machine's
# Node 20, tagged with the base's name. The Dockerfile is built as it is, with NODE_IMAGE naming
# that tag (a local image cannot carry the registry's digest). Kept between runs: the base,
# buildah's layer cache and the pnpm store's cache mount (/var/lib/containers, /var/tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
export BUILDAH_ISOLATION=chroot DEBIAN_FRONTEND=noninteractive
# A store of its own (vfs: plain directories, no overlay mounts, so it works wherever root
# does; IMAGES_STORAGE_DRIVER=overlay is faster where the kernel allows it), kept between runs.
DRIVER="${IMAGES_STORAGE_DRIVER:-vfs}"
STORE="${IMAGES_STORE:-/var/lib/containers/chronicler-$DRIVER}"
# Under vfs every committed layer is a full copy of the tree, so the Dockerfile's steps run in
# one working container per stage (what is kept between runs is the base and the pnpm store's
# cache mount, /var/tmp/buildah-cache); IMAGES_LAYERS=1 commits and reuses a layer per step.
LAYERS=()
[ "${IMAGES_LAYERS:-0}" = 1 ] && LAYERS=(--layers)
bx() { buildah --storage-driver "$DRIVER" --root "$STORE" --runroot "/run/containers/chronicler-$DRIVER" "$@"; }
SERVICES=("$@")
[ ${#SERVICES[@]} -gt 0 ] || SERVICES=(gateway voice-bot)
NODE_VERSION="$(node --version)"
BASE="docker.io/library/node:20-bookworm-slim"
log() { printf '\n--- images: %s\n' "$*"; }
secs() { echo $(($(date +%s) - $1)); }

for v in NATS_URL DATABASE_URL REDIS_URL; do
  [ -n "${!v:-}" ] || { echo "scripts/images.sh: $v must be set (the image is started against it)" >&2; exit 2; }
done
case "$NODE_VERSION" in v20.*) ;; *) echo "scripts/images.sh: the base needs Node 20, this machine has $NODE_VERSION" >&2; exit 2 ;; esac

need=()
command -v buildah >/dev/null || need+=(buildah)
command -v debootstrap >/dev/null || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
  log "apt-get install ${need[*]}"
  apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null
fi

# --- the base: debootstrap (bookworm, minbase) + this machine's node and npm, as the official
# image lays them out (/usr/local/bin/node, /usr/local/lib/node_modules/npm).
# This machine reaches the npm registry through a proxy whose CA only its own trust store
# holds: the base carries that bundle (NODE_EXTRA_CA_CERTS, as on the machine) so that npm and
# pnpm inside the build trust what the machine trusts. A new Node or bundle remakes the base.
CA_FILE="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}"
want="$NODE_VERSION $( [ -f "$CA_FILE" ] && sha256sum <"$CA_FILE" | cut -c1-16)"
have="$(bx inspect --type image --format '{{index .OCIv1.Config.Labels "chronicler.base"}}' "$BASE" 2>/dev/null || true)"
if [ "$have" != "$want" ]; then
  t=$(date +%s)
  log "making the base $BASE (debootstrap bookworm + node $NODE_VERSION)"
  rootfs="$(mktemp -d /var/tmp/chronicler-base.XXXXXX)"
  trap 'rm -rf "$rootfs"' EXIT
  debootstrap --variant=minbase bookworm "$rootfs" http://deb.debian.org/debian >/dev/null
  rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
  npm_root="$(npm root -g)/npm"
  install -m 0755 "$(readlink -f "$(command -v node)")" "$rootfs/usr/local/bin/node"
  mkdir -p "$rootfs/usr/local/lib/node_modules"
  cp -a "$npm_root" "$rootfs/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  base_env=(--env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin)
  if [ -f "$CA_FILE" ]; then
    install -D -m 0644 "$CA_FILE" "$rootfs/etc/ssl/certs/ca-certificates.crt"
    base_env+=(--env NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt)
  fi
  chroot "$rootfs" /usr/local/bin/node --version >/dev/null
  ctr="$(bx from scratch)"
  mnt="$(bx mount "$ctr")"
  cp -a "$rootfs/." "$mnt/"
  bx umount "$ctr" >/dev/null
  bx config "${base_env[@]}" --cmd node --label "chronicler.base=$want" "$ctr"
  bx commit --rm -q "$ctr" "$BASE" >/dev/null
  rm -rf "$rootfs"
  trap - EXIT
  echo "base made in $(secs "$t") s"
fi

# --- what an image must not hold. Dev dependencies: the build and test tools, and every
# other package a workspace package.json lists under devDependencies, less those that the
# service's production tree needs too (pnpm's own answer; e.g. a library's @types/node).
dev_deps="$(node -e '
  const fs = require("fs"), path = require("path");
  const names = new Set();
  const dirs = [".", "web", "tests", ...["services", "services/shared"].flatMap((d) =>
    fs.readdirSync(d).map((n) => path.join(d, n)))];
  for (const d of dirs) {
    const f = path.join(d, "package.json");
    if (fs.existsSync(f)) for (const n of Object.keys(JSON.parse(fs.readFileSync(f, "utf8")).devDependencies ?? {})) names.add(n);
  }
  console.log([...names].join("\n"));
')"
TOOLS="tsx esbuild vitest vite typescript eslint prettier"
prod_deps() { # $1 service: the names in its production tree
  pnpm --filter "@chronicler/$1" list --prod --depth Infinity --parseable 2>/dev/null | sed -E 's|.*/node_modules/||' | sort -u
}

check_contents() { # $1 service, $2 mounted root
  local app="$2/app" bad="" own
  # Our code: /app itself and our packages as pnpm copied them in (third-party code is not
  # looked at: what its authors publish is theirs).
  own=("$app" $(find "$app/node_modules/.pnpm" -maxdepth 4 -type d -path '*/node_modules/@chronicler/*' -prune -print))
  # Test files, sources other than compiled JavaScript, and TypeScript that could run
  # (declarations are types only).
  bad+="$(find "${own[@]}" -path '*/node_modules' -prune -o \( -name '*.test.*' -o -name '*.spec.*' \
    -o -name 'vitest.config.*' -o -name src -o -name tests -o \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' \) -not -name '*.d.*ts' \) -print)"
  local dev
  # The tools are always out (pnpm list counts some of them in through optional peers).
  dev="$(ls "$app/node_modules/.pnpm" | sed -E 's/^(@?[^@]+)@.*/\1/; s/\+/\//' | sort -u |
    grep -Fxf <(printf '%s\n' $TOOLS; echo "$dev_deps" | grep -Fvxf <(prod_deps "$1")) || true)"
  [ -z "$dev" ] || bad+=$'\n'"dev dependencies: $(echo $dev)"
  [ -e "$app/dist/main.js" ] || bad+=$'\n'"no /app/dist/main.js"
  if [ -n "$(echo "$bad" | tr -d '[:space:]')" ]; then
    echo "image chronicler-$1 holds what it must not:" >&2
    echo "$bad" | sed '/^$/d' | head -40 >&2
    return 1
  fi
  echo "chronicler-$1: no tests, no TypeScript sources, no dev dependencies (${#own[@]} of our packages looked at; /app is $(du -sh "$app" | cut -f1))"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port() { local p; for p in $(shuf -i 20000-39999 -n 50); do port_open "$p" || { echo "$p"; return; }; done; return 1; }

run_image() { # $1 service, $2 mounted root, $3 container: starts it as the image says, as uid 1000
  local name="$1" root="$2" ctr="$3" ops port db envs
  ops="$(free_port)"; port="$(free_port)"
  db="chronicler_img_$(date +%s)_$$_${name//-/_}"
  psql "$DATABASE_URL" -qc "create database $db"
  DBS+=("$db")
  # The image's own environment, then the servers to join and ports of our own.
  mapfile -t envs < <(bx inspect --format '{{range .OCIv1.Config.Env}}{{println .}}{{end}}' "$ctr" | sed '/^$/d')
  envs+=("NATS_URL=$NATS_URL" "REDIS_URL=$REDIS_URL" "DATABASE_URL=${DATABASE_URL%/*}/$db"
    "BUS_PREFIX=img$(head -c4 /dev/urandom | od -An -tx1 | tr -d ' \n')" "AUTH_JWT_SECRET=$(head -c32 /dev/urandom | base64 | tr -d '\n')"
    "OPS_PORT=$ops" "PORT=$port" "LOG_LEVEL=warn" "HOME=/tmp")
  local cmd entry workdir user
  entry="$(bx inspect --format '{{range .OCIv1.Config.Entrypoint}}{{.}} {{end}}' "$ctr")"
  cmd="$(bx inspect --format '{{range .OCIv1.Config.Cmd}}{{.}} {{end}}' "$ctr")"
  workdir="$(bx inspect --format '{{.OCIv1.Config.WorkingDir}}' "$ctr")"
  user="$(bx inspect --format '{{.OCIv1.Config.User}}' "$ctr")"
  [ "$user" = "1000:1000" ] || { echo "chronicler-$name: USER is '$user', not 1000:1000" >&2; return 1; }
  # A mount and PID namespace of its own: the root bound read-only, a tmpfs on /tmp and on
  # DATA_DIR (the only places written), /proc and /dev; tini is PID 1 as in a container.
  local log="/tmp/chronicler-image-$name.log"
  unshare --mount --pid --fork --kill-child=SIGTERM --propagation private -- env -i "${envs[@]}" bash -c '
    set -e; r="$1"; shift; w="$1"; shift
    mount --bind "$r" "$r"; mount -o remount,bind,ro "$r"
    mount -t tmpfs -o mode=1777 tmpfs "$r/tmp"
    mount -t tmpfs -o uid=1000,gid=1000 tmpfs "$r/data"
    mount -t proc proc "$r/proc"
    mount --rbind /dev "$r/dev"
    if chroot --userspec=1000:1000 "$r" /bin/sh -c "touch /app/.written" 2>/dev/null; then
      echo "the root filesystem is writable" >&2; exit 1
    fi
    cd "$r"; exec chroot --userspec=1000:1000 "$r" /bin/sh -c "cd \"$w\" && exec \"\$@\"" sh "$@"
  ' sh "$root" "$workdir" $entry $cmd >"$log" 2>&1 &
  RUNNING+=($!)
  local t=$(date +%s) ready=""
  while [ "$(secs "$t")" -lt 120 ]; do
    if curl -fsS "http://127.0.0.1:$ops/readyz" 2>/dev/null | grep -q '"bus":true'; then ready=1; break; fi
    kill -0 "${RUNNING[-1]}" 2>/dev/null || break
    sleep 1
  done
  if [ -z "$ready" ]; then
    echo "chronicler-$name did not answer /readyz on $ops (its output, $log):" >&2
    tail -30 "$log" >&2
    return 1
  fi
  echo "chronicler-$name: ready in $(secs "$t") s as uid 1000 on a read-only root: $(curl -fsS "http://127.0.0.1:$ops/readyz")"
}

RUNNING=() DBS=() CTRS=()
cleanup() {
  # unshare waits on its child, tini (PID 1 inside), which passes SIGTERM on to node.
  local p
  for p in "${RUNNING[@]}"; do pkill -TERM -P "$p" 2>/dev/null || true; done
  for p in "${RUNNING[@]}"; do
    for _ in $(seq 1 20); do kill -0 "$p" 2>/dev/null || break; sleep 0.5; done
    pkill -KILL -P "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
  done
  for c in "${CTRS[@]}"; do bx umount "$c" >/dev/null 2>&1 || true; bx rm "$c" >/dev/null 2>&1 || true; done
  for d in "${DBS[@]}"; do psql "$DATABASE_URL" -qc "drop database if exists $d with (force)" >/dev/null 2>&1 || true; done
}
trap cleanup EXIT

# What earlier runs left: untagged images (the intermediate layers of older sources, about
# 1 GB each under vfs) and working containers of a run that was killed.
bx rm --all >/dev/null 2>&1 || true
bx rmi --prune >/dev/null 2>&1 || true

for name in "${SERVICES[@]}"; do
  t=$(date +%s)
  log "build chronicler-$name"
  bx bud "${LAYERS[@]}" --pull=never --format docker -q -f docker/service.Dockerfile \
    --build-arg "SERVICE=$name" --build-arg "NODE_IMAGE=$BASE" -t "chronicler-$name" . >/dev/null
  size="$(bx images --format '{{.Size}}' "localhost/chronicler-$name")"
  echo "chronicler-$name built in $(secs "$t") s: $size"
  ctr="$(bx from --pull=never "localhost/chronicler-$name")"
  CTRS+=("$ctr")
  mnt="$(bx mount "$ctr")"
  check_contents "$name" "$mnt"
  run_image "$name" "$mnt" "$ctr"
done
log "sizes"
bx images --format '{{.Name}}:{{.Tag}} {{.Size}}' | grep -E "chronicler-($(IFS='|'; echo "${SERVICES[*]}")):" || true
