#!/usr/bin/env bash
# Measures the student's grading loop on a fresh clone of this repository, each figure next to
# its target:
#   cold    first `cargo xtask grade` after a clone (dependencies fetched, nothing built); with
#           --cold N, N times, the target folder emptied before each
#   warm    `cargo xtask grade` again with nothing changed (median and min–max of RUNS)
#   touched `cargo xtask grade` after touching one exercise file (median and min–max of RUNS)
#   edited  `cargo xtask grade` after changing one exercise file's contents (median, min–max)
#   tests   with --tests N: `cargo test` in the clone with an empty target folder, N times
# Usage: scripts/bench-grade.sh [RUNS] [--cold N] [--tests N]   (RUNS 5, --cold 1, --tests 0).
# Needs a committed tree (it clones HEAD). --tests takes minutes per run (more where qemu-aarch64
# is installed: the core's NEON test then cross-compiles and runs under it).
set -euo pipefail
runs=5 cold_runs=1 test_runs=0
while [ $# -gt 0 ]; do
  case $1 in
    --cold) cold_runs=$2; shift 2 ;;
    --tests) test_runs=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) runs=$1; shift ;;
  esac
done
# shellcheck source=scripts/fresh-clone.sh
source "$(dirname "$0")/fresh-clone.sh"

now() { date +%s.%N; }
grade() { cargo xtask grade >/dev/null 2>&1 || true; }
# `cargo test`, its output dropped (inside: a redirection around `timed` would drop the time too).
tests() { cargo test --locked -q >/dev/null 2>&1 || echo "bench-grade: cargo test FAILED (its time is still counted)" >&2; }
# "median (min–max)" of the numbers on stdin.
stats() { sort -g | awk '{a[NR]=$1} END {m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%6.2f s  (%.2f–%.2f)", m, a[1], a[NR]}'; }
timed() { t0=$(now); "$@"; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; }

# The last cold run leaves the target folder built for the warm figures.
cold=$(for i in $(seq "$cold_runs"); do
  [ "$i" -gt 1 ] && rm -rf "$CARGO_TARGET_DIR"
  timed grade
done | stats)

warm=$(for _ in $(seq "$runs"); do timed grade; done | stats)

file=exercises/lesson02-split-heads/src/exercises.rs
# Touched: a new modification time, same contents (cargo would rebuild; the grader's content
# hashes see nothing to build). Edited: the contents change, so the lesson is rebuilt.
touched=$(for _ in $(seq "$runs"); do touch "$file"; timed grade; done | stats)
edited=$(for i in $(seq "$runs"); do echo "// edit $i" >> "$file"; timed grade; done | stats)

if [ "$test_runs" -gt 0 ]; then
  git checkout -q -- "$file"
  test_times=$(for _ in $(seq "$test_runs"); do
    # The grader's tests build their fixtures in the clone's own target/.
    rm -rf "$CARGO_TARGET_DIR" target
    timed tests
  done | stats)
fi

printf 'CPU     %s\n' "$(lscpu | sed -n 's/^Model name: *//p')"
printf '        %s\n' "$(grep -o -w 'avx2\|fma\|avx512f\|avx512bw\|avx512dq\|avx512vl' /proc/cpuinfo | sort -u | tr '\n' ' ')"
printf '%-7s %-28s %-8s %s\n' figure 'median (min–max)' target what
printf '%-7s %s  ≤ 45 s   first grade, empty target folder (%d run(s))\n' cold "$cold" "$cold_runs"
printf '%-7s %s  ≤ 0.30 s nothing changed (%d runs)\n' warm "$warm" "$runs"
printf '%-7s %s  ≤ 1.0 s  after touching %s (%d runs)\n' touched "$touched" "$file" "$runs"
printf '%-7s %s  ≤ 1.0 s  after appending a line to it (%d runs)\n' edited "$edited" "$runs"
if [ "$test_runs" -gt 0 ]; then
  printf '%-7s %s  ≤ 150 s  cargo test, empty target folder (%d run(s))\n' tests "$test_times" "$test_runs"
fi
