#!/bin/sh
# kdp-capture.sh: copy the sysfs, procfs and /dev facts that the kdp device plugins read into a tarball,
# for bug reports and for replaying a real machine in tests (see kdp-replay.sh and ../README.md).
#
# Plain POSIX sh plus find, ls, awk, readlink and tar: no Node, nothing to install on the captured machine.
# Attributes are read line by line by the shell (at most 2000 lines each); binary, write-only and
# slow-to-read files (config, rom, vpd, resource*, remove, rescan, reset, bind, unbind, …) are skipped.
# Symbolic links are recorded as links and never followed outside the roots. Device nodes are NEVER opened:
# /dev is recorded as a listing (type, mode, major:minor, owner) in dev.list.
#
# Usage: kdp-capture.sh [-o FILE.tar.gz] [--sysfs-root DIR] [--proc-root DIR] [--dev-root DIR]
set -u

SYS=/sys
PROC=/proc
DEV=/dev
OUT=
FORMAT=1

usage() {
  cat <<'USAGE'
Usage: kdp-capture.sh [-o FILE.tar.gz] [--sysfs-root DIR] [--proc-root DIR] [--dev-root DIR]

Copies what the kdp device plugins read (PCI devices, NUMA nodes, /sys/class/{net,infiniband,drm,kfd,...},
/sys/bus/{usb,dfl,auxiliary}/devices, driver modules, /proc/driver/nvidia, /proc/devices) into a tarball,
and lists /dev without opening any device node. Default output: ./kdp-capture-YYYYmmdd-HHMMSS.tar.gz
Replay with: packages/topology/capture/kdp-replay.sh FILE.tar.gz DIR
USAGE
}

die() {
  echo "kdp-capture: $*" >&2
  exit 1
}

while [ $# -gt 0 ]; do
  case $1 in
    -o | --output) [ $# -ge 2 ] || { usage >&2; exit 2; }; OUT=$2; shift 2 ;;
    --sysfs-root) [ $# -ge 2 ] || { usage >&2; exit 2; }; SYS=$2; shift 2 ;;
    --proc-root) [ $# -ge 2 ] || { usage >&2; exit 2; }; PROC=$2; shift 2 ;;
    --dev-root) [ $# -ge 2 ] || { usage >&2; exit 2; }; DEV=$2; shift 2 ;;
    -h | --help) usage; exit 0 ;;
    *) echo "kdp-capture: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
[ -n "$OUT" ] || OUT=./kdp-capture-$(date +%Y%m%d-%H%M%S).tar.gz
export LC_ALL=C

SYS_REAL=$(cd -P "$SYS" 2>/dev/null && pwd -P) || die "sysfs root not found: $SYS"
PROC_REAL=$(cd -P "$PROC" 2>/dev/null && pwd -P) || PROC_REAL=
WORK=$(mktemp -d "${TMPDIR:-/tmp}/kdp-capture.XXXXXX") || die "cannot create a temporary directory"
trap 'rm -rf "$WORK"' EXIT
trap 'exit 1' INT TERM
mkdir -p "$WORK/sys" "$WORK/proc"

# copy_file SOURCE DEST: the text of one attribute, read by the shell itself (no process per file). Binary
# sysfs attributes (node cpulist on recent kernels) return nothing to the shell's 1-byte reads, so an empty
# result is read again in one 64 KiB read by dd.
copy_file() {
  {
    n=0
    line=
    while [ "$n" -lt 2000 ] && { IFS= read -r line || [ -n "$line" ]; }; do
      printf '%s\n' "$line"
      n=$((n + 1))
      line=
    done
  } 2>/dev/null <"$1" >"$2" || { rm -f "$2"; return 0; }
  [ -s "$2" ] || dd if="$1" of="$2" bs=65536 count=1 2>/dev/null || :
}

# copy_tree SRC_ROOT DEST_ROOT REL DEPTH: REL (a real path under SRC_ROOT) down to DEPTH levels; links as
# links; child PCI functions, power/, queues/ and kernel-internal directories pruned.
copy_tree() {
  start="$1/$3"
  [ -d "$start" ] || return 0
  mkdir -p "$2/$3"
  # Child PCI functions are captured on their own, from bus/pci/devices; "/" matches no name (procfs case).
  child='/'
  [ "$1" = "$SYS_REAL" ] && child='????:??:??.?'
  find "$start" -maxdepth "$4" \
    \( ! -path "$start" -type d \( -name "$child" -o -name power -o -name queues -o -name sections \
    -o -name notes -o -name holders -o -name msi_irqs -o -name trace -o -name 'hugepages' \) \) -prune \
    -o -print 2>/dev/null |
    while IFS= read -r path; do
      rel=${path#"$1"/}
      [ "$rel" != "$path" ] || continue
      dest="$2/$rel"
      if [ -e "$dest" ] || [ -L "$dest" ]; then
        continue
      elif [ -L "$path" ]; then
        ln -s "$(readlink "$path")" "$dest" 2>/dev/null
      elif [ -d "$path" ]; then
        mkdir -p "$dest"
      elif [ -f "$path" ]; then
        case ${path##*/} in
          config | rom | vpd | resource | resource[0-9]* | remove | rescan | reset | reset_method | bind | unbind | \
            new_id | remove_id | driver_override_store | uevent_trigger | sriov_vf_msix_count | label_store) ;;
          *) copy_file "$path" "$dest" ;;
        esac
      fi
    done
}

