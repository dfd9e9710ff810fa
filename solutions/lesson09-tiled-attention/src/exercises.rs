//! Reference implementations of lesson 9's exercises.

use crate::setup::{Grads, RowState, Tiling, expect_shape, may_attend};
use attention::Result;
use attention::error::ShapeError;
use attention::softmax::softmax_inplace;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView1, ArrayView2, ArrayView4, Axis, s};

/// The sizes of `q (B, h, T, hs)`, `k (B, h, S, hs)` and `v (B, h, S, hv)`:
/// `(B, h, T, S, hs, hv)`, or the error naming the first that does not fit.
pub fn qkv_sizes(
    op: &str,
    q: &ArrayView4<f64>,
    k: &ArrayView4<f64>,
    v: &ArrayView4<f64>,
) -> Result<(usize, usize, usize, usize, usize, usize)> {
    let (b, h, t, hs) = q.dim();
    let s = k.dim().2;
    expect_shape(op, "keys (B, h, S, hs)", k.shape(), &[b, h, s, hs])?;
    let hv = v.dim().3;
    expect_shape(op, "values (B, h, S, hv)", v.shape(), &[b, h, s, hv])?;
    Ok((b, h, t, s, hs, hv))
}

/// Refuses a tile of no queries or no keys.
pub fn expect_tiles(op: &str, tiling: Tiling) -> Result<()> {
    if tiling.q_tile == 0 || tiling.k_tile == 0 {
        return Err(ShapeError::with_got(
            op,
            "tiles of at least one query and one key",
            format!("q_tile = {}, k_tile = {}", tiling.q_tile, tiling.k_tile),
        ));
    }
    Ok(())
}

/// The ranges `start..end` of the tiles of `size` covering `0..n`.
pub fn tiles(n: usize, size: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n)
        .step_by(size)
        .map(move |start| (start, (start + size).min(n)))
}

/// The scaled scores of queries `r0..` against keys `c0..` of one head, `(rows, cols)`, the
/// entries the causal mask forbids set to `−∞`.
pub fn tile_scores(
    q: ArrayView2<f64>,
    k: ArrayView2<f64>,
    (r0, c0): (usize, usize),
    (t, s): (usize, usize),
    causal: bool,
) -> Array2<f64> {
    let scale = 1.0 / (q.ncols() as f64).sqrt();
    let mut scores = q.dot(&k.t()) * scale;
    if causal {
        for ((i, j), x) in scores.indexed_iter_mut() {
            if !may_attend(r0 + i, c0 + j, t, s) {
                *x = f64::NEG_INFINITY;
            }
        }
    }
    scores
}

/// Folds one more chunk of a row into its running maximum and rescaled sum.
pub fn online_softmax_update(state: RowState, chunk: ArrayView1<f64>) -> RowState {
    let chunk_max = chunk.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let max = state.max.max(chunk_max);
    if max == f64::NEG_INFINITY {
        // Everything so far masked: `exp(−∞ − (−∞))` would be NaN, and nothing counts yet.
        return state;
    }
    let kept = state.sum * (state.max - max).exp();
    let added: f64 = chunk.iter().map(|x| (x - max).exp()).sum();
    RowState {
        max,
        sum: kept + added,
    }
}

