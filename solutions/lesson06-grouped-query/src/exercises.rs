//! Reference implementations of lesson 6's exercises.

use crate::setup::{GqaWeights, split_heads};
use attention::Result;
use attention::attend::{project, scaled_dot_product};
use attention::error::{ShapeError, expect_ndim, shape_string};
use attention::mask::causal as causal_mask;
use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayView4, Axis, Ix2, s};

/// `n_rep = H / H_kv`, refusing zeros and uneven groups.
pub fn n_rep(h: usize, h_kv: usize) -> Result<usize> {
    if h == 0 || h_kv == 0 || !h.is_multiple_of(h_kv) {
        return Err(ShapeError::with_got(
            "n_rep",
            "H = H_kv · n_rep with H, H_kv > 0",
            format!("H = {h}, H_kv = {h_kv}"),
        ));
    }
    Ok(h / h_kv)
}

/// `(B, H_kv, T, hs) -> (B, H_kv · n_rep, T, hs)`, `out[b, i] = kv[b, i / n_rep]`.
pub fn repeat_kv(kv: ArrayView4<f64>, n_rep: usize) -> Result<Array4<f64>> {
    if n_rep == 0 {
        return Err(ShapeError::with_got("repeat_kv", "n_rep >= 1", "n_rep = 0"));
    }
    let (b, h_kv, t, hs) = kv.dim();
    Ok(Array4::from_shape_fn(
        (b, h_kv * n_rep, t, hs),
        |(b, i, t, j)| kv[[b, i / n_rep, t, j]],
    ))
}

/// GQA on split heads: `(B, H, T, hs), (B, H_kv, S, hs), (B, H_kv, S, hs)`
/// -> `((B, H, T, hs), (B, H, T, S))`.
pub fn grouped_attention(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    causal: bool,
) -> Result<(Array4<f64>, Array4<f64>)> {
    let op = "grouped_attention";
    let (b, h, t, hs) = q.dim();
    let (kb, h_kv, s, khs) = k.dim();
    if kb != b || khs != hs {
        return Err(ShapeError::new(
            op,
            format!(
                "keys (B, H_kv, S, hs) = ({b}, H_kv, S, {hs}) to match queries {}",
                shape_string(q.shape())
            ),
            k.shape(),
        ));
    }
    if v.dim() != k.dim() {
        return Err(ShapeError::new(
            op,
            format!("values of the keys' shape {}", shape_string(k.shape())),
            v.shape(),
        ));
    }
    let n_rep = n_rep(h, h_kv).map_err(|e| ShapeError {
        operation: op.into(),
        ..e
    })?;
    // Through `crate::exercises`, so a planted misconception reaches the callers too.
    let k = crate::exercises::repeat_kv(k, n_rep)?;
    let v = crate::exercises::repeat_kv(v, n_rep)?;
    let mask = causal.then(|| causal_mask(t, s));
    let mut out = Array4::zeros((b, h, t, hs));
    let mut weights = Array4::zeros((b, h, t, s));
    for i in 0..h {
        let (o, w) = scaled_dot_product::<Ix2>(
            q.index_axis(Axis(1), i),
            k.index_axis(Axis(1), i),
            v.index_axis(Axis(1), i),
            mask.as_ref().map(|m| m.view()).as_ref(),
        )?;
        out.slice_mut(s![.., i, .., ..]).assign(&o);
        weights.slice_mut(s![.., i, .., ..]).assign(&w);
    }
    Ok((out, weights))
}

/// `(B, H, T, hs), (H · hs, D) -> (B, T, D)`.
pub fn merge_and_project(heads: ArrayView4<f64>, wo: ArrayView2<f64>) -> Result<Array3<f64>> {
    let (b, h, t, hs) = heads.dim();
    if wo.nrows() != h * hs {
        return Err(ShapeError::new(
            "merge_and_project",
            format!("W_O of shape (H · hs, D) with H · hs = {}", h * hs),
            wo.shape(),
        ));
    }
    let merged = heads
        .permuted_axes([0, 2, 1, 3])
        .as_standard_layout()
        .into_owned()
        .into_shape_with_order((b, t, h * hs))
        .expect("a standard-layout array reshapes");
    project(merged.view(), wo)
}

/// `(B, T, D) -> ((B, T, D), (B, H, T, T))`.
pub fn gqa_forward(
    x: ArrayView3<f64>,
    w: &GqaWeights,
    h: usize,
    h_kv: usize,
    causal: bool,
) -> Result<(Array3<f64>, Array4<f64>)> {
    let op = "gqa_forward";
    expect_ndim(op, "(B, T, D)", x.shape(), 3)?;
    let d = x.dim().2;
    if h == 0 || !d.is_multiple_of(h) {
        return Err(ShapeError::with_got(
            op,
            "a head count H > 0 that divides the width D",
            format!("D = {d}, H = {h}"),
        ));
    }
    n_rep(h, h_kv)?;
    let kv_width = h_kv * (d / h);
    for (name, m, cols) in [
        ("Wq", &w.wq, d),
        ("Wk", &w.wk, kv_width),
        ("Wv", &w.wv, kv_width),
        ("W_O", &w.wo, d),
    ] {
        if m.dim() != (d, cols) {
            return Err(ShapeError::new(
                op,
                format!("{name} of shape ({d}, {cols})"),
                m.shape(),
            ));
        }
    }
    let q = split_heads(project(x, w.wq.view())?.view(), h)?;
    let k = split_heads(project(x, w.wk.view())?.view(), h_kv)?;
    let v = split_heads(project(x, w.wv.view())?.view(), h_kv)?;
    use crate::exercises::{grouped_attention, merge_and_project};
    let (heads, weights) = grouped_attention(q.view(), k.view(), v.view(), causal)?;
    let out = merge_and_project(heads.view(), w.wo.view())?;
    Ok((out, weights))
}

/// `2 · layers · H_kv · hs · T · bytes_per_value`.
pub fn kv_cache_bytes(
    layers: usize,
    h_kv: usize,
    hs: usize,
    t: usize,
    bytes_per_value: usize,
) -> usize {
    2 * layers * h_kv * hs * t * bytes_per_value
}
