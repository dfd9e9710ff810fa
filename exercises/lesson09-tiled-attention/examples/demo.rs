//! Lesson 9's worked example, printed the way the lesson text prints it. Every line is
//! computed by your code; a line that needs a function you have not written yet says so, and
//! the rest still runs.
//!
//! Run it with `cargo xtask demo lesson09` (`--svg DIR` also writes its figures as SVG files).

use lesson09::setup::N;
use lesson09::*;
use pictures::{Demo, Got};
use std::process::ExitCode;

/// Builds the worked example, prints it and draws it.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson09");
    let m = d.value(|| Ok(placeholder(N)));
    d.line(&format!("placeholder({N}) = "), || {
        let m = m.got()?;
        Ok(format!("{:?} matrix\n{m}", m.dim()))
    });
    d.figure(
        "lesson09-placeholder",
        "Lesson 9: the placeholder matrix",
        |f| {
            Ok(f.axes("row", "column")
                .panel("10 i + j", m.got()?.view())
                .scaled_to_max())
        },
    );
    d.finish()
}
