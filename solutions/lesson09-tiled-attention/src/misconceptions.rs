//! Lesson 9's classic wrong answers, planted in place of the reference exercise by their id
//! (`grade --solutions --plant <id>`, see the crate docs). Each is a real implementation a
//! student could write; `course.toml` names the checks that catch it and explains it. The four
//! of the tiled forward share one loop ([`tiled_with`]) and differ in one line each, as the
//! students' versions do.

use crate::reference::{
    expect_saved, expect_tiles, head_weights, qkv_sizes, tile_scores, tiles, zero_grads,
};
use crate::setup::{Grads, RowState, Tiling, expect_shape, may_attend};
use attention::Result;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView1, ArrayView3, ArrayView4, Axis, s};

/// `online-softmax-sum-not-rescaled`: the old sum added as it is when the maximum grows.
pub mod online_softmax_sum_not_rescaled {
    use super::*;

    /// The new maximum, but the old sum still counted against the old one.
    pub fn online_softmax_update(state: RowState, chunk: ArrayView1<f64>) -> RowState {
        let max = chunk.iter().copied().fold(state.max, f64::max);
        if max == f64::NEG_INFINITY {
            return state;
        }
        let added: f64 = chunk.iter().map(|x| (x - max).exp()).sum();
        RowState {
            max,
            sum: state.sum + added,
        }
    }
}

/// `online-softmax-inf-minus-inf`: no guard for a row that has read only masked scores.
pub mod online_softmax_inf_minus_inf {
    use super::*;

    /// The rescaling written without a guard: `exp(−∞ − (−∞))` is NaN.
    pub fn online_softmax_update(state: RowState, chunk: ArrayView1<f64>) -> RowState {
        let max = chunk.iter().copied().fold(state.max, f64::max);
        let kept = state.sum * (state.max - max).exp();
        let added: f64 = chunk.iter().map(|x| (x - max).exp()).sum();
        RowState {
            max,
            sum: kept + added,
        }
    }
}

/// The one line in which each planted tiled forward goes wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slip {
    /// The accumulator is not multiplied by `exp(m − m')` when the maximum grows.
    OutputNotRescaled,
    /// The accumulator is divided by the running sum after every tile.
    DivisionPerTile,
    /// No guard for rows that have read only masked scores (nor at the final division).
    InfMinusInf,
    /// The logsumexp taken from the state before the last key tile.
    LseBeforeLastTile,
}

/// The reference's tiled forward with one `slip`.
pub fn tiled_with(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    tiling: Tiling,
    slip: Slip,
) -> Result<(Array4<f64>, Array3<f64>)> {
    let op = "tiled_attention";
    let (b, h, t, s, _, hv) = qkv_sizes(op, &q, &k, &v)?;
    expect_tiles(op, tiling)?;
    let guard = slip != Slip::InfMinusInf;
    let mut out = Array4::zeros((b, h, t, hv));
    let mut lse = Array3::from_elem((b, h, t), f64::NEG_INFINITY);
    for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
        for (r0, r1) in tiles(t, tiling.q_tile) {
            let rows = r1 - r0;
            let mut max = Array1::from_elem(rows, f64::NEG_INFINITY);
            let mut sum = Array1::<f64>::zeros(rows);
            let mut acc = Array2::<f64>::zeros((rows, hv));
            let mut saved = Array1::from_elem(rows, f64::NEG_INFINITY);
            for (c0, c1) in tiles(s, tiling.k_tile) {
                if tiling.causal && !may_attend(r1 - 1, c0, t, s) {
                    break;
                }
                // The student's logsumexp, written down at the top of each tile.
                for r in 0..rows {
                    saved[r] = max[r] + sum[r].ln();
                }
                let mut p = tile_scores(
                    q.slice(s![bi, hi, r0..r1, ..]),
                    k.slice(s![bi, hi, c0..c1, ..]),
                    (r0, c0),
                    (t, s),
                    tiling.causal,
                );
                for (r, mut row) in p.axis_iter_mut(Axis(0)).enumerate() {
                    let new_max = row.iter().copied().fold(max[r], f64::max);
                    if guard && new_max == f64::NEG_INFINITY {
                        row.fill(0.0);
                        continue;
                    }
                    let rescale = (max[r] - new_max).exp();
                    row.mapv_inplace(|x| (x - new_max).exp());
                    sum[r] = sum[r] * rescale + row.sum();
                    if slip != Slip::OutputNotRescaled {
                        acc.row_mut(r).mapv_inplace(|x| x * rescale);
                    }
                    max[r] = new_max;
                }
                acc += &p.dot(&v.slice(s![bi, hi, c0..c1, ..]));
                if slip == Slip::DivisionPerTile {
                    for (r, mut row) in acc.axis_iter_mut(Axis(0)).enumerate() {
                        if sum[r] > 0.0 {
                            row.mapv_inplace(|x| x / sum[r]);
                        }
                    }
                }
            }
            for r in 0..rows {
                if guard && sum[r] == 0.0 {
                    continue;
                }
                let o = if slip == Slip::DivisionPerTile {
                    acc.row(r).to_owned()
                } else {
                    &acc.row(r) / sum[r]
                };
                out.slice_mut(s![bi, hi, r0 + r, ..]).assign(&o);
                lse[[bi, hi, r0 + r]] = if slip == Slip::LseBeforeLastTile {
                    saved[r]
                } else {
                    max[r] + sum[r].ln()
                };
            }
        }
    }
    Ok((out, lse))
}

