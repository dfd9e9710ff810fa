//! The student's loop end to end, on scratch copies of the course: `watch` re-grades after a
//! scripted save and stops on Ctrl-C, `reset` restores stubs in a `dist` handout without git,
//! `list` shows progress from the last grade, and an unofficial grade is never full marks.

use crate::support::{self, OutDir, Scratch, xtask_in, xtask_process};

use predicates::prelude::*;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

pub(crate) const EXERCISES: &str = "exercises/lesson01-why-heads/src/exercises.rs";
const DRAW_HEAD_TODO: &str =
    "todo!(\"draw_head: three (c, hs) draws in the order Wq, Wk, Wv, each times scale\")";
const DRAW_HEAD_BODY: &str = "let mut draw = || rng.randn((c, hs)) * scale;\n    let wq = draw();\n    let wk = draw();\n    let wv = draw();\n    Head { wq, wk, wv }";
const ROW_SUMS_TODO: &str = "todo!(\"row_sums: sum over the last axis\")";

/// The stub with `draw_head` implemented (correctly, or with Wq and Wk swapped).
fn with_draw_head(stub: &str, right: bool) -> String {
    assert!(stub.contains(DRAW_HEAD_TODO), "the lesson-1 stub changed");
    let body = if right {
        DRAW_HEAD_BODY.to_owned()
    } else {
        DRAW_HEAD_BODY
            .replace("let wq = draw();", "let wk_first = draw();")
            .replace(
                "let wk = draw();",
                "let wq = draw();\n    let wk = wk_first;",
            )
    };
    stub.replace(DRAW_HEAD_TODO, &body)
}

const SOLUTION: &str = "solutions/lesson01-why-heads/src/exercises.rs";

/// The reference solution's file, as a student's `src/exercises.rs` (every lesson-1 check passes).
fn solved(s: &Scratch) -> String {
    s.read(SOLUTION)
}

/// The solution with `draw_head`'s Wq and Wk drawn in the wrong order.
fn wrong_draw_head(s: &Scratch) -> String {
    let right = "let wq = draw();\n    let wk = draw();";
    let sol = solved(s);
    assert!(sol.contains(right), "the lesson-1 solution changed");
    sol.replace(right, "let wk = draw();\n    let wq = draw();")
}

/// Points earned on an exercise's line of a table: `  ✓ draw_head  3/3  passed` -> 3.
fn earned(table: &str, exercise: &str) -> u32 {
    table
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(exercise))
        .and_then(|l| l.split_whitespace().nth(2))
        .and_then(|p| p.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no line for {exercise} in:\n{table}"))
}

