#!/bin/sh
# Timeline.RowsAreReadByNameWithoutABrowser: the page's row reader run by node (rows_test.js).
# usage: rows_test.sh MAKE_TIMELINE TIMELINE_ROWS_JS OUT_DIR      exit 77 = skipped (no node)
set -u
node=
for n in node nodejs; do
  if command -v "$n" >/dev/null 2>&1; then node=$(command -v "$n"); break; fi
done
if [ -z "$node" ]; then
  echo "SKIPPED: no node to run the page's script without a browser (apt-get install nodejs)"
  exit 77
fi
mkdir -p "$3" || { echo "FAILED: cannot create $3"; exit 1; }
"$1" --rows "$3/rows_timeline.html" "$3/rows_expected.json" >/dev/null || { echo "FAILED: make_timeline --rows"; exit 1; }
exec "$node" "$(dirname "$0")/rows_test.js" "$2" "$3/rows_timeline.html" "$3/rows_expected.json"
