//! The built-in plant `fitted-to-visible` (`course_check::fitted`): a reference solution that
//! answers only the inputs its fixed checks use (visible, property and hidden ones) keeps every
//! visible check and fails the variant check of every exercise it reaches.

use crate::support::{Scratch, course_root, json_of};
use std::collections::{BTreeMap, BTreeSet};

/// Course secrets, each giving the local id other variant inputs.
const SECRETS: [&str; 3] = [
    "f1773df1773df1773df1773df1773df1773df1773df1773df1773df1773df177",
    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
    "a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5",
];

/// `exercise -> (visible checks, variant checks)` of course.toml.
fn course_checks() -> BTreeMap<String, (Vec<String>, Vec<String>)> {
    let text = std::fs::read_to_string(course_root().join("course.toml")).unwrap();
    let course: toml::Value = toml::from_str(&text).unwrap();
    let mut out = BTreeMap::new();
    for lesson in course["lessons"].as_array().unwrap() {
        for ex in lesson["exercises"].as_array().unwrap() {
            let (mut visible, mut variant) = (Vec::new(), Vec::new());
            for check in ex["checks"].as_array().unwrap() {
                let flag = |key: &str| check.get(key).and_then(toml::Value::as_bool) == Some(true);
                let name = check["name"].as_str().unwrap().to_owned();
                if flag("variant") {
                    variant.push(name);
                } else if !flag("hidden") {
                    visible.push(name);
                }
            }
            out.insert(ex["name"].as_str().unwrap().to_owned(), (visible, variant));
        }
    }
    out
}

/// `check -> (status, message)` of `cargo xtask grade --solutions --plant fitted-to-visible`.
fn fitted_grade(
    course: &Scratch,
    mode: &str,
    seen: &std::path::Path,
) -> BTreeMap<String, (String, String)> {
    let out = course
        .xtask(&[
            "grade",
            "--solutions",
            "--plant",
            "fitted-to-visible",
            "--format",
            "json",
        ])
        .env("COURSE_FITTED", format!("{mode}:{}", seen.display()))
        .output()
        .unwrap();
    crate::support::statuses(&json_of(&out))
}

#[test]
fn variants_catch_every_exercise_fitted_to_its_fixed_checks() {
    let course = Scratch::new("fitted");
    course.write("course-secret", SECRETS[0]);
    let dir = tempfile::tempdir_in(crate::support::temp_root()).unwrap();
    let seen = dir.path().join("seen");
    // Recording answers with the reference: every check passes, variants included.
    let recorded = fitted_grade(&course, "record", &seen);
    for (check, (status, message)) in &recorded {
        assert_eq!(status, "passed", "{check}: {message}");
    }
    let checks = course_checks();
    // Per exercise with a variant check: under how many secrets its variant failed.
    let mut caught: BTreeMap<&str, usize> = BTreeMap::new();
    for secret in SECRETS {
        course.write("course-secret", secret);
        let replayed = fitted_grade(&course, "replay", &seen);
        for (exercise, (visible, variants)) in checks.iter().filter(|(_, (_, v))| !v.is_empty()) {
            for check in visible {
                let (status, message) = &replayed[check];
                assert_eq!(status, "passed", "{check}: {message}");
            }
            let failed = variants.iter().any(|v| replayed[v].0 != "passed");
            *caught.entry(exercise).or_default() += usize::from(failed);
        }
    }
    let never: BTreeSet<&str> = caught
        .iter()
        .filter(|(_, n)| **n == 0)
        .map(|(e, _)| *e)
        .collect();
    // Every exercise's variant leaves the inputs the visible checks use, under every secret (its
    // drawn values, not only its shapes: a small shape may repeat a visible case).
    assert!(
        never.is_empty(),
        "exercises whose variant passes fitted code: {never:?}"
    );
    let sometimes: BTreeSet<&str> = caught
        .iter()
        .filter(|(_, n)| (1..SECRETS.len()).contains(*n))
        .map(|(e, _)| *e)
        .collect();
    assert!(
        sometimes.is_empty(),
        "caught under some secrets only: {sometimes:?}"
    );
}