/// Ends the watcher (and so its grade) when the test fails half-way.
pub(crate) struct KillOnDrop(pub(crate) std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if matches!(self.0.try_wait(), Ok(Some(_))) {
            return;
        }
        // Ctrl-C first, so the watcher stops its grade's process group too.
        let _ = Command::new("kill")
            .args(["-INT", &self.0.id().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline && matches!(self.0.try_wait(), Ok(None)) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Lines of a child's stdout, read on a thread.
pub(crate) struct Lines {
    rx: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Lines {
    pub(crate) fn new(out: impl std::io::Read + Send + 'static) -> Self {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(out).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Lines {
            rx,
            seen: Vec::new(),
        }
    }

    /// Reads until a line satisfies `done`; returns the lines read since the last call.
    pub(crate) fn until(
        &mut self,
        what: &str,
        within: Duration,
        done: impl Fn(&str) -> bool,
    ) -> Vec<String> {
        let deadline = Instant::now() + within;
        let start = self.seen.len();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.rx.recv_timeout(left) {
                Ok(line) => {
                    let hit = done(&line);
                    self.seen.push(line);
                    if hit {
                        return self.seen[start..].to_vec();
                    }
                }
                Err(_) => panic!(
                    "no {what} within {within:?}; output so far:\n{}",
                    self.seen.join("\n")
                ),
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn watch_regrades_after_a_save_and_stops_on_ctrl_c() {
    let s = Scratch::new("watch");
    let mut child = xtask_process(&s.root, &["watch", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = Lines::new(child.stdout.take().unwrap());
    let mut child = KillOnDrop(child);
    let idle = |l: &str| l.starts_with("Watching exercises/lesson01-why-heads");

    // The first table: everything not started (the first build may compile the course).
    let first = lines.until("first table", Duration::from_secs(900), idle);
    let text = first.join("\n");
    assert!(text.contains("lesson01 · "), "{text}");
    assert!(
        text.contains("draw_head") && text.contains("not started"),
        "{text}"
    );
    assert!(text.contains("Next: work on `draw_head`"), "{text}");

    // A wrong save, then (while it is graded) a right one: the newer save wins.
    s.write(EXERCISES, &wrong_draw_head(&s));
    lines.until("the change noticed", Duration::from_secs(60), |l| {
        l.starts_with("Changed: exercises/lesson01-why-heads/src/exercises.rs")
    });
    std::thread::sleep(Duration::from_millis(300));
    s.write(EXERCISES, &solved(&s));
    let deadline = Instant::now() + Duration::from_secs(300);
    let last_table = loop {
        let run = lines.until("a table after the saves", Duration::from_secs(300), idle);
        let text = run.join("\n");
        if text.contains("✓ draw_head") || Instant::now() > deadline {
            break text;
        }
        // Only the wrong save's table may come first, and it earns nothing for draw_head.
        assert_eq!(earned(&text, "draw_head"), 0, "{text}");
    };
    assert!(
        last_table.contains("✓ draw_head") && last_table.contains("✓ row_sums"),
        "{last_table}"
    );
    assert!(!last_table.contains("Next: work on"), "{last_table}");

    // Ctrl-C: a clean stop.
    let pid = child.0.id().to_string();
    assert!(
        Command::new("kill")
            .args(["-INT", &pid])
            .status()
            .unwrap()
            .success()
    );
    lines.until("the goodbye", Duration::from_secs(30), |l| {
        l == "Stopped watching."
    });
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "watch did not exit after Ctrl-C");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status}");
}

/// `cargo xtask reset ARGS` in `dir` with no terminal on stdin.
fn reset(dir: &Path, args: &[&str]) -> assert_cmd::Command {
    let mut cmd = xtask_in(dir, &[&["reset"], args].concat());
    cmd.write_stdin("");
    cmd
}

fn backup_named_in(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("Your previous version: "))
        .unwrap_or_else(|| panic!("no backup named in:\n{text}"))
        .to_owned()
}

#[test]
fn reset_restores_one_function_or_a_lesson_in_a_handout_without_git() {
    let s = Scratch::new("reset");
    let out = OutDir::new("reset");
    s.xtask(&["dist", out.arg()]).assert().success();
    let h = &out.path;
    assert!(!h.join(".git").exists());
    let stub = std::fs::read_to_string(h.join(EXERCISES)).unwrap();
    assert_eq!(stub, s.read(EXERCISES));
    let pristine = h.join("exercises/lesson01-why-heads/.stubs/exercises.rs");
    assert_eq!(std::fs::read_to_string(&pristine).unwrap(), stub);
    assert!(
        h.join("exercises/lesson02-split-heads/.stubs/exercises.rs")
            .is_file()
    );

    // The student implements two functions.
    let mine =
        with_draw_head(&stub, true).replace(ROW_SUMS_TODO, "weights.sum_axis(ndarray::Axis(2))");
    std::fs::write(h.join(EXERCISES), &mine).unwrap();

    // No terminal and no --yes: refused, nothing changed.
    reset(h, &["draw_head"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--yes"));
    assert_eq!(std::fs::read_to_string(h.join(EXERCISES)).unwrap(), mine);

    // A file nested deeper than any stack allows parsing by recursion: refused in one line (it
    // aborted with a stack overflow before), nothing changed.
    let deep = format!(
        "{mine}\nfn deep() -> u32 {{ {}1{} }}\n",
        "(".repeat(200_000),
        ")".repeat(200_000)
    );
    std::fs::write(h.join(EXERCISES), &deep).unwrap();
    reset(h, &["draw_head", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("levels deep"))
        .stderr(predicate::str::contains("reads up to 512"))
        .stderr(predicate::str::contains("reset the whole lesson"))
        .stderr(predicate::str::contains("overflow").not());
    assert_eq!(std::fs::read_to_string(h.join(EXERCISES)).unwrap(), deep);
    std::fs::write(h.join(EXERCISES), &mine).unwrap();

    // One function: draw_head is the stub again, row_sums is still the student's.
    let done = reset(h, &["draw_head", "--yes"]).assert().success();
    let after = std::fs::read_to_string(h.join(EXERCISES)).unwrap();
    assert!(after.contains(DRAW_HEAD_TODO), "{after}");
    assert!(after.contains("weights.sum_axis(ndarray::Axis(2))"));
    assert!(!after.contains(ROW_SUMS_TODO));
    assert_eq!(
        after,
        stub.replace(ROW_SUMS_TODO, "weights.sum_axis(ndarray::Axis(2))")
    );
    let backup = backup_named_in(&done.get_output().stdout);
    assert!(backup.starts_with("target/xtask/backups/lesson01-why-heads/exercises.rs.bak-"));
    assert_eq!(std::fs::read_to_string(h.join(&backup)).unwrap(), mine);

    // The whole lesson: the file is the stub again, and the previous version is kept too.
    let done = reset(h, &["lesson01", "--yes"]).assert().success();
    assert_eq!(std::fs::read_to_string(h.join(EXERCISES)).unwrap(), stub);
    let second = backup_named_in(&done.get_output().stdout);
    assert_ne!(second, backup);
    assert_eq!(
        std::fs::read_to_string(h.join(&second)).unwrap(),
        stub.replace(ROW_SUMS_TODO, "weights.sum_axis(ndarray::Axis(2))")
    );
    // Nothing left to reset; unknown names are refused.
    reset(h, &["1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("already the handed-out stub"));
    reset(h, &["no_such_exercise", "--yes"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: no lesson or exercise named `no_such_exercise`",
        ));
    // The backups live under target/, outside the course tree.
    let in_tree = support::tree_of(&h.join("exercises"));
    assert!(
        !in_tree
            .keys()
            .any(|p| p.to_string_lossy().contains(".bak-")),
        "a backup in the course tree"
    );
}

#[test]
fn list_shows_progress_from_the_last_grade_kept_outside_the_tree() {
    let s = Scratch::new("progress");
    s.xtask(&["list"])
        .assert()
        .success()
        .stdout(predicate::str::contains("No grade yet"))
        .stdout(predicate::str::contains("not graded yet"));

    // Everything right but row_sums, which panics.
    let sol = solved(&s);
    let sum = "weights.sum_axis(Axis(2))";
    assert!(sol.contains(sum), "the lesson-1 solution changed");
    s.write(EXERCISES, &sol.replace(sum, "panic!(\"not like this\")"));
    let before = s.snapshot_tree();
    let graded = s
        .xtask(&["grade", "1"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let graded = String::from_utf8_lossy(&graded).into_owned();
    assert!(
        before == s.snapshot_tree(),
        "grading wrote into the course tree"
    );
    let total = graded
        .lines()
        .find_map(|l| l.strip_prefix("Total: "))
        .and_then(|t| t.split('/').next())
        .unwrap_or_else(|| panic!("no total in:\n{graded}"))
        .to_owned();
    assert_ne!(total, "0", "{graded}");
    let list = || {
        let out = s
            .xtask(&["list"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone();
        String::from_utf8_lossy(&out).into_owned()
    };
    let text = list();
    let line = |name: &str| {
        text.lines()
            .find(|l| l.split_whitespace().nth(1) == Some(name))
            .unwrap_or_else(|| panic!("no line for {name}:\n{text}"))
            .to_owned()
    };
    assert!(line("draw_head").contains("done"), "{text}");
    assert!(line("row_sums").contains("in progress"), "{text}");
    assert!(line("split_heads").contains("not started"), "{text}");
    assert!(
        text.contains("lesson02 · ") && text.contains("not graded yet"),
        "{text}"
    );
    assert!(
        text.contains(&format!("Course total: {total}/")) && text.contains("1 in progress"),
        "{text}"
    );

    // Grading another lesson keeps lesson 1's progress.
    s.xtask(&["grade", "2"]).assert().code(1);
    let text = list();
    assert!(text.contains(&format!("Course total: {total}/")), "{text}");
    let lesson02 = text.lines().find(|l| l.starts_with("lesson02 · ")).unwrap();
    assert!(
        lesson02.contains("0/") && lesson02.contains("graded just now"),
        "{text}"
    );
}

#[test]
fn an_unofficial_grade_is_never_full_marks() {
    let s = Scratch::new("unofficial");
    // A snapshot's header changes: every check still passes, but the file differs from the
    // manifest.
    let snap = "exercises/lesson01-why-heads/tests/snapshots/lesson01__checks__draw_head_wq.snap";
    let text = s.read(snap);
    assert!(text.starts_with("---\n"), "{text}");
    s.write(
        snap,
        &text.replacen("---\n", "---\nexpression: edited\n", 1),
    );
    s.xtask(&["grade", "--solutions", "1"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Unofficial:"))
        .stdout(predicate::str::contains("Full marks.").not())
        .stdout(predicate::str::contains("not full marks"));

    // The snapshot restored, a dependency added to the lesson's crate: official grading builds
    // the lesson with the instructors' `Cargo.toml`, where code using it would not compile.
    s.write(snap, &text);
    let manifest = "exercises/lesson01-why-heads/Cargo.toml";
    let cargo_toml = s.read(manifest);
    s.write(
        manifest,
        &cargo_toml.replacen(
            "[dependencies]\n",
            "[dependencies]\nserde_json.workspace = true\n",
            1,
        ),
    );
    s.xtask(&["grade", "--solutions", "1"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("Unofficial:"))
        .stdout(predicate::str::contains(format!("{manifest} (changed)")))
        .stdout(predicate::str::contains("Full marks.").not());
}

/// Official grading takes only `exercises/*/src` from a submission. Code a lesson pulls in from
/// beside its `src/` folder (`include!`, `#[path]`) is there locally and missing officially, so a
/// local grade reports the lesson as not compiling, naming the file; the same code moved under
/// `src/` gets full marks.
#[test]
fn code_compiled_from_outside_src_fails_locally_as_it_would_officially() {
    let s = Scratch::new("outside-src");
    let dir = "exercises/lesson02-split-heads";
    // The reference solution, without its inner doc comments (an included file is an item list).
    let solution: String = s
        .read("solutions/lesson02-split-heads/src/exercises.rs")
        .lines()
        .filter(|l| !l.starts_with("//!"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::create_dir_all(s.root.join(dir).join("extra")).unwrap();
    s.write(&format!("{dir}/extra/solved.rs"), &solution);
    s.write(
        &format!("{dir}/src/exercises.rs"),
        "include!(\"../extra/solved.rs\");\n",
    );
    let grade = || {
        let out = s
            .xtask(&["grade", "lesson02", "--format", "json"])
            .output()
            .unwrap();
        support::json_of(&out)
    };
    let report = grade();
    let lesson = &report["lessons"][0];
    assert_eq!(lesson["build"], "compile_error", "{report:#}");
    assert_eq!(report["score"], 0, "{report:#}");
    let text = report.to_string();
    assert!(
        text.contains(&format!("{dir}/extra/solved.rs"))
            && text.contains("official grading takes only exercises/*/src"),
        "{report:#}"
    );

    // Under `src/`, the same code is the student's own...
    s.write(&format!("{dir}/src/solved.rs"), &solution);
    s.write(
        &format!("{dir}/src/exercises.rs"),
        "include!(\"solved.rs\");\n",
    );
    // ... but a build script of its own is not: a submission's build runs none.
    s.write(&format!("{dir}/build.rs"), "fn main() {}\n");
    let report = grade();
    assert_eq!(report["lessons"][0]["build"], "compile_error", "{report:#}");
    assert!(
        report
            .to_string()
            .contains(&format!("{dir}/build.rs, a build script")),
        "{report:#}"
    );
    std::fs::remove_file(s.root.join(dir).join("build.rs")).unwrap();
    let report = grade();
    assert_eq!(report["lessons"][0]["build"], "ok", "{report:#}");
    assert_eq!(report["score"], report["max_score"], "{report:#}");
}

/// `hint` shows one more level per call and remembers it outside the tree, for each copy of the
/// course on its own: two copies sharing a target folder do not advance each other's hints.
#[test]
fn hints_advance_one_level_per_call_per_copy_of_the_course() {
    let (a, b) = (Scratch::new("hints-a"), Scratch::new("hints-b"));
    let levels = |s: &Scratch| {
        let out = s.xtask(&["hint", "max_abs_diff"]).assert().success();
        let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
        let shown = text
            .lines()
            .filter(|l| {
                l.trim_start()
                    .split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            })
            .count();
        (shown, text)
    };
    let before = a.snapshot_tree();
    let (first, text) = levels(&a);
    assert_eq!(first, 1, "{text}");
    let (second, text) = levels(&a);
    assert_eq!(second, 2, "{text}");
    // The other copy starts at the first level.
    let (other, text) = levels(&b);
    assert_eq!(other, 1, "{text}");
    assert!(before == a.snapshot_tree(), "hint wrote into the course");
}
