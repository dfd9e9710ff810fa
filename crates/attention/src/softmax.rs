//! Numerically stable softmax over the last axis.
//!
//! Each row is shifted by its maximum before `exp`, so large scores never overflow.
//! Masked scores are `-inf` and get weight exactly `0.0`.
//!
//! **Fully masked rows.** A row whose entries are all `-inf` (every key masked out) has no
//! distribution to speak of. The course's policy: such a row gets all-zero weights, so the
//! attention output for that query is the zero vector. It is never `NaN`.

use ndarray::{ArrayBase, Axis, Data, DataMut, Dimension, RemoveAxis};

/// Softmax of `x` over its last axis; same shape as `x`, each row sums to 1
/// (or is all zeros when the whole row is `-inf`, see the module docs).
///
/// ```
/// use ndarray::array;
/// let w = attention::softmax::softmax(&array![[0.0, 0.0], [1.0, f64::NEG_INFINITY]]);
/// assert_eq!(w, array![[0.5, 0.5], [1.0, 0.0]]);
/// ```
pub fn softmax<S, D>(x: &ArrayBase<S, D>) -> ndarray::Array<f64, D>
where
    S: Data<Elem = f64>,
    D: Dimension + RemoveAxis,
{
    let mut out = x.to_owned();
    softmax_inplace(&mut out);
    out
}

/// In-place version of [`softmax`]: replaces every last-axis row of `x` by its softmax.
pub fn softmax_inplace<S, D>(x: &mut ArrayBase<S, D>)
where
    S: DataMut<Elem = f64>,
    D: Dimension + RemoveAxis,
{
    if x.ndim() == 0 {
        return;
    }
    let last = Axis(x.ndim() - 1);
    for mut row in x.lanes_mut(last) {
        if let Some(slice) = row.as_slice_mut() {
            softmax_row(slice);
        } else {
            let mut tmp = row.to_vec();
            softmax_row(&mut tmp);
            row.iter_mut().zip(tmp).for_each(|(d, s)| *d = s);
        }
    }
}

/// Softmax of one contiguous row, in place (the fully-masked policy applies).
pub fn softmax_row(row: &mut [f64]) {
    let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if max == f64::NEG_INFINITY {
        row.iter_mut().for_each(|v| *v = 0.0);
        return;
    }
    let mut sum = 0.0;
    for v in row.iter_mut() {
        *v = (*v - max).exp();
        sum += *v;
    }
    let inv = 1.0 / sum;
    row.iter_mut().for_each(|v| *v *= inv);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array3, array};

    #[test]
    fn rows_sum_to_one_and_large_scores_do_not_overflow() {
        let w = softmax(&array![[1000.0, 1000.0, 999.0], [-5.0, 0.0, 5.0]]);
        for row in w.rows() {
            assert!((row.sum() - 1.0).abs() < 1e-12);
        }
        assert!(w.iter().all(|v| v.is_finite()));
        assert!((w[[0, 0]] - w[[0, 1]]).abs() < 1e-15);
    }

    #[test]
    fn masked_entries_get_exact_zero_and_full_mask_gives_zeros() {
        let ninf = f64::NEG_INFINITY;
        let w = softmax(&array![[ninf, 2.0], [ninf, ninf]]);
        assert_eq!(w, array![[0.0, 1.0], [0.0, 0.0]]);
    }

    #[test]
    fn works_on_non_contiguous_views() {
        let x = Array3::from_shape_fn((2, 3, 4), |(a, b, c)| (a * 12 + b * 4 + c) as f64 * 0.1);
        let mut t = x.clone();
        t.swap_axes(1, 2); // (2, 4, 3), last axis strided
        let expected = softmax(&t.to_owned());
        softmax_inplace(&mut t);
        assert_eq!(t, expected);
    }
}