/// Attention one tile at a time with an online softmax: `(output (B, h, T, hv), lse (B, h, T))`.
pub fn tiled_attention(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    tiling: Tiling,
) -> Result<(Array4<f64>, Array3<f64>)> {
    let op = "tiled_attention";
    let (b, h, t, s, _, hv) = qkv_sizes(op, &q, &k, &v)?;
    expect_tiles(op, tiling)?;
    let mut out = Array4::zeros((b, h, t, hv));
    let mut lse = Array3::from_elem((b, h, t), f64::NEG_INFINITY);
    for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
        let (qh, kh, vh) = (
            q.slice(s![bi, hi, .., ..]),
            k.slice(s![bi, hi, .., ..]),
            v.slice(s![bi, hi, .., ..]),
        );
        for (r0, r1) in tiles(t, tiling.q_tile) {
            let rows = r1 - r0;
            let mut max = Array1::from_elem(rows, f64::NEG_INFINITY);
            let mut sum = Array1::<f64>::zeros(rows);
            let mut acc = Array2::<f64>::zeros((rows, hv));
            for (c0, c1) in tiles(s, tiling.k_tile) {
                if tiling.causal && !may_attend(r1 - 1, c0, t, s) {
                    break; // this key tile and every later one lie wholly above the diagonal
                }
                let mut p = tile_scores(
                    qh.slice(s![r0..r1, ..]),
                    kh.slice(s![c0..c1, ..]),
                    (r0, c0),
                    (t, s),
                    tiling.causal,
                );
                for (r, mut row) in p.axis_iter_mut(Axis(0)).enumerate() {
                    let new_max = row.iter().copied().fold(max[r], f64::max);
                    if new_max == f64::NEG_INFINITY {
                        row.fill(0.0); // nothing this row may read yet
                        continue;
                    }
                    let rescale = (max[r] - new_max).exp();
                    row.mapv_inplace(|x| (x - new_max).exp());
                    sum[r] = sum[r] * rescale + row.sum();
                    acc.row_mut(r).mapv_inplace(|x| x * rescale);
                    max[r] = new_max;
                }
                acc += &p.dot(&vh.slice(s![c0..c1, ..]));
            }
            for r in 0..rows {
                if sum[r] > 0.0 {
                    out.slice_mut(s![bi, hi, r0 + r, ..])
                        .assign(&(&acc.row(r) / sum[r]));
                    lse[[bi, hi, r0 + r]] = max[r] + sum[r].ln();
                }
            }
        }
    }
    Ok((out, lse))
}

/// The attention weights of one head, `(T, S)`: softmax of the masked scaled scores.
pub fn head_weights(q: ArrayView2<f64>, k: ArrayView2<f64>, causal: bool) -> Array2<f64> {
    let (t, s) = (q.nrows(), k.nrows());
    let mut p = tile_scores(q, k, (0, 0), (t, s), causal);
    softmax_inplace(&mut p);
    p
}

/// The gradients of one head from its weights `p (T, S)`, `dp = dO Vᵀ (T, S)` and `dO (T, hv)`,
/// written into `dq`, `dk`, `dv`.
fn head_backward(
    (q, k, p): (ArrayView2<f64>, ArrayView2<f64>, &Array2<f64>),
    dp: Array2<f64>,
    d_out: ArrayView2<f64>,
    grads: &mut Grads,
    (bi, hi): (usize, usize),
) {
    let scale = 1.0 / (q.ncols() as f64).sqrt();
    // Softmax's Jacobian: dS_ij = P_ij (dP_ij − Σ_l P_il dP_il).
    let row_dot = (p * &dp).sum_axis(Axis(1)).insert_axis(Axis(1));
    let ds = p * &(&dp - &row_dot);
    grads
        .dv
        .slice_mut(s![bi, hi, .., ..])
        .assign(&p.t().dot(&d_out));
    grads
        .dq
        .slice_mut(s![bi, hi, .., ..])
        .assign(&(ds.dot(&k) * scale));
    grads
        .dk
        .slice_mut(s![bi, hi, .., ..])
        .assign(&(ds.t().dot(&q) * scale));
}

/// Zero gradients for `q`, `k`, `v`.
pub fn zero_grads(q: &ArrayView4<f64>, k: &ArrayView4<f64>, v: &ArrayView4<f64>) -> Grads {
    Grads {
        dq: Array4::zeros(q.raw_dim()),
        dk: Array4::zeros(k.raw_dim()),
        dv: Array4::zeros(v.raw_dim()),
    }
}

