//! Variant checks in official grading (`grade --submission`): inputs drawn per student from the
//! course secret, judged against the reference solution's run with the same seed.
//!
//! One scratch course, lesson 2 only: the reference solution handed in by two students (and one
//! of them twice), then a submission fitted to the visible checks that also tries to read the
//! secret and to replace the reference run's executable, in both isolation modes.

use crate::hostile_cli::Mode;
use crate::support::{self, OutDir, Scratch, json_of, statuses};

use std::collections::BTreeMap;

const L2: &str = "lesson02-split-heads";
const SOLUTION: &str = "solutions/lesson02-split-heads/src/exercises.rs";
/// A fixed secret, so the inputs each id draws are the same on every run of the suite.
const SECRET: &str = "5ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7e75ec7";

/// A submission of lesson 2 whose `src/exercises.rs` is `exercises`.
fn submission(course: &Scratch, name: &str, exercises: &str) -> OutDir {
    let out = OutDir::new(name);
    let src = out.path.join("exercises").join(L2).join("src");
    std::fs::create_dir_all(&src).unwrap();
    for file in ["lib.rs", "setup.rs"] {
        let from = course
            .root
            .join("exercises")
            .join(L2)
            .join("src")
            .join(file);
        std::fs::copy(from, src.join(file)).unwrap();
    }
    std::fs::write(src.join("exercises.rs"), exercises).unwrap();
    out
}

/// `check name -> variant` (`null` on other checks) of a report.
fn variants(report: &serde_json::Value) -> BTreeMap<String, serde_json::Value> {
    let mut out = BTreeMap::new();
    for ex in report["lessons"][0]["exercises"].as_array().unwrap() {
        for c in ex["checks"].as_array().unwrap() {
            out.insert(c["name"].as_str().unwrap().to_owned(), c["variant"].clone());
        }
    }
    out
}

/// The JSON report of lesson 2 of `sub`, graded officially for `student` in `mode`.
fn graded(mode: Mode, course: &Scratch, sub: &OutDir, student: &str) -> serde_json::Value {
    let args = [
        "--submission",
        sub.arg(),
        "--student",
        student,
        "lesson02",
        "--format",
        "json",
    ];
    json_of(&mode.grade(course, &args).output().unwrap())
}

const VARIANTS: [&str; 4] = [
    "head_size_variant",
    "split_heads_variant",
    "merge_heads_variant",
    "head_projection_variant",
];

#[test]
fn variants_of_the_reference_pass_and_follow_the_students_id() {
    let course = Scratch::new("variants-ids");
    course.write("course-secret", SECRET);
    if !Mode::Landlock.available() {
        return;
    }
    let sub = submission(&course, "reference", &course.read(SOLUTION));
    let alice = graded(Mode::Landlock, &course, &sub, "alice");
    assert_eq!(alice["score"], alice["max_score"], "{alice:#}");
    assert_eq!(
        alice["student"], "alice",
        "`--student` names the report's student"
    );
    let drawn = variants(&alice);
    for (check, variant) in &drawn {
        let is_variant = VARIANTS.contains(&check.as_str());
        assert_eq!(variant.is_object(), is_variant, "{check}: {variant}");
        if is_variant {
            assert!(variant["seed"].as_str().unwrap().parse::<u64>().is_ok());
            assert!(
                variant["shapes"].as_str().unwrap().contains("h="),
                "{variant}"
            );
        }
    }
    let bob = variants(&graded(Mode::Landlock, &course, &sub, "bob"));
    for check in VARIANTS {
        assert_ne!(drawn[check]["seed"], bob[check]["seed"], "{check}");
    }
    let shapes = |v: &BTreeMap<String, serde_json::Value>| -> Vec<serde_json::Value> {
        VARIANTS.iter().map(|c| v[*c]["shapes"].clone()).collect()
    };
    assert_ne!(
        shapes(&drawn),
        shapes(&bob),
        "two students, the same inputs"
    );
    let again = graded(Mode::Landlock, &course, &sub, "alice");
    assert_eq!(variants(&again), drawn, "one student, other inputs");
    assert_eq!(again["score"], alice["score"]);
}

