//! Reference implementations of lesson 2's exercises.

use attention::Result;
use attention::attend::project;
use attention::error::{ShapeError, expect_ndim, shape_string};
use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayView4, s};

/// `hs = C / h`, refusing `h = 0` and uneven splits.
pub fn head_size(c: usize, h: usize) -> Result<usize> {
    if h == 0 || !c.is_multiple_of(h) {
        return Err(ShapeError::with_got(
            "head_size",
            "a head count h > 0 that divides the width C",
            format!("C = {c}, h = {h}"),
        ));
    }
    Ok(c / h)
}

/// `(B, T, C) -> (B, h, T, hs)`.
pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {
    let (b, t, c) = x.dim();
    let hs = head_size(c, h).map_err(|_| ShapeError {
        operation: "split_heads".into(),
        expected: format!("(B, T, C) with C divisible by h = {h}"),
        got: shape_string(x.shape()),
    })?;
    let x = x.as_standard_layout();
    let heads = x
        .view()
        .into_shape_with_order((b, t, h, hs))
        .expect("a standard-layout array reshapes")
        .permuted_axes([0, 2, 1, 3]);
    Ok(heads.as_standard_layout().into_owned())
}

/// `(B, h, T, hs) -> (B, T, h * hs)`.
pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {
    let (b, h, t, hs) = x.dim();
    x.permuted_axes([0, 2, 1, 3])
        .as_standard_layout()
        .into_owned()
        .into_shape_with_order((b, t, h * hs))
        .expect("a standard-layout array reshapes")
}

/// `X @ Wq[:, i*hs..(i+1)*hs]`: `(B, T, C), (C, C) -> (B, T, hs)`.
pub fn head_projection(
    x: ArrayView3<f64>,
    wq: ArrayView2<f64>,
    h: usize,
    i: usize,
) -> Result<Array3<f64>> {
    let op = "head_projection";
    expect_ndim(op, "(B, T, C)", x.shape(), 3)?;
    let c = x.dim().2;
    if wq.shape() != [c, c] {
        return Err(ShapeError::new(
            op,
            format!("Wq of shape ({c}, {c})"),
            wq.shape(),
        ));
    }
    let hs = head_size(c, h)?;
    if i >= h {
        return Err(ShapeError::with_got(
            op,
            format!("a head index below h = {h}"),
            format!("i = {i}"),
        ));
    }
    project(x, wq.slice(s![.., i * hs..(i + 1) * hs]))
}
