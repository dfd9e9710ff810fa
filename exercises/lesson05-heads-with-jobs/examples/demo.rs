//! Lesson 5's worked example: two hand-built heads over "the rain jacket is light packable", with a
//! picture of both. Every shape and number below is computed by your code; a line that needs a
//! function you have not written yet says so.
//!
//! Run it with `cargo xtask demo lesson05` (`--svg DIR` also writes its figures as SVG files).

use attention::print::np;
use lesson05::setup::{CATEGORY, CATEGORY_NAMES, T, TOKENS, argmax_first};
use lesson05::*;
use ndarray::{Array3, Axis};
use pictures::{Demo, Got, Val, py};
use std::process::ExitCode;

const TITLES: [&str; 2] = ["head 1: previous token", "head 2: same category"];

/// Prints the input, both heads' weights, their picture and the figures the lesson quotes.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson05");
    d.say(format!("tokens:   {}", py::strs(&TOKENS)));
    let names: Vec<&str> = CATEGORY.iter().map(|&c| CATEGORY_NAMES[c]).collect();
    d.say(format!("category: {}", py::strs(&names)));
    let ex = d.value(|| Ok(worked_example()));
    d.line("X: ", || {
        let x = &ex.got()?.x;
        Ok(format!(
            "{:?} = {} position features + {} category features\n{}\n",
            x.dim(),
            T,
            x.ncols().saturating_sub(T),
            np(x)
        ))
    });

    let weights: Val<Array3<f64>> = d.value(|| Ok(ex.got()?.weights()));
    d.line("stacked weights: ", || {
        Ok(format!("{:?} (h, T, T)\n", weights.got()?.dim()))
    });
    for (k, title) in TITLES.iter().enumerate() {
        d.line(&format!("{title}, weights "), || {
            let w = weights.got()?.index_axis(Axis(0), k).to_owned();
            let last = w.row(T - 1);
            Ok(format!(
                "{:?}\n{}\n{title}: 'packable' attends most to '{}' ({:.4} on 'light', {:.4} on itself)\n",
                w.dim(),
                np(&w),
                TOKENS[argmax_first(last)],
                last[4],
                last[5]
            ))
        });
    }
    d.figure(
        "lesson05-heads",
        "Lesson 5: two heads with jobs (causal)",
        |mut f| {
            let w = weights.got()?;
            for (k, title) in TITLES.iter().enumerate() {
                f = f.panel(*title, w.index_axis(Axis(0), k));
            }
            Ok(f.labels(&TOKENS, &TOKENS).axes("query token", "key token"))
        },
    );

    let jacket = 2;
    d.line(
        &format!("same category as '{}', up to it: ", TOKENS[jacket]),
        || {
            let same = same_category(&CATEGORY, jacket)?;
            let words: Vec<&str> = same.iter().map(|&j| TOKENS[j]).collect();
            Ok(format!("{same:?} = {}", py::strs(&words)))
        },
    );
    d.finish()
}
