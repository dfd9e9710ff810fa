//! The exit status of a command that passed or failed.

use std::process::ExitCode;

/// Exit status 0 when `ok`, else 1.
pub fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
