//! `cargo xtask demo LESSON`: runs the lesson's worked example (`examples/demo.rs`) with the
//! student's code or the reference solution, and turns a `todo!()` into a pointer to the function
//! to implement instead of a panic backtrace.

use crate::course::Lesson;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs the demo; returns the process exit code to use.
pub fn run(root: &Path, lesson: &Lesson, solutions: bool) -> Result<i32, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(root)
        .args([
            "run",
            "--quiet",
            "--package",
            &lesson.package(solutions),
            "--example",
            &format!("{}-demo", lesson.package(solutions)),
        ])
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("could not run cargo: {e}"))?;
    if output.status.success() {
        return Ok(0);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(pos) = stderr.find("not yet implemented") {
        let location = stderr[..pos]
            .rsplit("panicked at ")
            .next()
            .and_then(|l| l.lines().next())
            .map(|l| l.trim_end_matches(':').to_owned())
            .unwrap_or_default();
        let message = stderr[pos..].lines().next().unwrap_or("");
        let function = message
            .trim_start_matches("not yet implemented")
            .trim_start_matches(':')
            .trim()
            .split(':')
            .next()
            .unwrap_or("")
            .to_owned();
        eprintln!(
            "\nThe demo stopped at `{function}`, which is not implemented yet ({location}).\n\
             Implement it, then run `cargo xtask demo {}` again, or `cargo xtask grade {}` to check it.",
            lesson.id, lesson.id
        );
        return Ok(1);
    }
    eprint!("{stderr}");
    Ok(output.status.code().unwrap_or(1))
}
