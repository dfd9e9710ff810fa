//! Reference implementations of lesson 3's exercises.

use crate::setup::unfold_heads;
use attention::Result;
use attention::attend::batched_matmul;
use attention::error::{ShapeError, shape_string};
use attention::mask::apply_mask;
use attention::softmax::softmax_inplace;
use ndarray::{Array3, Array4, ArrayView4};

/// `(B, h, T, n) -> (B·h, T, n)`, `out[b * h + i] == x[b, i]`.
pub fn fold_heads(x: ArrayView4<f64>) -> Array3<f64> {
    let (b, h, t, n) = x.dim();
    x.as_standard_layout()
        .into_owned()
        .into_shape_with_order((b * h, t, n))
        .expect("a standard-layout array reshapes")
}

/// `(B, h, T, hs), (B, h, S, hs) -> (B, h, T, S)`: `q kᵀ / √hs` for every head.
pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
    let (b, h, _, hs) = q.dim();
    let (kb, kh, _, khs) = k.dim();
    if (kb, kh, khs) != (b, h, hs) {
        return Err(ShapeError::new(
            "attention_scores",
            format!(
                "keys (B, h, S, hs) = ({b}, {h}, S, {hs}) to match queries {}",
                shape_string(q.shape())
            ),
            k.shape(),
        ));
    }
    // Through `crate::exercises`, so a planted misconception reaches the callers too.
    let qf = crate::exercises::fold_heads(q);
    let kf = crate::exercises::fold_heads(k);
    let mut scores = batched_matmul(qf.view(), kf.view().permuted_axes([0, 2, 1]))?;
    scores *= 1.0 / (hs as f64).sqrt();
    unfold_heads(scores.view(), h)
}

/// The `(1, 1, T, S)` causal mask: `true` where key `j <= ` query `t`.
pub fn causal_mask(t: usize, s: usize) -> Array4<bool> {
    Array4::from_shape_fn((1, 1, t, s), |(_, _, i, j)| j <= i)
}

/// Softmax over the last axis of `(B, h, T, S)` scores after masking; fully masked rows are zero.
pub fn masked_softmax(
    scores: ArrayView4<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> Result<Array4<f64>> {
    let mut weights = scores.to_owned();
    if let Some(mask) = allowed {
        apply_mask(&mut weights, &mask).map_err(|_| {
            ShapeError::new(
                "masked_softmax",
                format!(
                    "a mask broadcastable to the scores {}",
                    shape_string(scores.shape())
                ),
                mask.shape(),
            )
        })?;
    }
    softmax_inplace(&mut weights);
    Ok(weights)
}

/// All heads' attention in two batched products: `(output (B, h, T, hv), weights (B, h, T, S))`.
pub fn parallel_attention(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> Result<(Array4<f64>, Array4<f64>)> {
    let (b, h, s, _) = k.dim();
    let (vb, vh, vs, _) = v.dim();
    if (vb, vh, vs) != (b, h, s) {
        return Err(ShapeError::new(
            "parallel_attention",
            format!(
                "values (B, h, S, hv) = ({b}, {h}, {s}, hv) to match keys {}",
                shape_string(k.shape())
            ),
            v.shape(),
        ));
    }
    use crate::exercises::{attention_scores, fold_heads, masked_softmax};
    let scores = attention_scores(q, k)?;
    let weights = masked_softmax(scores.view(), allowed)?;
    let out = batched_matmul(fold_heads(weights.view()).view(), fold_heads(v).view())?;
    Ok((unfold_heads(out.view(), h)?, weights))
}
