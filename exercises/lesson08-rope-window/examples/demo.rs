//! Lesson 8's worked example, printed the way the lesson text prints it. Every line is
//! computed by your code (the reference's with `--solutions`); a line that needs a function you
//! have not written yet says so, and the rest still runs.
//!
//! Run it with `cargo xtask demo lesson08` (`--solutions`, `--compare`, `--svg DIR`).

use lesson08::setup::N;
use lesson08::*;
use pictures::{Demo, Got};
use std::process::ExitCode;

/// Builds the worked example, prints it and draws it.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson08");
    let m = d.value(|| Ok(placeholder(N)));
    d.line(&format!("placeholder({N}) = "), || {
        let m = m.got()?;
        Ok(format!("{:?} matrix\n{m}", m.dim()))
    });
    d.figure(
        "lesson08-placeholder",
        "Lesson 8: the placeholder matrix",
        |f| {
            Ok(f.axes("row", "column")
                .panel("10 i + j", m.got()?.view())
                .scaled_to_max())
        },
    );
    d.finish()
}
