//! What a submission cannot reach through the grader's process or its own folder: a handle the
//! grader's caller left open (Landlock only governs files opened after it), and a symbolic link
//! into the reference solution (the grader would read the solution as the student's code).

use crate::support::{self, OutDir, Scratch, json_of, xtask_in};

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const L1: &str = "lesson01-why-heads";
const L2: &str = "lesson02-split-heads";

/// What the handles' files hold before grading; grading must leave them so.
const BEFORE: &str = "the instructor's log\n";

/// Lesson 2's reference solution, with `head_size` writing to descriptors 9 and 10 through bash
/// (POSIX shells need only reach descriptors 0 to 9, and dash does no more). It answers right only when the shell ran and reached neither, so a check that passes
/// proves the attempt was made (and failed).
fn lesson02_writing_to_handles(course: &Path) -> String {
    let solution =
        std::fs::read_to_string(course.join(format!("solutions/{L2}/src/exercises.rs"))).unwrap();
    let probe = r#"let probe = std::process::Command::new("bash")
        .args(["-c", "echo pwned >&9; a=$?; echo pwned >&10; echo \"ran $a $?\""])
        .stderr(std::process::Stdio::null())
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let blocked = probe.starts_with("ran ") && !probe.split(' ').skip(1).any(|s| s == "0");
    Ok(if blocked { c / h } else { c / h + 1 })"#;
    let changed = solution.replacen("Ok(c / h)", probe, 1);
    assert_ne!(
        changed, solution,
        "lesson 2's head_size changed: update this attack"
    );
    changed
}