/// The reference solution with `split_heads` fitted to the shapes the visible checks use (zeros
/// elsewhere), a `head_size` that tries to read the course secret, and a `merge_heads` that tries
/// to replace the reference run's executables with its own.
fn fitted(course: &Scratch) -> String {
    let secret = course.root.join("course-secret");
    let deps = support::shared_target().join("debug").join("deps");
    let reference = course.read(SOLUTION);
    let fitted = format!(
        r#"
/// `split_heads`, right only on the shapes of the visible checks.
pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {{
    const VISIBLE: &[(usize, usize, usize)] = &[
        (1, 6, 64), (2, 3, 4), (3, 4, 6), (3, 4, 2), (2, 4, 3), (1, 3, 4), (1, 3, 8), (2, 7, 24),
        (1, 5, 12),
    ];
    let (b, t, c) = x.dim();
    if VISIBLE.contains(&(b, t, c)) {{
        return split_heads_reference(x, h);
    }}
    Ok(Array4::zeros((b, h, t, head_size(c, h)?)))
}}

/// `head_size`, after trying to read the course secret.
pub fn head_size(c: usize, h: usize) -> Result<usize> {{
    if let Ok(secret) = std::fs::read_to_string({secret:?}) {{
        panic!("LEAKED {{secret}}");
    }}
    head_size_reference(c, h)
}}

/// `merge_heads`, after trying to put its own executable in place of the reference run's.
pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {{
    if let Ok(me) = std::env::current_exe() {{
        for entry in std::fs::read_dir({deps:?}).into_iter().flatten().flatten() {{
            if entry.file_name().to_string_lossy().starts_with("lesson02_hidden-") {{
                let _ = std::fs::copy(&me, entry.path());
            }}
        }}
    }}
    merge_heads_reference(x)
}}
"#,
        secret = secret.display().to_string(),
        deps = deps.display().to_string(),
    );
    let renamed = reference
        .replace("pub fn split_heads(", "pub fn split_heads_reference(")
        .replace("pub fn head_size(", "pub fn head_size_reference(")
        .replace("pub fn merge_heads(", "pub fn merge_heads_reference(");
    assert_ne!(renamed, reference, "the lesson-2 solution changed");
    format!("{renamed}\n{fitted}")
}

#[test]
fn variants_catch_code_fitted_to_the_visible_checks() {
    fitted_submission(Mode::Landlock);
}

#[test]
fn variants_catch_code_fitted_to_the_visible_checks_in_a_container() {
    fitted_submission(Mode::Container);
}

fn fitted_submission(mode: Mode) {
    let course = Scratch::new(&format!("variants-fitted-{mode:?}"));
    course.write("course-secret", SECRET);
    if !mode.available() {
        return;
    }
    let sub = submission(&course, "fitted", &fitted(&course));
    let report = graded(mode, &course, &sub, "carol");
    assert!(
        report["isolation"]
            .as_str()
            .unwrap()
            .starts_with(mode.isolation()),
        "{report:#}"
    );
    let all = statuses(&report);
    let text = report.to_string();
    assert!(
        !text.contains("LEAKED") && !text.contains(SECRET),
        "{report:#}"
    );
    // Every fixed visible check passes: the secret was not readable and the fitted shapes are
    // right (the property checks, on random shapes, are the other defence against fitting).
    for (check, (status, message)) in &all {
        let fixed = !check.ends_with("_variant")
            && !check.ends_with("_property")
            && check != "split_heads_three_heads_of_a_new_shape";
        if fixed {
            assert_eq!(status, "passed", "{check}: {message}");
        }
    }
    // The variants of the honest functions pass (the reference run was the real one) and the
    // fitted one fails, its inputs in the report.
    for check in [
        "head_size_variant",
        "merge_heads_variant",
        "head_projection_variant",
    ] {
        assert_eq!(all[check].0, "passed", "{check}: {}", all[check].1);
    }
    let (status, message) = &all["split_heads_variant"];
    assert_eq!(status, "wrong", "{message}");
    // Its property check, on random shapes, catches it too, without any secret.
    let (status, message) = &all["split_heads_property"];
    assert_eq!(status, "wrong", "{message}");
    let shapes = variants(&report)["split_heads_variant"]["shapes"].clone();
    assert!(shapes.as_str().unwrap().starts_with("B="), "{shapes}");
}

