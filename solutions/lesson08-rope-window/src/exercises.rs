//! Reference implementations of lesson 8's exercises.

use crate::setup::{KvCache, RingCache, expect_shape, kv_cache_bytes};
use attention::Result;
use attention::error::{ShapeError, shape_string};
use attention::softmax::softmax_row;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView2, ArrayView3, ArrayView4, Axis, s};

/// `θ_i = base^(-2i/hs)` for `i` in `0..hs/2`: `(hs/2,)`.
pub fn rope_frequencies(head_size: usize, base: f64) -> Result<Array1<f64>> {
    if head_size == 0 || !head_size.is_multiple_of(2) {
        return Err(ShapeError::with_got(
            "rope_frequencies",
            "an even head size: RoPE rotates pairs of features",
            format!("hs = {head_size}"),
        ));
    }
    let hs = head_size as f64;
    Ok(Array1::from_shape_fn(head_size / 2, |i| {
        base.powf(-2.0 * i as f64 / hs)
    }))
}

/// The `(T, hs/2)` cosines and sines of the angles `(start + t) · θ_i`.
fn cos_sin(t: usize, hs: usize, start: usize, base: f64) -> Result<(Array2<f64>, Array2<f64>)> {
    let theta = crate::exercises::rope_frequencies(hs, base)?;
    let angles = Array2::from_shape_fn((t, theta.len()), |(t, i)| (start + t) as f64 * theta[i]);
    Ok((angles.mapv(f64::cos), angles.mapv(f64::sin)))
}

/// Refuses anything but a `(B, h, T, hs)` tensor with an even `hs`.
fn expect_pairs(op: &str, x: &ArrayView4<f64>) -> Result<()> {
    let hs = x.dim().3;
    if hs == 0 || !hs.is_multiple_of(2) {
        return Err(ShapeError::new(
            op,
            "(B, h, T, hs) with an even hs",
            x.shape(),
        ));
    }
    Ok(())
}

/// Rotate-half RoPE: pair `(j, j + hs/2)` of row `t` turned by `(start + t) · θ_j`.
pub fn apply_rope(x: ArrayView4<f64>, start: usize, base: f64) -> Result<Array4<f64>> {
    expect_pairs("apply_rope", &x)?;
    let (b, h, t, hs) = x.dim();
    let half = hs / 2;
    let (cos, sin) = cos_sin(t, hs, start, base)?;
    Ok(Array4::from_shape_fn((b, h, t, hs), |(bi, hi, ti, j)| {
        let i = j % half;
        let (c, s) = (cos[[ti, i]], sin[[ti, i]]);
        let (x1, x2) = (x[[bi, hi, ti, i]], x[[bi, hi, ti, i + half]]);
        if j < half {
            x1 * c - x2 * s
        } else {
            x2 * c + x1 * s
        }
    }))
}

/// Interleaved RoPE: pair `(2j, 2j + 1)` of row `t` turned by `(start + t) · θ_j`.
pub fn apply_rope_interleaved(x: ArrayView4<f64>, start: usize, base: f64) -> Result<Array4<f64>> {
    expect_pairs("apply_rope_interleaved", &x)?;
    let (b, h, t, hs) = x.dim();
    let (cos, sin) = cos_sin(t, hs, start, base)?;
    Ok(Array4::from_shape_fn((b, h, t, hs), |(bi, hi, ti, j)| {
        let i = j / 2;
        let (c, s) = (cos[[ti, i]], sin[[ti, i]]);
        let (x1, x2) = (x[[bi, hi, ti, 2 * i]], x[[bi, hi, ti, 2 * i + 1]]);
        if j % 2 == 0 {
            x1 * c - x2 * s
        } else {
            x2 * c + x1 * s
        }
    }))
}

