//! Lesson 9's worked example (being written).

use lesson09::*;
use pictures::Demo;
use std::process::ExitCode;

/// Prints the worked example.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson09");
    d.line("worked example: ", || {
        let ex = worked_example();
        Ok(format!("{:?}", ex.q.dim()))
    });
    d.finish()
}
