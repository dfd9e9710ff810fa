//! Classic wrong answers to lesson 5's exercises, one submodule per misconception (see
//! `[[lessons.misconceptions]]` in `course.toml`). Each is planted into the reference solution by
//! its id (`grade --solutions --plant <id>`): the crate's `exercises` module then runs it in place
//! of the right function (see the crate docs); the checks listed for it must fail.

use attention::Result;
use attention::error::ShapeError;
use attention::mask::{apply_mask, causal};
use attention::softmax::{softmax_inplace, softmax_row};
use ndarray::{Array2, ArrayView1, ArrayView2, Axis};

fn scores(q: ArrayView2<f64>, k: ArrayView2<f64>) -> Result<Array2<f64>> {
    if q.dim() != k.dim() {
        return Err(ShapeError::new(
            "causal_weights",
            "keys shaped like the queries",
            k.shape(),
        ));
    }
    Ok(q.dot(&k.t()))
}

/// `causal-scores-scaled`: the scores divided by `√d` although this lesson's heads set their
/// scale with their gains.
pub mod causal_scores_scaled {
    use super::*;

    /// `(T, d), (T, d) -> (T, T)`: causal `softmax(Q Kᵀ / √d)`.
    pub fn causal_weights(q: ArrayView2<f64>, k: ArrayView2<f64>) -> Result<Array2<f64>> {
        let mut s = scores(q, k)? / (q.ncols() as f64).sqrt();
        apply_mask(&mut s, &causal(q.nrows(), q.nrows()).view())?;
        softmax_inplace(&mut s);
        Ok(s)
    }
}

/// `causal-softmax-without-max-shift`: `exp(s) / Σ exp(s)` without subtracting the row's maximum.
pub mod causal_softmax_without_max_shift {
    use super::*;

    /// `(T, d), (T, d) -> (T, T)`, overflowing to NaN on scores past 709.
    pub fn causal_weights(q: ArrayView2<f64>, k: ArrayView2<f64>) -> Result<Array2<f64>> {
        let mut s = scores(q, k)?;
        apply_mask(&mut s, &causal(q.nrows(), q.nrows()).view())?;
        s.mapv_inplace(f64::exp);
        for mut row in s.lanes_mut(Axis(1)) {
            let sum = row.sum();
            row /= sum;
        }
        Ok(s)
    }
}

/// `mask-with-zero-scores`: the future's scores set to 0 instead of -inf, so after the softmax
/// the future still gets weight `exp(0) / Σ`.
pub mod mask_with_zero_scores {
    use super::*;

    /// `(T, d), (T, d) -> (T, T)` whose future weights are not 0.
    pub fn causal_weights(q: ArrayView2<f64>, k: ArrayView2<f64>) -> Result<Array2<f64>> {
        let mut s = scores(q, k)?;
        for ((i, j), x) in s.indexed_iter_mut() {
            if j > i {
                *x = 0.0;
            }
        }
        softmax_inplace(&mut s);
        Ok(s)
    }
}

/// `causal-softmax-wrong-axis`: the masked scores normalised over the queries (axis 0), so each
/// key's column sums to 1 instead of each query's row.
pub mod causal_softmax_wrong_axis {
    use super::*;

    /// `(T, d), (T, d) -> (T, T)` whose columns, not rows, sum to 1.
    pub fn causal_weights(q: ArrayView2<f64>, k: ArrayView2<f64>) -> Result<Array2<f64>> {
        let mut s = scores(q, k)?;
        apply_mask(&mut s, &causal(q.nrows(), q.nrows()).view())?;
        for mut column in s.lanes_mut(Axis(0)) {
            let mut shifted = column.to_vec();
            softmax_row(&mut shifted);
            column.assign(&ArrayView1::from(&shifted));
        }
        Ok(s)
    }
}
