//! Classic wrong answers to lesson 3's exercises, one submodule per misconception (see
//! `[[lessons.misconceptions]]` in `course.toml`). Each is planted into the reference solution by
//! its id (`grade --solutions --plant <id>`): the crate's `exercises` module then runs it in place
//! of the right function (see the crate docs); the checks listed for it must fail.

use crate::reference::fold_heads;
use crate::setup::unfold_heads;
use attention::Result;
use attention::attend::batched_matmul;
use attention::error::ShapeError;
use attention::mask::apply_mask;
use attention::softmax::{softmax_inplace, softmax_row};
use ndarray::{Array3, Array4, ArrayView1, ArrayView4, Axis};

/// `q kᵀ · factor` for every head, folded, multiplied and unfolded with `unfold_by` heads.
fn scores_with(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    factor: f64,
    unfold_by: usize,
) -> Result<Array4<f64>> {
    let mut scores = batched_matmul(
        fold_heads(q).view(),
        fold_heads(k).view().permuted_axes([0, 2, 1]),
    )?;
    scores *= factor;
    unfold_heads(scores.view(), unfold_by)
}

fn check_keys(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<()> {
    let ((b, h, _, hs), (kb, kh, _, khs)) = (q.dim(), k.dim());
    if (kb, kh, khs) != (b, h, hs) {
        return Err(ShapeError::new(
            "attention_scores",
            "matching keys",
            k.shape(),
        ));
    }
    Ok(())
}

/// `unscaled-scores`: `q kᵀ` without the `1 / √hs`.
pub mod unscaled_scores {
    use super::*;

    /// `(B, h, T, hs), (B, h, S, hs) -> (B, h, T, S)`: `q kᵀ`, unscaled.
    pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
        check_keys(q, k)?;
        scores_with(q, k, 1.0, q.dim().1)
    }
}

/// `scaled-by-model-width`: divided by `√(h · hs)` (the model width D) instead of `√hs`.
pub mod scaled_by_model_width {
    use super::*;

    /// `(B, h, T, hs), (B, h, S, hs) -> (B, h, T, S)`: `q kᵀ / √(h · hs)`.
    pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
        check_keys(q, k)?;
        let (_, h, _, hs) = q.dim();
        scores_with(q, k, 1.0 / ((h * hs) as f64).sqrt(), h)
    }
}

/// `unfold-by-batch`: the folded `(B·h)` axis unfolded with B instead of h, i.e. read as `(h, B)`.
pub mod unfold_by_batch {
    use super::*;

    /// `(B, h, T, hs), (B, h, S, hs) -> (h, B, T, S)`: right only when B = h.
    pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
        check_keys(q, k)?;
        let (b, _, _, hs) = q.dim();
        scores_with(q, k, 1.0 / (hs as f64).sqrt(), b)
    }
}

/// `keys-not-validated`: only the head size of the keys is compared with the queries'; the
/// batched product catches most other mismatches, but not B and h swapped.
pub mod keys_not_validated {
    use super::*;

    /// `(B, h, T, hs), (B, h, S, hs) -> (B, h, T, S)`, checking only hs.
    pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
        let (_, h, _, hs) = q.dim();
        if k.dim().3 != hs {
            return Err(ShapeError::new(
                "attention_scores",
                "keys with q's hs",
                k.shape(),
            ));
        }
        scores_with(q, k, 1.0 / (hs as f64).sqrt(), h)
    }
}

/// `fold-heads-by-batch`: the heads are put first, `(h, B)`, before folding.
pub mod fold_heads_by_batch {
    use super::*;

    /// `(B, h, T, n) -> (h·B, T, n)` with row `i * B + b` holding head i of sequence b.
    pub fn fold_heads(x: ArrayView4<f64>) -> Array3<f64> {
        let (b, h, t, n) = x.dim();
        x.permuted_axes([1, 0, 2, 3])
            .as_standard_layout()
            .into_owned()
            .into_shape_with_order((b * h, t, n))
            .expect("a standard-layout array reshapes")
    }
}

/// `mask-inverted`: `j >= i` allowed, so every query reads the future instead of the past.
pub mod mask_inverted {
    use super::*;

    /// The `(1, 1, T, S)` mask with the past hidden.
    pub fn causal_mask(t: usize, s: usize) -> Array4<bool> {
        Array4::from_shape_fn((1, 1, t, s), |(_, _, i, j)| j >= i)
    }
}

