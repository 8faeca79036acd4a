#!/usr/bin/env bash
# Checks the README's set-up as a new user meets it on a fresh Debian 12 with Swift installed:
# debootstrap a minimal root (or reuse ROOT if it holds one), add only the packages swift.org's
# Debian 12 image installs beside Swift, a user allowed to sudo, and Swift itself (SWIFT_DIR
# bind-mounted read-only at the same path, on the user's PATH through ~/.profile, as "Getting
# Swift 6" leaves it). Then, as that user, clone this repository's HEAD and type the README's
# first block line by line in one shell (<this repository> replaced by the clone's source), and
# `slowpoke open media/clip60.mp4`, stopping at the first line that fails. Needs root.
#
#   tools/fresh-debian-check.sh ROOT [SWIFT_DIR]      (SWIFT_DIR: /opt/swift by default)
#
# MIRROR picks the Debian mirror (http://deb.debian.org/debian). HOST_NETWORK=1 copies this
# machine's way out into the root, for machines that reach GitHub or PyPI through a local
# mirror or a TLS proxy: git's url.*.insteadOf rewrites (their local targets bind-mounted
# read-only), the CA certificates of /usr/local/share/ca-certificates and /etc/pip.conf.
# Everything mounted is unmounted on exit; the root stays for inspection.
set -euo pipefail
ROOT=$(realpath -m "${1:?usage: $0 ROOT [SWIFT_DIR]}")
SWIFT_DIR=${2:-/opt/swift}
MIRROR=${MIRROR:-http://deb.debian.org/debian}
REPO=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
SWIFT_PACKAGES="binutils-gold curl gpg libicu-dev libcurl4-openssl-dev libedit-dev libsqlite3-dev \
  libncurses-dev libpython3-dev libxml2-dev pkg-config uuid-dev tzdata git gcc libstdc++-12-dev sudo"
MOUNTED=()
bind() { mkdir -p "$ROOT$2"; mount --bind "$1" "$ROOT$2"; mount -o remount,bind,ro "$ROOT$2"; MOUNTED+=("$ROOT$2"); }
cleanup() { for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount -R "${MOUNTED[i]}" || true; done; }
trap cleanup EXIT

[ -f "$ROOT/etc/debian_version" ] || debootstrap --variant=minbase bookworm "$ROOT" "$MIRROR"
printf 'deb %s bookworm main\ndeb %s bookworm-updates main\ndeb %s-security bookworm-security main\n' \
  "$MIRROR" "$MIRROR" "$MIRROR" > "$ROOT/etc/apt/sources.list"
printf '127.0.0.1 localhost\n127.0.1.1 %s\n' "$(hostname)" > "$ROOT/etc/hosts"
for fs in proc sys dev; do
  mkdir -p "$ROOT/$fs"; mount --rbind "/$fs" "$ROOT/$fs"; mount --make-rslave "$ROOT/$fs"; MOUNTED+=("$ROOT/$fs")
done
bind "$SWIFT_DIR" "$SWIFT_DIR"

if [ "${HOST_NETWORK:-0}" = 1 ]; then
  : > "$ROOT/etc/gitconfig"
  while read -r key value; do
    base=${key#url.}; base=${base%.insteadof}
    git config --file "$ROOT/etc/gitconfig" --add "url.$base.insteadOf" "$value"
    if [ -d "$base" ] && ! mountpoint -q "$ROOT$base"; then bind "$base" "$base"; fi
  done < <(git config --system --get-regexp '^url\..*\.insteadof$')
  git config --file "$ROOT/etc/gitconfig" safe.directory '*'   # the mirror's owner is not the user
  cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/" 2>/dev/null || true
  if [ -f /etc/pip.conf ]; then grep -E '^\[global\]|^cert' /etc/pip.conf > "$ROOT/etc/pip.conf"; fi
fi
chroot "$ROOT" /bin/bash -c "export DEBIAN_FRONTEND=noninteractive; apt-get -qq update &&
  apt-get -qq install -y $SWIFT_PACKAGES >/dev/null && update-ca-certificates >/dev/null"
if ! chroot "$ROOT" id ada >/dev/null 2>&1; then
  chroot "$ROOT" useradd -m -s /bin/bash -G sudo ada
  echo 'ada ALL=(ALL) NOPASSWD:ALL' > "$ROOT/etc/sudoers.d/ada"
  echo "export PATH=$SWIFT_DIR/usr/bin:\$PATH" >> "$ROOT/home/ada/.profile"
fi
rm -rf "$ROOT/srv/slowpoke.git" && mkdir -p "$ROOT/srv"
git clone -q --bare "$REPO" "$ROOT/srv/slowpoke.git"
git -C "$ROOT/srv/slowpoke.git" update-ref --no-deref HEAD "$(git -C "$REPO" rev-parse HEAD)"
awk '/^```/ { n++; next } n == 1' "$REPO/README.md" > "$ROOT/home/ada/block.txt"
echo 'slowpoke open media/clip60.mp4' >> "$ROOT/home/ada/block.txt"
cat > "$ROOT/home/ada/block.sh" <<'EOF'
cd ~ && rm -rf slowpoke
while IFS= read -r line; do
  line=${line//<this repository>//srv/slowpoke.git}
  echo "=== $(date -u +%T) \$ $line"; start=$(date +%s)
  eval "$line"; rc=$?
  echo "=== rc=$rc after $(( $(date +%s) - start )) s"
  [ $rc = 0 ] || { echo "=== STOPPED at the line above"; exit $rc; }
done < ~/block.txt
echo "=== every line worked as typed"
EOF
chroot "$ROOT" chown ada /home/ada/block.sh /home/ada/block.txt
chroot "$ROOT" su - ada -c 'bash ~/block.sh'
