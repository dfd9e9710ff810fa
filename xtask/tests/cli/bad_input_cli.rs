//! Bad input never panics (issue 13): every mistyped or impossible argument is refused with one
//! `error:` line (and at most one `  help:` line), exit status 2, nothing on stdout, before any
//! grading starts, and nothing written. Run against the real workspace (nothing here writes to
//! it: every path a case names is in a scratch folder outside the course); `new`, which writes
//! lessons, runs in a scratch copy whose tree is compared before and after. The one case that
//! grades, `--format human --output FILE`, grades lesson 2 only.

use crate::support::{OutDir, Scratch, course_root, xtask_in};

/// The refusal every case must give: exit status 2, stdout empty, on stderr at most two non-empty
/// lines, the first `error...` naming `fragment`, the second (if any) a `  help:` line, and no
/// panic or backtrace.
fn assert_refused(out: &std::process::Output, args: &[&str], fragment: &str) {
    let shown = args.join(" ");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!("`cargo xtask {shown}`\n--- stdout\n{stdout}\n--- stderr\n{stderr}");
    assert_eq!(out.status.code(), Some(2), "exit status: {context}");
    assert!(stdout.is_empty(), "stdout not empty: {context}");
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(
        (1..=2).contains(&lines.len()),
        "not one error line (and one help line): {context}"
    );
    assert!(lines[0].starts_with("error"), "{context}");
    assert!(
        lines[0].contains(fragment),
        "the error does not name `{fragment}`: {context}"
    );
    if let Some(help) = lines.get(1) {
        assert!(help.starts_with("  help: "), "second line: {context}");
    }
    for bad in ["panicked", "RUST_BACKTRACE", "backtrace"] {
        assert!(!stderr.contains(bad), "`{bad}` on stderr: {context}");
    }
}

#[test]
fn bad_input_is_refused_with_one_line_and_exit_status_2() {
    let out_dir = OutDir::new("bad-input");
    std::fs::create_dir_all(&out_dir.path).unwrap();
    let scratch = |rel: &str| out_dir.path.join(rel).to_str().unwrap().to_owned();
    // Where a report, gradebook or kept copy would go if a case were not refused up front.
    let report = scratch("missing/report.json");
    let gradebook = scratch("missing/grades.csv");
    let reports_file = scratch("reports-is-a-file");
    std::fs::write(&reports_file, "not a folder\n").unwrap();
    let keep = scratch("missing/keep");
    let svg_file = scratch("svg-is-a-file");
    std::fs::write(&svg_file, "not a folder\n").unwrap();
    let no_dir = scratch("no-such-dir");
    let a_file = reports_file.clone();
    // A class with one entry that is not a submission: without the up-front checks, grading it
    // would write the gradebook and the reports (and exit 1).
    let class = out_dir.path.join("class");
    std::fs::create_dir_all(class.join("not-a-course/src")).unwrap();
    std::fs::write(class.join("not-a-course/src/main.rs"), "fn main() {}\n").unwrap();
    let class = class.to_str().unwrap().to_owned();
    let empty = scratch("empty");
    std::fs::create_dir_all(&empty).unwrap();

    // (arguments, what the error line names)
    let mut cases: Vec<(Vec<&str>, &str)> = vec![
        // The check sandbox's own command, parsed apart from the others, refuses the same way.
        (vec!["__sandbox", "--no-such-flag"], "--no-such-flag"),
        (vec!["__sandbox", "--timeout-ms", "soon"], "--timeout-ms"),
        // --timeout: out of range, not a number, or rounding to no time at all.
        (vec!["grade", "lesson02", "--timeout", "1e20"], "--timeout"),
        (vec!["grade", "lesson02", "--timeout", "1e19"], "--timeout"),
        (vec!["grade", "lesson02", "--timeout", "-1"], "--timeout"),
        (vec!["grade", "lesson02", "--timeout", "nan"], "--timeout"),
        (vec!["grade", "lesson02", "--timeout", "inf"], "--timeout"),
        (vec!["grade", "lesson02", "--timeout", "0"], "--timeout"),
        (vec!["grade", "lesson02", "--timeout", "1e-12"], "--timeout"),
        (vec!["grade", "lesson02", "--timeout", "ten"], "--timeout"),
        (vec!["grade", "lesson02", "--timeout"], "--timeout"),
        // --build-timeout: only for a submission's (sandboxed) build (its numbers: below).
        (
            vec!["grade", "lesson02", "--build-timeout", "5"],
            "--submission",
        ),
        // --jobs: at least one.
        (vec!["grade", "lesson02", "-j", "0"], "--jobs"),
        (vec!["grade", "lesson02", "-j", "-1"], "--jobs"),
        (vec!["check", "lesson02", "-j", "0"], "--jobs"),
        // Where the results go: checked before grading.
        (vec!["grade", "lesson02", "--output", &report], "--output"),
        (
            vec!["grade", "lesson02", "--output", out_dir.arg()],
            "--output",
        ),
        (
            vec![
                "grade",
                "lesson02",
                "--submissions",
                &class,
                "--gradebook",
                &gradebook,
            ],
            "--gradebook",
        ),
        (
            vec![
                "grade",
                "lesson02",
                "--submissions",
                &class,
                "--reports",
                &reports_file,
            ],
            "--reports",
        ),
        (
            vec!["grade", "lesson02", "--submission", &empty, "--keep", &keep],
            "--keep",
        ),
        (
            vec!["demo", "lesson02", "--svg", &svg_file],
            "svg-is-a-file",
        ),
        // A class run writes a gradebook and reports: one report's format does not apply.
        (
            vec!["grade", "--submissions", &class, "--format", "junit"],
            "--format",
        ),
        (
            vec!["grade", "--submissions", &class, "--output", &report],
            "--output",
        ),
        // What to grade, show or reset.
        (vec!["grade", "lesson99"], "lesson99"),
        (vec!["grade", ""], "``"),
        (vec!["demo", "99"], "99"),
        (vec!["reset", "nosuch"], "nosuch"),
        (vec!["bless", "nosuch"], "nosuch"),
        (vec!["check", "nosuch"], "nosuch"),
        (vec!["watch", "nosuch"], "nosuch"),
        (vec!["hint"], "<EXERCISE>"),
        (vec!["hint", "nosuch"], "nosuch"),
        (
            vec!["grade", "lesson02", "--submission", &no_dir],
            "no-such-dir",
        ),
        (
            vec!["grade", "lesson02", "--submissions", &a_file],
            "reports-is-a-file",
        ),
        (vec!["grade", "lesson02", "--plant", "x"], "--solutions"),
        (vec!["gradee"], "gradee"),
        (vec!["grade", "--bogus"], "--bogus"),
    ];
    // --build-timeout takes the numbers --timeout takes.
    for value in ["0", "ten"] {
        let args = vec![
            "grade",
            "lesson02",
            "--submission",
            &empty,
            "--build-timeout",
            value,
        ];
        cases.push((args, "--build-timeout"));
    }
    for (args, fragment) in &cases {
        let out = xtask_in(&course_root(), args).output().unwrap();
        assert_refused(&out, args, fragment);
    }
    // Nothing was written where a refused command would have put its results.
    assert!(!out_dir.path.join("missing").exists());
    assert_eq!(
        std::fs::read_to_string(&reports_file).unwrap(),
        "not a folder\n"
    );
    let mut left: Vec<_> = std::fs::read_dir(&out_dir.path)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(
        left,
        ["class", "empty", "reports-is-a-file", "svg-is-a-file"]
    );
}