/// `mask-hides-own-position`: a strict `j < i`, so each query may not read its own token.
pub mod mask_hides_own_position {
    use super::*;

    /// The `(1, 1, T, S)` mask with each query's own position hidden too.
    pub fn causal_mask(t: usize, s: usize) -> Array4<bool> {
        Array4::from_shape_fn((1, 1, t, s), |(_, _, i, j)| j < i)
    }
}

/// `mask-after-softmax`: softmax over every key, then the masked weights set to 0 without
/// renormalising, so rows no longer sum to 1.
pub mod mask_after_softmax {
    use super::*;

    /// `(B, h, T, S)` scores -> weights with masked entries zeroed after the softmax.
    pub fn masked_softmax(
        scores: ArrayView4<f64>,
        allowed: Option<ArrayView4<bool>>,
    ) -> Result<Array4<f64>> {
        let mut weights = scores.to_owned();
        softmax_inplace(&mut weights);
        if let Some(mask) = allowed {
            let mut zero_where_masked = Array4::<f64>::zeros(weights.raw_dim());
            apply_mask(&mut zero_where_masked, &mask)?;
            weights.zip_mut_with(&zero_where_masked, |w, &m| {
                if m == f64::NEG_INFINITY {
                    *w = 0.0;
                }
            });
        }
        Ok(weights)
    }
}

/// The scores with the mask applied (`-inf` where it is false), as the reference does it.
fn masked_scores(
    scores: ArrayView4<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> Result<Array4<f64>> {
    let mut weights = scores.to_owned();
    if let Some(mask) = allowed {
        apply_mask(&mut weights, &mask)?;
    }
    Ok(weights)
}

/// `masked-softmax-wrong-axis`: the masked scores normalised over the queries (axis 2), so each
/// key's column sums to 1 instead of each query's row.
pub mod masked_softmax_wrong_axis {
    use super::*;

    /// `(B, h, T, S)` scores -> weights whose columns, not rows, sum to 1.
    pub fn masked_softmax(
        scores: ArrayView4<f64>,
        allowed: Option<ArrayView4<bool>>,
    ) -> Result<Array4<f64>> {
        let mut weights = masked_scores(scores, allowed)?;
        for mut column in weights.lanes_mut(Axis(2)) {
            let mut shifted = column.to_vec();
            softmax_row(&mut shifted);
            column.assign(&ArrayView1::from(&shifted));
        }
        Ok(weights)
    }
}

/// `masked-softmax-without-max-shift`: `exp(s) / Σ exp(s)` straight, so scores past 709
/// overflow and a fully masked row divides 0 by 0.
pub mod masked_softmax_without_max_shift {
    use super::*;

    /// `(B, h, T, S)` scores -> weights that are NaN where a row's scores overflow `exp`.
    pub fn masked_softmax(
        scores: ArrayView4<f64>,
        allowed: Option<ArrayView4<bool>>,
    ) -> Result<Array4<f64>> {
        let mut weights = masked_scores(scores, allowed)?;
        weights.mapv_inplace(f64::exp);
        for mut row in weights.lanes_mut(Axis(3)) {
            let sum = row.sum();
            row /= sum;
        }
        Ok(weights)
    }
}

/// `scores-queries-transposed`: the queries transposed instead of the keys, `K Qᵀ`, so each head's
/// scores are `(S, T)`: the transpose of `Q Kᵀ`.
pub mod scores_queries_transposed {
    use super::*;

    /// `(B, h, T, hs), (B, h, S, hs) -> (B, h, S, T)`: `k qᵀ / √hs`.
    pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
        check_keys(q, k)?;
        let (_, h, _, hs) = q.dim();
        let mut scores = batched_matmul(
            fold_heads(k).view(),
            fold_heads(q).view().permuted_axes([0, 2, 1]),
        )?;
        scores *= 1.0 / (hs as f64).sqrt();
        unfold_heads(scores.view(), h)
    }
}

/// `keys-not-transposed`: `q k` instead of `q kᵀ`.
pub mod keys_not_transposed {
    use super::*;

    /// `(B, h, T, hs), (B, h, S, hs) -> ?`: the folded keys multiplied as they are, which fails
    /// unless `S = hs`.
    pub fn attention_scores(q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<Array4<f64>> {
        check_keys(q, k)?;
        let (_, h, _, hs) = q.dim();
        let mut scores = batched_matmul(fold_heads(q).view(), fold_heads(k).view())?;
        scores *= 1.0 / (hs as f64).sqrt();
        unfold_heads(scores.view(), h)
    }
}
