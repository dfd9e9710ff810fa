//! `cargo xtask dist OUT_DIR`: the student handout (see `grader::official::handout`).

use anyhow::Result;
use grader::course::{Course, manifest};
use grader::official::handout;
use std::path::Path;
use std::process::ExitCode;

/// Writes the handout to `out_dir` and says what was left out.
pub fn run(root: &Path, course: &Course, out_dir: &Path) -> Result<ExitCode> {
    let summary = handout::make(root, course, out_dir)?;
    println!(
        "wrote the handout to {} ({} files)",
        out_dir.display(),
        summary.files.len()
    );
    println!(
        "left out: {} and {} hidden check(s){}",
        handout::INSTRUCTOR_ONLY.join(", "),
        summary.hidden_checks.len(),
        if summary.hidden_checks.is_empty() {
            String::new()
        } else {
            format!(" ({})", summary.hidden_checks.join(", "))
        }
    );
    println!("{} lists the shipped checks and snapshots.", manifest::FILE);
    Ok(ExitCode::SUCCESS)
}
