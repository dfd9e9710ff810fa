//! `cargo xtask <command>`: parses the command line (`cli`) and hands each command to its file in
//! `commands/`. The grading itself is the `grader` library.

mod cli;
mod commands;
mod exit_status;
#[cfg(not(feature = "instructor"))]
mod instructor;

use cli::Cli;
use grader::run::sandbox;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Before anything can start a child: no handle of the caller's reaches a build or a check.
    sandbox::close_inherited();
    // A check's sandbox starts twice per check: it parses its own arguments only, not the whole
    // command line (clap builds every command, and checks them all in a debug build).
    if std::env::args_os().nth(1).is_some_and(|a| a == "__sandbox") {
        return sandbox_main();
    }
    // The grader's own helpers need no course, and look for none.
    let helper = std::env::args_os()
        .nth(1)
        .is_some_and(|a| a.to_string_lossy().starts_with("__"));
    let place = match helper {
        true => cli::Place::Repository,
        false => cli::Place::of(grader::course::layout::root().ok().as_deref()),
    };
    let parsed = cli::command(place)
        .try_get_matches()
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => return refused(e),
    };
    // Before anything is built: an instructors' command in a student handout.
    if let Some(why) = cli::refused(place, &cli.command) {
        eprintln!("error: {why}");
        return ExitCode::from(2);
    }
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    if let cli::Cmd::ContainerLike { command } = &cli.command {
        return ExitCode::from(grader::run::container_like::main(command).clamp(0, 255) as u8);
    }
    match commands::run(cli.command) {
        Ok(code) => code,
        // `{:#}`: the message, then each cause after a `: `, on one line (a did-you-mean's
        // `  help:` line is part of its message). Causes may quote a student's file names:
        // written so that none can move the cursor or clear the screen.
        Err(e) => {
            eprintln!(
                "error: {}",
                grader::report::readable::printable(&format!("{e:#}"))
            );
            ExitCode::from(2)
        }
    }
}

/// `cargo xtask __sandbox ARGS`: the check sandbox's stages, parsed as the hidden `__sandbox`
/// command of the whole command line would parse them.
fn sandbox_main() -> ExitCode {
    use clap::{Args as _, FromArgMatches as _};
    let command = sandbox::SandboxArgs::augment_args(
        clap::Command::new("__sandbox")
            .bin_name("cargo xtask __sandbox")
            .about("The sandbox a check process runs in (used by the grader itself)"),
    );
    let args = command
        .try_get_matches_from(std::env::args_os().skip(1))
        .and_then(|m| sandbox::SandboxArgs::from_arg_matches(&m));
    match args {
        Ok(args) => ExitCode::from(sandbox::main(args).clamp(0, 255) as u8),
        Err(e) => refused(e),
    }
}

/// What a command line clap did not take ends with: `--help`, `--version` and the help shown for
/// a bare `cargo xtask` as clap prints them; any other mistake in one line, exit status 2.
fn refused(e: clap::Error) -> ExitCode {
    if !e.use_stderr()
        || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    {
        e.exit()
    }
    eprintln!("{}", cli::usage_error(&e));
    ExitCode::from(2)
}
