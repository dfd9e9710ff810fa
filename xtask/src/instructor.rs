//! The student build of the grader (without the `instructor` feature) hands the instructors'
//! commands to the full grader.

use crate::cli::{Cmd, Format, Platform};
use anyhow::{Context as _, Result};
use std::process::ExitCode;

/// Commands the student build of the grader (without the `instructor` feature) leaves to the
/// full one: everything that needs the instructor-only modules and crates.
pub fn needs_instructor(command: &Cmd) -> bool {
    match command {
        Cmd::Grade(g) => {
            g.submission.is_some() || g.submissions.is_some() || g.format == Format::Junit
        }
        Cmd::Bless { .. }
        | Cmd::Check { .. }
        | Cmd::New { .. }
        | Cmd::NewExercise { .. }
        | Cmd::Dist { .. }
        | Cmd::ClassPage(_)
        | Cmd::RegradeDiff { .. }
        | Cmd::Gradebook { .. }
        | Cmd::Secret { .. }
        | Cmd::Manifest
        | Cmd::Similarity { .. } => true,
        Cmd::Autograder { platform } => needs_autograder(platform),
        _ => false,
    }
}

/// Runs this command line again with the full grader, `cargo run --features instructor`: the
/// first time, cargo builds it (instructors only ever wait for that once). As with `cargo xtask`,
/// cargo is not quiet, and shows its progress line off a terminal too: that first build takes
/// minutes. The exit status is the full grader's.
pub fn relaunch(root: &std::path::Path) -> Result<ExitCode> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    command
        .args([
            "run",
            "--config",
            "term.progress.when=\"always\"",
            "--config",
            "term.progress.width=80",
            "--package",
            "xtask",
            "--features",
            "instructor",
        ])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .arg("--")
        .args(std::env::args_os().skip(1));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        let e = command.exec();
        Err(e).context("cannot start `cargo run --features instructor`")
    }
    #[cfg(not(unix))]
    {
        let status = command
            .status()
            .context("cannot start `cargo run --features instructor`")?;
        Ok(ExitCode::from(
            status.code().unwrap_or(2).clamp(0, 255) as u8
        ))
    }
}

/// True for the commands that need the full grader (the `instructor` feature): the Gradescope
/// bundle. The GitHub workflow and `classroom-result` (run in students' CI) need no more than the
/// student build.
fn needs_autograder(platform: &Platform) -> bool {
    matches!(
        platform,
        Platform::Gradescope { .. } | Platform::GradescopeStudent { .. }
    )
}
