//! Reference implementations of lesson 5's exercises.

use crate::setup::Head;
use attention::Result;
use attention::error::ShapeError;
use attention::mask::{apply_mask, causal};
use attention::softmax::softmax_inplace;
use ndarray::{Array2, Array3, ArrayView2, Axis};

/// `(T,)` categories -> `(T, T + K)` one-hot position and category features.
pub fn token_features(category: &[usize], n_categories: usize) -> Result<Array2<f64>> {
    if let Some((pos, &c)) = category
        .iter()
        .enumerate()
        .find(|&(_, &c)| c >= n_categories)
    {
        return Err(ShapeError::with_got(
            "token_features",
            format!("categories below K = {n_categories}"),
            format!("category[{pos}] = {c}"),
        ));
    }
    let t = category.len();
    let mut x = Array2::zeros((t, t + n_categories));
    for (i, &c) in category.iter().enumerate() {
        x[[i, i]] = 1.0;
        x[[i, t + c]] = 1.0;
    }
    Ok(x)
}

/// `(T, d), (T, d) -> (T, T)`: causal `softmax(Q Kᵀ)`, unscaled.
pub fn causal_weights(q: ArrayView2<f64>, k: ArrayView2<f64>) -> Result<Array2<f64>> {
    if q.dim() != k.dim() {
        return Err(ShapeError::new(
            "causal_weights",
            format!("keys of the queries' shape ({}, {})", q.nrows(), q.ncols()),
            k.shape(),
        ));
    }
    let t = q.nrows();
    let mut scores = q.dot(&k.t());
    apply_mask(&mut scores, &causal(t, t).view())?;
    softmax_inplace(&mut scores);
    Ok(scores)
}

/// Head 1: `Wq[i, i - 1] = gain`, `Wk[i, i] = 1`; both `(T + K, T)`.
pub fn previous_token_head(t: usize, n_categories: usize, gain: f64) -> Head {
    let mut wq = Array2::zeros((t + n_categories, t));
    let mut wk = Array2::zeros((t + n_categories, t));
    for i in 0..t {
        wk[[i, i]] = 1.0;
        if i > 0 {
            wq[[i, i - 1]] = gain;
        }
    }
    Head { wq, wk }
}

/// Head 2: `Wq = Wk`, `Wq[T + c, c] = gain`; both `(T + K, K)`.
pub fn same_category_head(t: usize, n_categories: usize, gain: f64) -> Head {
    let mut wq = Array2::zeros((t + n_categories, n_categories));
    for c in 0..n_categories {
        wq[[t + c, c]] = gain;
    }
    Head { wk: wq.clone(), wq }
}

/// `(T, F)` and `h` heads -> `(h, T, T)` causal weights.
pub fn run_heads(x: ArrayView2<f64>, heads: &[Head]) -> Result<Array3<f64>> {
    let (t, f) = x.dim();
    let mut out = Array3::zeros((heads.len(), t, t));
    for (i, head) in heads.iter().enumerate() {
        if head.wq.nrows() != f || head.wk.dim() != head.wq.dim() {
            return Err(ShapeError::with_got(
                "run_heads",
                format!("head projections Wq, Wk of one shape (F, d) with F = {f}"),
                format!(
                    "head {i}: Wq ({}, {}), Wk ({}, {})",
                    head.wq.nrows(),
                    head.wq.ncols(),
                    head.wk.nrows(),
                    head.wk.ncols()
                ),
            ));
        }
        // Through `crate::exercises`, so a planted misconception reaches `run_heads` too.
        let w = crate::exercises::causal_weights(x.dot(&head.wq).view(), x.dot(&head.wk).view())?;
        out.index_axis_mut(Axis(0), i).assign(&w);
    }
    Ok(out)
}

/// The `j <= i` with `category[j] == category[i]`.
pub fn same_category(category: &[usize], i: usize) -> Result<Vec<usize>> {
    let Some(&c) = category.get(i) else {
        return Err(ShapeError::with_got(
            "same_category",
            format!("a token index below T = {}", category.len()),
            format!("i = {i}"),
        ));
    };
    Ok((0..=i).filter(|&j| category[j] == c).collect())
}
