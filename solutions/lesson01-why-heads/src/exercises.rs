//! Reference implementations of lesson 1's exercises.

use crate::setup::Head;
use attention::Result;
use attention::attend::{batched_matmul, project};
use attention::error::{ShapeError, expect_ndim, shape_string};
use attention::rng::RandomState;
use attention::softmax::softmax_inplace;
use ndarray::{Array2, Array3, ArrayView, ArrayView2, ArrayView3, Axis, Dimension};

/// One head's attention weights: `(B, T, C)` with three `(C, hs)` projections -> `(B, T, T)`.
pub fn attention_weights(
    x: ArrayView3<f64>,
    wq: ArrayView2<f64>,
    wk: ArrayView2<f64>,
    wv: ArrayView2<f64>,
) -> Result<Array3<f64>> {
    let op = "attention_weights";
    expect_ndim(op, "(B, T, C)", x.shape(), 3)?;
    for (name, w) in [("Wk", &wk), ("Wv", &wv)] {
        if w.shape() != wq.shape() {
            return Err(ShapeError::new(
                op,
                format!("{name} with the shape of Wq {}", shape_string(wq.shape())),
                w.shape(),
            ));
        }
    }
    let q = project(x, wq)?;
    let k = project(x, wk)?;
    let hs = wq.ncols() as f64;
    let mut scores = Array3::<f64>::zeros((x.dim().0, x.dim().1, x.dim().1));
    for ((mut s, qb), kb) in scores
        .outer_iter_mut()
        .zip(q.outer_iter())
        .zip(k.outer_iter())
    {
        s.assign(&(qb.dot(&kb.t()) / hs.sqrt()));
    }
    softmax_inplace(&mut scores);
    Ok(scores)
}

/// Largest `|a - b|` over two equally shaped arrays.
pub fn max_abs_diff<D: Dimension>(a: ArrayView<f64, D>, b: ArrayView<f64, D>) -> Result<f64> {
    if a.shape() != b.shape() {
        return Err(ShapeError::new(
            "max_abs_diff",
            format!("arrays of one shape, {}", shape_string(a.shape())),
            b.shape(),
        ));
    }
    Ok(a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max))
}

fn argmax(row: ArrayView<f64, ndarray::Ix1>) -> usize {
    let mut best = 0;
    for (j, &v) in row.iter().enumerate() {
        if v > row[best] {
            best = j;
        }
    }
    best
}

/// Per-row argmax of `(T, T)` weights (first column on ties), mapped to words.
pub fn top_focus(weights: ArrayView2<f64>, words: &[&str]) -> Result<Vec<String>> {
    if words.len() != weights.ncols() {
        return Err(ShapeError::with_got(
            "top_focus",
            format!("one word per column ({})", weights.ncols()),
            format!("{} words", words.len()),
        ));
    }
    Ok(weights
        .rows()
        .into_iter()
        .map(|row| words[argmax(row)].to_owned())
        .collect())
}

/// Rows of two `(T, T)` matrices whose argmax columns differ.
pub fn disagreements(a: ArrayView2<f64>, b: ArrayView2<f64>) -> Result<usize> {
    if a.shape() != b.shape() {
        return Err(ShapeError::new(
            "disagreements",
            format!("matrices of one shape, {}", shape_string(a.shape())),
            b.shape(),
        ));
    }
    Ok(a.rows()
        .into_iter()
        .zip(b.rows())
        .filter(|(ra, rb)| argmax(ra.view()) != argmax(rb.view()))
        .count())
}

/// Draws `Wq`, `Wk`, `Wv` in that order, each `randn((c, hs)) * scale`.
pub fn draw_head(rng: &mut RandomState, c: usize, hs: usize, scale: f64) -> Head {
    let mut draw = || rng.randn((c, hs)) * scale;
    let wq = draw();
    let wk = draw();
    let wv = draw();
    Head { wq, wk, wv }
}

/// Sums over the last axis: `(B, T, S) -> (B, T)`.
pub fn row_sums(weights: ArrayView3<f64>) -> Array2<f64> {
    weights.sum_axis(Axis(2))
}

/// One head's output, `weights @ (X Wv)`: `(B, T, S), (B, S, C), (C, hs) -> (B, T, hs)`.
pub fn head_output(
    weights: ArrayView3<f64>,
    x: ArrayView3<f64>,
    wv: ArrayView2<f64>,
) -> Result<Array3<f64>> {
    let op = "head_output";
    expect_ndim(op, "(B, S, C)", x.shape(), 3)?;
    let (b, s, _) = x.dim();
    let (wb, _, ws) = weights.dim();
    if wb != b || ws != s {
        return Err(ShapeError::new(
            op,
            format!("weights (B, T, S) with B = {b}, S = {s}"),
            weights.shape(),
        ));
    }
    let v = project(x, wv)?;
    batched_matmul(weights, v.view())
}
