//! Classic wrong answers to lesson 4's exercises, one submodule per misconception (see
//! `[[lessons.misconceptions]]` in `course.toml`). Each is planted into the reference solution by
//! its id (`grade --solutions --plant <id>`): the crate's `exercises` module then runs it in place
//! of the right function (see the crate docs); the checks listed for it must fail.

use crate::setup::{MultiHead, attend_heads, merge_heads, split_heads};
use attention::Result;
use attention::attend::project;
use attention::error::ShapeError;
use attention::rng::RandomState;
use ndarray::{Array3, Array4, ArrayView3, ArrayView4, Axis, concatenate, s};

/// `missing-output-projection`: the merged heads are returned as they are, without `· W_O`.
pub mod missing_output_projection {
    use super::*;

    /// `(B, T, D), (B, S, D) -> ((B, T, D) concatenated heads, (B, h, T, S))`.
    pub fn multi_head_forward(
        layer: &MultiHead,
        query: ArrayView3<f64>,
        context: ArrayView3<f64>,
        allowed: Option<ArrayView4<bool>>,
    ) -> Result<(Array3<f64>, Array4<f64>)> {
        let d = layer.width;
        if query.dim().2 != d || context.dim().2 != d || query.dim().0 != context.dim().0 {
            return Err(ShapeError::new(
                "multi_head_forward",
                "inputs of width D",
                query.shape(),
            ));
        }
        let h = layer.heads;
        let q = split_heads(project(query, layer.wq.view())?.view(), h)?;
        let k = split_heads(project(context, layer.wk.view())?.view(), h)?;
        let v = split_heads(project(context, layer.wv.view())?.view(), h)?;
        let (heads, weights) = attend_heads(q.view(), k.view(), v.view(), allowed)?;
        Ok((merge_heads(heads.view()), weights))
    }
}

/// `fused-qkv-wrong-order`: the fused matrix stacks `[wq | wv | wk]`, so the blocks cut as q, k, v
/// hand out the values as keys and the keys as values.
pub mod fused_qkv_wrong_order {
    use super::*;

    /// `(B, T, D) -> (q, v, k)` returned as `(q, k, v)`.
    pub fn fused_qkv(
        layer: &MultiHead,
        x: ArrayView3<f64>,
    ) -> Result<(Array3<f64>, Array3<f64>, Array3<f64>)> {
        let d = layer.width;
        if x.dim().2 != d {
            return Err(ShapeError::new("fused_qkv", "x (B, T, D)", x.shape()));
        }
        let w_qkv = concatenate![Axis(1), layer.wq, layer.wv, layer.wk];
        let qkv = project(x, w_qkv.view())?;
        let block = |i: usize| qkv.slice(s![.., .., i * d..(i + 1) * d]).to_owned();
        Ok((block(0), block(1), block(2)))
    }
}

/// `average-over-batch`: the mean is taken over axis 0 (the batch) instead of axis 1 (the heads).
pub mod average_over_batch {
    use super::*;

    /// `(B, h, T, S) -> (h, T, S)`: right shape only when B = h.
    pub fn average_over_heads(weights: ArrayView4<f64>) -> Result<Array3<f64>> {
        weights
            .mean_axis(Axis(0))
            .ok_or_else(|| ShapeError::new("average_over_heads", "a batch", weights.shape()))
    }
}

/// `init-shared-draw`: one `randn((D, D)) / √D` draw used for all four projections.
pub mod init_shared_draw {
    use super::*;

    /// A layer whose wq, wk, wv and wo are one and the same matrix.
    pub fn init_multi_head(width: usize, heads: usize, seed: u32) -> Result<MultiHead> {
        if heads == 0 || !width.is_multiple_of(heads) {
            return Err(ShapeError::with_got(
                "MultiHead::new",
                "a head count h > 0 that divides the width D",
                format!("D = {width}, h = {heads}"),
            ));
        }
        let w = RandomState::new(seed).randn((width, width)) / (width as f64).sqrt();
        MultiHead::from_weights(heads, w.clone(), w.clone(), w.clone(), w)
    }
}
