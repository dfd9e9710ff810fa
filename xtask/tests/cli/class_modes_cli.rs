//! A class graded in the container mode gives every student the points the Landlock mode gives
//! (full marks for the solved lesson, none for the stubs: what `class_cli` asserts of a class
//! graded with Landlock), and no check reads the class folder, which lies outside the course (as
//! the GitHub Classroom grading workflow has it): in the container mode a check sees the
//! grader's command line, and with it the folder's path.

use crate::class_cli::{handout, read_csv, solve_lesson01};
use crate::hostile_cli::Mode;
use crate::support::{self, OutDir, Scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const L1: &str = "lesson01-why-heads";

/// Lesson 1's first stub made to look for the grader's `--submissions CLASS` on the command lines
/// in `/proc` and to read a classmate's source in it: its panic says what it saw and opened.
fn snooping(stubs: &str, class: &Path) -> String {
    let code = stubs.replacen("    todo!(", "    snoop();\n    todo!(", 1);
    assert_ne!(code, stubs, "lesson 1's handout has a todo! to replace");
    format!(
        "{code}\nconst CLASS: &str = {:?};\n{}",
        class.display().to_string(),
        r#"
fn snoop() {
    let (mut saw, mut opened) = (0, Vec::new());
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(line) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let args: Vec<String> =
            line.split(|b| *b == 0).map(|a| String::from_utf8_lossy(a).into_owned()).collect();
        // This class run's folder only: other graders on the machine (another test's, in the
        // Landlock mode) leave theirs open, as the machine's other files.
        for pair in args.windows(2).filter(|p| p[0] == "--submissions" && p[1] == CLASS) {
            saw += 1;
            let class = std::path::Path::new(&pair[1]);
            let source = class.join("alice/exercises/lesson01-why-heads/src/exercises.rs");
            if let Ok(text) = std::fs::read_to_string(&source) {
                opened.push(text);
            } else if std::fs::read_dir(class).is_ok() {
                opened.push(format!("the listing of {}", class.display()));
            }
        }
    }
    panic!("SNOOP saw {saw} opened {}: {opened:?}", opened.len());
}
"#
    )
}

/// `grade --submissions CLASS 1 -j 2` in `mode`, its gradebook and reports under `work`: the
/// output, the gradebook, the reports' folder.
fn grade_class(
    course: &Scratch,
    class: &Path,
    work: &Path,
    mode: Mode,
) -> (std::process::Output, PathBuf, PathBuf) {
    let (gradebook, reports) = (work.join("gradebook.csv"), work.join("reports"));
    let args = [
        "--submissions",
        class.to_str().unwrap(),
        "1",
        "-j",
        "2",
        "--gradebook",
        gradebook.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ];
    let out = mode.grade(course, &args).output().unwrap();
    (out, gradebook, reports)
}

/// Each student's total and the class's maximum in a class run's gradebook.
fn totals(gradebook: &Path) -> (BTreeMap<String, String>, String) {
    let rows = read_csv(gradebook);
    let max = rows
        .first()
        .map(|row| row["max"].clone())
        .unwrap_or_default();
    let totals = rows
        .into_iter()
        .map(|row| (row["id"].clone(), row["total"].clone()))
        .collect();
    (totals, max)
}

#[test]
fn a_class_in_a_container_gets_the_landlock_modes_points_and_reads_no_classmate() {
    if !Mode::Container.available() {
        return;
    }
    let course = Scratch::new("class-modes");
    let work = OutDir::new("class-modes");
    let class = work.path.join("submissions");
    let pristine = work.path.join("pristine");
    handout(&course, &pristine);
    let stubs =
        std::fs::read_to_string(pristine.join("exercises").join(L1).join("src/exercises.rs"))
            .unwrap();
    // Ten students, three distinct lessons: the class run builds each once.
    for (id, kind) in [
        ("alice", "solved"),
        ("bob", "solved"),
        ("carol", "solved"),
        ("dave", "solved"),
        ("erin", "stubs"),
        ("frank", "stubs"),
        ("grace", "stubs"),
        ("heidi", "stubs"),
        ("mallory", "snoop"),
        ("trudy", "snoop"),
    ] {
        let dir = class.join(id);
        support::copy_dir(&pristine, &dir);
        match kind {
            "solved" => solve_lesson01(&course, &dir.join("exercises")),
            "snoop" => std::fs::write(
                dir.join("exercises").join(L1).join("src/exercises.rs"),
                snooping(&stubs, &class),
            )
            .unwrap(),
            _ => {}
        }
    }
    // One run, in the container mode: the Landlock mode's class runs are `class_cli`'s and
    // `pages_cli`'s, and its points per kind of submission are known (below).
    let mode = Mode::Container;
    let out_dir = work.path.join(format!("{mode:?}"));
    std::fs::create_dir_all(&out_dir).unwrap();
    let (out, gradebook, reports) = grade_class(&course, &class, &out_dir, mode);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(gradebook.exists(), "{mode:?}: no gradebook\n{stderr}");
    // Every message of the snoopers' checks, and what the first snooper's checks ended as.
    let mut snooped = Vec::new();
    for id in ["mallory", "trudy"] {
        let report: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(reports.join(format!("{id}.json"))).unwrap(),
        )
        .unwrap();
        let isolation = report["isolation"].as_str().unwrap_or_default();
        assert!(
            isolation.starts_with(mode.isolation()),
            "{mode:?}: {id}: {isolation}"
        );
        snooped.extend(
            support::verdicts(&report)
                .iter()
                .filter_map(|c| c["message"].as_str().map(str::to_owned))
                .filter(|m| m.contains("SNOOP saw")),
        );
    }
    assert!(!snooped.is_empty(), "{mode:?}: no check snooped");
    for message in &snooped {
        assert!(message.contains(" opened 0: "), "{mode:?}: {message}");
    }
    // The container mode has no PID namespace: the snoop must have seen the folder's path,
    // or it proves nothing.
    assert!(
        snooped.iter().any(|m| !m.contains("SNOOP saw 0 ")),
        "{mode:?}: {snooped:?}"
    );
    // The Landlock mode's points: the solved lesson's maximum, nothing for the stubs and the
    // snoopers (whose first function panics).
    let (graded, max) = totals(&gradebook);
    assert_eq!(graded.len(), 10, "{graded:?}\n{stderr}");
    assert!(max.parse::<u32>().is_ok_and(|m| m > 0), "max {max:?}");
    for (id, total) in &graded {
        let expected = if ["alice", "bob", "carol", "dave"].contains(&id.as_str()) {
            max.as_str()
        } else {
            "0"
        };
        assert_eq!(total, expected, "{mode:?}: {id}: {graded:?}");
    }
}
