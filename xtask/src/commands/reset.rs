//! `cargo xtask reset WHAT`: one exercise (or a lesson's file) back to its stub, with a backup
//! (see `grader::course::stubs`).

use anyhow::Result;
use grader::course::Course;
use std::path::Path;
use std::process::ExitCode;

/// Resets `what`, asking first unless `yes`.
pub fn run(root: &Path, course: &Course, what: &str, yes: bool) -> Result<ExitCode> {
    Ok(ExitCode::from(grader::course::stubs::run(
        root, course, what, yes,
    )?))
}
