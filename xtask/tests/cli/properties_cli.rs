//! Property checks and the points they carry, graded as a student and checked as an instructor:
//! fitted code that passes the texts' fixed cases loses to a property, shrunk to its smallest
//! failing case, and `check` refuses points that let a misconception keep more than half of its
//! exercise.

use crate::support::{Scratch, json_of, statuses};

/// `(score, max_score)` of `exercise` in a JSON report.
fn points(report: &serde_json::Value, exercise: &str) -> (u64, u64) {
    let ex = report["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|l| l["exercises"].as_array().unwrap())
        .find(|e| e["name"] == exercise)
        .unwrap_or_else(|| panic!("no exercise {exercise} in the report"));
    (
        ex["score"].as_u64().unwrap(),
        ex["max_score"].as_u64().unwrap(),
    )
}

/// A change to the reference solution's `file` planted as the student's code of its lesson.
fn plant(s: &Scratch, lesson_dir: &str, from: &str, to: &str) {
    let solution = s.read(&format!("solutions/{lesson_dir}/src/exercises.rs"));
    assert!(
        solution.contains(from),
        "the {lesson_dir} solution changed: update this test"
    );
    s.write(
        &format!("exercises/{lesson_dir}/src/exercises.rs"),
        &solution.replacen(from, to, 1),
    );
}

/// The two fitted answers lose in the student's own grade: `merge_and_project` without the
/// transpose keeps at most half of its points, and a `head_size` right only for the widths the
/// fixed checks use fails its property, with the smallest failing case in the message.
#[test]
fn properties_beat_code_fitted_to_the_fixed_checks() {
    let s = Scratch::new("properties-fitted");
    plant(
        &s,
        "lesson06-grouped-query",
        "        .permuted_axes([0, 2, 1, 3])\n        .as_standard_layout()\n        .into_owned()\n        .into_shape_with_order((b, t, h * hs))",
        "        .as_standard_layout()\n        .into_owned()\n        .into_shape_with_order((b, t, h * hs))",
    );
    plant(
        &s,
        "lesson02-split-heads",
        "    Ok(c / h)\n}",
        "    // Fitted to the widths of the fixed checks.\n    if [64, 768, 24, 12, 6].contains(&c) { Ok(c / h) } else { Ok(1) }\n}",
    );

    let report = json_of(
        &s.xtask(&["grade", "lesson06", "--format", "json"])
            .output()
            .unwrap(),
    );
    let (score, max) = points(&report, "merge_and_project");
    assert!(
        score * 2 <= max,
        "merge_and_project without the transpose keeps {score}/{max}"
    );
    let all = statuses(&report);
    let (status, message) = &all["merge_and_project_property"];
    assert_eq!(status, "wrong", "{message}");
    assert!(
        message.starts_with("fails for B = 1, H = 2, T = 2, hs = 1, D = 1: values differ"),
        "not shrunk to the smallest case: {message}"
    );

    let report = json_of(
        &s.xtask(&["grade", "lesson02", "--format", "json"])
            .output()
            .unwrap(),
    );
    let all = statuses(&report);
    for fixed in ["head_size_divides_width", "head_size_of_gpt2_small"] {
        assert_eq!(all[fixed].0, "passed", "{fixed}: {:?}", all[fixed]);
    }
    let (status, message) = &all["head_size_property"];
    assert_eq!(status, "wrong", "{message}");
    assert!(
        message.starts_with("fails for h = 1, hs = 2, ") && message.ends_with("gave 1"),
        "not shrunk to the smallest case: {message}"
    );
}

/// `check` fails when a planted misconception keeps more than half of its exercise's points,
/// naming it, the points it keeps and the checks it passes.
#[test]
fn properties_check_refuses_points_a_misconception_keeps() {
    let s = Scratch::new("properties-points");
    let course = s.read("course.toml");
    let from = "{ name = \"split_heads_lesson_shapes\", points = 1 }";
    assert!(
        course.contains(from),
        "course.toml changed: update this test"
    );
    s.write(
        "course.toml",
        &course.replacen(
            from,
            "{ name = \"split_heads_lesson_shapes\", points = 20 }",
            1,
        ),
    );
    let out = s.xtask(&["check", "lesson02"]).assert().code(1);
    let text = String::from_utf8_lossy(&out.get_output().stdout).into_owned();
    assert!(
        text.contains(
            "FAIL every misconception keeps at most half of its exercise's points (1 problem(s))"
        ),
        "{text}"
    );
    // The course's own variants are fair: each mistake keeps the same points for every id.
    assert!(
        text.contains("ok   variant checks are fair: the reference passes and each plant keeps the same points for 64 ids"),
        "{text}"
    );
    assert!(
        text.contains(
            "lesson02: misconception `split-without-transpose` keeps 22 of the 32 points of \
             `split_heads` (more than half): it passes `split_heads_lesson_shapes` (20)"
        ),
        "{text}"
    );
}
