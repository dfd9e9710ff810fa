//! Lesson 1's worked example, printed the way the lesson text prints it.
//! Run it with `cargo xtask demo lesson01` (your code) or `--solutions` (the reference).

use attention::print::np;
use lesson01::setup::DEMO_SCALE;
use lesson01::*;
use ndarray::Axis;

/// Builds the worked example and prints it.
pub fn main() -> Result<(), attention::ShapeError> {
    let ex = worked_example(DEMO_SCALE);
    let words = ex.sentence.word_refs();
    println!("words: {words:?}");
    println!("T: {}", ex.sentence.len());
    println!("X shape: {}", attention::error::shape_string(ex.x.shape()));

    let weights = |h: &Head| attention_weights(ex.x.view(), h.wq.view(), h.wk.view(), h.wv.view());
    let (wa, wb) = (weights(&ex.head_a)?, weights(&ex.head_b)?);
    println!("wA shape: {}\n", attention::error::shape_string(wa.shape()));

    let (a0, b0) = (wa.index_axis(Axis(0), 0), wb.index_axis(Axis(0), 0));
    println!("Head A attention matrix (rows = query word, cols = key word):");
    println!("{}", np(&a0));
    println!("Head B attention matrix:");
    println!("{}", np(&b0));
    let diff = max_abs_diff(a0, b0)?;
    println!("max abs difference between the two heads: {diff:.4}\n");

    println!(
        "Head A: each word's top focus -> {:?}",
        top_focus(a0, &words)?
    );
    println!(
        "Head B: each word's top focus -> {:?}",
        top_focus(b0, &words)?
    );
    println!(
        "rows where the two heads disagree: {} of {}",
        disagreements(a0, b0)?,
        words.len()
    );
    Ok(())
}
