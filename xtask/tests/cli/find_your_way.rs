//! "Find your way": a mistyped lesson or exercise is refused with the name that was meant, and
//! `cargo xtask grade EXERCISE` grades that one exercise. Run against the real workspace (nothing
//! here writes to it: bad names stop before anything runs, and a grade of one exercise is not
//! recorded as progress); only lesson 2 is ever built.

use crate::support::{course_root, json_of, xtask_in};

use predicates::prelude::*;

/// `cargo xtask ARGS` in the real workspace.
fn xtask(args: &[&str]) -> assert_cmd::Command {
    xtask_in(&course_root(), args)
}

/// A bad name: exit status 2, nothing on stdout, and on stderr the `error:` line and the `help:`
/// line, one after the other.
fn refused(args: &[&str], error: &str, help: &str) {
    let out = xtask(args).assert().code(2).get_output().clone();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = format!("error: {error}\n  help: {help}");
    assert!(
        stderr.contains(&expected),
        "`{}`: expected\n{expected}\ngot\n{stderr}",
        args.join(" ")
    );
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn mistyped_names_are_refused_with_the_name_that_was_meant() {
    refused(
        &["grade", "split-heads"],
        "no lesson or exercise named `split-heads`",
        "did you mean `split_heads`?",
    );
    refused(
        &["hint", "max_abs_dif"],
        "no exercise named `max_abs_dif`",
        "did you mean `max_abs_diff`?",
    );
    refused(
        &["grade", "lesson-02"],
        "no lesson or exercise named `lesson-02`",
        "did you mean `lesson02`?",
    );
    refused(
        &["grade", "lesson02-split-head"],
        "no lesson or exercise named `lesson02-split-head`",
        "did you mean `lesson02-split-heads`?",
    );
    refused(
        &["reset", "merge-heads", "--yes"],
        "no lesson or exercise named `merge-heads`",
        "did you mean `merge_heads`?",
    );
    refused(
        &["demo", "lesson-1"],
        "no lesson named `lesson-1`",
        "did you mean `lesson01`?",
    );
    refused(
        &["demo", "split_heads"],
        "no lesson named `split_heads`",
        "`split_heads` is an exercise of lesson02: did you mean `lesson02`?",
    );
    refused(
        &["hint", "lesson02"],
        "no exercise named `lesson02`",
        "`lesson02` is a lesson; its exercises are `head_size`, `split_heads`",
    );
}

#[test]
fn names_nothing_is_close_to_list_what_exists() {
    // A lesson number that does not exist: no guess, the range of lessons.
    refused(
        &["grade", "lesson99"],
        "no lesson or exercise named `lesson99`",
        "the lessons are `lesson01` … `lesson",
    );
    refused(
        &["watch", "99"],
        "no lesson named `99`",
        "the lessons are `lesson01` … `lesson",
    );
    refused(
        &["grade", "softmax"],
        "no lesson or exercise named `softmax`",
        "the lessons are `lesson01` … `lesson",
    );
    xtask(&["grade", "softmax"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`cargo xtask list` shows them all",
        ));
}

#[test]
fn grading_one_exercise_reports_only_that_exercise() {
    let report = json_of(
        xtask(&["grade", "split_heads", "--format", "json"])
            .assert()
            .code(1)
            .get_output(),
    );
    let lessons = report["lessons"].as_array().unwrap();
    assert_eq!(lessons.len(), 1, "{report:#}");
    assert_eq!(lessons[0]["id"], "lesson02");
    let exercises = lessons[0]["exercises"].as_array().unwrap();
    assert_eq!(exercises.len(), 1, "{report:#}");
    let ex = &exercises[0];
    assert_eq!(ex["name"], "split_heads");
    // The points are the exercise's, at every level; the stubs earn none of them.
    assert!(ex["max_score"].as_u64().unwrap() > 0);
    for total in [&lessons[0], &report] {
        assert_eq!(total["max_score"], ex["max_score"]);
        assert_eq!(total["score"], ex["score"]);
    }
    assert_ne!(report["score"], report["max_score"]);
    for check in ex["checks"].as_array().unwrap() {
        assert_eq!(check["status"], "not_started", "{check:#}");
    }

    // The table names the exercise, and only it, and what to do next.
    let out = xtask(&["grade", "split_heads"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("split_heads"), "{table}");
    for other in ["head_size", "merge_heads", "head_projection"] {
        assert!(!table.contains(other), "{other}:\n{table}");
    }
    let next = table.lines().find(|l| l.starts_with("Next:"));
    assert!(next.is_some_and(|l| l.contains("`split_heads`")), "{table}");
    assert!(!table.contains("Full marks."), "{table}");

    // A method is found by the path the table names it with ("implement `KvCache::append` next").
    let out = xtask(&["grade", "KvCache::append"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains("implement `KvCache::append` next"),
        "{table}"
    );
    assert!(!table.contains("decode_step"), "{table}");
}

#[test]
fn one_exercise_of_the_reference_solutions_gets_full_marks() {
    let out = xtask(&["grade", "--solutions", "split_heads", "--format", "json"])
        .output()
        .unwrap();
    let report = json_of(&out);
    let exercises = report["lessons"][0]["exercises"].as_array().unwrap();
    assert_eq!(exercises.len(), 1);
    assert_eq!(exercises[0]["name"], "split_heads");
    assert_eq!(report["score"], report["max_score"]);
    // Exit 0 at full marks, unless course files are being edited (an unofficial grade).
    let official = report["official"] == true;
    assert_eq!(out.status.code(), Some(if official { 0 } else { 1 }));
}

/// The examples of `new` in the instructors' guide and in `new --help` name a lesson number that
/// is still free (no lesson has it yet), so following them scaffolds a new lesson.
#[test]
fn the_examples_of_new_name_a_free_lesson() {
    let root = crate::support::course_root();
    let course = std::fs::read_to_string(root.join("course.toml")).unwrap();
    let lessons = course.lines().filter(|l| l.trim() == "[[lessons]]").count();
    let guide = std::fs::read_to_string(root.join("docs/instructors.md")).unwrap();
    let help = crate::support::xtask_in(&root, &["new", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    for (what, text) in [("docs/instructors.md", guide), ("new --help", help)] {
        let numbers: Vec<usize> = text
            .match_indices("`lesson")
            .filter_map(|(at, _)| {
                let rest = text.get(at + 7..)?;
                let (n, slug) = rest.split_once('-')?;
                let slug_is_yarn = slug.starts_with("yarn`");
                slug_is_yarn.then(|| n.parse().ok()).flatten()
            })
            .collect();
        assert!(!numbers.is_empty(), "{what} shows no `lessonNN-yarn`");
        assert!(
            numbers.iter().all(|&n| n > lessons),
            "{what}: {numbers:?} names a lesson the course has ({lessons} lessons)"
        );
    }
}
