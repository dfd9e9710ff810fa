//! Your exercises for lesson 9. Replace each `todo!()` with an implementation.
//!
//! Tools that help: `s![bi, hi, r0..r1, ..]` to slice a tile, `dot`, `.t()`, `mapv_inplace`,
//! `row_mut`, `scaled_add`, `sum_axis`, `insert_axis`, `f64::exp`, `f64::ln`, `f64::max`,
//! [`crate::setup::may_attend`], [`crate::setup::RowState`], [`crate::setup::expect_shape`],
//! [`attention::softmax::softmax_inplace`]; errors: [`attention::ShapeError`].
#![allow(unused_variables)]

use crate::setup::{Grads, RowState, Tiling};
use attention::Result;
use ndarray::{Array3, Array4, ArrayView1, ArrayView3, ArrayView4};

/// One step of an online softmax: folds the next `chunk` of a row's scores into `state`, the
/// running maximum and sum of what came before, and returns the state after the chunk.
///
/// With `m' = max(state.max, max(chunk))`, the new state is
///
/// ```text
/// max = m'
/// sum = state.sum · exp(state.max − m') + Σ_{x in chunk} exp(x − m')
/// ```
///
/// The old sum was counted against the old maximum; `exp(state.max − m')` (at most 1) moves it
/// to the new one. Folding every chunk of a row from [`RowState::EMPTY`] gives its maximum `m`
/// and `l = Σ exp(x − m)`, so `softmax(x)_j = exp(x_j − m) / l` and `log Σ exp(x) = m + ln l`,
/// for every way of cutting the row into chunks.
///
/// Masked scores are `−∞` and count for nothing. While every score seen is `−∞` (a chunk of
/// masked keys first, or an empty one) the state stays [`RowState::EMPTY`]: `exp(−∞ − (−∞))` is
/// NaN, not 1, and must never be computed.
pub fn online_softmax_update(state: RowState, chunk: ArrayView1<f64>) -> RowState {
    todo!(
        "online_softmax_update: new max, old sum rescaled by exp(old max − new max), plus the chunk"
    )
}

/// Attention computed one tile at a time, never holding the `(T, S)` weights:
/// `q (B, h, T, hs)`, `k (B, h, S, hs)`, `v (B, h, S, hv)` give
/// `(output (B, h, T, hv), lse (B, h, T))`.
///
/// `output[b, i, t] = Σ_j softmax(q kᵀ / √hs)[t, j] v[j]`, lesson 3's attention (with the causal
/// mask of [`crate::setup::may_attend`] when `tiling.causal`), and `lse[b, i, t]` is the row's
/// logsumexp, `log Σ_j exp(score[t, j])` over the keys it may read (`−∞` when it reads none).
///
/// For each head and each tile of `tiling.q_tile` queries, keep per query row a running maximum
/// `m`, a running sum `l` and an output accumulator `acc (rows, hv)`, all starting empty
/// (`−∞`, 0, 0). Then for each tile of `tiling.k_tile` keys: the tile's scores `(rows, cols)`
/// (masked ones `−∞`), `m' = max(m, row max)`, `p = exp(score − m')`, and
///
/// ```text
/// l   = l · exp(m − m') + Σ_j p_j
/// acc = acc · exp(m − m') + p @ v_tile
/// m   = m'
/// ```
///
/// After the last key tile, divide once: `output = acc / l`, `lse = m + ln l`. A row that reads
/// no key at all (with the causal mask, when `T > S`) keeps `l = 0`: its output is 0 and its
/// lse `−∞`, never NaN. The largest array you hold besides the inputs and outputs is one tile
/// of scores, `(q_tile, k_tile)`: the checks measure that no call allocates anything near a
/// `(T, S)` array. A key tile the causal mask wholly hides may be skipped.
///
/// Errors when `k` is not `(B, h, S, hs)` or `v` not `(B, h, S, hv)` for `q`'s `B`, `h`, `hs`,
/// or a tile size is 0.
pub fn tiled_attention(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    tiling: Tiling,
) -> Result<(Array4<f64>, Array3<f64>)> {
    todo!("tiled_attention: online softmax over key tiles, one division at the end")
}

/// The backward pass of attention, from its weights: given `dO = ∂L/∂output (B, h, T, hv)` for
/// `output = P v`, `P = softmax(q kᵀ / √hs)` (masked when `causal`, with
/// [`crate::setup::may_attend`]), returns `∂L/∂q (B, h, T, hs)`, `∂L/∂k (B, h, S, hs)` and
/// `∂L/∂v (B, h, S, hv)`.
///
/// Per batch row and head, with `P (T, S)` recomputed:
///
/// ```text
/// dV = Pᵀ dO                                 (S, hv)
/// dP = dO vᵀ                                 (T, S)
/// dS = P ∘ (dP − rowsum(P ∘ dP))             (T, S)  the softmax's Jacobian, row by row
/// dQ = dS k / √hs,   dK = dSᵀ q / √hs
/// ```
///
/// The subtracted `rowsum(P ∘ dP)` is the `−p (p · dp)` term of the softmax's Jacobian
/// `diag(p) − p pᵀ`: every weight depends on every score of its row. The scale `1/√hs` was
/// applied to the scores, so it multiplies both `dQ` and `dK`. A masked weight is 0 and gets
/// no gradient.
///
/// Errors when `k`, `v` or `d_out` do not fit `q` (`k (B, h, S, hs)`, `v (B, h, S, hv)`,
/// `d_out (B, h, T, hv)`).
pub fn attention_backward(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    d_out: ArrayView4<f64>,
    causal: bool,
) -> Result<Grads> {
    todo!("attention_backward: dV = Pᵀ dO, dS = P ∘ (dP − rowsum(P ∘ dP)), dQ and dK scaled")
}

/// The backward pass in tiles (FlashAttention's): the same gradients as
/// [`attention_backward`], without ever holding `P (T, S)`: each tile's weights are recomputed
/// from the forward's saved logsumexp, `P_ij = exp(score_ij − lse_i)` (0 where masked, and in a
/// row that reads nothing, whose lse is `−∞`).
///
/// `out (B, h, T, hv)` and `lse (B, h, T)` are what [`tiled_attention`] returned. The row sums
/// of the Jacobian come from them, not from `P`: `rowsum(P ∘ dP)_i = Σ_j P_ij (dO_i · v_j) =
/// dO_i · out_i`, so first `D = rowsum(dO ∘ out)` `(B, h, T)`, then for every tile of queries
/// `r` and keys `c` the causal mask does not wholly hide:
///
/// ```text
/// P     = exp(q_r k_cᵀ / √hs − lse_r)        (masked entries 0)
/// dV_c += Pᵀ dO_r
/// dS    = P ∘ (dO_r v_cᵀ − D_r)
/// dQ_r += dS k_c / √hs,   dK_c += dSᵀ q_r / √hs
/// ```
///
/// Errors when the shapes do not fit (`k (B, h, S, hs)`, `v (B, h, S, hv)`, `out` and `d_out`
/// `(B, h, T, hv)`, `lse (B, h, T)`) or a tile size is 0.
pub fn tiled_attention_backward(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    out: ArrayView4<f64>,
    lse: ArrayView3<f64>,
    d_out: ArrayView4<f64>,
    tiling: Tiling,
) -> Result<Grads> {
    todo!("tiled_attention_backward: D = rowsum(dO ∘ out), P from lse, tile by tile")
}
