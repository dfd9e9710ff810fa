//! Your exercises for lesson 1. Replace each `todo!()` with an implementation.
//!
//! Shapes use the lesson's names: `B` batch, `T` sequence length, `C` model width, `hs` head size.
//! Helpers you may use: [`attention::softmax::softmax`], [`attention::attend::project`],
//! [`attention::error::ShapeError`]; ndarray's `dot`, `t()`, `index_axis`.
#![allow(unused_variables)]

use crate::setup::Head;
use attention::Result;
use attention::rng::RandomState;
use ndarray::{Array2, Array3, ArrayView, ArrayView2, ArrayView3, Dimension};

/// One head's attention weights.
///
/// `x`: `(B, T, C)`; `wq`, `wk`, `wv`: `(C, hs)`. Compute `Q = X Wq`, `K = X Wk` (each
/// `(B, T, hs)`), the scores `Q Kᵀ / √hs` `(B, T, T)`, and return their softmax over the last
/// axis: `(B, T, T)`, every row summing to 1. (`wv` does not change the weights; it is part of the
/// head, so the signature takes it.)
///
/// Errors: a [`attention::ShapeError`] when `x` is not 3-D with `C` equal to the projections'
/// row count, or the three projections differ in shape.
pub fn attention_weights(
    x: ArrayView3<f64>,
    wq: ArrayView2<f64>,
    wk: ArrayView2<f64>,
    wv: ArrayView2<f64>,
) -> Result<Array3<f64>> {
    todo!("attention_weights: project, score, scale by 1/sqrt(hs), softmax")
}

/// The largest absolute element-wise difference between two arrays of the same shape.
///
/// `a`, `b`: any shape, equal. Errors with a [`attention::ShapeError`] when the shapes differ.
pub fn max_abs_diff<D: Dimension>(a: ArrayView<f64, D>, b: ArrayView<f64, D>) -> Result<f64> {
    todo!("max_abs_diff: compare shapes, then the largest |a - b|")
}

/// Where each query looks hardest: for every row of `weights` `(T, T)`, the word at the column
/// with the largest weight. Ties go to the first (lowest) column. Returns `T` words.
///
/// Errors when `words.len()` is not the number of columns.
pub fn top_focus(weights: ArrayView2<f64>, words: &[&str]) -> Result<Vec<String>> {
    todo!("top_focus: per-row argmax, first index wins ties, mapped to words")
}

/// How many rows of two `(T, T)` weight matrices have a different argmax column (ties to the
/// first column). Errors when the shapes differ.
pub fn disagreements(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Result<usize> {
    todo!("disagreements: count rows whose argmax columns differ")
}

/// Draws one head from `rng`: `Wq`, then `Wk`, then `Wv`, each `randn((c, hs)) * scale`.
///
/// The order matters: the generator is a single stream, so drawing in another order (or drawing
/// extra numbers) gives different heads than the lesson's.
pub fn draw_head(rng: &mut RandomState, c: usize, hs: usize, scale: f64) -> Head {
    todo!("draw_head: three (c, hs) draws in the order Wq, Wk, Wv, each times scale")
}

/// The sum of every weight row: `(B, T, S) -> (B, T)`. For softmax weights each entry is 1
/// (up to rounding).
pub fn row_sums(weights: ArrayView3<f64>) -> Array2<f64> {
    todo!("row_sums: sum over the last axis")
}

/// One head's output: its weights mix the values. `weights` `(B, T, S)` from
/// [`attention_weights`], `x` `(B, S, C)` the sequence the keys came from, `wv` `(C, hs)` the
/// head's value projection: `V = X Wv` is `(B, S, hs)`, and the output `weights @ V` is
/// `(B, T, hs)`, one `hs`-wide vector per query position (the lesson's `outA`, `(1, 8, 8)`).
///
/// Errors when `x` is not 3-D, when `wv` does not have `x`'s `C` rows, or when `weights` does not
/// have `x`'s batch size and `S` columns.
pub fn head_output(
    weights: ArrayView3<f64>,
    x: ArrayView3<f64>,
    wv: ArrayView2<f64>,
) -> Result<Array3<f64>> {
    todo!("head_output: V = X Wv, then weights @ V for every batch row")
}
