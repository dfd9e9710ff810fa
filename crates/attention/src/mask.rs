//! Attention masks as boolean "allowed" arrays: `true` = this query may look at this key.
//!
//! A mask of shape `(T, S)` (or anything broadcastable to the scores' shape, such as
//! `(B, 1, T, S)` against `(B, h, T, S)`) is applied by setting the disallowed scores to
//! `-inf` before the softmax. A query whose whole row is disallowed gets all-zero weights
//! (see [`crate::softmax`]).

use crate::error::{Result, ShapeError, shape_string};
use ndarray::{Array2, ArrayBase, ArrayView, Data, DataMut, Dimension};

/// The causal mask `(T, S)`: query `i` may attend to keys `0..=i` (lower triangle, aligned to the
/// top-left like `np.tril(np.ones((T, S)))`).
///
/// ```
/// let m = attention::mask::causal(3, 3);
/// assert_eq!(m.row(1).to_vec(), vec![true, true, false]);
/// ```
pub fn causal(t: usize, s: usize) -> Array2<bool> {
    Array2::from_shape_fn((t, s), |(i, j)| j <= i)
}

/// Sets `scores[..] = -inf` wherever the broadcast `allowed` mask is `false`.
///
/// `scores`: `(..., T, S)`; `allowed`: any shape broadcastable to it. Fails with a
/// [`ShapeError`] when the mask does not broadcast.
pub fn apply_mask<S, D, E>(scores: &mut ArrayBase<S, D>, allowed: &ArrayView<bool, E>) -> Result<()>
where
    S: DataMut<Elem = f64>,
    D: Dimension,
    E: Dimension,
{
    let shape = scores.shape().to_vec();
    let mask = allowed.broadcast(scores.raw_dim()).ok_or_else(|| {
        ShapeError::new(
            "apply_mask",
            format!("a mask broadcastable to {}", shape_string(&shape)),
            allowed.shape(),
        )
    })?;
    ndarray::Zip::from(scores).and(&mask).for_each(|s, &ok| {
        if !ok {
            *s = f64::NEG_INFINITY;
        }
    });
    Ok(())
}

/// The number of `true` entries: how many (query, key) pairs a mask allows.
pub fn count_allowed<S, D>(allowed: &ArrayBase<S, D>) -> usize
where
    S: Data<Elem = bool>,
    D: Dimension,
{
    allowed.iter().filter(|&&b| b).count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array3, array};

    #[test]
    fn causal_is_lower_triangular() {
        let m = causal(3, 4);
        assert_eq!(
            m,
            array![
                [true, false, false, false],
                [true, true, false, false],
                [true, true, true, false]
            ]
        );
        assert_eq!(count_allowed(&causal(4, 4)), 10);
    }

    #[test]
    fn mask_broadcasts_over_batch_and_refuses_bad_shapes() {
        let mut s = Array3::<f64>::zeros((2, 2, 2));
        apply_mask(&mut s, &causal(2, 2).view()).unwrap();
        assert_eq!(s[[1, 0, 1]], f64::NEG_INFINITY);
        assert_eq!(s[[1, 1, 1]], 0.0);
        let err = apply_mask(&mut s, &causal(3, 3).view()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "apply_mask: expected a mask broadcastable to (2, 2, 2), got (3, 3)"
        );
    }
}
