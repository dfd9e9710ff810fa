//! `cargo xtask similarity DIR`: pairs of submissions whose code looks alike.

use anyhow::{Result, bail};
use grader::course::Course;
use grader::official::similarity;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Compares the submissions in `dir` and writes the CSV to `output` (default: standard output).
pub fn run(
    root: &Path,
    course: &Course,
    dir: &Path,
    threshold: f64,
    exercises: Option<Vec<String>>,
    output: Option<PathBuf>,
) -> Result<ExitCode> {
    if let Some(path) = &output
        && (path.is_dir()
            || path
                .parent()
                .is_some_and(|p| !p.as_os_str().is_empty() && !p.is_dir()))
    {
        bail!(
            "--output {}: its folder does not exist (or it is a folder)",
            path.display()
        );
    }
    let opts = similarity::Options::new(course, threshold, exercises.as_deref())?;
    similarity::run(root, course, dir, &opts, output.as_deref())?;
    Ok(ExitCode::SUCCESS)
}
