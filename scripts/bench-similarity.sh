#!/usr/bin/env bash
# Measures `cargo xtask similarity` on a generated class. Student n hands in the reference
# solution of lesson i when (7n + 3i) mod 10 < 6 and the stub otherwise (as bench-class.sh), with
# the solutions' short identifiers renamed to names of their own (`q` -> `q_017`) and a comment
# of their own in every lesson file; every fourth student hands in a .tar.gz of the handout.
#   Usage: scripts/bench-similarity.sh [STUDENTS]   (default 200)
# Runs in this working tree (the grader is built once, then its binary is timed, so no build is
# measured) and prints the median wall time of three runs and the command's own summary.
set -euo pipefail
students=${1:-200}
cd "$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export NO_COLOR=1
cargo build -q -p xtask --features instructor
target=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
xtask="$target/debug/xtask"
"$xtask" dist "$dir/handout" >/dev/null

mkdir "$dir/class"
for n in $(seq -f '%03g' 1 "$students"); do
  student="$dir/work/student$n"
  mkdir -p "$dir/work"
  cp -r "$dir/handout" "$student"
  i=0
  for lesson in solutions/*/; do
    i=$((i + 1))
    name=$(basename "$lesson")
    file="$student/exercises/$name/src/exercises.rs"
    if (((7 * 10#$n + 3 * i) % 10 < 6)); then
      sed -E "s/\b(q|k|v|x|hs|scores|out|heads|weights|cache)\b/\1_$n/g" \
        "$lesson/src/exercises.rs" >"$file"
    fi
    printf '\n// student %s\n' "$n" >>"$file"
  done
  if ((10#$n % 4 == 0)); then
    tar czf "$dir/class/student$n.tar.gz" -C "$dir/work" "student$n"
  else
    mv "$student" "$dir/class/"
  fi
done

printf 'CPU     %s, %s cores\n' "$(lscpu | sed -n 's/^Model name: *//p')" "$(nproc)"
printf 'class   %s submissions, %s lessons each\n' "$students" "$(ls -d solutions/*/ | wc -l)"
times=()
for run in 1 2 3; do
  start=$(date +%s.%N)
  "$xtask" similarity "$dir/class" --output "$dir/similarity.csv"
  end=$(date +%s.%N)
  times+=("$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')")
  echo "run $run  ${times[-1]} s"
done
median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
echo "median  $median s (of ${times[*]})"
head -4 "$dir/similarity.csv"
