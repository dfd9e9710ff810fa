//! Classic wrong answers to lesson 6's exercises, one submodule per misconception (see
//! `[[lessons.misconceptions]]` in `course.toml`). Each is planted into the reference solution by
//! its id (`grade --solutions --plant <id>`): the crate's `exercises` module then runs it in place
//! of the right function (see the crate docs); the checks listed for it must fail.

use crate::reference::{grouped_attention, merge_and_project, n_rep, repeat_kv};
use crate::setup::GqaWeights;
use attention::Result;
use attention::attend::project;
use attention::error::ShapeError;
use attention::mask::{apply_mask, causal as causal_mask};
use attention::softmax::softmax_row;
use ndarray::{Array3, Array4, ArrayView1, ArrayView2, ArrayView3, ArrayView4, Axis, s};

/// `repeat-kv-tiled`: the whole stack of kv heads is tiled (`kv head i % H_kv`), so query head 1
/// reads kv head 1 instead of kv head 0.
pub mod repeat_kv_tiled {
    use super::*;

    /// `(B, H_kv, T, hs) -> (B, H_kv · n_rep, T, hs)` with `out[b, i] = kv[b, i % H_kv]`.
    pub fn repeat_kv(kv: ArrayView4<f64>, n_rep: usize) -> Result<Array4<f64>> {
        if n_rep == 0 {
            return Err(ShapeError::with_got("repeat_kv", "n_rep >= 1", "n_rep = 0"));
        }
        let (b, h_kv, t, hs) = kv.dim();
        Ok(Array4::from_shape_fn(
            (b, h_kv * n_rep, t, hs),
            |(b, i, t, j)| kv[[b, i % h_kv, t, j]],
        ))
    }
}

/// `merge-and-project-without-transpose`: `(B, H, T, hs)` reshaped straight to `(B, T, H · hs)`
/// before `W_O`; right only when T = 1.
pub mod merge_and_project_without_transpose {
    use super::*;

    /// `(B, H, T, hs), (H · hs, D) -> (B, T, D)` with tokens and heads mixed up.
    pub fn merge_and_project(heads: ArrayView4<f64>, wo: ArrayView2<f64>) -> Result<Array3<f64>> {
        let (b, h, t, hs) = heads.dim();
        if wo.nrows() != h * hs {
            return Err(ShapeError::new(
                "merge_and_project",
                "W_O (H · hs, D)",
                wo.shape(),
            ));
        }
        let merged = heads
            .as_standard_layout()
            .into_owned()
            .into_shape_with_order((b, t, h * hs))
            .expect("a standard-layout array reshapes");
        project(merged.view(), wo)
    }
}

/// `grouped-softmax-without-max-shift`: attention written by hand with `exp(s) / Σ exp(s)`, without
/// subtracting the row's maximum.
pub mod grouped_softmax_without_max_shift {
    use super::*;

    /// GQA on split heads, `((B, H, T, hs), (B, H, T, S))`, overflowing on scores past 709.
    pub fn grouped_attention(
        q: ArrayView4<f64>,
        k: ArrayView4<f64>,
        v: ArrayView4<f64>,
        causal: bool,
    ) -> Result<(Array4<f64>, Array4<f64>)> {
        let (b, h, t, hs) = q.dim();
        let (kb, h_kv, s_len, khs) = k.dim();
        if kb != b || khs != hs || v.dim() != k.dim() {
            return Err(ShapeError::new(
                "grouped_attention",
                "matching k, v",
                k.shape(),
            ));
        }
        let n = n_rep(h, h_kv)?;
        let (k, v) = (repeat_kv(k, n)?, repeat_kv(v, n)?);
        let mask = causal_mask(t, s_len);
        let mut out = Array4::zeros((b, h, t, hs));
        let mut weights = Array4::zeros((b, h, t, s_len));
        for bi in 0..b {
            for i in 0..h {
                let (qh, kh, vh) = (
                    q.slice(s![bi, i, .., ..]),
                    k.slice(s![bi, i, .., ..]),
                    v.slice(s![bi, i, .., ..]),
                );
                let mut w = qh.dot(&kh.t()) / (hs as f64).sqrt();
                for ((qi, kj), x) in w.indexed_iter_mut() {
                    *x = if causal && !mask[[qi, kj]] {
                        0.0
                    } else {
                        x.exp()
                    };
                }
                for mut row in w.lanes_mut(Axis(1)) {
                    let sum = row.sum();
                    row /= sum;
                }
                out.slice_mut(s![bi, i, .., ..]).assign(&w.dot(&vh));
                weights.slice_mut(s![bi, i, .., ..]).assign(&w);
            }
        }
        Ok((out, weights))
    }
}

/// `kv-cache-missing-factor-two`: only the keys are counted; the values are cached too.
pub mod kv_cache_missing_factor_two {
    /// `layers · H_kv · hs · T · bytes_per_value`: half the cache.
    pub fn kv_cache_bytes(
        layers: usize,
        h_kv: usize,
        hs: usize,
        t: usize,
        bytes_per_value: usize,
    ) -> usize {
        layers * h_kv * hs * t * bytes_per_value
    }
}

/// `grouped-softmax-wrong-axis`: attention written by hand with the softmax over the queries
/// (axis 0 of each head's `(T, S)` scores), so each key's column sums to 1 instead of each
/// query's row.
pub mod grouped_softmax_wrong_axis {
    use super::*;

