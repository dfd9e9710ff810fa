//! `cargo xtask class-page RDIR`: the feedback pages and the class page again, from the reports.

use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// Writes the pages of the reports folder `dir`, with the late policy at `late`.
pub fn run(dir: &Path, late: Option<&Path>) -> Result<ExitCode> {
    grader::official::pages::run(dir, late)?;
    Ok(ExitCode::SUCCESS)
}