/// `(B, h, T, hs) -> (B, h, T, hs)`: features `0, 2, 4, …` first, then `1, 3, 5, …`.
pub fn interleaved_to_half(x: ArrayView4<f64>) -> Result<Array4<f64>> {
    expect_pairs("interleaved_to_half", &x)?;
    let half = x.dim().3 / 2;
    Ok(Array4::from_shape_fn(x.dim(), |(b, h, t, j)| {
        let from = if j < half { 2 * j } else { 2 * (j - half) + 1 };
        x[[b, h, t, from]]
    }))
}

/// The scores of rotated queries against rotated keys: `(B, h, T, hs), (B, h, S, hs) ->
/// (B, h, T, S)`, `R(q_start + t) q_t · R(k_start + s) k_s / √hs`.
pub fn rope_scores(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    q_start: usize,
    k_start: usize,
    base: f64,
) -> Result<Array4<f64>> {
    let (b, h, t, hs) = q.dim();
    let s_len = k.dim().2;
    expect_shape("rope_scores", "keys", k.shape(), &[b, h, s_len, hs])?;
    let rq = crate::exercises::apply_rope(q, q_start, base)?;
    let rk = crate::exercises::apply_rope(k, k_start, base)?;
    let scale = 1.0 / (hs as f64).sqrt();
    let mut out = Array4::zeros((b, h, t, s_len));
    for bi in 0..b {
        for hi in 0..h {
            let qs = rq.slice(s![bi, hi, .., ..]);
            let ks = rk.slice(s![bi, hi, .., ..]);
            out.slice_mut(s![bi, hi, .., ..])
                .assign(&(qs.dot(&ks.t()) * scale));
        }
    }
    Ok(out)
}

/// Refuses a query, key or value that does not fit a cache of `(B, H_kv, hs)`.
pub(crate) fn expect_step(
    op: &str,
    q: &ArrayView3<f64>,
    k: &ArrayView3<f64>,
    v: &ArrayView3<f64>,
    (b, h_kv, hs): (usize, usize, usize),
) -> Result<()> {
    let (qb, h, qhs) = q.dim();
    if qb != b || qhs != hs || h == 0 || h_kv == 0 || !h.is_multiple_of(h_kv) {
        return Err(ShapeError::with_got(
            op,
            format!("queries (B, H, hs) = ({b}, H, {hs}) with H a multiple of H_kv = {h_kv}"),
            shape_string(q.shape()),
        ));
    }
    expect_shape(op, "keys", k.shape(), &[b, h_kv, hs])?;
    expect_shape(op, "values", v.shape(), &[b, h_kv, hs])
}

/// Rotates one token's `(B, n, hs)` at absolute position `p`.
fn rotate_step(x: ArrayView3<f64>, p: usize, base: f64) -> Result<Array3<f64>> {
    let x4 = x.insert_axis(Axis(2));
    let rotated = crate::exercises::apply_rope(x4, p, base)?;
    Ok(rotated.index_axis_move(Axis(2), 0))
}

/// `q` `(B, H, hs)` attends over `keys`, `values` `(B, H_kv, len, hs)`; query head `i` reads
/// key/value head `i / n_rep`. Returns `(output (B, H, hs), weights (B, H, len))`.
pub(crate) fn attend_step(
    q: ArrayView3<f64>,
    keys: ArrayView4<f64>,
    values: ArrayView4<f64>,
) -> (Array3<f64>, Array3<f64>) {
    let (b, h, hs) = q.dim();
    let (_, h_kv, len, _) = keys.dim();
    let n_rep = h / h_kv;
    let scale = 1.0 / (hs as f64).sqrt();
    let mut out = Array3::zeros((b, h, hs));
    let mut weights = Array3::zeros((b, h, len));
    for bi in 0..b {
        for i in 0..h {
            let k: ArrayView2<f64> = keys.slice(s![bi, i / n_rep, .., ..]);
            let v = values.slice(s![bi, i / n_rep, .., ..]);
            let mut w = k.dot(&q.slice(s![bi, i, ..])) * scale;
            softmax_row(w.as_slice_mut().expect("a fresh array is contiguous"));
            out.slice_mut(s![bi, i, ..]).assign(&w.dot(&v));
            weights.slice_mut(s![bi, i, ..]).assign(&w);
        }
    }
    (out, weights)
}

