#!/usr/bin/env bash
# Measures the student's grading loop on a fresh clone of this repository:
#   cold    first `cargo xtask grade` after a clone (dependencies fetched, nothing built)
#   warm    `cargo xtask grade` again with nothing changed (median and min–max of RUNS)
#   touched `cargo xtask grade` after touching one exercise file (median and min–max of RUNS)
#   edited  `cargo xtask grade` after changing one exercise file's contents (median, min–max)
# Usage: scripts/bench-grade.sh [RUNS]   (default 5). Needs a committed tree (it clones HEAD).
set -euo pipefail
runs=${1:-5}
# shellcheck source=scripts/fresh-clone.sh
source "$(dirname "$0")/fresh-clone.sh"

now() { date +%s.%N; }
grade() { cargo xtask grade >/dev/null 2>&1 || true; }
# "median (min–max)" of the numbers on stdin.
stats() { sort -g | awk '{a[NR]=$1} END {m = NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2; printf "%6.2f s  (%.2f–%.2f)", m, a[1], a[NR]}'; }
timed() { t0=$(now); "$@"; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; }

cold=$(timed grade)

warm=$(for _ in $(seq "$runs"); do timed grade; done | stats)

file=exercises/lesson02-split-heads/src/exercises.rs
# Touched: a new modification time, same contents (cargo would rebuild; the grader's content
# hashes see nothing to build). Edited: the contents change, so the lesson is rebuilt.
touched=$(for _ in $(seq "$runs"); do touch "$file"; timed grade; done | stats)
edited=$(for i in $(seq "$runs"); do echo "// edit $i" >> "$file"; timed grade; done | stats)

printf 'CPU     %s\n' "$(lscpu | sed -n 's/^Model name: *//p')"
printf 'cold    %6.2f s   (first grade after clone; dependencies fetched, nothing built)\n' "$cold"
printf 'warm    %s   median (min–max) of %d, nothing changed\n' "$warm" "$runs"
printf 'touched %s   median (min–max) of %d, after touching %s\n' "$touched" "$runs" "$file"
printf 'edited  %s   median (min–max) of %d, after appending a line to %s\n' "$edited" "$runs" "$file"
