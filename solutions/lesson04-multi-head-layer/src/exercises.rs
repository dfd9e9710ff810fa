//! Reference implementations of lesson 4's exercises.

use crate::setup::{MultiHead, attend_heads, merge_heads, split_heads};
use attention::Result;
use attention::attend::project;
use attention::error::{ShapeError, shape_string};
use attention::rng::RandomState;
use ndarray::{Array1, Array3, Array4, ArrayView2, ArrayView3, ArrayView4, Axis, concatenate, s};

/// `[heads[0] | ... | heads[h-1]] · W_O`: `(h, hs), (D, D) -> (D,)`.
pub fn concat_and_project(heads: ArrayView2<f64>, wo: ArrayView2<f64>) -> Result<Array1<f64>> {
    let d = heads.len();
    if wo.dim() != (d, d) {
        return Err(ShapeError::new(
            "concat_and_project",
            format!(
                "W_O of shape ({d}, {d}) for head outputs {}",
                shape_string(heads.shape())
            ),
            wo.shape(),
        ));
    }
    let concatenated: Array1<f64> = heads.iter().copied().collect();
    Ok(concatenated.dot(&wo))
}

/// Four `(D, D)` projections `randn / √D` from `RandomState::new(seed)`: wq, wk, wv, wo.
pub fn init_multi_head(width: usize, heads: usize, seed: u32) -> Result<MultiHead> {
    if heads == 0 || !width.is_multiple_of(heads) {
        return Err(ShapeError::with_got(
            "MultiHead::new",
            "a head count h > 0 that divides the width D",
            format!("D = {width}, h = {heads}"),
        ));
    }
    let mut rng = RandomState::new(seed);
    let scale = (width as f64).sqrt();
    let mut draw = || rng.randn((width, width)) / scale;
    let (wq, wk, wv, wo) = (draw(), draw(), draw(), draw());
    MultiHead::from_weights(heads, wq, wk, wv, wo)
}

/// `merge(attention(split(query wq), split(context wk), split(context wv))) wo`.
pub fn multi_head_forward(
    layer: &MultiHead,
    query: ArrayView3<f64>,
    context: ArrayView3<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> Result<(Array3<f64>, Array4<f64>)> {
    let op = "multi_head_forward";
    let d = layer.width;
    for (name, x) in [("query (B, T, D)", &query), ("context (B, S, D)", &context)] {
        if x.dim().2 != d {
            return Err(ShapeError::new(
                op,
                format!("{name} with D = {d}"),
                x.shape(),
            ));
        }
    }
    if context.dim().0 != query.dim().0 {
        return Err(ShapeError::new(
            op,
            format!(
                "a context with the batch size of the query {}",
                shape_string(query.shape())
            ),
            context.shape(),
        ));
    }
    let h = layer.heads;
    let q = split_heads(project(query, layer.wq.view())?.view(), h)?;
    let k = split_heads(project(context, layer.wk.view())?.view(), h)?;
    let v = split_heads(project(context, layer.wv.view())?.view(), h)?;
    let (heads, weights) = attend_heads(q.view(), k.view(), v.view(), allowed)?;
    let output = project(merge_heads(heads.view()).view(), layer.wo.view())?;
    Ok((output, weights))
}

/// One `(D, 3D)` projection `[wq | wk | wv]`, cut into `q`, `k`, `v`, each `(B, T, D)`.
pub fn fused_qkv(
    layer: &MultiHead,
    x: ArrayView3<f64>,
) -> Result<(Array3<f64>, Array3<f64>, Array3<f64>)> {
    let d = layer.width;
    let w_qkv = concatenate![Axis(1), layer.wq, layer.wk, layer.wv];
    if x.dim().2 != d {
        return Err(ShapeError::new(
            "fused_qkv",
            format!("x (B, T, D) with D = {d}"),
            x.shape(),
        ));
    }
    let qkv = project(x, w_qkv.view())?;
    let block = |i: usize| qkv.slice(s![.., .., i * d..(i + 1) * d]).to_owned();
    Ok((block(0), block(1), block(2)))
}

/// Mean over the head axis: `(B, h, T, S) -> (B, T, S)`.
pub fn average_over_heads(weights: ArrayView4<f64>) -> Result<Array3<f64>> {
    weights.mean_axis(Axis(1)).ok_or_else(|| {
        ShapeError::new(
            "average_over_heads",
            "weights (B, h, T, S) with at least one head",
            weights.shape(),
        )
    })
}