#[test]
fn variants_need_the_course_secret_and_never_ship_it() {
    let course = Scratch::new("variants-secret");
    // The handout leaves the secret out.
    let handout = OutDir::new("variants-handout");
    course.xtask(&["dist", handout.arg()]).assert().success();
    assert!(handout.path.join("course.toml").is_file());
    assert!(!handout.path.join("course-secret").exists());
    let handout_course = std::fs::read_to_string(handout.path.join("course.toml")).unwrap();
    assert!(!handout_course.contains("_variant"), "{handout_course}");
    // Official grading without it (or with a malformed one) stops before grading, saying how to
    // make one; `cargo xtask secret` does, once.
    let sub = submission(&course, "any", &course.read(SOLUTION));
    for secret in [None, Some("not hex")] {
        let _ = std::fs::remove_file(course.root.join("course-secret"));
        if let Some(text) = secret {
            course.write("course-secret", text);
        }
        let out = course
            .xtask(&["grade", "--submission", sub.arg(), "lesson02"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("course-secret") && stderr.contains("help: run `cargo xtask secret`"),
            "{stderr}"
        );
    }
    std::fs::remove_file(course.root.join("course-secret")).unwrap();
    course.xtask(&["secret"]).assert().success();
    let made = course.read("course-secret");
    assert_eq!(made.trim().len(), 64, "{made}");
    assert!(made.trim().bytes().all(|b| b.is_ascii_hexdigit()));
    let mode = |course: &Scratch| {
        use std::os::unix::fs::PermissionsExt as _;
        let meta = std::fs::metadata(course.root.join("course-secret")).unwrap();
        meta.permissions().mode() & 0o777
    };
    assert_eq!(mode(&course), 0o600);
    // Replaced only when asked, saying what changes.
    let again = course.xtask(&["secret"]).assert().code(2);
    let stderr = String::from_utf8_lossy(&again.get_output().stderr).into_owned();
    assert!(
        stderr.contains("every student's variant inputs") && stderr.contains("--replace"),
        "{stderr}"
    );
    assert_eq!(course.read("course-secret"), made, "never replaced unasked");
    let replaced = course.xtask(&["secret", "--replace"]).assert().success();
    let stdout = String::from_utf8_lossy(&replaced.get_output().stdout).into_owned();
    assert!(
        stdout.contains("every student's inputs changed"),
        "{stdout}"
    );
    assert_ne!(course.read("course-secret"), made);
    assert_eq!(mode(&course), 0o600);
}

/// A clone of the course holds no secret: git ignores it and tracks none.
#[test]
fn the_repository_holds_no_course_secret() {
    let root = support::course_root();
    let ignore = std::fs::read_to_string(root.join(".gitignore")).unwrap();
    assert!(ignore.lines().any(|l| l == "/course-secret"), "{ignore}");
    let tracked = std::process::Command::new("git")
        .args(["ls-files", "--", "course-secret"])
        .current_dir(&root)
        .output();
    if let Some(out) = tracked.ok().filter(|o| o.status.success()) {
        assert!(out.stdout.is_empty(), "course-secret is committed");
    }
}

/// The reference solution with its `merge_heads` body replaced by `body` (of `x`, the
/// `(B, h, T, hs)` input, with `b, h, t, hs` its axes).
fn with_merge_heads(course: &Scratch, body: &str) -> String {
    let reference = course.read(SOLUTION);
    let start = reference
        .find("pub fn merge_heads(")
        .expect("the solution has merge_heads");
    let end = start + reference[start..].find("\n}\n").unwrap() + 3;
    format!(
        "{}pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {{\n    let (b, h, t, hs) = x.dim();\n{body}\n}}\n{}",
        &reference[..start],
        &reference[end..]
    )
}

/// The check `name` of a report: its status and diagnosis id.
fn check<'r>(report: &'r serde_json::Value, name: &str) -> &'r serde_json::Value {
    report["lessons"][0]["exercises"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|e| e["checks"].as_array().unwrap())
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no check {name}: {report:#}"))
}