/// The backward pass from the weights: `dq`, `dk`, `dv` of `L` given `dO = ∂L/∂out`.
pub fn attention_backward(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    d_out: ArrayView4<f64>,
    causal: bool,
) -> Result<Grads> {
    let op = "attention_backward";
    let (b, h, t, _, _, hv) = qkv_sizes(op, &q, &k, &v)?;
    expect_shape(op, "d_out (B, h, T, hv)", d_out.shape(), &[b, h, t, hv])?;
    let mut grads = zero_grads(&q, &k, &v);
    for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
        let (qh, kh, vh) = (
            q.slice(s![bi, hi, .., ..]),
            k.slice(s![bi, hi, .., ..]),
            v.slice(s![bi, hi, .., ..]),
        );
        let doh = d_out.slice(s![bi, hi, .., ..]);
        let p = head_weights(qh, kh, causal);
        let dp = doh.dot(&vh.t());
        head_backward((qh, kh, &p), dp, doh, &mut grads, (bi, hi));
    }
    Ok(grads)
}

/// Checks the saved output `(B, h, T, hv)`, logsumexp `(B, h, T)` and `d_out (B, h, T, hv)`.
pub fn expect_saved(
    op: &str,
    (b, h, t, hv): (usize, usize, usize, usize),
    out: &ArrayView4<f64>,
    lse: &ndarray::ArrayView3<f64>,
    d_out: &ArrayView4<f64>,
) -> Result<()> {
    expect_shape(op, "out (B, h, T, hv)", out.shape(), &[b, h, t, hv])?;
    expect_shape(op, "lse (B, h, T)", lse.shape(), &[b, h, t])?;
    expect_shape(op, "d_out (B, h, T, hv)", d_out.shape(), &[b, h, t, hv])
}

/// The backward pass in tiles, the weights recomputed from the logsumexp.
pub fn tiled_attention_backward(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    out: ArrayView4<f64>,
    lse: ndarray::ArrayView3<f64>,
    d_out: ArrayView4<f64>,
    tiling: Tiling,
) -> Result<Grads> {
    let op = "tiled_attention_backward";
    let (b, h, t, s, _, hv) = qkv_sizes(op, &q, &k, &v)?;
    expect_saved(op, (b, h, t, hv), &out, &lse, &d_out)?;
    expect_tiles(op, tiling)?;
    let scale = 1.0 / (q.dim().3 as f64).sqrt();
    // D_i = Σ_j P_ij dP_ij = dO_i · O_i: one number per query, no weights needed.
    let d = (&d_out * &out).sum_axis(Axis(3));
    let mut grads = zero_grads(&q, &k, &v);
    for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
        let (qh, kh, vh) = (
            q.slice(s![bi, hi, .., ..]),
            k.slice(s![bi, hi, .., ..]),
            v.slice(s![bi, hi, .., ..]),
        );
        for ((c0, c1), (r0, r1)) in
            tiles(s, tiling.k_tile).flat_map(|c| tiles(t, tiling.q_tile).map(move |r| (c, r)))
        {
            if tiling.causal && !may_attend(r1 - 1, c0, t, s) {
                continue;
            }
            let (qt, kt) = (qh.slice(s![r0..r1, ..]), kh.slice(s![c0..c1, ..]));
            let dot = d_out.slice(s![bi, hi, r0..r1, ..]);
            let mut p = tile_scores(qt, kt, (r0, c0), (t, s), tiling.causal);
            for ((i, _), x) in p.indexed_iter_mut() {
                let m = lse[[bi, hi, r0 + i]];
                // A masked score, or a row that reads nothing (lse = −∞), weighs 0.
                *x = if *x == f64::NEG_INFINITY || m == f64::NEG_INFINITY {
                    0.0
                } else {
                    (*x - m).exp()
                };
            }
            let dp = dot.dot(&vh.slice(s![c0..c1, ..]).t());
            let d_rows = d.slice(s![bi, hi, r0..r1]).insert_axis(Axis(1));
            let ds = &p * &(&dp - &d_rows);
            let mut dv = grads.dv.slice_mut(s![bi, hi, c0..c1, ..]);
            dv += &p.t().dot(&dot);
            let mut dq = grads.dq.slice_mut(s![bi, hi, r0..r1, ..]);
            dq.scaled_add(scale, &ds.dot(&kt));
            let mut dk = grads.dk.slice_mut(s![bi, hi, c0..c1, ..]);
            dk.scaled_add(scale, &ds.t().dot(&qt));
        }
    }
    Ok(grads)
}
