#!/usr/bin/env bash
# The table and figure commands (and their tests) draw PNG charts with XChart on headless AWT, which needs fontconfig
# and at least one font to draw text. Installs Debian's fontconfig + fonts-dejavu-core when missing and we may (root
# with apt-get), otherwise says how and fails.
set -euo pipefail
if command -v fc-list >/dev/null && [ -n "$(fc-list 2>/dev/null | head -1)" ]; then
  exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "no font found for the charts: installing Debian's fontconfig and fonts-dejavu-core" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fontconfig fonts-dejavu-core >&2
  exit 0
fi
cat >&2 <<MSG
No font found (fc-list lists none): the PNG charts of 'lgc table' and 'lgc figure' need fontconfig and a font.
Install them with:   sudo apt-get install fontconfig fonts-dejavu-core
MSG
exit 1