/// Declares a module `$id` whose `tiled_attention` is [`tiled_with`] with `$slip`.
macro_rules! tiled_slip {
    ($($(#[$doc:meta])* $id:ident => $slip:ident;)*) => {$(
        $(#[$doc])*
        pub mod $id {
            use super::*;

            /// The tiled forward with this module's slip.
            pub fn tiled_attention(
                q: ArrayView4<f64>,
                k: ArrayView4<f64>,
                v: ArrayView4<f64>,
                tiling: Tiling,
            ) -> Result<(Array4<f64>, Array3<f64>)> {
                tiled_with(q, k, v, tiling, Slip::$slip)
            }
        }
    )*};
}

tiled_slip! {
    /// `tiled-output-not-rescaled`: the running sum is rescaled, the output accumulator is not.
    tiled_output_not_rescaled => OutputNotRescaled;
    /// `tiled-division-per-tile`: the accumulator divided by the running sum after every tile.
    tiled_division_per_tile => DivisionPerTile;
    /// `tiled-inf-minus-inf`: `exp(−∞ − (−∞))` and `0 / 0` for a row that reads no key.
    tiled_inf_minus_inf => InfMinusInf;
    /// `tiled-lse-before-last-tile`: the logsumexp saved before the last key tile was folded in.
    tiled_lse_before_last_tile => LseBeforeLastTile;
}

/// The plain backward with `ds` computed by `jacobian` from `(P, dP)` and `dK` scaled by
/// `dk_scale` (times `1/√hs`).
fn plain_backward_with(
    (q, k, v, d_out): (
        ArrayView4<f64>,
        ArrayView4<f64>,
        ArrayView4<f64>,
        ArrayView4<f64>,
    ),
    causal: bool,
    jacobian: fn(&Array2<f64>, &Array2<f64>) -> Array2<f64>,
    dk_scale: f64,
) -> Result<Grads> {
    let op = "attention_backward";
    let (b, h, t, _, hs, hv) = qkv_sizes(op, &q, &k, &v)?;
    expect_shape(op, "d_out (B, h, T, hv)", d_out.shape(), &[b, h, t, hv])?;
    let scale = 1.0 / (hs as f64).sqrt();
    let mut g = zero_grads(&q, &k, &v);
    for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
        let (qh, kh) = (q.slice(s![bi, hi, .., ..]), k.slice(s![bi, hi, .., ..]));
        let doh = d_out.slice(s![bi, hi, .., ..]);
        let p = head_weights(qh, kh, causal);
        let dp = doh.dot(&v.slice(s![bi, hi, .., ..]).t());
        let ds = jacobian(&p, &dp);
        g.dv.slice_mut(s![bi, hi, .., ..]).assign(&p.t().dot(&doh));
        g.dq.slice_mut(s![bi, hi, .., ..])
            .assign(&(ds.dot(&kh) * scale));
        g.dk.slice_mut(s![bi, hi, .., ..])
            .assign(&(ds.t().dot(&qh) * scale * dk_scale));
    }
    Ok(g)
}

/// The softmax's Jacobian applied to `dp`: `P ∘ (dP − rowsum(P ∘ dP))`.
fn full_jacobian(p: &Array2<f64>, dp: &Array2<f64>) -> Array2<f64> {
    let row_dot = (p * dp).sum_axis(Axis(1)).insert_axis(Axis(1));
    p * &(dp - &row_dot)
}

/// `backward-jacobian-without-outer-term`: `dS = P ∘ dP`, the diagonal of the Jacobian only.
pub mod backward_jacobian_without_outer_term {
    use super::*;

    /// As if each weight depended only on its own score.
    pub fn attention_backward(
        q: ArrayView4<f64>,
        k: ArrayView4<f64>,
        v: ArrayView4<f64>,
        d_out: ArrayView4<f64>,
        causal: bool,
    ) -> Result<Grads> {
        plain_backward_with((q, k, v, d_out), causal, |p, dp| p * dp, 1.0)
    }
}

/// `backward-dk-not-scaled`: `dK = dSᵀ q`, the `1/√hs` forgotten on the keys' side.
pub mod backward_dk_not_scaled {
    use super::*;

    /// `dQ` scaled, `dK` not.
    pub fn attention_backward(
        q: ArrayView4<f64>,
        k: ArrayView4<f64>,
        v: ArrayView4<f64>,
        d_out: ArrayView4<f64>,
        causal: bool,
    ) -> Result<Grads> {
        let unscale = (q.dim().3 as f64).sqrt();
        plain_backward_with((q, k, v, d_out), causal, full_jacobian, unscale)
    }
}

/// `tiled-backward-mask-skipped`: the weights recomputed from the logsumexp without the mask.
pub mod tiled_backward_mask_skipped {
    use super::*;

    /// Every tile, every score: `exp(score − lse)` where the forward had masked it.
    pub fn tiled_attention_backward(
        q: ArrayView4<f64>,
        k: ArrayView4<f64>,
        v: ArrayView4<f64>,
        out: ArrayView4<f64>,
        lse: ArrayView3<f64>,
        d_out: ArrayView4<f64>,
        tiling: Tiling,
    ) -> Result<Grads> {
        let op = "tiled_attention_backward";
        let (b, h, t, s, hs, hv) = qkv_sizes(op, &q, &k, &v)?;
        expect_saved(op, (b, h, t, hv), &out, &lse, &d_out)?;
        expect_tiles(op, tiling)?;
        let scale = 1.0 / (hs as f64).sqrt();
        let d = (&d_out * &out).sum_axis(Axis(3));
        let mut g = zero_grads(&q, &k, &v);
        for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
            for ((c0, c1), (r0, r1)) in
                tiles(s, tiling.k_tile).flat_map(|c| tiles(t, tiling.q_tile).map(move |r| (c, r)))
            {
                let qt = q.slice(s![bi, hi, r0..r1, ..]);
                let kt = k.slice(s![bi, hi, c0..c1, ..]);
                let dot = d_out.slice(s![bi, hi, r0..r1, ..]);
                let mut p = tile_scores(qt, kt, (r0, c0), (t, s), false);
                for ((i, _), x) in p.indexed_iter_mut() {
                    let m = lse[[bi, hi, r0 + i]];
                    *x = if m == f64::NEG_INFINITY {
                        0.0
                    } else {
                        (*x - m).exp()
                    };
                }
                let dp = dot.dot(&v.slice(s![bi, hi, c0..c1, ..]).t());
                let ds = &p * &(&dp - &d.slice(s![bi, hi, r0..r1]).insert_axis(Axis(1)));
                let mut dv = g.dv.slice_mut(s![bi, hi, c0..c1, ..]);
                dv += &p.t().dot(&dot);
                let mut dq = g.dq.slice_mut(s![bi, hi, r0..r1, ..]);
                dq.scaled_add(scale, &ds.dot(&kt));
                let mut dk = g.dk.slice_mut(s![bi, hi, c0..c1, ..]);
                dk.scaled_add(scale, &ds.t().dot(&qt));
            }
        }
        Ok(g)
    }
}
