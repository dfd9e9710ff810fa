//! `cargo xtask secret [--replace]`: creates the course secret the variant checks are drawn from.

use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;

/// Writes `course-secret` at `root` (over an existing one only when `replace`).
pub fn run(root: &Path, replace: bool) -> Result<ExitCode> {
    let existed = root.join(grader::variants::secret::FILE).exists();
    let path = grader::variants::secret::create(root, replace)?;
    println!(
        "wrote {} (mode 600, ignored by git): official grading draws every student's variant \
         inputs from it{}; keep it safe beside the solutions, never in a handout or a repository \
         students can read",
        path.display(),
        if existed {
            ", so every student's inputs changed: grades given with the old one cannot be \
             reproduced"
        } else {
            ""
        }
    );
    Ok(ExitCode::SUCCESS)
}
