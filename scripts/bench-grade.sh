#!/usr/bin/env bash
# Measures the student's grading loop on a fresh clone of this repository:
#   cold    first `cargo xtask grade` after a clone (dependencies fetched, nothing built)
#   warm    `cargo xtask grade` again with nothing changed (median of RUNS)
#   touched `cargo xtask grade` after touching one exercise file (median of RUNS)
# Usage: scripts/bench-grade.sh [RUNS]   (default 5). Needs a committed tree (it clones HEAD).
set -euo pipefail
runs=${1:-5}
src=$(git -C "$(dirname "$0")/.." rev-parse --show-toplevel)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
git clone -q "$src" "$dir/course"
cd "$dir/course"
export CARGO_TARGET_DIR="$dir/target" NO_COLOR=1
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS
cargo fetch --locked -q

now() { date +%s.%N; }
grade() { cargo xtask grade >/dev/null 2>&1 || true; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

t0=$(now); grade; t1=$(now)
cold=$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')

warm=$(for _ in $(seq "$runs"); do t0=$(now); grade; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; done | median)

file=exercises/lesson02-split-heads/src/exercises.rs
touched=$(for _ in $(seq "$runs"); do touch "$file"; t0=$(now); grade; t1=$(now); awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}'; done | median)

printf 'cold    %6.2f s   (first grade after clone; dependencies fetched, nothing built)\n' "$cold"
printf 'warm    %6.2f s   (median of %d, nothing changed)\n' "$warm" "$runs"
printf 'touched %6.2f s   (median of %d, after touching %s)\n' "$touched" "$runs" "$file"