/// Refuses a step that does not fit `cache`, or a full cache.
pub(crate) fn expect_free_step(
    q: &ArrayView3<f64>,
    k: &ArrayView3<f64>,
    v: &ArrayView3<f64>,
    cache: &KvCache,
) -> Result<()> {
    let op = "rope_decode_step";
    let shape = (cache.batch(), cache.kv_heads(), cache.head_size());
    expect_step(op, q, k, v, shape)?;
    if cache.len() == cache.capacity() {
        return Err(ShapeError::with_got(
            op,
            "a cache with a free position",
            format!("all {} positions taken", cache.capacity()),
        ));
    }
    Ok(())
}

/// One decoding step with RoPE: rotates `q` and `k` at position `cache.len()`, appends the
/// rotated key and the plain value, then attends over the whole cache.
pub fn rope_decode_step(
    q: ArrayView3<f64>,
    k: ArrayView3<f64>,
    v: ArrayView3<f64>,
    cache: &mut KvCache,
    base: f64,
) -> Result<(Array3<f64>, Array3<f64>)> {
    expect_free_step(&q, &k, &v, cache)?;
    let p = cache.len();
    let rq = rotate_step(q, p, base)?;
    let rk = rotate_step(k, p, base)?;
    cache.append(rk.view(), v)?;
    Ok(attend_step(rq.view(), cache.keys(), cache.values()))
}

/// `(T, T)`: query `i` may read key `j` when `i - W < j <= i`.
pub fn window_mask(t: usize, window: usize) -> Array2<bool> {
    Array2::from_shape_fn((t, t), |(i, j)| j <= i && i - j < window)
}

/// The ring's keys and values, `(B, H_kv, len, hs)` each, oldest token first.
pub fn ring_in_time_order(ring: &RingCache) -> (Array4<f64>, Array4<f64>) {
    let (w, len) = (ring.window(), ring.len());
    // The oldest token held is `pushed - len`; it sits in slot `(pushed - len) % W`.
    let first = ring.pushed() - len;
    let order: Vec<usize> = (first..ring.pushed()).map(|p| p % w).collect();
    (
        ring.key_slots().select(Axis(2), &order),
        ring.value_slots().select(Axis(2), &order),
    )
}

/// One decoding step with RoPE through a rolling buffer: rotates `q` and `k` at position
/// `ring.pushed()`, pushes the rotated key and the plain value, attends over the buffer in time
/// order.
pub fn window_decode_step(
    q: ArrayView3<f64>,
    k: ArrayView3<f64>,
    v: ArrayView3<f64>,
    ring: &mut RingCache,
    base: f64,
) -> Result<(Array3<f64>, Array3<f64>)> {
    let shape = (ring.batch(), ring.kv_heads(), ring.head_size());
    expect_step("window_decode_step", &q, &k, &v, shape)?;
    let p = ring.pushed();
    let rq = rotate_step(q, p, base)?;
    let rk = rotate_step(k, p, base)?;
    ring.push(rk.view(), v)?;
    let (keys, values) = crate::exercises::ring_in_time_order(ring);
    Ok(attend_step(rq.view(), keys.view(), values.view()))
}

/// Lesson 6's formula with `min(T, W)` positions: `2 · layers · H_kv · hs · min(T, W) · bytes`.
pub fn window_cache_bytes(
    layers: usize,
    h_kv: usize,
    hs: usize,
    t: usize,
    window: usize,
    bytes_per_value: usize,
) -> usize {
    kv_cache_bytes(layers, h_kv, hs, t.min(window), bytes_per_value)
}
