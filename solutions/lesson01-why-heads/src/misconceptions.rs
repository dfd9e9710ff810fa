//! Classic wrong answers to lesson 1's exercises, one submodule per misconception (see
//! `[[lessons.misconceptions]]` in `course.toml`). Each is planted into the reference solution by
//! its id (`grade --solutions --plant <id>`): the crate's `exercises` module then runs it in place
//! of the right function (see the crate docs); the checks listed for it must fail.

use crate::setup::Head;
use attention::Result;
use attention::attend::project;
use attention::error::ShapeError;
use attention::rng::RandomState;
use ndarray::{Array3, ArrayView2, ArrayView3, Axis};

/// `(B, T, C)` and three `(C, hs)` projections -> `(B, T, T)` scores `Q Kᵀ / √hs`, unnormalised.
fn scores(x: ArrayView3<f64>, wq: ArrayView2<f64>, wk: ArrayView2<f64>) -> Result<Array3<f64>> {
    let q = project(x, wq)?;
    let k = project(x, wk)?;
    let hs = wq.ncols() as f64;
    let mut s = Array3::<f64>::zeros((x.dim().0, x.dim().1, x.dim().1));
    for ((mut sb, qb), kb) in s.outer_iter_mut().zip(q.outer_iter()).zip(k.outer_iter()) {
        sb.assign(&(qb.dot(&kb.t()) / hs.sqrt()));
    }
    Ok(s)
}

fn check_wk_wv(wq: ArrayView2<f64>, wk: ArrayView2<f64>, wv: ArrayView2<f64>) -> Result<()> {
    for w in [&wk, &wv] {
        if w.shape() != wq.shape() {
            return Err(ShapeError::new(
                "attention_weights",
                "Wk, Wv shaped like Wq",
                w.shape(),
            ));
        }
    }
    Ok(())
}

/// `softmax-without-max-shift`: `exp(s) / Σ exp(s)` straight, without subtracting the row's
/// maximum first.
pub mod softmax_without_max_shift {
    use super::*;

    /// `(B, T, C)`, three `(C, hs)` -> `(B, T, T)`, with a softmax that overflows on large scores.
    pub fn attention_weights(
        x: ArrayView3<f64>,
        wq: ArrayView2<f64>,
        wk: ArrayView2<f64>,
        wv: ArrayView2<f64>,
    ) -> Result<Array3<f64>> {
        check_wk_wv(wq, wk, wv)?;
        let mut s = scores(x, wq, wk)?;
        s.mapv_inplace(f64::exp);
        for mut row in s.lanes_mut(Axis(2)) {
            let sum = row.sum();
            row /= sum;
        }
        Ok(s)
    }
}

/// `softmax-wrong-axis`: the softmax normalises over the queries (axis 1) instead of the keys.
pub mod softmax_wrong_axis {
    use super::*;

    /// `(B, T, C)`, three `(C, hs)` -> `(B, T, T)` whose columns, not rows, sum to 1.
    pub fn attention_weights(
        x: ArrayView3<f64>,
        wq: ArrayView2<f64>,
        wk: ArrayView2<f64>,
        wv: ArrayView2<f64>,
    ) -> Result<Array3<f64>> {
        check_wk_wv(wq, wk, wv)?;
        let mut s = scores(x, wq, wk)?;
        for mut col in s.lanes_mut(Axis(1)) {
            let max = col.fold(f64::NEG_INFINITY, |m, &v| m.max(v));
            col.mapv_inplace(|v| (v - max).exp());
            let sum = col.sum();
            col /= sum;
        }
        Ok(s)
    }
}

/// `wv-not-validated`: Wk is compared with Wq, Wv never is (the weights do not use it).
pub mod wv_not_validated {
    use super::*;

    /// `(B, T, C)`, three `(C, hs)` -> `(B, T, T)`, accepting any Wv.
    pub fn attention_weights(
        x: ArrayView3<f64>,
        wq: ArrayView2<f64>,
        wk: ArrayView2<f64>,
        _wv: ArrayView2<f64>,
    ) -> Result<Array3<f64>> {
        check_wk_wv(wq, wk, wq)?;
        let mut s = scores(x, wq, wk)?;
        attention::softmax::softmax_inplace(&mut s);
        Ok(s)
    }
}

/// `draw-order-swapped`: the first draw becomes Wk and the second Wq.
pub mod draw_order_swapped {
    use super::*;

    /// Draws Wk, then Wq, then Wv, each `randn((c, hs)) * scale`.
    pub fn draw_head(rng: &mut RandomState, c: usize, hs: usize, scale: f64) -> Head {
        let mut draw = || rng.randn((c, hs)) * scale;
        let wk = draw();
        let wq = draw();
        let wv = draw();
        Head { wq, wk, wv }
    }
}
