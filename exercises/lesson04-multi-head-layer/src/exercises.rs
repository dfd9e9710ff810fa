//! Your exercises for lesson 4. Replace each `todo!()` with an implementation.
//!
//! Shapes use the lesson's names: `B` batch, `T` query positions, `S` context positions, `D` model
//! width, `h` heads, `hs = D / h` head size. Given helpers ([`crate::setup`]): [`split_heads`],
//! [`merge_heads`], [`attend_heads`], [`MultiHead::from_weights`]; from the core:
//! [`attention::attend::project`], [`attention::rng::RandomState`], [`attention::ShapeError`];
//! ndarray's `concatenate!`, `slice(s![..])`, `dot`, `mean_axis`.
//!
//! [`split_heads`]: crate::setup::split_heads
//! [`merge_heads`]: crate::setup::merge_heads
//! [`attend_heads`]: crate::setup::attend_heads
#![allow(unused_variables)]

use crate::setup::MultiHead;
use attention::Result;
use ndarray::{Array1, Array3, Array4, ArrayView2, ArrayView3, ArrayView4};

/// One token's last step: concatenate its head outputs, then multiply by `W_O`.
///
/// `heads`: `(h, hs)`, row `i` is head `i`'s output for the token; `wo`: `(D, D)` with
/// `D = h · hs`. Returns `(D,)`: `[heads[0] | heads[1] | ... | heads[h-1]] · W_O`.
/// With the text's numbers, heads `(1, 0.2)` and `(-0.5, 2)` and [`crate::setup::TEXT_WO`] give
/// `[1, 0.2, 0.5, 2.2]`.
///
/// Errors with a [`attention::ShapeError`] when `wo` is not `(h·hs, h·hs)`.
pub fn concat_and_project(heads: ArrayView2<f64>, wo: ArrayView2<f64>) -> Result<Array1<f64>> {
    todo!("concat_and_project: lay the head rows end to end, then multiply by W_O")
}

/// Builds a [`MultiHead`] of width `D = width` with `heads` heads from `seed`.
///
/// Refuses `heads == 0` and a width not divisible by `heads` with a [`attention::ShapeError`]
/// whose message names both numbers. Otherwise draws four `(D, D)` projections from one
/// `RandomState::new(seed)`, in the order `wq`, `wk`, `wv`, `wo`, each `randn((D, D)) / √D`
/// (our stand-in for NumPy's `default_rng(seed).normal(size=(D, D)) / sqrt(D)`, which the core
/// crate does not reproduce). No biases. The layer holds `4 · D²` weights whatever `heads` is.
pub fn init_multi_head(width: usize, heads: usize, seed: u32) -> Result<MultiHead> {
    todo!("init_multi_head: refuse bad head counts, then draw wq, wk, wv, wo, each randn / sqrt(D)")
}

/// The layer's forward pass (called by [`MultiHead::forward`]).
///
/// `query`: `(B, T, D)`; `context`: `(B, S, D)`, the same array for self-attention, another
/// sequence for cross-attention (`S` may differ from `T`); `allowed`: optional mask
/// broadcastable to `(B, h, T, S)`, `true` = may attend.
///
/// ```text
/// q = split(query @ wq)     (B, h, T, hs)
/// k = split(context @ wk)   (B, h, S, hs)
/// v = split(context @ wv)   (B, h, S, hs)
/// heads, weights = attention(q, k, v, allowed)   (B, h, T, hs), (B, h, T, S)
/// output = merge(heads) @ wo                     (B, T, D)
/// ```
///
/// Returns `(output (B, T, D), weights (B, h, T, S))`: the weights of every head, not an
/// average. A fully masked query gets all-zero weights (the core's policy).
///
/// Errors with a [`attention::ShapeError`] when `query` or `context` is not `D` wide, their batch
/// sizes differ, or the mask does not broadcast.
pub fn multi_head_forward(
    layer: &MultiHead,
    query: ArrayView3<f64>,
    context: ArrayView3<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> Result<(Array3<f64>, Array4<f64>)> {
    todo!("multi_head_forward: project, split, attend every head, merge, multiply by wo")
}

/// Queries, keys and values of a self-attention input from one fused projection.
///
/// Builds the `(D, 3D)` matrix `[wq | wk | wv]` (columns `0..D` are `wq`, `D..2D` are `wk`,
/// `2D..3D` are `wv`), projects `x` `(B, T, D)` once to `(B, T, 3D)`, and cuts the result into
/// `(q, k, v)`, each `(B, T, D)`. Equals `(x @ wq, x @ wk, x @ wv)`.
///
/// Errors with a [`attention::ShapeError`] when `x` is not `D` wide.
pub fn fused_qkv(
    layer: &MultiHead,
    x: ArrayView3<f64>,
) -> Result<(Array3<f64>, Array3<f64>, Array3<f64>)> {
    todo!(
        "fused_qkv: concatenate wq, wk, wv into (D, 3D), one projection, then three column blocks"
    )
}

/// The mean of the per-head weights: `(B, h, T, S) -> (B, T, S)`.
///
/// A display choice only: it hides how the heads differ, and the layer's output is not computed
/// from it (the heads are concatenated and mixed by `W_O` instead). Rows still sum to 1.
///
/// Errors with a [`attention::ShapeError`] when there are no heads (`h = 0`).
pub fn average_over_heads(weights: ArrayView4<f64>) -> Result<Array3<f64>> {
    todo!("average_over_heads: the mean over the head axis (axis 1)")
}
