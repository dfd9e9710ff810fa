#!/usr/bin/env bash
# Where a student's first `cargo xtask grade` spends its CPU time: runs it once on a fresh clone
# of the committed tree (empty target folder) with a RUSTC_WRAPPER that logs every rustc run's
# crate and CPU time (user + system, the linker included), then prints the grade's wall and CPU
# time, the rustc time of each half (cargo building the grader, then the grader's build of the
# lessons) by kind of crate, and the TOP (20) costliest crates. CPU time is steadier than wall
# time on a shared machine, but still moves by 10-20% with its load: compare trees with
# scripts/race-tests.sh --first-grade, not with two runs of this.
# Usage: scripts/first-grade-cpu.sh [TOP]
set -euo pipefail
case ${1:-} in
  -h | --help) sed -n '2,9p' "$0"; exit 0 ;;
esac
top=${1:-20}
# shellcheck source=scripts/fresh-clone.sh
source "$(dirname "$0")/fresh-clone.sh"

log="$dir/rustc.log"
cat >"$dir/wrapper.sh" <<'EOF'
#!/usr/bin/env bash
# RUSTC_WRAPPER: runs rustc, then appends "crate kind cpu_seconds" to $RUSTC_CPU_LOG.
name=- kind=- prev=
for a in "$@"; do
  case $prev in --crate-name) name=$a ;; --crate-type) kind=$a ;; esac
  prev=$a
done
# No --crate-type: a test harness (`--test`), or cargo asking rustc about itself.
[ "$kind" = - ] && [[ " $* " == *" --test "* ]] && kind=test
"$@"
status=$?
# The second line of `times`: this shell's children (rustc and its linker), e.g. "0m1.5s 0m0.2s".
# Into a file: in a pipe or `$(...)`, `times` would run in a forked shell, whose children have no
# time yet.
times >"$RUSTC_CPU_LOG.$$"
read -r user sys < <(sed -n 2p "$RUSTC_CPU_LOG.$$")
rm -f "$RUSTC_CPU_LOG.$$"
secs() { awk -v t="$1" 'BEGIN { split(t, p, "m"); sub("s", "", p[2]); print p[1] * 60 + p[2] }'; }
echo "$name $kind $(awk -v u="$(secs "$user")" -v s="$(secs "$sys")" 'BEGIN { print u + s }')" >>"$RUSTC_CPU_LOG"
exit $status
EOF
chmod +x "$dir/wrapper.sh"

cpu0=$(awk '{print $16 + $17}' /proc/$$/stat)
t0=$(date +%s.%N)
RUSTC_WRAPPER="$dir/wrapper.sh" RUSTC_CPU_LOG="$log" cargo xtask grade >/dev/null 2>&1 || true
t1=$(date +%s.%N)
cpu1=$(awk '{print $16 + $17}' /proc/$$/stat)
awk -v a="$t0" -v b="$t1" -v c="$cpu0" -v d="$cpu1" -v hz="$(getconf CLK_TCK)" \
  'BEGIN { printf "first grade: %.1f s wall, %.1f s CPU (user + system)\n", b - a, (d - c) / hz }'

python3 - "$log" "$top" <<'PY'
import sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
rows = [(n, k, float(c)) for n, k, c in rows if n != "-"]
# The grader's build ends with the xtask binary; the lessons' build follows it.
end = next((i + 1 for i, (n, k, _) in enumerate(rows) if n == "xtask" and k == "bin"), len(rows))
macros = {"syn", "proc_macro2", "quote", "unicode_ident", "serde_derive", "clap_derive", "heck"}
course = {"grader", "xtask", "check_protocol", "workspace_hack", "attention", "course_check"}
def kind(n, k):
    if n == "build_script_build": return "build scripts"
    if n.startswith("lesson"): return "lesson tests" if k == "test" else "lesson libraries"
    if n in macros or k == "proc-macro": return "proc-macros and syn"
    if n in course: return "course crates"
    return "other dependencies"
for title, part in (("grader's build", rows[:end]), ("lessons' build", rows[end:])):
    total = sum(c for *_, c in part)
    groups = {}
    for n, k, c in part:
        groups[kind(n, k)] = groups.get(kind(n, k), 0) + c
    shown = sorted((g for g in groups.items() if g[1] >= 0.05), key=lambda x: -x[1])
    detail = ", ".join(f"{g} {c:.1f}" for g, c in shown)
    print(f"{title}: rustc {total:.1f} s CPU in {len(part)} runs ({detail})")
print("costliest rustc runs (s CPU):")
for n, k, c in sorted(rows, key=lambda r: -r[2])[: int(sys.argv[2])]:
    print(f"  {c:6.2f}  {n} ({k})")
PY
