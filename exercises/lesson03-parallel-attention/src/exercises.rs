//! Your exercises for lesson 3. Replace each `todo!()` with an implementation.
//!
//! Shapes use the lesson's names: `B` batch, `h` heads, `T` query positions, `S` key/value
//! positions, `hs` head size. Helpers you may use: [`attention::attend::batched_matmul`],
//! [`attention::mask::apply_mask`], [`attention::softmax::softmax_inplace`],
//! [`crate::setup::unfold_heads`], [`attention::error::ShapeError`]; ndarray's
//! `into_shape_with_order`, `as_standard_layout`, `permuted_axes`.
#![allow(unused_variables)]

use attention::Result;
use ndarray::{Array3, Array4, ArrayView4};

/// Folds the head axis into the batch axis: `(B, h, T, n) -> (B·h, T, n)`, with
/// `out[b * h + i] == x[b, i]`.
///
/// Every `(sequence, head)` pair becomes one row of a plain batch of `B·h` independent
/// problems, which is what [`attention::attend::batched_matmul`] multiplies. Pure data movement:
/// no value changes. Works for any layout of `x` (views included); never fails.
pub fn fold_heads(x: ArrayView4<f64>) -> Array3<f64> {
    todo!("fold_heads: make x row-major, then reshape (B, h, T, n) to (B*h, T, n)")
}

/// The scaled scores of every head at once: `(B, h, T, hs), (B, h, S, hs) -> (B, h, T, S)`,
/// `scores[b, i] = q[b, i] k[b, i]ᵀ / √hs`.
///
/// The scale uses the head size `hs` (the last axis of `q`), not the model width `h · hs`.
///
/// Errors with a [`attention::ShapeError`] when `k` has another batch size, head count or head
/// size than `q`. `S` may differ from `T`.
pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
    todo!("attention_scores: fold heads, batched Q Kᵀ, multiply by 1/sqrt(hs), unfold")
}

/// The causal mask as a 4-D `allowed` mask `(1, 1, T, S)`: query `t` may read keys `0..=t`.
///
/// Aligned at the top-left corner like [`attention::mask::causal`] (`np.tril`), also when
/// `T != S`. The two leading size-1 axes broadcast over every sequence and every head.
pub fn causal_mask(t: usize, s: usize) -> Array4<bool> {
    todo!("causal_mask: a (1, 1, T, S) mask, true where key index <= query index")
}

/// Softmax over the key axis with an optional mask: `(B, h, T, S) -> (B, h, T, S)`.
///
/// `allowed` (`true` = may attend) has four axes, each of the scores' size or 1, and is
/// broadcast to `(B, h, T, S)`: `(1, 1, T, S)` for a causal mask, `(B, 1, 1, S)` for padding.
/// Disallowed entries get weight exactly `0.0`; every row with at least one allowed key sums
/// to 1. Large scores must not overflow.
///
/// **Fully masked rows** (a query that may read no key): every weight of the row is `0.0`.
/// This is the course's policy (see [`attention::softmax`]): a defined output, never `NaN`.
///
/// Errors with a [`attention::ShapeError`] when `allowed` does not broadcast to the scores.
pub fn masked_softmax(
    scores: ArrayView4<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> Result<Array4<f64>> {
    todo!("masked_softmax: disallowed scores to -inf, then a stable softmax over the last axis")
}

/// Scaled dot-product attention over all heads in one batched operation.
///
/// `q`: `(B, h, T, hs)`, `k`: `(B, h, S, hs)`, `v`: `(B, h, S, hv)` (usually `hv = hs`),
/// `allowed`: optional mask broadcastable to `(B, h, T, S)`. Returns
/// `(output (B, h, T, hv), weights (B, h, T, S))` with
/// `weights = masked_softmax(q kᵀ / √hs, allowed)` and `output[b, i] = weights[b, i] v[b, i]`.
///
/// The result equals running single-head attention on every `(b, i)` pair one by one.
/// A fully masked query gets all-zero weights, so its output row is the zero vector.
///
/// Errors with a [`attention::ShapeError`] when the shapes do not fit together (see
/// [`attention_scores`]; `v` must have the batch size, head count and `S` of `k`) or the mask
/// does not broadcast.
pub fn parallel_attention(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> Result<(Array4<f64>, Array4<f64>)> {
    todo!("parallel_attention: scores, masked softmax, then weights @ v for all B*h heads at once")
}
