//! Lesson 5's worked example: two hand-built heads over "the rain jacket is light packable".
//!
//! Run it with `cargo xtask demo lesson05` (your code) or `--solutions` (the reference).

use attention::print::np;
use lesson05::setup::{CATEGORY, CATEGORY_NAMES, T, TOKENS, argmax_first};
use lesson05::*;
use ndarray::Axis;

/// Prints the input, both heads' weights and the figures the lesson quotes.
pub fn main() {
    let ex = worked_example();
    println!("tokens:   {TOKENS:?}");
    let names: Vec<&str> = CATEGORY.iter().map(|&c| CATEGORY_NAMES[c]).collect();
    println!("category: {names:?}");
    println!(
        "X: {:?} = {} position features + {} category features",
        ex.x.dim(),
        T,
        ex.x.ncols() - T
    );
    println!("{}\n", np(&ex.x));

    let weights = ex.weights();
    println!("stacked weights: {:?} (h, T, T)\n", weights.dim());
    let titles = ["head 1: previous token", "head 2: same category"];
    for (title, w) in titles.iter().zip(weights.axis_iter(Axis(0))) {
        let last = w.row(T - 1);
        let top = argmax_first(last);
        println!("{title}, weights {:?}", w.dim());
        println!("{}", np(&w));
        println!(
            "{title}: 'packable' attends most to '{}' ({:.4} on 'light', {:.4} on itself)\n",
            TOKENS[top], last[4], last[5]
        );
    }

    let jacket = 2;
    let same = same_category(&CATEGORY, jacket).expect("jacket is token 2");
    let words: Vec<&str> = same.iter().map(|&j| TOKENS[j]).collect();
    println!(
        "same category as '{}', up to it: {same:?} = {words:?}",
        TOKENS[jacket]
    );
}
