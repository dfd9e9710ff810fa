//! Gradescope's `results.json`: one test per check, and one per lesson that does not compile.
//!
//! Follows Gradescope's autograder specification: `output_format` (top level),
//! `test_output_format` and every test's `output_format` are `text`, so messages are never
//! rendered as HTML; `visibility` is one of Gradescope's values (`hidden`, `after_due_date`,
//! `after_published`, `visible`): checks the student can see are `visible`, hidden checks
//! `after_published`; a lesson's build failure is its own `visible` failing test (0 points) with
//! the compiler's error as its output. Raw `f64`s in messages are shortened for people, as in the
//! tables ([`super::readable`]).

use super::Report;
use super::readable::readable;
use crate::judge::verdict::Status;
use serde_json::{Value, json};

/// The report as Gradescope's autograder results.
pub fn render(report: &Report) -> String {
    let mut tests: Vec<Value> = Vec::new();
    for lesson in &report.lessons {
        // A lesson graded with exercises stubbed out says so in their checks.
        if let Some(err) = lesson
            .compiler_output
            .as_ref()
            .filter(|_| lesson.build != super::Build::Stubbed)
        {
            tests.push(json!({
                "name": format!("{} / build", lesson.id),
                "name_format": "text",
                "score": 0,
                "max_score": 0,
                "status": "failed",
                "output": format!("The lesson's crate does not compile, so none of its checks ran:\n{err}"),
                "output_format": "text",
                "tags": [lesson.id],
                "visibility": "visible",
            }));
        }
        for ex in &lesson.exercises {
            for check in &ex.checks {
                let output = match check.status {
                    Status::CompileError if lesson.build == super::Build::Stubbed => {
                        format!("compile_error: {}", check.message)
                    }
                    Status::CompileError => {
                        "compile_error: the lesson's crate does not compile (see its build test)"
                            .to_owned()
                    }
                    Status::Passed if check.message.is_empty() => "passed".to_owned(),
                    s if check.explanation().is_empty() => s.to_string(),
                    s => format!("{}: {}", s, readable(&check.explanation())),
                };
                tests.push(json!({
                    "name": format!("{} / {} / {}", lesson.id, ex.name, check.name),
                    "name_format": "text",
                    "score": check.points,
                    "max_score": check.max_points,
                    "status": if check.status == Status::Passed { "passed" } else { "failed" },
                    "output": output,
                    "output_format": "text",
                    "tags": [lesson.id, ex.name],
                    "visibility": if check.hidden { "after_published" } else { "visible" },
                }));
            }
        }
    }
    let mut output = format!("{} / {} points", report.score, report.max_score);
    if !report.official {
        output.push_str(&format!(
            "\nUNOFFICIAL: these course files differ from the instructors' copy: {}",
            file_names(report)
        ));
    } else if !report.listed_files().is_empty() {
        output.push_str(&format!(
            "\nFiles you changed outside exercises/*/src were not used: {}",
            file_names(report)
        ));
    }
    let v = json!({
        "score": report.score,
        "execution_time": report.execution_time.round() as u64,
        "output": output,
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
    });
    serde_json::to_string_pretty(&v).expect("json")
}

/// The submission's modified files, each escaped and cut ([`crate::report::student_text::name`]): the
/// student chose their names.
fn file_names(report: &Report) -> String {
    let names: Vec<String> = report
        .listed_files()
        .iter()
        .map(|f| crate::report::student_text::name(f))
        .collect();
    names.join(", ")
}
