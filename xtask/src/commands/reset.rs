//! `cargo xtask reset WHAT`: one exercise (or a lesson's file) back to its stub, with a backup
//! (see `grader::course::stubs`); `reset --course-files`: the checks, snapshots and other course
//! files back to the handed-out ones (see `grader::course::pristine`).

use anyhow::Result;
use grader::course::Course;
use std::path::Path;
use std::process::ExitCode;

/// Resets `what` (or, `course_files`, the course files), asking first unless `yes`.
pub fn run(
    root: &Path,
    course: &Course,
    what: Option<&str>,
    course_files: bool,
    yes: bool,
) -> Result<ExitCode> {
    let code = match what {
        Some(what) if !course_files => grader::course::stubs::run(root, course, what, yes)?,
        _ => grader::course::pristine::restore(root, course, yes)?,
    };
    Ok(ExitCode::from(code))
}
