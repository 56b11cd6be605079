#!/usr/bin/env bash
# Downloads Debian's trilinos 13.2.0 source package (the only Kokkos 3.4.01 /
# Kokkos Kernels 3.4.01 source the package archive serves) into DEST_DIR.
# The deb-src entry is derived from this machine's own apt sources, written to a
# private list, so the system's apt configuration is left untouched.
#   fetch-trilinos-source.sh DEST_DIR
set -euo pipefail
dest=${1:?usage: fetch-trilinos-source.sh DEST_DIR}
mkdir -p "$dest"
state="$dest/apt-state"
mkdir -p "$state/lists/partial"

uri=$(awk '/^URIs:/ {print $2}' /etc/apt/sources.list.d/*.sources 2>/dev/null | grep -v security | head -n 1 || true)
[ -n "$uri" ] || uri=$(awk '$1 == "deb" {print $2}' /etc/apt/sources.list 2>/dev/null | grep -v security | head -n 1 || true)
if [ -z "$uri" ]; then
  echo "fetch-trilinos-source: no Debian mirror found in /etc/apt/sources.list{,.d}" >&2
  exit 1
fi
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
printf 'Types: deb-src\nURIs: %s\nSuites: %s\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
  "$uri" "$suite" >"$state/src.sources"
opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$state"
      -o "Dir::State::Lists=$state/lists" -o Debug::NoLocking=1)
apt-get "${opts[@]}" -qq update
# Every Debian revision of 13.2.0 ships the same orig tarball; the caller checks its sha256.
cd "$dest" && apt-get "${opts[@]}" -qq source --download-only trilinos
ls "$dest"/trilinos_13.2.0.orig.tar.gz
