#!/bin/sh
# Build the desktop bundle: dist/FreightDesk/ (run dist/FreightDesk/FreightDesk) and
# dist/FreightDesk-<version>-<os>-<arch>.tar.gz of it. Needs PyInstaller in the environment
# that has FreightDesk installed:  pip install pyinstaller && packaging/build.sh
# Ends with the bundle's self-check (FreightDesk --self-check) unless --no-check is given.
set -eu
cd "$(dirname "$0")/.."
version=$(python3 -c 'from importlib.metadata import version; print(version("freightdesk"))')
started=$(date +%s)
python3 -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath dist --workpath build/pyinstaller packaging/freightdesk.spec
archive="dist/FreightDesk-$version-$(uname -s | tr A-Z a-z)-$(uname -m).tar.gz"
tar -C dist -czf "$archive" FreightDesk
echo "built dist/FreightDesk ($(du -sh dist/FreightDesk | cut -f1)) and $archive" \
    "($(du -sh "$archive" | cut -f1)) in $(($(date +%s) - started)) s"
dist/FreightDesk/FreightDesk --version
if [ "${1:-}" != "--no-check" ]; then
    dist/FreightDesk/FreightDesk --self-check
fi
