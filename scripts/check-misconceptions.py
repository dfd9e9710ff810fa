#!/usr/bin/env python3
"""Plants every misconception of course.toml into its reference solution (cargo feature
`misconception-<id>`) and checks that exactly the checks it lists fail.

    python3 scripts/check-misconceptions.py        # exit 1 on any difference

Uses its own target directory (target/misconceptions) so it never disturbs a grade.
"""
import os, re, subprocess, sys, tomllib
from pathlib import Path

root = Path(__file__).resolve().parent.parent
course = tomllib.loads((root / "course.toml").read_text())
env = dict(os.environ, CARGO_TARGET_DIR=str(root / "target" / "misconceptions"))
mismatches = 0
for lesson in course["lessons"]:
    for m in lesson.get("misconceptions", []):
        run = subprocess.run(
            ["cargo", "test", "-q", "-p", lesson["id"] + "-solution",
             "--features", "misconception-" + m["id"], "--test", lesson["id"]],
            capture_output=True, text=True, env=env, cwd=root)
        failed = sorted(set(re.findall(r"^    checks::(\w+)$", run.stdout, re.M)))
        listed = sorted(m["checks"])
        if failed == listed:
            print(f"ok    {lesson['id']} {m['id']}: {len(failed)} check(s) catch it")
        else:
            mismatches += 1
            print(f"DIFF  {lesson['id']} {m['id']}\n      fail:   {failed}\n      listed: {listed}")
print(f"{mismatches} misconception(s) differ from course.toml")
sys.exit(1 if mismatches else 0)
