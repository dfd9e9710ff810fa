//! `cargo xtask list`: the lessons and exercises with their points and the student's progress.

use anyhow::Result;
use grader::course::Course;
use grader::report::style::Style;
use std::path::Path;
use std::process::ExitCode;

/// Prints the list.
pub fn run(root: &Path, course: &Course) -> Result<ExitCode> {
    print!("{}", grader::progress::list(root, course, &Style::stdout()));
    Ok(ExitCode::SUCCESS)
}
