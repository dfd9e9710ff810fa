//! Your exercises for lesson 5. Replace each `todo!()` with an implementation.
//!
//! Tools that help: `Array2::zeros`, `dot`, `.t()`, [`attention::mask::causal`],
//! [`attention::mask::apply_mask`], [`attention::softmax::softmax`], `ndarray::stack`;
//! errors: [`attention::ShapeError`].
#![allow(unused_variables)]

use crate::setup::Head;
use attention::Result;
use ndarray::{Array2, Array3, ArrayView2};

/// The token features of the lesson: one row per token, `T` one-hot position slots followed by
/// `K` one-hot category slots. `(T,)` categories -> `(T, T + K)`.
///
/// Row `t` has a 1 in column `t` and a 1 in column `T + category[t]`, zeros elsewhere. For the
/// lesson's six tokens and `K = 3` this is the `(6, 9)` matrix `X`.
///
/// Errors with a [`attention::ShapeError`] when a category is not below `n_categories`.
pub fn token_features(category: &[usize], n_categories: usize) -> Result<Array2<f64>> {
    todo!("token_features: a 1 at column t and a 1 at column T + category[t] of row t")
}

/// Causal attention weights of one head: `softmax(Q Kᵀ)` with query `i` allowed to see keys
/// `0..=i` only. `q`: `(T, d)`, `k`: `(T, d)` -> `(T, T)`.
///
/// The scores are **not** divided by `√d`: the hand-built heads set their own sharpness through
/// their gains. Every row sums to 1 and every weight above the diagonal is exactly `0.0`.
///
/// Errors when `q` and `k` have different shapes.
pub fn causal_weights(q: ArrayView2<f64>, k: ArrayView2<f64>) -> Result<Array2<f64>> {
    todo!("causal_weights: scores Q Kᵀ, causal mask to -inf, softmax over each row")
}

/// Head 1, the previous-token head, for `t` positions and `n_categories` categories.
/// `Wq`: `(T + K, T)`, `Wk`: `(T + K, T)`.
///
/// `Wk` copies the position one-hot: `Wk[i, i] = 1` for `i < T`. `Wq` shifts it back by one and
/// scales it: `Wq[i, i - 1] = gain` for `1 <= i < T`. So the query of position `i` matches only the
/// key of position `i - 1`, with score `gain`. The category rows of both are zero.
pub fn previous_token_head(t: usize, n_categories: usize, gain: f64) -> Head {
    todo!("previous_token_head: Wq[i, i - 1] = gain, Wk[i, i] = 1, zeros elsewhere")
}

/// Head 2, the same-category head, for `t` positions and `n_categories` categories.
/// `Wq`: `(T + K, K)`, `Wk` equal to `Wq`.
///
/// Both read only the category slots: `Wq[T + c, c] = gain` for every category `c < K`, zeros
/// elsewhere. Two tokens of the same category score `gain²`, any other pair 0.
pub fn same_category_head(t: usize, n_categories: usize, gain: f64) -> Head {
    todo!("same_category_head: Wq[T + c, c] = gain for every category c; Wk is the same matrix")
}

/// Runs every head over the whole sequence and stacks their causal weights:
/// `x`: `(T, F)`, `h` heads with `Wq`, `Wk` of shape `(F, d_i)` -> `(h, T, T)`.
///
/// `out[i]` is [`causal_weights`]`(X Wq_i, X Wk_i)`: every head gets all `T` positions and
/// produces its own `(T, T)` matrix. Errors when a head's `Wq` does not have `F` rows or its `Wk`
/// differs in shape from its `Wq`.
pub fn run_heads(x: ArrayView2<f64>, heads: &[Head]) -> Result<Array3<f64>> {
    todo!("run_heads: project X by each head's Wq and Wk, causal_weights, stack into (h, T, T)")
}

/// The positions `j <= i` whose category equals token `i`'s, in increasing order: what the
/// same-category head lets token `i` look at. `(T,)` categories -> indices.
///
/// For "jacket" (`i = 2`) in the lesson's sentence this is `[1, 2]` ("rain", "jacket").
/// Errors when `i >= T`.
pub fn same_category(category: &[usize], i: usize) -> Result<Vec<usize>> {
    todo!("same_category: the j in 0..=i with category[j] == category[i]")
}