/// `inner` started through bash, which first opens descriptor 9 (append) onto `log` and 10
/// (read and write) onto `log2`, as `cmd 9>>log 10<>log2` would.
fn with_handles(inner: &Command, log: &Path, log2: &Path) -> Command {
    assert!(support::which("bash").is_some(), "these tests need bash");
    let mut cmd = Command::new("bash");
    cmd.arg("-c")
        .arg(r#"exec 9>>"$LOG"; exec 10<>"$LOG2"; exec "$@""#)
        .arg("bash")
        .arg(inner.get_program())
        .args(inner.get_args());
    if let Some(dir) = inner.get_current_dir() {
        cmd.current_dir(dir);
    }
    for (key, value) in inner.get_envs() {
        match value {
            Some(v) => cmd.env(key, v),
            None => cmd.env_remove(key),
        };
    }
    cmd.env("LOG", log).env("LOG2", log2);
    cmd
}

/// Two files outside every sandbox, holding [`BEFORE`].
fn logs(out: &OutDir) -> (PathBuf, PathBuf) {
    std::fs::create_dir_all(&out.path).unwrap();
    let (log, log2) = (out.path.join("grader.log"), out.path.join("other.log"));
    std::fs::write(&log, BEFORE).unwrap();
    std::fs::write(&log2, BEFORE).unwrap();
    (log, log2)
}

/// Every check of the exercise `name` in a JSON report passed, and there is one at least.
fn assert_passed(report: &serde_json::Value, name: &str) {
    let checks: Vec<&serde_json::Value> = report["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["exercises"].as_array().unwrap())
        .filter(|ex| ex["name"] == name)
        .flat_map(|ex| ex["checks"].as_array().unwrap())
        .collect();
    assert!(!checks.is_empty(), "no check of {name} in {report}");
    for c in checks {
        assert_eq!(c["status"], "passed", "{name}: {c}");
    }
}

/// Grading with `args` in `dir`, the grader started with descriptors 9 and 10 open onto two
/// files: the report, after asserting the files are unchanged.
fn grade_with_handles(dir: &Path, args: &[&str], name: &str) -> serde_json::Value {
    let out = OutDir::new(name);
    let (log, log2) = logs(&out);
    let output = assert_cmd::Command::from_std(with_handles(
        &support::xtask_process(dir, args),
        &log,
        &log2,
    ))
    .timeout(Duration::from_secs(900))
    .output()
    .unwrap();
    for path in [&log, &log2] {
        assert_eq!(
            std::fs::read_to_string(path).unwrap(),
            BEFORE,
            "a check wrote to {} through a handle the grader inherited\n{}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    json_of(&output)
}

#[test]
fn a_callers_handles_never_reach_a_submissions_checks() {
    if support::has_sandbox() {
        handles_of_a_submission(&[]);
    }
}

/// The same in the container mode (no Landlock, no namespaces: a check's own user), which
/// inherited handles would bypass as well.
#[test]
fn a_callers_handles_never_reach_a_submissions_checks_in_a_container() {
    let exe = env!("CARGO_BIN_EXE_xtask");
    let probe = xtask_in(
        &support::course_root(),
        &["__container-like", "--", exe, "__sandbox", "--probe"],
    )
    .output()
    .unwrap();
    if String::from_utf8_lossy(&probe.stdout).trim() != "container-uid" {
        eprintln!("SKIPPED: the container mode is not available here");
        return;
    }
    handles_of_a_submission(&["__container-like", "--", exe]);
}

/// A submission whose checks write to descriptors 9 and 10, graded officially with them open in
/// the grader (started through `prefix`, e.g. the container-like filter).
fn handles_of_a_submission(prefix: &[&str]) {
    let course = Scratch::new("handles-submission");
    let sub = OutDir::new("handles-exercises");
    support::copy_dir(&course.root.join("exercises"), &sub.path);
    std::fs::write(
        sub.path.join(format!("{L2}/src/exercises.rs")),
        lesson02_writing_to_handles(&course.root),
    )
    .unwrap();
    // The instructor may name the submission through a link of their own: it is graded.
    let named = OutDir::new("handles-link");
    std::fs::create_dir_all(named.path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&sub.path, &named.path).unwrap();
    let args = [
        prefix,
        &[
            "grade",
            "--submission",
            named.arg(),
            "2",
            "--format",
            "json",
        ],
    ]
    .concat();
    let report = grade_with_handles(&course.root, &args, "handles-submission-logs");
    assert_eq!(report["official"], true, "{report}");
    assert_passed(&report, "head_size");
}

#[test]
fn a_callers_handles_never_reach_local_checks() {
    let course = Scratch::new("handles-local");
    course.write(
        &format!("exercises/{L2}/src/exercises.rs"),
        &lesson02_writing_to_handles(&course.root),
    );
    let report = grade_with_handles(
        &course.root,
        &["grade", "2", "--format", "json"],
        "handles-local-logs",
    );
    assert_passed(&report, "head_size");
}

/// The ways a student's folder can point into the course: `(name, link relative to the
/// submission, its target)`. The course's solutions are what a link would have the grader read.
fn links(course: &Path) -> Vec<(&'static str, String, PathBuf)> {
    let solutions = course.join("solutions");
    vec![
        (
            "src-link",
            format!("exercises/{L1}/src"),
            solutions.join(L1).join("src"),
        ),
        ("lesson-link", format!("exercises/{L1}"), solutions.join(L1)),
        (
            "deep-link",
            format!("exercises/{L1}/src/exercises.rs"),
            solutions.join(L1).join("src/exercises.rs"),
        ),
        ("exercises-link", "exercises".to_owned(), solutions),
        // A link that stays inside the folder is refused too: nothing is read through a link.
        (
            "inside-link",
            format!("exercises/{L1}/src/extra.rs"),
            PathBuf::from("exercises.rs"),
        ),
    ]
}

/// A handout-shaped submission at `dir` (the course's exercises) with `link` made a symbolic link
/// to `target` (what was there is removed first).
fn linked_submission(course: &Path, dir: &Path, link: &str, target: &Path) {
    support::copy_dir(&course.join("exercises"), &dir.join("exercises"));
    let at = dir.join(link);
    if at.is_dir() {
        std::fs::remove_dir_all(&at).unwrap();
    } else if at.exists() {
        std::fs::remove_file(&at).unwrap();
    }
    std::os::unix::fs::symlink(target, &at).unwrap();
}

#[test]
fn a_submission_holding_a_link_is_refused_and_names_it() {
    let course = Scratch::new("links-submission");
    for (name, link, target) in links(&course.root) {
        let sub = OutDir::new(name);
        linked_submission(&course.root, &sub.path, &link, &target);
        let out = course
            .xtask(&["grade", "--submission", sub.arg(), "1", "--format", "json"])
            .timeout(Duration::from_secs(600))
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{name}: graded instead of refused\n{}\n{stderr}",
            String::from_utf8_lossy(&out.stdout)
        );
        assert!(out.stdout.is_empty(), "{name}: a report was written");
        assert!(
            stderr.contains(&format!("`{link}` is a symbolic link")),
            "{name}: the error does not name the link\n{stderr}"
        );
    }
}

/// A link whose name and target are terminal escapes (clearing the screen, writing a forged
/// total): the refusal names it, escaped, so nothing reaches the instructor's terminal raw.
#[test]
fn a_refused_links_name_reaches_the_terminal_escaped() {
    let course = Scratch::new("links-escapes");
    let sub = OutDir::new("links-escapes");
    let forged = "\x1b[2J\x1b[HTotal: 26 of 26";
    let link = format!("exercises/lesson01-why-heads/src/{forged}.rs");
    linked_submission(&course.root, &sub.path, &link, Path::new(forged));
    let out = course
        .xtask(&["grade", "--submission", sub.arg(), "1", "--format", "json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains('\x1b'), "{stderr:?}");
    assert!(
        stderr.contains("\\u{1b}[2J\\u{1b}[HTotal: 26 of 26.rs` is a symbolic link"),
        "{stderr}"
    );
}

#[test]
fn a_class_entry_holding_a_link_is_an_error_row() {
    let course = Scratch::new("links-class");
    let class = OutDir::new("links-class");
    let cases = links(&course.root);
    for (name, link, target) in &cases {
        linked_submission(&course.root, &class.path.join(name), link, target);
    }
    let work = OutDir::new("links-class-out");
    std::fs::create_dir_all(&work.path).unwrap();
    let gradebook = work.path.join("gradebook.csv");
    let out = xtask_in(
        &course.root,
        &[
            "grade",
            "--submissions",
            class.arg(),
            "1",
            "--gradebook",
            gradebook.to_str().unwrap(),
        ],
    )
    .timeout(Duration::from_secs(600))
    .output()
    .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "every row has an error\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut reader = csv::Reader::from_path(&gradebook).unwrap();
    let headers = reader.headers().unwrap().clone();
    let column = |name: &str| headers.iter().position(|h| h == name).unwrap();
    let (id, total, official, error) = (
        column("id"),
        column("total"),
        column("official"),
        column("error"),
    );
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), cases.len());
    for (name, link, _) in &cases {
        let row = rows.iter().find(|r| &r[id] == *name).unwrap();
        assert_eq!(&row[total], "0", "{name}: {row:?}");
        assert_eq!(&row[official], "false", "{name}: {row:?}");
        assert!(
            row[error].contains(&format!("`{link}` is a symbolic link")),
            "{name}: the error does not name the link: {row:?}"
        );
    }
}

#[test]
fn the_gradescope_autograder_refuses_a_submission_holding_a_link() {
    let course = Scratch::new("links-gradescope");
    let work = OutDir::new("links-gradescope");
    let root = work.path.join("autograder");
    std::fs::create_dir_all(&root).unwrap();
    let bundle = root.join("autograder.zip");
    xtask_in(
        &course.root,
        &["autograder", "gradescope", bundle.to_str().unwrap()],
    )
    .assert()
    .success();
    let mut zip = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    zip.extract(root.join("source")).unwrap();
    std::fs::copy(
        root.join("source/run_autograder"),
        root.join("run_autograder"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(
        root.join("run_autograder"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    // The bundle's own copy of the course holds the solutions the links lead to.
    let bundled = root.join("source/course");
    assert!(bundled.join("solutions").join(L1).is_dir());
    for (name, link, target) in links(&bundled) {
        let sub = root.join("submission");
        let _ = std::fs::remove_dir_all(&sub);
        linked_submission(&bundled, &sub, &link, &target);
        let run = Command::new(root.join("run_autograder"))
            .current_dir(&root)
            .env("TMPDIR", support::temp_root())
            .env("AUTOGRADER_ROOT", &root)
            .env("AUTOGRADER_GRADER", env!("CARGO_BIN_EXE_xtask"))
            .env("CARGO_TARGET_DIR", support::shared_target())
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "run_autograder exits 0 whatever happens"
        );
        let results: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(root.join("results/results.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(results["score"].as_f64(), Some(0.0), "{name}: {results}");
        let output = results["output"].as_str().unwrap_or_default();
        assert!(
            output.contains(&format!("`{link}` is a symbolic link")),
            "{name}: the output does not name the link: {output}"
        );
    }
}
