//! The command line of `cargo xtask`: every command and flag ([`args`]), the flags' values clap
//! cannot check by type ([`values`]), what a student's or an instructor's command line shows and
//! takes ([`place`]), and how a usage error prints ([`usage`]).

pub mod args;
mod place;
mod usage;
pub mod values;

pub use args::{Cli, Cmd, Format, GradeArgs, Platform};
pub use place::{Place, command, refused};
pub use usage::usage_error;
pub use values::jobs_or_cores;
