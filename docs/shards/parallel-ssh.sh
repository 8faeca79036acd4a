#!/bin/bash
# slowpoke batch on several machines with GNU parallel over SSH: one shard per host.
#   parallel-ssh.sh hosts.txt /shared/project recipe.json
# hosts.txt lists one SSH login per line (render1, user@render2, …). Every host needs slowpoke
# on its PATH and the shared folder at the same path. Rerunning the same command redoes only
# what is missing or changed.
set -euo pipefail
HOSTS=${1:?usage: parallel-ssh.sh hosts.txt /shared/folder recipe.json}
FOLDER=${2:?usage: parallel-ssh.sh hosts.txt /shared/folder recipe.json}
RECIPE=${3:?usage: parallel-ssh.sh hosts.txt /shared/folder recipe.json}
N=$(grep -cv '^[[:space:]]*\(#\|$\)' "$HOSTS")

# "1/host" gives each host one shard at a time; --tag prefixes every line with the shard.
sed -e '/^[[:space:]]*\(#\|$\)/d' -e 's|^|1/|' "$HOSTS" > "${TMPDIR:-/tmp}/slowpoke-hosts.$$"
trap 'rm -f "${TMPDIR:-/tmp}/slowpoke-hosts.$$"' EXIT
parallel --sshloginfile "${TMPDIR:-/tmp}/slowpoke-hosts.$$" --tag --halt never \
  "cd $(printf %q "$FOLDER") && slowpoke batch $(printf %q "$RECIPE") --shard {}/$N --progress none" \
  ::: $(seq 1 "$N")
