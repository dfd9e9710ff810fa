//! `cargo xtask gradebook RDIR`: a graded class's gradebook written again from its reports folder.

use anyhow::Result;
use grader::official::gradebook::Options;
use std::path::Path;
use std::process::ExitCode;

/// Writes the gradebook of the reports folder `dir` as `opts` say, with the roster and the late
/// policy at `inputs`, to `output` or the standard output.
pub fn run(
    dir: &Path,
    opts: Options,
    inputs: (Option<&Path>, Option<&Path>),
    output: Option<&Path>,
) -> Result<ExitCode> {
    let (roster, late) = inputs;
    grader::official::stored::write_gradebook(dir, opts, roster, late, output)?;
    Ok(ExitCode::SUCCESS)
}