    /// GQA on split heads, `((B, H, T, hs), (B, H, T, S))`, with column-normalised weights.
    pub fn grouped_attention(
        q: ArrayView4<f64>,
        k: ArrayView4<f64>,
        v: ArrayView4<f64>,
        causal: bool,
    ) -> Result<(Array4<f64>, Array4<f64>)> {
        let (b, h, t, hs) = q.dim();
        let (kb, h_kv, s_len, khs) = k.dim();
        if kb != b || khs != hs || v.dim() != k.dim() {
            return Err(ShapeError::new(
                "grouped_attention",
                "matching k, v",
                k.shape(),
            ));
        }
        let n = n_rep(h, h_kv)?;
        let (k, v) = (repeat_kv(k, n)?, repeat_kv(v, n)?);
        let mask = causal_mask(t, s_len);
        let mut out = Array4::zeros((b, h, t, hs));
        let mut weights = Array4::zeros((b, h, t, s_len));
        for bi in 0..b {
            for i in 0..h {
                let (qh, kh, vh) = (
                    q.slice(s![bi, i, .., ..]),
                    k.slice(s![bi, i, .., ..]),
                    v.slice(s![bi, i, .., ..]),
                );
                let mut w = qh.dot(&kh.t()) / (hs as f64).sqrt();
                if causal {
                    apply_mask(&mut w, &mask.view())?;
                }
                for mut column in w.lanes_mut(Axis(0)) {
                    let mut shifted = column.to_vec();
                    softmax_row(&mut shifted);
                    column.assign(&ArrayView1::from(&shifted));
                }
                out.slice_mut(s![bi, i, .., ..]).assign(&w.dot(&vh));
                weights.slice_mut(s![bi, i, .., ..]).assign(&w);
            }
        }
        Ok((out, weights))
    }
}

/// `gqa-split-without-transpose`: the projections reshaped straight to `(B, H, T, hs)` instead
/// of with the given `split_heads`, so a "head" holds pieces of several tokens.
pub mod gqa_split_without_transpose {
    use super::*;

    /// `(B, T, D) -> (B, h, T, D / h)` with the right shape and the wrong data.
    fn reshaped(x: Array3<f64>, h: usize) -> Array4<f64> {
        let (b, t, d) = x.dim();
        x.as_standard_layout()
            .into_owned()
            .into_shape_with_order((b, h, t, d / h))
            .expect("a standard-layout array reshapes")
    }

    /// GQA forward, `((B, T, D), (B, H, T, T))`, with every projection split without the
    /// transpose.
    pub fn gqa_forward(
        x: ArrayView3<f64>,
        w: &GqaWeights,
        h: usize,
        h_kv: usize,
        causal: bool,
    ) -> Result<(Array3<f64>, Array4<f64>)> {
        let d = x.dim().2;
        if h == 0 || !d.is_multiple_of(h) {
            return Err(ShapeError::with_got(
                "gqa_forward",
                "H dividing D",
                format!("D = {d}, H = {h}"),
            ));
        }
        n_rep(h, h_kv)?;
        let kv_width = h_kv * (d / h);
        for (m, cols) in [(&w.wq, d), (&w.wk, kv_width), (&w.wv, kv_width), (&w.wo, d)] {
            if m.dim() != (d, cols) {
                return Err(ShapeError::new("gqa_forward", "fitting weights", m.shape()));
            }
        }
        let q = reshaped(project(x, w.wq.view())?, h);
        let k = reshaped(project(x, w.wk.view())?, h_kv);
        let v = reshaped(project(x, w.wv.view())?, h_kv);
        let (heads, weights) = grouped_attention(q.view(), k.view(), v.view(), causal)?;
        Ok((merge_and_project(heads.view(), w.wo.view())?, weights))
    }
}

/// `grouped-keys-not-transposed`: attention written by hand with each head's scores `q k`
/// instead of `q kᵀ`: ndarray refuses the product unless `S = hs`.
pub mod grouped_keys_not_transposed {
    use super::*;

    /// GQA on split heads, `((B, H, T, hs), (B, H, T, S))`, with the keys multiplied untransposed.
    pub fn grouped_attention(
        q: ArrayView4<f64>,
        k: ArrayView4<f64>,
        v: ArrayView4<f64>,
        causal: bool,
    ) -> Result<(Array4<f64>, Array4<f64>)> {
        let (b, h, t, hs) = q.dim();
        let (kb, h_kv, s_len, khs) = k.dim();
        if kb != b || khs != hs || v.dim() != k.dim() {
            return Err(ShapeError::new(
                "grouped_attention",
                "matching k, v",
                k.shape(),
            ));
        }
        let n = n_rep(h, h_kv)?;
        let (k, v) = (repeat_kv(k, n)?, repeat_kv(v, n)?);
        let mask = causal_mask(t, s_len);
        let mut out = Array4::zeros((b, h, t, hs));
        let mut weights = Array4::zeros((b, h, t, s_len));
        for bi in 0..b {
            for i in 0..h {
                let (qh, kh, vh) = (
                    q.slice(s![bi, i, .., ..]),
                    k.slice(s![bi, i, .., ..]),
                    v.slice(s![bi, i, .., ..]),
                );
                let mut w = qh.dot(&kh) / (hs as f64).sqrt();
                if causal {
                    apply_mask(&mut w, &mask.view())?;
                }
                for mut row in w.rows_mut() {
                    let mut shifted = row.to_vec();
                    softmax_row(&mut shifted);
                    row.assign(&ArrayView1::from(&shifted));
                }
                out.slice_mut(s![bi, i, .., ..]).assign(&w.dot(&vh));
                weights.slice_mut(s![bi, i, .., ..]).assign(&w);
            }
        }
        Ok((out, weights))
    }
}