# real_rel LINK: the real path of LINK relative to the sysfs root; fails when it resolves outside.
real_rel() {
  real=$(cd -P "$1" 2>/dev/null && pwd -P) || return 1
  case $real in
    "$SYS_REAL"/*) printf '%s\n' "${real#"$SYS_REAL"/}" ;;
    *) return 1 ;;
  esac
}

# copy_links DIR DEPTH: the links in DIR as links, plus what each resolves to (inside the root) down to DEPTH
# levels, and DIR's own files and subdirectories; DEPTH 0 = the links only.
copy_links() {
  [ -d "$SYS_REAL/$1" ] || return 0
  mkdir -p "$WORK/sys/$1"
  for entry in "$SYS_REAL/$1"/*; do
    [ -e "$entry" ] || [ -L "$entry" ] || continue
    name=${entry##*/}
    if [ -L "$entry" ]; then
      [ -L "$WORK/sys/$1/$name" ] || ln -s "$(readlink "$entry")" "$WORK/sys/$1/$name"
      if [ "$2" -gt 0 ] && target=$(real_rel "$entry"); then
        copy_tree "$SYS_REAL" "$WORK/sys" "$target" "$2"
      fi
    elif [ "$2" -eq 0 ]; then
      continue
    elif [ -d "$entry" ]; then
      copy_tree "$SYS_REAL" "$WORK/sys" "$1/$name" "$2"
    elif [ -f "$entry" ]; then
      copy_file "$entry" "$WORK/sys/$1/$name"
    fi
  done
}

# PCI functions: the bus links, every function's directory, drivers' links, IOMMU groups.
copy_links bus/pci/devices 4
if [ -d "$SYS_REAL/bus/pci/drivers" ]; then
  for driver in "$SYS_REAL"/bus/pci/drivers/*; do
    [ -d "$driver" ] && copy_links "bus/pci/drivers/${driver##*/}" 0
  done
fi
copy_tree "$SYS_REAL" "$WORK/sys" kernel/iommu_groups 3

# NUMA and CPUs.
copy_tree "$SYS_REAL" "$WORK/sys" devices/system/node 2
for file in online possible present; do
  [ -f "$SYS_REAL/devices/system/cpu/$file" ] && mkdir -p "$WORK/sys/devices/system/cpu" &&
    copy_file "$SYS_REAL/devices/system/cpu/$file" "$WORK/sys/devices/system/cpu/$file"
done

# Device classes and buses the plugins look at, with the devices they lead to.
for class in net infiniband infiniband_verbs infiniband_mad infiniband_cm drm kfd fpga_region fpga_bridge \
  fpga_manager cxi uio vfio misc accel habanalabs; do
  copy_links "class/$class" 6
done
for bus in usb dfl auxiliary; do
  copy_links "bus/$bus/devices" 2
done
for module in nvidia nvidia_uvm nvidia_modeset amdgpu i915 xe ib_core ib_uverbs mlx5_core mlx5_ib mlx4_core \
  i40e ice iavf ixgbe vfio vfio_pci vfio_iommu_type1 uio igb_uio dfl_pci dfl_afu intel_fpga_pci cxi_core \
  habanalabs usbcore; do
  copy_tree "$SYS_REAL" "$WORK/sys" "module/$module" 3
done

# procfs: NVIDIA driver facts, character device majors, kernel version, loaded modules.
if [ -n "$PROC_REAL" ]; then
  for dir in driver/nvidia driver/nvidia-caps driver/nvidia-uvm; do
    copy_tree "$PROC_REAL" "$WORK/proc" "$dir" 5
  done
  for file in devices version modules; do
    [ -f "$PROC_REAL/$file" ] && copy_file "$PROC_REAL/$file" "$WORK/proc/$file"
  done
fi

# /dev as a listing, never opened: "KIND MODE MAJOR:MINOR UID:GID PATH[ -> TARGET]".
if [ -d "$DEV" ]; then
  (cd "$DEV" && find . -maxdepth 4 ! -path . \( -type c -o -type b -o -type d -o -type l \) \
    -exec ls -ldn {} + 2>/dev/null) | awk '
    function mode(p,   m, i, c, v) {
      m = 0
      for (i = 2; i <= 10; i++) {
        c = substr(p, i, 1); v = 0
        if (c == "r") v = 4; else if (c == "w") v = 2; else if (c == "x" || c == "s" || c == "t") v = 1
        m = m + v * (i <= 4 ? 64 : (i <= 7 ? 8 : 1))
      }
      if (substr(p, 4, 1) ~ /[sS]/) m += 2048
      if (substr(p, 7, 1) ~ /[sS]/) m += 1024
      if (substr(p, 10, 1) ~ /[tT]/) m += 512
      return sprintf("%04o", m)
    }
    {
      kind = substr($1, 1, 1)
      if (kind == "c" || kind == "b") { major = $5; sub(/,$/, "", major); numbers = major ":" $6; first = 10 }
      else { numbers = "-"; first = 9 }
      name = $first
      for (i = first + 1; i <= NF; i++) name = name " " $i
      sub(/^\.\//, "", name)
      print kind, (kind == "l" ? "-" : mode($1)), numbers, $3 ":" $4, name
    }' >"$WORK/dev.list"
else
  : >"$WORK/dev.list"
fi

{
  echo "kdp-capture format $FORMAT"
  echo "date $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "kernel $(uname -srm 2>/dev/null)"
  echo "sysfs-root $SYS"
  echo "proc-root $PROC"
  echo "dev-root $DEV"
  echo "pci-functions $(ls "$WORK/sys/bus/pci/devices" 2>/dev/null | wc -l | tr -d ' ')"
  echo "dev-entries $(wc -l <"$WORK/dev.list" | tr -d ' ')"
} >"$WORK/kdp-capture.txt"

tar -czf "$OUT" -C "$WORK" kdp-capture.txt dev.list sys proc || die "cannot write $OUT"
echo "kdp-capture: wrote $OUT ($(sed -n 's/^pci-functions //p' "$WORK/kdp-capture.txt") PCI functions)" >&2