#[test]
fn a_variant_failure_names_the_misconception_planted_with_the_same_inputs() {
    let course = Scratch::new("variants-misconception");
    course.write("course-secret", SECRET);
    if !Mode::Landlock.available() {
        return;
    }
    // The catalogue's merge-without-transpose, written by a student.
    let wrong = with_merge_heads(
        &course,
        "    let _ = (b, h, t, hs);\n    x.as_standard_layout()\n        .into_owned()\n        \
         .into_shape_with_order((b, t, h * hs))\n        .expect(\"a standard-layout array reshapes\")",
    );
    let sub = submission(&course, "merge-without-transpose", &wrong);
    // Erin's merge variant draws B=3, h=3, T=4, hs=4: a transpose there moves data.
    let report = graded(Mode::Landlock, &course, &sub, "erin");
    let variant = check(&report, "merge_heads_variant");
    assert_eq!(variant["status"], "wrong", "{report:#}");
    assert_eq!(
        variant["diagnosis"]["id"], "merge-without-transpose",
        "{variant:#}"
    );
    assert!(variant["variant"]["shapes"].is_string(), "{variant:#}");
    // The human report names it on the variant check, as on the fixed ones.
    let human = Mode::Landlock
        .grade(
            &course,
            &["--submission", sub.arg(), "--student", "erin", "lesson02"],
        )
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&human.stdout);
    let at = text.find("merge_heads_variant:").expect(&text);
    assert!(
        text[at..].contains("Misconception: Reshaped straight back to (B, T, h·hs)"),
        "{text}"
    );
}

#[test]
fn a_variant_failure_no_misconception_explains_names_none_even_from_a_tampering_submission() {
    unexplained_variant_failure(Mode::Landlock);
}

#[test]
fn a_tampering_submission_cannot_reach_the_planted_reference_runs_in_a_container() {
    unexplained_variant_failure(Mode::Container);
}

fn unexplained_variant_failure(mode: Mode) {
    let course = Scratch::new(&format!("variants-unexplained-{mode:?}"));
    course.write("course-secret", SECRET);
    if !mode.available() {
        return;
    }
    // The catalogue's merge-without-transpose on the visible checks' shapes, but zeros on the
    // shapes erin's variant draws (B=3, h=3, T=4, hs=4), which no catalogued mistake gives. It also tries to put itself in place of the reference
    // executables the misconceptions are planted into: had it succeeded, the planted run would
    // observe its zeros and name the misconception.
    let deps = support::shared_target().join("debug").join("deps");
    let body = format!(
        r#"    if let Ok(me) = std::env::current_exe() {{
        for entry in std::fs::read_dir({deps:?}).into_iter().flatten().flatten() {{
            if entry.file_name().to_string_lossy().starts_with("lesson02_hidden-") {{
                let _ = std::fs::copy(&me, entry.path());
            }}
        }}
    }}
    if (b, h, t, hs) == (3, 3, 4, 4) {{
        return Array3::zeros((b, t, h * hs));
    }}
    x.as_standard_layout()
        .into_owned()
        .into_shape_with_order((b, t, h * hs))
        .expect("a standard-layout array reshapes")"#,
        deps = deps.display().to_string()
    );
    let sub = submission(&course, "merge-fitted", &with_merge_heads(&course, &body));
    let report = graded(mode, &course, &sub, "erin");
    let variant = check(&report, "merge_heads_variant");
    assert_eq!(variant["status"], "wrong", "{report:#}");
    assert!(variant["diagnosis"].is_null(), "{variant:#}");
    // Planted with the same inputs, the misconception does not fail as this code does: it is
    // ruled out, on the fixed checks too.
    let fixed = check(&report, "merge_heads_moves_data");
    assert_eq!(fixed["status"], "wrong", "{fixed:#}");
    assert!(fixed["diagnosis"].is_null(), "{fixed:#}");
}
