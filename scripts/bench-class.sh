#!/usr/bin/env bash
# Measures batch grading (`cargo xtask grade --submissions`) on a class of fully different
# submissions. Student n solves lesson i (the reference solution) when (7n + 3i) mod 10 < 6, and
# leaves the other lessons as handed out; every lesson file gets a comment of its own. So no
# lesson crate of one student is byte-identical to another's, every submission rebuilds all of
# its lesson crates and their checks, and from one student to the next about half the lessons
# switch between a stub and a solution (the costliest rebuild: the checks recompile).
# With MODE `shared`, lessons left as handed out get no comment: they are byte-identical from one
# student to the next (as in a real class), and the batch builds each of them once.
# With LESSONS=N in the environment, only the first N lessons vary as above; the later ones are
# left as handed out in every submission (byte-identical, so the batch builds them once), which
# measures a course of N lessons, e.g. LESSONS=7 for the issue's seven-lesson submission.
#   Usage: [LESSONS=N] scripts/bench-class.sh [STUDENTS] [JOBS] [distinct|shared]   (default 20
#   students, -j 2, distinct, every lesson). Needs a committed tree (it clones HEAD) and Linux with
#   Landlock for official grading.
# Prints the batch's own summary, whose last lines give the first submission's time and the
# marginal wall time per further submission, with its CPU time (which depends far less on what
# else the machine runs).
set -euo pipefail
students=${1:-20}
jobs=${2:-2}
mode=${3:-distinct}
lessons=${LESSONS:-all}
case "$mode" in distinct | shared) ;; *)
  echo "bench-class.sh: MODE is distinct or shared, not $mode" >&2
  exit 2
  ;;
esac
case "$lessons" in all | [1-9] | [1-9][0-9]) ;; *)
  echo "bench-class.sh: LESSONS is a number of lessons or all, not $lessons" >&2
  exit 2
  ;;
esac
# shellcheck source=scripts/fresh-clone.sh
source "$(dirname "$0")/fresh-clone.sh"
# A clone holds no course secret, and official grading needs one.
cargo xtask secret >/dev/null
cargo xtask dist "$dir/handout" >/dev/null

mkdir "$dir/class"
for n in $(seq -w 1 "$students"); do
  student="$dir/class/student$n"
  cp -r "$dir/handout" "$student"
  i=0
  for lesson in solutions/*/; do
    i=$((i + 1))
    name=$(basename "$lesson")
    if [ "$lessons" != all ] && ((i > lessons)); then
      continue
    fi
    if (((7 * 10#$n + 3 * i) % 10 < 6)); then
      cp "$lesson/src/exercises.rs" "$student/exercises/$name/src/exercises.rs"
    elif [ "$mode" = shared ]; then
      continue
    fi
    printf '\n// student %s\n' "$n" >>"$student/exercises/$name/src/exercises.rs"
  done
done

printf 'CPU     %s, %s cores\n' "$(lscpu | sed -n 's/^Model name: *//p')" "$(nproc)"
printf 'class   %s submissions (%s, lessons varying: %s), -j %s\n' "$students" "$mode" "$lessons" "$jobs"
start=$(date +%s.%N)
/usr/bin/time -f 'grading %e s wall, %U s user, %S s sys (CPU of the grader and everything it started)' \
  cargo xtask grade --submissions "$dir/class" -j "$jobs" --gradebook "$dir/grades.csv" || true
end=$(date +%s.%N)
awk -v a="$start" -v b="$end" 'BEGIN {printf "total   %.1f s (the grader built first)\n", b - a}'
cut -d, -f1-3 "$dir/grades.csv" | head -4
