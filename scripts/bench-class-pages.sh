#!/usr/bin/env bash
# Measures what a class run adds to grading: `cargo xtask similarity` and the pages
# (`cargo xtask class-page`: a feedback page per student and the class page) on a generated class.
# Similarity: on the class's submissions. Student n hands in the reference
# solution of lesson i when (7n + 3i) mod 10 < 6 and the stub otherwise (as bench-class.sh), with
# the solutions' short identifiers renamed to names of their own (`q` -> `q_017`) and a comment
# of their own in every lesson file; every fourth student hands in a .tar.gz of the handout.
#   Usage: scripts/bench-class-pages.sh [STUDENTS]   (default 200)
# Pages: on as many JSON reports, half the reference solutions' report and half the stubs' (real
# reports of the whole course, one id each), with the pairs similarity found.
# Runs in this working tree (the grader is built once, then its binary is timed, so no build is
# measured) and prints the median wall time of three runs of each; grading itself is measured by
# bench-class.sh (docs/class-grading.md).
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
echo "similarity median  $median s (of ${times[*]})"
head -4 "$dir/similarity.csv"

# One report of the reference solutions and one of the stubs (official grading, hidden checks
# included), copied under every student's id.
mkdir "$dir/reports"
"$xtask" grade --solutions --format json >"$dir/solved.json" || true
"$xtask" grade --format json >"$dir/stubs.json" || true
for n in $(seq -f '%03g' 1 "$students"); do
  if ((10#$n % 2 == 0)); then from=solved; else from=stubs; fi
  sed "s/\"student\": null/\"student\": \"student$n\"/" "$dir/$from.json" >"$dir/reports/student$n.json"
done
cp "$dir/similarity.csv" "$dir/reports/"
pages=()
for run in 1 2 3; do
  start=$(date +%s.%N)
  "$xtask" class-page "$dir/reports" >/dev/null
  end=$(date +%s.%N)
  pages+=("$(awk -v a="$start" -v b="$end" 'BEGIN {printf "%.2f", b - a}')")
  echo "pages run $run  ${pages[-1]} s"
done
pmedian=$(printf '%s\n' "${pages[@]}" | sort -n | sed -n 2p)
echo "pages median  $pmedian s (of ${pages[*]}), $(ls "$dir/reports" | wc -l) files"
awk -v a="$median" -v b="$pmedian" 'BEGIN {printf "extra time of a class run: %.2f s (similarity + pages)\n", a + b}'
