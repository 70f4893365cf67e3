#!/bin/sh
# kdp-replay.sh: unpack a kdp-capture tarball into DIR so that a plugin can run on it with
#   --sysfs-root DIR/sys --proc-root DIR/proc --dev-root DIR/dev
# Device nodes listed in dev.list become placeholder regular files holding "c MAJOR:MINOR" (or "b …");
# directories and symbolic links are recreated. Paths that are absolute or contain ".." are refused.
#
# Usage: kdp-replay.sh CAPTURE.tar.gz DIR
set -u

if [ $# -ne 2 ]; then
  echo "Usage: kdp-replay.sh CAPTURE.tar.gz DIR" >&2
  exit 2
fi
ARCHIVE=$1
DIR=$2
mkdir -p "$DIR" || exit 1
tar -xzf "$ARCHIVE" -C "$DIR" || { echo "kdp-replay: cannot extract $ARCHIVE" >&2; exit 1; }
[ -f "$DIR/kdp-capture.txt" ] || { echo "kdp-replay: $ARCHIVE is not a kdp capture" >&2; exit 1; }
mkdir -p "$DIR/dev" "$DIR/sys" "$DIR/proc"

while read -r kind mode numbers owner rest; do
  path=${rest%% -> *}
  case /$path/ in
    *//* | */../* | */./*) echo "kdp-replay: refusing dev.list path: $path" >&2; continue ;;
  esac
  case $kind in
    d) mkdir -p "$DIR/dev/$path" ;;
    c | b)
      mkdir -p "$DIR/dev/$(dirname "$path")"
      printf '%s %s\n' "$kind" "$numbers" >"$DIR/dev/$path"
      ;;
    l)
      target=${rest#* -> }
      mkdir -p "$DIR/dev/$(dirname "$path")"
      [ -e "$DIR/dev/$path" ] || [ -L "$DIR/dev/$path" ] || ln -s "$target" "$DIR/dev/$path"
      ;;
  esac
  : "$mode" "$owner"
done <"$DIR/dev.list"

echo "--sysfs-root $DIR/sys --proc-root $DIR/proc --dev-root $DIR/dev"
