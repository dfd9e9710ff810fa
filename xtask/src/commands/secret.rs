//! `cargo xtask secret`: creates the course secret the variant checks are drawn from.

use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// Writes `course-secret` at `root`.
pub fn run(root: &Path) -> Result<ExitCode> {
    let path = grader::variants::secret::create(root)?;
    println!(
        "wrote {}: keep it with the solutions (never in a handout); every student's variant \
         inputs are drawn from it",
        path.display()
    );
    Ok(ExitCode::SUCCESS)
}