#[test]
fn a_bad_lesson_slug_writes_nothing() {
    let s = Scratch::new("bad-slug");
    let before = s.snapshot_tree();
    for (args, fragment) in [
        (vec!["new", ""], "--title"),
        (vec!["new", "", "--title", "A title"], "lesson slug"),
        (vec!["new", "Bad Slug", "--title", "A title"], "lesson slug"),
        (
            vec!["new", "lesson00-zero", "--title", "A title"],
            "start at 1",
        ),
        (vec!["new", "rope", "--title", ""], "--title"),
    ] {
        let out = s.xtask(&args).output().unwrap();
        assert_refused(&out, &args, fragment);
    }
    assert!(s.snapshot_tree() == before, "`new` changed the course");
}

#[test]
fn a_human_report_written_to_a_file_has_no_colour_and_the_terminal_one_line() {
    let out_dir = OutDir::new("human-output");
    std::fs::create_dir_all(&out_dir.path).unwrap();
    let file = out_dir.path.join("report.txt");
    let args = [
        "grade",
        "lesson02",
        "--format",
        "human",
        "--output",
        file.to_str().unwrap(),
    ];
    // Colour forced on, as on a terminal: the file must still be plain.
    let out = xtask_in(&course_root(), &args)
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let context = format!("--- stdout\n{stdout}\n--- stderr\n{stderr}");
    // The stubs: a normal grade below full marks.
    assert_eq!(out.status.code(), Some(1), "{context}");
    assert!(!stderr.contains("panicked"), "{context}");
    let lines: Vec<&str> = stdout.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines.len(), 1, "the terminal gets one line: {context}");
    assert!(lines[0].contains("points; report written to"), "{context}");
    assert!(!stdout.contains("\x1b["), "{context}");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("lesson02"), "{text}");
    assert!(!text.contains("\x1b["), "colour codes in the file:\n{text}");

    // The same grade on stdout is coloured: forcing colour works, so the file's lack of it
    // is the --output rule, not the environment.
    let out = xtask_in(&course_root(), &args[..4])
        .env_remove("NO_COLOR")
        .env("CLICOLOR_FORCE", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("\x1b["),
        "forced colour is not coloured"
    );
}

/// A time limit of 0 in `course.toml` is refused as `--timeout 0` is, naming the file's line,
/// before anything is graded (every check of the reference stopped "after 0 s" before).
#[test]
fn a_course_file_with_no_time_for_a_check_is_refused_at_its_line() {
    let course = Scratch::new("zero-timeout");
    let file = course.root.join("course.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("default_timeout_secs"))
        .unwrap()
        + 1;
    std::fs::write(
        &file,
        text.replacen("default_timeout_secs = 10", "default_timeout_secs = 0", 1),
    )
    .unwrap();
    for args in [&["grade", "lesson02"][..], &["list"]] {
        let out = course.xtask(args).output().unwrap();
        assert_refused(&out, args, &format!("course.toml:{line}: "));
    }
}

/// What `grade --help` says of the JSON report's layout is the version reports carry.
#[test]
fn the_help_names_the_reports_schema_version() {
    let help = xtask_in(&course_root(), &["grade", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    let stated: Vec<&str> = help
        .split("schema_version ")
        .skip(1)
        .map(|rest| rest.split(|c: char| !c.is_ascii_digit()).next().unwrap())
        .collect();
    assert!(
        !stated.is_empty(),
        "grade --help names no schema_version:\n{help}"
    );
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(course_root().join("docs/report.schema.json")).unwrap(),
    )
    .unwrap();
    let version = schema["properties"]["schema_version"]["const"].to_string();
    for number in stated {
        assert_eq!(number, version, "grade --help: {help}");
    }
}
