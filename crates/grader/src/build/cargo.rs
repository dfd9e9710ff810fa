//! The one builder of every `cargo` process the grader starts (builds, clippy, fmt, demos,
//! planted misconceptions): the `cargo` that started `cargo xtask` (so the pinned toolchain),
//! else the one on `PATH`. Check processes are started by [`crate::run`] instead.

use std::process::Command;

/// A `cargo` command with no arguments yet.
pub fn command() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}
