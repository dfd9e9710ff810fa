//! `cargo xtask grade` on real scratch copies of the course: untouched stubs, the reference
//! solutions, and a copy whose exercises misbehave in every way the grader must survive.

use crate::junit_xsd;
use crate::support::{
    self, OutDir, Scratch, assert_isolated_grading_agrees, json_of, statuses, verdicts,
};

use predicates::prelude::*;

const HOSTILE_L1: &str = include_str!("../fixtures/hostile/lesson01_exercises.rs");
const HOSTILE_L2: &str = include_str!("../fixtures/hostile/lesson02_exercises.rs");
/// What the hostile `head_output`'s panic message repeats (10,000 times).
const BOMB: &str = "0.123456789012345, strides=[1, 2 ";
const SNAPSHOT: &str =
    "exercises/lesson01-why-heads/tests/snapshots/lesson01__checks__head_a_weights.snap";

/// The hostile copy: lesson 1 and 2 exercises replaced, lesson 3 broken, one snapshot edited.
fn hostile() -> Scratch {
    let s = Scratch::new("hostile");
    s.write("exercises/lesson01-why-heads/src/exercises.rs", HOSTILE_L1);
    s.write(
        "exercises/lesson02-split-heads/src/exercises.rs",
        HOSTILE_L2,
    );
    let l3 = "exercises/lesson03-parallel-attention/src/exercises.rs";
    let broken = format!(
        "{}\npub fn broken() -> u32 {{\n    \"not a number\"\n}}\n",
        s.read(l3)
    );
    s.write(l3, &broken);
    let snap = s.read(SNAPSHOT).replacen("0.1202", "0.1302", 1);
    s.write(SNAPSHOT, &snap);
    s
}

/// Lesson 2's reference solution, except that `split_heads` (which many checks call) forges what
/// a shared run is split by: it closes its check's observations early and opens a new check's
/// (`end`, `begin` appended to the observations file), and prints a failure section for a check
/// that never failed.
fn forging_split_heads(s: &Scratch) -> String {
    let solution = s.read("solutions/lesson02-split-heads/src/exercises.rs");
    let renamed = solution.replacen("pub fn split_heads(", "fn split_heads_honest(", 1);
    assert_ne!(
        renamed, solution,
        "the lesson 2 solution changed: update this attack"
    );
    format!(
        r#"{renamed}
pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {{
    use std::io::Write;
    if let Some(path) = std::env::var_os("COURSE_CHECK_OBSERVE") {{
        if let Ok(mut file) = std::fs::OpenOptions::new().append(true).open(path) {{
            let _ = file.write_all(b"{{\"kind\":\"end\"}}\n{{\"kind\":\"begin\"}}\n");
        }}
    }}
    println!("\n---- checks::merge_heads_moves_data stdout ----\nthread 'checks::merge_heads_moves_data' panicked at exercises/lesson02-split-heads/src/exercises.rs:1:1:\nforged\n");
    split_heads_honest(x, h)
}}
"#
    )
}

/// An attack on the shared run itself: forged `begin`/`end` observations and a forged failure
/// section change no verdict and no message against isolated grading, and earn nothing.
#[test]
fn forging_the_shared_run_changes_nothing() {
    let s = Scratch::new("forged-shared-run");
    s.write(
        "exercises/lesson02-split-heads/src/exercises.rs",
        &forging_split_heads(&s),
    );
    let graded = |extra: &[&str]| {
        let mut args = vec!["grade", "lesson02", "--format", "json"];
        args.extend_from_slice(extra);
        json_of(&s.xtask(&args).output().unwrap())
    };
    let (grouped, isolated) = (graded(&[]), graded(&["--isolate"]));
    assert_eq!(verdicts(&grouped), verdicts(&isolated));
    let all = statuses(&grouped);
    assert_eq!(
        all["merge_heads_moves_data"].0, "passed",
        "{:?}",
        all["merge_heads_moves_data"]
    );
    assert_ne!(
        all["split_heads_moves_data"].0, "passed",
        "the forgery passed"
    );
    assert!(grouped["score"].as_u64() < grouped["max_score"].as_u64());
}

