//! Gradescope's `results.json`: one test per check.

use super::Report;
use crate::verdict::Status;
use serde_json::{Value, json};

/// The report as Gradescope's autograder results.
pub fn render(report: &Report) -> String {
    let mut tests: Vec<Value> = Vec::new();
    for lesson in &report.lessons {
        for ex in &lesson.exercises {
            for check in &ex.checks {
                let mut output = format!("{}: {}", check.status, check.message);
                if let (Status::CompileError, Some(c)) = (check.status, &lesson.compiler_output) {
                    output = format!("compile_error:\n{c}");
                }
                tests.push(json!({
                    "name": format!("{} / {} / {}", lesson.id, ex.name, check.name),
                    "score": check.points,
                    "max_score": check.max_points,
                    "status": if check.status == Status::Passed { "passed" } else { "failed" },
                    "output": output.trim_end_matches(": "),
                    "visibility": if check.hidden { "after_published" } else { "visible" },
                }));
            }
        }
    }
    let mut output = format!("{} / {} points", report.score, report.max_score);
    if !report.official {
        output.push_str(&format!(
            "\nUNOFFICIAL: these course files differ from the instructors' copy: {}",
            report.modified_files.join(", ")
        ));
    }
    let v = json!({
        "score": report.score,
        "execution_time": report.execution_time,
        "output": output,
        "tests": tests,
    });
    serde_json::to_string_pretty(&v).expect("json")
}
