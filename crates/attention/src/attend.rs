//! Single-head scaled dot-product attention: `softmax(Q Kᵀ / √hs) V`.

use crate::error::{Result, ShapeError, expect_ndim, shape_string};
use crate::mask::apply_mask;
use crate::softmax::softmax_inplace;
use ndarray::{Array3, ArrayView2, ArrayView3, Axis, Dimension, s};

/// Scaled dot-product attention for one head over a batch.
///
/// * `q`: `(B, T, hs)` queries, `k`: `(B, S, hs)` keys, `v`: `(B, S, hv)` values.
/// * `allowed`: optional boolean mask broadcastable to `(B, T, S)` (`true` = may attend).
///
/// Returns `(output (B, T, hv), weights (B, T, S))`; each weight row sums to 1, except rows
/// whose keys are all masked, which are all zero (see [`crate::softmax`]).
pub fn scaled_dot_product<E: Dimension>(
    q: ArrayView3<f64>,
    k: ArrayView3<f64>,
    v: ArrayView3<f64>,
    allowed: Option<&ndarray::ArrayView<bool, E>>,
) -> Result<(Array3<f64>, Array3<f64>)> {
    let op = "scaled_dot_product";
    let (b, t, hs) = q.dim();
    let (kb, s, khs) = k.dim();
    let (vb, vs, hv) = v.dim();
    if kb != b || khs != hs {
        return Err(ShapeError::new(
            op,
            format!(
                "keys (B, S, hs) = ({b}, S, {hs}) to match queries {}",
                shape_string(q.shape())
            ),
            k.shape(),
        ));
    }
    if vb != b || vs != s {
        return Err(ShapeError::new(
            op,
            format!(
                "values (B, S, hv) = ({b}, {s}, hv) to match keys {}",
                shape_string(k.shape())
            ),
            v.shape(),
        ));
    }
    let scale = 1.0 / (hs as f64).sqrt();
    let mut weights = Array3::<f64>::zeros((b, t, s));
    for (mut w, (qb, kb)) in weights
        .outer_iter_mut()
        .zip(q.outer_iter().zip(k.outer_iter()))
    {
        ndarray::linalg::general_mat_mul(scale, &qb, &kb.t(), 0.0, &mut w);
    }
    if let Some(mask) = allowed {
        apply_mask(&mut weights, mask)?;
    }
    softmax_inplace(&mut weights);
    let mut out = Array3::<f64>::zeros((b, t, hv));
    for (mut o, (w, vb)) in out
        .outer_iter_mut()
        .zip(weights.outer_iter().zip(v.outer_iter()))
    {
        ndarray::linalg::general_mat_mul(1.0, &w, &vb, 0.0, &mut o);
    }
    Ok((out, weights))
}

/// Batched matrix product over a leading axis: `(N, m, k) @ (N, k, n) -> (N, m, n)`.
pub fn batched_matmul(a: ArrayView3<f64>, b: ArrayView3<f64>) -> Result<Array3<f64>> {
    let (n, m, ka) = a.dim();
    let (nb, kb, p) = b.dim();
    if n != nb || ka != kb {
        return Err(ShapeError::new(
            "batched_matmul",
            format!(
                "a right operand ({n}, {ka}, n) for a left operand {}",
                shape_string(a.shape())
            ),
            b.shape(),
        ));
    }
    let mut out = Array3::<f64>::zeros((n, m, p));
    for i in 0..n {
        let mut o = out.index_axis_mut(Axis(0), i);
        ndarray::linalg::general_mat_mul(
            1.0,
            &a.slice(s![i, .., ..]),
            &b.slice(s![i, .., ..]),
            0.0,
            &mut o,
        );
    }
    Ok(out)
}

/// Projects every batch row: `(B, T, C) @ (C, D) -> (B, T, D)`.
pub fn project(x: ArrayView3<f64>, w: ArrayView2<f64>) -> Result<Array3<f64>> {
    expect_ndim("project", "(B, T, C)", x.shape(), 3)?;
    let (b, t, c) = x.dim();
    if w.nrows() != c {
        return Err(ShapeError::new(
            "project",
            format!("a weight (C, D) with C = {c}"),
            w.shape(),
        ));
    }
    let mut out = Array3::<f64>::zeros((b, t, w.ncols()));
    for (mut o, xb) in out.outer_iter_mut().zip(x.outer_iter()) {
        ndarray::linalg::general_mat_mul(1.0, &xb, &w, 0.0, &mut o);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mask::causal;
    use ndarray::{Array3, array};

    fn ramp(shape: (usize, usize, usize), scale: f64) -> Array3<f64> {
        Array3::from_shape_fn(shape, |(a, b, c)| {
            ((a * 7 + b * 3 + c) % 5) as f64 * scale - 0.4
        })
    }

    #[test]
    fn uniform_when_keys_are_equal() {
        let q = ramp((1, 2, 4), 0.3);
        let k = Array3::<f64>::ones((1, 3, 4));
        let v = array![[[1.0], [2.0], [6.0]]];
        let (out, w) =
            scaled_dot_product::<ndarray::Ix2>(q.view(), k.view(), v.view(), None).unwrap();
        for x in w.iter() {
            assert!((x - 1.0 / 3.0).abs() < 1e-12);
        }
        assert!((out[[0, 1, 0]] - 3.0).abs() < 1e-12);
    }

    #[test]
    fn causal_mask_zeroes_future_and_rows_sum_to_one() {
        let q = ramp((2, 4, 3), 0.5);
        let k = ramp((2, 4, 3), 0.25);
        let v = ramp((2, 4, 2), 1.0);
        let mask = causal(4, 4);
        let (_, w) = scaled_dot_product(q.view(), k.view(), v.view(), Some(&mask.view())).unwrap();
        for b in 0..2usize {
            for i in 0..4usize {
                let row = w.slice(s![b, i, ..]);
                assert!((row.sum() - 1.0).abs() < 1e-12);
                for j in (i + 1)..4 {
                    assert_eq!(row[j], 0.0);
                }
            }
        }
    }

    #[test]
    fn shape_errors_name_the_mismatch() {
        let q = Array3::<f64>::zeros((1, 2, 4));
        let k = Array3::<f64>::zeros((1, 3, 5));
        let err =
            scaled_dot_product::<ndarray::Ix2>(q.view(), k.view(), k.view(), None).unwrap_err();
        assert!(err.to_string().contains("got (1, 3, 5)"), "{err}");
    }

    #[test]
    fn project_and_batched_matmul_agree_with_dot() {
        let x = ramp((2, 3, 4), 0.5);
        let w = ramp((1, 4, 2), 0.1).index_axis_move(Axis(0), 0);
        let p = project(x.view(), w.view()).unwrap();
        assert_eq!(p.index_axis(Axis(0), 1), x.index_axis(Axis(0), 1).dot(&w));
        let wb = ndarray::stack(Axis(0), &[w.view(), w.view()]).unwrap();
        assert_eq!(batched_matmul(x.view(), wb.view()).unwrap(), p);
        assert!(project(x.view(), w.t()).is_err());
    }
}
