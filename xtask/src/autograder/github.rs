//! GitHub Classroom: the autograding workflow and the points it reports.
//!
//! GitHub Classroom reads an assignment's points from its autograding reporter
//! (`classroom-resources/autograding-grading-reporter`): for every runner id listed in its
//! `runners` input it reads the environment variable `<RUNNER ID>_RESULTS`, a base64-encoded JSON
//! object `{ "version": 1, "status": "pass" | "fail" | "error", "max_score": N, "tests": [ { "name",
//! "status", "score", "message", … } ] }` (the form `autograding-command-grader` writes as its
//! `result` output), and adds up `max_score` and every test's `score`. The workflow must be named
//! `Autograding Tests` with one job `run-autograding-tests`. Here the runner is the course grader:
//! `cargo xtask autograder classroom-result` turns the JSON report into that object.

use crate::course::Course;
use anyhow::{Context as _, Result};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Where the workflow goes in the student's repository.
pub const WORKFLOW: &str = ".github/workflows/classroom.yml";

/// The runner id of the grading step (the reporter reads `GRADER_RESULTS`).
pub const RUNNER: &str = "grader";

/// The workflow for the course at `root`.
pub fn workflow(root: &Path) -> String {
    let toolchain = super::toolchain(root);
    format!(
        r#"# GitHub Classroom autograding for this course, written by `cargo xtask autograder github`.
#
# It grades the student's push officially with the instructors' course (a private repository named
# by the organisation variable COURSE_REPOSITORY, read with the secret COURSE_TOKEN) and reports
# the points to GitHub Classroom. See docs/class-grading.md.
name: Autograding Tests
"on":
  - push
  - repository_dispatch
  - workflow_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    timeout-minutes: 30
    env:
      CARGO_TERM_COLOR: never
      CARGO_TARGET_DIR: ${{{{ github.workspace }}}}/course/target/submissions
    steps:
      - name: Check out the submission
        uses: actions/checkout@v4
        with:
          path: submission
      - name: Check out the course (instructors' copy)
        uses: actions/checkout@v4
        with:
          repository: ${{{{ vars.COURSE_REPOSITORY }}}}
          token: ${{{{ secrets.COURSE_TOKEN }}}}
          path: course
      - name: Install Rust {toolchain}
        run: |
          rustup toolchain install {toolchain} --profile minimal
          rustup default {toolchain}
      - name: Cache the dependencies and the grader
        uses: actions/cache@v4
        with:
          path: |
            ~/.cargo/registry
            ~/.cargo/git
            course/target
          key: course-grader-{toolchain}-${{{{ hashFiles('course/Cargo.lock') }}}}
          restore-keys: course-grader-{toolchain}-
      - name: Build the grader
        working-directory: course
        run: cargo build --locked -p xtask
      - name: Grade
        working-directory: course
        run: |
          cargo run --quiet --locked -p xtask -- grade --submission ../submission --format json --output ../report.json 2> ../grader.log || true
          cat ../grader.log
      - name: Points for GitHub Classroom
        id: {RUNNER}
        working-directory: course
        run: cargo run --quiet --locked -p xtask -- autograder classroom-result ../report.json --log ../grader.log >> "$GITHUB_OUTPUT"
      - name: Upload the report
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: grade-report
          path: |
            report.json
            grader.log
          if-no-files-found: warn
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          {env}_RESULTS: "${{{{ steps.{RUNNER}.outputs.result }}}}"
        with:
          runners: {RUNNER}
"#,
        env = RUNNER.to_uppercase()
    )
}

/// Writes the workflow under `out_dir`; returns its path.
pub fn write(root: &Path, _course: &Course, out_dir: &Path) -> Result<PathBuf> {
    let path = out_dir.join(WORKFLOW);
    crate::fsutil::write(&path, &workflow(root))?;
    Ok(path)
}

/// The runner result (see the module's documentation) for a JSON report: one test per check,
/// one failing test per lesson that does not compile. When the report cannot be read, one
/// A check's message for the runner's log: the verdict, the message, whom it is blocked by and
/// the misconception it matches (the JSON report's fields of the same names).
fn check_message(status: &str, c: &serde_json::Value) -> String {
    let message = format!("{status}: {}", c["message"].as_str().unwrap_or(""));
    let diagnosis = c["diagnosis"]["title"]
        .as_str()
        .zip(c["diagnosis"]["explanation"].as_str());
    crate::report::explain(
        message.trim_end_matches(": "),
        c["blocked_by"].as_str(),
        diagnosis,
    )
}

/// `error` test with zero of the course's points, whose message is `log` (or the read error).
pub fn classroom_value(course: &Course, report: &Path, log: Option<&str>) -> Value {
    let parsed = std::fs::read_to_string(report)
        .with_context(|| format!("no report at {}", report.display()))
        .and_then(|t| serde_json::from_str::<Value>(&t).context("bad report"));
    let report = match parsed {
        Ok(v) if v.get("lessons").is_some_and(Value::is_array) => v,
        Ok(_) | Err(_) => {
            let why = match parsed {
                Err(e) => format!("{e:#}"),
                Ok(_) => "the report has no lessons".to_owned(),
            };
            let max: u32 = course.lessons.iter().map(|l| l.max_points()).sum();
            let message = match log.map(str::trim).filter(|l| !l.is_empty()) {
                Some(log) => format!("grading could not run: {why}\n{log}"),
                None => format!("grading could not run: {why}"),
            };
            return json!({
                "version": 1,
                "status": "error",
                "max_score": max,
                "tests": [{ "name": "grading", "status": "error", "score": 0,
                            "message": message, "line_no": 0, "test_code": "" }],
            });
        }
    };
    let mut tests = Vec::new();
    let mut any_error = false;
    let mut any_fail = false;
    for lesson in report["lessons"].as_array().into_iter().flatten() {
        let id = lesson["id"].as_str().unwrap_or("?");
        if lesson["build"] == "compile_error" {
            any_error = true;
            tests.push(json!({
                "name": format!("{id} builds"),
                "status": "error",
                "score": 0,
                "message": lesson["compiler_output"].as_str().unwrap_or("does not compile"),
                "line_no": 0, "test_code": "",
            }));
        }
        for ex in lesson["exercises"].as_array().into_iter().flatten() {
            for c in ex["checks"].as_array().into_iter().flatten() {
                let status = c["status"].as_str().unwrap_or("wrong");
                let state = match status {
                    "passed" => "pass",
                    "crashed" | "timed_out" | "compile_error" | "exited_early" => "error",
                    _ => "fail",
                };
                any_fail |= state == "fail";
                any_error |= state == "error";
                tests.push(json!({
                    "name": format!("{id} / {} / {}", ex["name"].as_str().unwrap_or("?"),
                                    c["name"].as_str().unwrap_or("?")),
                    "status": state,
                    "score": c["points"].as_u64().unwrap_or(0),
                    "message": check_message(status, c),
                    "line_no": 0, "test_code": "",
                }));
            }
        }
    }
    json!({
        "version": 1,
        "status": if any_fail { "fail" } else if any_error { "error" } else { "pass" },
        "max_score": report["max_score"].as_u64().unwrap_or(0),
        "tests": tests,
    })
}

/// [`classroom_value`] as the reporter reads it: compact JSON, base64-encoded.
pub fn classroom_result(course: &Course, report: &Path, log: Option<&str>) -> String {
    base64(classroom_value(course, report, log).to_string().as_bytes())
}

/// Standard base64 (RFC 4648, with padding).
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_rfc_4648() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(plain.as_bytes()), coded);
        }
    }
}