#[test]
fn untouched_stubs_score_zero_and_every_exercise_is_not_started() {
    let s = Scratch::new("stubs");
    let before = s.snapshot_tree();
    let args = ["grade", "--format", "json"];
    let report = json_of(s.xtask(&args).assert().code(1).get_output());
    assert_eq!(report["schema_version"], 3);
    assert_eq!(report["graded"], "exercises");
    assert_eq!(report["official"], true, "{}", report["modified_files"]);
    assert_eq!(report["score"], 0);
    assert!(report["max_score"].as_u64().unwrap() > 0);
    let all = statuses(&report);
    assert!(all.len() > 20);
    // Each check names the function to write, a method with its type (`KvCache::append`).
    let stubs: String = std::fs::read_dir(s.root.join("exercises"))
        .unwrap()
        .map(|dir| std::fs::read_to_string(dir.unwrap().path().join("src/exercises.rs")).unwrap())
        .collect();
    for (name, (status, message)) in &all {
        assert_eq!(status, "not_started", "{name}: {message}");
        let named = message
            .strip_prefix("implement `")
            .and_then(|m| m.split('`').next())
            .unwrap_or_else(|| panic!("{name}: {message}"));
        let function = named.rsplit("::").next().unwrap();
        assert!(
            ["(", "<"]
                .iter()
                .any(|after| stubs.contains(&format!("fn {function}{after}"))),
            "{name}: `{named}` is no stub's name: {message}"
        );
    }
    assert!(
        all.values().any(|(_, m)| m.contains("`KvCache::append`")),
        "{all:?}"
    );
    assert_isolated_grading_agrees(&s, &args, &report);
    // The human table says the same and suggests a hint.
    s.xtask(&["grade", "lesson02"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains("not started"))
        .stdout(predicate::str::contains("Total: 0/"))
        .stdout(predicate::str::contains("cargo xtask hint head_size"));
    assert!(
        before == s.snapshot_tree(),
        "grading changed files in the course"
    );
}

#[test]
fn reference_solutions_get_full_marks() {
    let s = Scratch::new("solutions");
    let report = json_of(
        s.xtask(&["grade", "--solutions", "--format", "json"])
            .assert()
            .success()
            .get_output(),
    );
    assert_eq!(report["graded"], "solutions");
    assert_eq!(report["score"], report["max_score"]);
    for (name, (status, _)) in statuses(&report) {
        assert_eq!(status, "passed", "{name}");
    }
    s.xtask(&["grade", "--solutions", "1"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Full marks."));

    // The schema check behind `json_of` can fail: a status, a field and a score it must refuse.
    let mut broken = report.clone();
    broken["lessons"][0]["exercises"][0]["checks"][0]["status"] = "almost".into();
    broken["lessons"][1]["verdict"] = "fine".into();
    broken["score"] = (-1).into();
    if let Some(errors) = support::schema_errors(&broken) {
        assert_eq!(errors.len(), 3, "{errors:#?}");
        for part in [
            "'almost' is not one of",
            "'verdict' was unexpected",
            "-1 is less than",
        ] {
            assert!(
                errors.iter().any(|e| e.contains(part)),
                "{part}: {errors:#?}"
            );
        }
    }
}

#[test]
fn hostile_exercises_each_get_their_own_verdict() {
    let s = hostile();
    let before = s.snapshot_tree();
    let args = ["grade", "--format", "json", "--timeout", "3"];
    let started = std::time::Instant::now();
    let out = s.xtask(&args).assert().code(1).get_output().clone();
    let elapsed = started.elapsed().as_secs_f64();
    let report = json_of(&out);
    let all = statuses(&report);
    let status = |n: &str| all[n].0.as_str();
    let message = |n: &str| all[n].1.as_str();

    // Lesson 1: a loop, an exit(0), an abort, a stack overflow, an edited snapshot.
    assert_eq!(status("row_sums_small_case"), "timed_out");
    assert_eq!(
        message("row_sums_small_case"),
        "stopped after 3 s while checking `row_sums`: look for a loop that never ends"
    );
    assert_eq!(status("max_abs_diff_small_cases"), "exited_early");
    assert_eq!(status("top_focus_ties_go_to_the_first_column"), "crashed");
    assert_eq!(status("disagreements_small_cases"), "crashed");
    assert!(message("disagreements_small_cases").contains("stack overflow"));
    assert_eq!(status("attention_weights_head_a"), "wrong");
    assert!(
        message("attention_weights_head_a")
            .contains("index [0, 0, 0]: expected 0.1302, got 0.1202")
    );
    assert_eq!(status("attention_weights_head_b"), "passed");
    assert_eq!(status("draw_head_order_and_scale"), "passed");
    // A panic with a third of a megabyte of message: kept whole in the JSON report.
    assert_eq!(status("head_output_small_case"), "panicked");
    assert!(message("head_output_small_case").contains(&BOMB.repeat(100)));

    // Lesson 2: a forged "test result: ok" line, a wrong shape, a panic, slightly wrong numbers.
    assert_eq!(status("head_size_divides_width"), "exited_early");
    assert!(message("head_size_divides_width").contains("before the check finished"));
    assert_eq!(status("split_heads_moves_data"), "wrong");
    // The labelled input is decoded: the output is the input, reshaped without the transpose.
    assert!(
        message("split_heads_moves_data").starts_with(
            "wrong shape: expected (2, 2, 3, 2), got (2, 3, 2, 2); your output holds the input's \
             values in their original order"
        ),
        "{}",
        message("split_heads_moves_data")
    );
    assert_eq!(status("merge_heads_moves_data"), "panicked");
    assert!(
        message("merge_heads_moves_data")
            .contains("exercises/lesson02-split-heads/src/exercises.rs")
    );
    assert!(message("merge_heads_moves_data").contains("index out of bounds"));
    assert_eq!(status("head_projection_head_two"), "wrong");
    assert!(message("head_projection_head_two").starts_with("values differ: first at index"));

    // Lesson 3 does not compile; it costs only its own checks, the other lessons are graded.
    let lessons = report["lessons"].as_array().unwrap();
    let l3 = lessons.iter().find(|l| l["id"] == "lesson03").unwrap();
    assert_eq!(l3["build"], "compile_error");
    assert!(
        l3["compiler_output"]
            .as_str()
            .unwrap()
            .contains("mismatched types")
    );
    assert_eq!(l3["score"], 0);
    let l4 = lessons.iter().find(|l| l["id"] == "lesson04").unwrap();
    assert_eq!(l4["build"], "ok");
    for ex in l4["exercises"].as_array().unwrap() {
        for c in ex["checks"].as_array().unwrap() {
            assert_eq!(c["status"], "not_started");
        }
    }

    // Points come only from passing checks; the edited snapshot makes the grade unofficial.
    let passed: u64 = lessons
        .iter()
        .flat_map(|l| l["exercises"].as_array().unwrap())
        .flat_map(|e| e["checks"].as_array().unwrap())
        .filter(|c| c["status"] == "passed")
        .map(|c| c["max_points"].as_u64().unwrap())
        .sum();
    assert!(passed > 0);
    assert_eq!(report["score"].as_u64().unwrap(), passed);
    assert_eq!(report["official"], false);
    assert!(
        report["modified_files"]
            .to_string()
            .contains("lesson01__checks__head_a_weights.snap (changed)")
    );

    hostile_verdicts_in_every_report_format(&s, &report, elapsed);

    // On code that exits, aborts, loops, overflows its stack, panics and forges its output,
    // grading lessons in shared processes gives every verdict isolated grading gives.
    assert_isolated_grading_agrees(&s, &args, &report);

    // Nothing was written: no .snap.new, the edited snapshot is still edited.
    assert!(
        before == s.snapshot_tree(),
        "grading changed files in the course"
    );
}

/// The hostile grade in every other report format, rendered from the JSON report of
/// [`hostile_exercises_each_get_their_own_verdict`]'s run (`--format` only picks the renderer:
/// grading again would wait out the same loops for the same verdicts). `elapsed`: that run's time.
fn hostile_verdicts_in_every_report_format(s: &Scratch, json: &serde_json::Value, elapsed: f64) {
    use grader::report;
    let report: report::Report = serde_json::from_value(json.clone()).unwrap();
    let course = grader::course::Course::load(&s.root).unwrap();
    // Gradescope.
    let gs: serde_json::Value = serde_json::from_str(&report::gradescope::render(&report)).unwrap();
    // Whole seconds, as Gradescope shows them: a grade under half a second rounds to 0.
    let seconds = gs["execution_time"].as_u64().unwrap();
    assert!(seconds as f64 <= elapsed.round(), "{seconds} s");
    let tests = gs["tests"].as_array().unwrap();
    let find = |n: &str| {
        tests
            .iter()
            .find(|t| t["name"].as_str().unwrap().ends_with(n))
            .unwrap()
    };
    assert_eq!(find("/ head_size_divides_width")["status"], "failed");
    assert!(
        find("/ head_size_divides_width")["output"]
            .as_str()
            .unwrap()
            .starts_with("exited_early")
    );
    assert!(
        find("/ merge_heads_moves_data")["output"]
            .as_str()
            .unwrap()
            .starts_with("panicked")
    );
    assert!(
        find("/ split_heads_moves_data")["output"]
            .as_str()
            .unwrap()
            .starts_with("wrong")
    );
    assert_eq!(find("/ split_heads_accepts_views")["visibility"], "visible");
    let score: f64 = tests.iter().map(|t| t["score"].as_f64().unwrap()).sum();
    assert_eq!(gs["score"].as_f64().unwrap(), score);

    // JUnit of the whole course: it follows junit-10.xsd, and a real JUnit reader reads it.
    let junit = OutDir::new("junit.xml");
    let xml = report::junit::render(&report, &course);
    std::fs::create_dir_all(junit.path.parent().unwrap()).unwrap();
    std::fs::write(&junit.path, &xml).unwrap();
    junit_xsd::assert_follows_junit_10(&junit.path);
    assert!(xml.starts_with("<?xml"));
    for (check, status) in [
        ("row_sums_small_case", "timed_out"),
        ("max_abs_diff_small_cases", "exited_early"),
        ("top_focus_ties_go_to_the_first_column", "crashed"),
        ("attention_weights_head_a", "wrong"),
        ("merge_heads_moves_data", "panicked"),
    ] {
        let at = xml
            .find(&format!("name=\"{check}\""))
            .unwrap_or_else(|| panic!("{check} missing"));
        assert!(
            xml[at..]
                .split("</testcase>")
                .next()
                .unwrap()
                .contains(&format!("type=\"{status}\"")),
            "{check}"
        );
    }
    let suites = junit_parser::from_reader(std::io::Cursor::new(xml.as_bytes())).unwrap();
    let suite = |id: &str| suites.suites.iter().find(|s| s.name == id).unwrap();
    let (l1, l3) = (suite("lesson01"), suite("lesson03"));
    assert!(l1.failures + l1.errors > 0);
    assert!(l1.cases.iter().any(|c| c.status.is_success()));
    assert!(
        l3.errors as usize == l3.cases.len() && l3.errors > 0,
        "compile errors are errors"
    );
    for case in &l3.cases {
        assert_eq!(case.status.error_as_ref().error_type, "compile_error");
    }
    assert_eq!(
        suites.tests,
        suites.suites.iter().map(|s| s.tests).sum::<u64>()
    );
    assert!(suites.time > 0.0);
    // A passing check is an empty testcase with its time.
    let passed = xml
        .split("<testcase ")
        .find(|c| c.starts_with("name=\"attention_weights_head_b\""))
        .expect("the passing check is a testcase");
    assert!(passed.contains(" time=\"") && passed.split('>').next().unwrap().ends_with('/'));

    // Human: the compile error is shown, the other lessons still graded, the message bomb
    // shortened (its raw floats to 4 decimals; its unclosed layouts are not ndarray's, so kept).
    let human = report::human::render(
        &report,
        &report::style::Style::plain(),
        report::human::Detail::Full,
    );
    for shown in [
        "the crate does not compile, so none of its checks ran",
        "mismatched types",
        "timed out",
        "exited early",
        "Unofficial:",
        &"0.1235, strides=[1, 2 ".repeat(100),
        // Its terminal escapes are written out, not obeyed.
        "\\u{1b}[2J\\u{1b}[H\\rTotal: 99/99",
    ] {
        assert!(human.contains(shown), "{shown}");
    }
    assert!(!human.contains(BOMB));
    assert!(!human.contains('\u{1b}'));
}

/// Two copies of the course sharing a target folder, graded at the same time: each runs its own
/// build of the checks. The solved copy's first check waits (in `draw_head`) until the stubs copy
/// has been graded, which rebuilt lesson 1's checks from the stubs into the shared folder; the
/// solved copy's later checks, each its own process (`--isolate`), still run the solved build.
#[test]
fn copies_sharing_a_target_folder_each_run_their_own_checks() {
    const L1: &str = "exercises/lesson01-why-heads/src/exercises.rs";
    let solved = Scratch::new("own-checks-solved");
    let solution = solved.read("solutions/lesson01-why-heads/src/exercises.rs");
    let waiting = solution.replacen(
        "pub fn draw_head(rng: &mut RandomState, c: usize, hs: usize, scale: f64) -> Head {",
        "pub fn draw_head(rng: &mut RandomState, c: usize, hs: usize, scale: f64) -> Head {
    let dir = std::path::Path::new(env!(\"CARGO_MANIFEST_DIR\"));
    let _ = std::fs::write(dir.join(\"started\"), \"\");
    while !dir.join(\"go\").exists() {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }",
        1,
    );
    assert_ne!(waiting, solution, "draw_head changed: update this test");
    solved.write(L1, &waiting);
    let stubs = Scratch::new("own-checks-stubs");
    let dir = solved.root.join("exercises/lesson01-why-heads");
    let args = [
        "grade",
        "1",
        "--isolate",
        "--jobs",
        "1",
        "--timeout",
        "120",
        "--format",
        "json",
    ];
    let first = support::xtask_process(&solved.root, &args)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let waited = std::time::Instant::now();
    while !dir.join("started").exists() {
        assert!(
            waited.elapsed().as_secs() < 600,
            "the solved copy's checks never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let stubs_report = json_of(&stubs.xtask(&args).output().unwrap());
    std::fs::write(dir.join("go"), "").unwrap();
    let solved_report = json_of(&first.wait_with_output().unwrap());
    for (name, (status, message)) in statuses(&solved_report) {
        assert_eq!(status, "passed", "solved copy, {name}: {message}");
    }
    for (name, (status, message)) in statuses(&stubs_report) {
        assert_ne!(status, "passed", "stubs copy, {name}: {message}");
    }
}

/// Two copies of the course sharing a target folder whose checks differ (an instructor's copy with
/// a check being edited, an older clone): each runs the checks in its own files, whichever copy
/// built last, on both sides of the course. Cargo alone would take the last build for either copy:
/// it compares modification times, and each copy's files are older than the other's build.
#[test]
fn copies_whose_checks_differ_each_run_their_own() {
    let edited = Scratch::new("own-checks-edited");
    let pristine = Scratch::new("own-checks-pristine");
    let checks = "exercises/lesson01-why-heads/tests/checks.rs";
    let text = edited.read(checks);
    let start = "fn draw_head_order_and_scale() {\n    let _proof = course_check::proof();\n";
    assert!(text.contains(start), "the check changed: update this test");
    let panics = format!("{start}    panic!(\"edited in one copy only\");\n");
    edited.write(checks, &text.replacen(start, &panics, 1));
    let status = |s: &Scratch, args: &[&str]| {
        let report = json_of(
            &s.xtask(&[args, &["--format", "json"]].concat())
                .output()
                .unwrap(),
        );
        statuses(&report)["draw_head_order_and_scale"].clone()
    };
    let solutions = ["grade", "--solutions", "1"];
    assert_ne!(status(&edited, &solutions).0, "passed");
    assert_eq!(status(&pristine, &solutions).0, "passed");
    assert_ne!(status(&edited, &solutions).0, "passed");
    let exercises = ["grade", "1"];
    let (edited_status, message) = status(&edited, &exercises);
    assert_ne!(edited_status, "not_started", "{message}");
    assert_eq!(status(&pristine, &exercises).0, "not_started");
}

/// A relative `CARGO_TARGET_DIR` is taken from the course root, where the grader runs cargo: the
/// checks are built, found and run there (this one points at the tests' shared folder).
#[test]
fn a_relative_target_folder_is_taken_from_the_course_root() {
    let s = Scratch::new("relative-target");
    let target = support::shared_target();
    let up = s.root.components().count() - 1;
    let relative =
        std::path::PathBuf::from("../".repeat(up)).join(target.strip_prefix("/").unwrap());
    assert!(relative.is_relative() && s.root.join(&relative).join("debug").is_dir());
    let out = s
        .xtask(&["grade", "1", "--format", "json"])
        .env("CARGO_TARGET_DIR", &relative)
        .output()
        .unwrap();
    let all = statuses(&json_of(&out));
    assert!(!all.is_empty());
    for (name, (status, message)) in all {
        assert_eq!(status, "not_started", "{name}: {message}");
    }
}
