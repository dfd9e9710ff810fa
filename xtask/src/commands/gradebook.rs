//! `cargo xtask gradebook RDIR`: a graded class's gradebook written again from its reports folder.

use crate::cli::Cmd;
use anyhow::Result;
use std::process::ExitCode;

/// Writes the gradebook of `command`'s reports folder, laid out as its flags say, with its roster
/// and late policy, to its `--output` or the standard output.
pub fn run(command: Cmd) -> Result<ExitCode> {
    let Cmd::Gradebook {
        dir,
        format,
        roster,
        missing,
        late,
        output,
    } = command
    else {
        unreachable!("`gradebook` only")
    };
    grader::official::stored::write_gradebook(
        &dir,
        super::grade::gradebook_options(format, missing),
        roster.as_deref(),
        late.as_deref(),
        output.as_deref(),
    )?;
    Ok(ExitCode::SUCCESS)
}
