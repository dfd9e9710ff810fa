//! Your exercises for lesson 6. Replace each `todo!()` with an implementation.
//!
//! Tools that help: `Array4::from_shape_fn`, `index_axis`, `slice(s![..])`, `permuted_axes`,
//! `as_standard_layout`, `into_shape_with_order`, [`attention::attend::scaled_dot_product`],
//! [`attention::attend::project`], [`attention::mask::causal`], [`crate::setup::split_heads`];
//! errors: [`attention::ShapeError`].
#![allow(unused_variables)]

use crate::setup::GqaWeights;
use attention::Result;
use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayView4};

/// How many query heads share one key/value head: `n_rep = H / H_kv`.
///
/// Errors with a [`attention::ShapeError`] unless `H = H_kv · n_rep` for a whole `n_rep >= 1`:
/// `h` or `h_kv` is 0, or `h_kv` does not divide `h` (for example `H = 4, H_kv = 3`).
pub fn n_rep(h: usize, h_kv: usize) -> Result<usize> {
    todo!("n_rep: H / H_kv, refusing zeros and uneven groups")
}

/// Repeats every key/value head `n_rep` times along the head axis:
/// `(B, H_kv, T, hs) -> (B, H_kv · n_rep, T, hs)`, with `out[b, i] == kv[b, i / n_rep]`.
///
/// Copies of one head sit next to each other (kv head 0 serves query heads `0..n_rep`, kv head 1
/// serves `n_rep..2 n_rep`, ...), the layout real models use; it is **not** the whole stack
/// tiled `n_rep` times. Errors when `n_rep` is 0.
pub fn repeat_kv(kv: ArrayView4<f64>, n_rep: usize) -> Result<Array4<f64>> {
    todo!("repeat_kv: out[b, i, t, j] = kv[b, i / n_rep, t, j]")
}

/// Grouped-query attention on split heads: query head `i` attends with key/value head
/// `i / n_rep`. `q`: `(B, H, T, hs)`, `k`: `(B, H_kv, S, hs)`, `v`: `(B, H_kv, S, hs)` ->
/// `(output (B, H, T, hs), weights (B, H, T, S))`.
///
/// Every head scores with `softmax(q kᵀ / √hs)`; with `causal`, query `t` sees keys `0..=t`
/// only (weights above the diagonal exactly `0.0`). The result equals multi-head attention on
/// [`repeat_kv`]`(k, n_rep)` and [`repeat_kv`]`(v, n_rep)`.
///
/// Errors when `H_kv` does not divide `H` (see [`n_rep`]), or the batch, head size, key count
/// or key/value head count of `q`, `k`, `v` do not agree.
pub fn grouped_attention(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    causal: bool,
) -> Result<(Array4<f64>, Array4<f64>)> {
    todo!("grouped_attention: repeat k and v to H heads, then attend head by head")
}

/// Merges the heads back to model width and applies the output projection:
/// `(B, H, T, hs)` and `W_O` `(H · hs, D)` -> `(B, T, D)`.
///
/// The merge is token-major: `merged[b, t, i * hs + j] = heads[b, i, t, j]` (concatenate the heads'
/// features for every token), then `out = merged @ W_O`. Errors when `W_O` does not have `H · hs`
/// rows.
pub fn merge_and_project(heads: ArrayView4<f64>, wo: ArrayView2<f64>) -> Result<Array3<f64>> {
    todo!("merge_and_project: swap the H and T axes, reshape to (B, T, H * hs), multiply by W_O")
}

/// A full grouped-query attention layer: `x` `(B, T, D)` -> `(output (B, T, D), weights
/// (B, H, T, T))`.
///
/// `hs = D / h`. Project `Q = X Wq` `(B, T, D)`, `K = X Wk` and `V = X Wv` `(B, T, H_kv · hs)`;
/// split them into `(B, H, T, hs)` and `(B, H_kv, T, hs)`; run [`grouped_attention`]; finish with
/// [`merge_and_project`]. With `h_kv == h` this is exactly multi-head attention.
///
/// Errors when `h` is 0 or does not divide `D`, `h_kv` does not divide `h`, or a weight does not
/// have the shape [`GqaWeights`] documents.
pub fn gqa_forward(
    x: ArrayView3<f64>,
    w: &GqaWeights,
    h: usize,
    h_kv: usize,
    causal: bool,
) -> Result<(Array3<f64>, Array4<f64>)> {
    todo!("gqa_forward: project, split (H and H_kv heads), grouped_attention, merge_and_project")
}

/// Bytes of KV cache one sequence needs: every layer stores a key **and** a value vector of `hs`
/// numbers per key/value head per cached position:
/// `2 · layers · H_kv · hs · T · bytes_per_value`.
///
/// Multi-head attention is the case `H_kv = H`, so grouped queries shrink the cache by `n_rep`.
pub fn kv_cache_bytes(
    layers: usize,
    h_kv: usize,
    hs: usize,
    t: usize,
    bytes_per_value: usize,
) -> usize {
    todo!("kv_cache_bytes: 2 (K and V) x layers x H_kv x hs x T x bytes per value")
}
