//! Lesson 9's worked example: an online softmax chunk by chunk, the tiled forward against
//! lesson 3's attention for every tile size, the weights recomputed from the logsumexp, both
//! backward passes against central differences, and the peak memory of the plain and the tiled
//! forward as T grows. Every number below is computed by your code (lesson 3's attention is the
//! core crate's); a line that needs a function you have not written yet says so.
//!
//! Run it with `cargo xtask demo lesson09` (`--svg DIR` also writes its figures as SVG files).

use attention::attend::scaled_dot_product;
use attention::print::np;
use course_check::memory::PeakMeter;
use lesson09::setup::{T, TILE};
use lesson09::*;
use ndarray::{Array2, Array4, ArrayView4, Axis, array, s};
use pictures::{Demo, Got, positions};
use std::process::ExitCode;

/// Counts the bytes every computation holds at once (see `memory`).
#[global_allocator]
static METER: PeakMeter = PeakMeter::new();

/// The sequence lengths of the memory comparison.
const LENGTHS: [usize; 4] = [128, 256, 512, 1024];
/// Head size and tile size of the memory comparison.
const MEMORY_HS: usize = 16;
/// Tiles of the memory comparison: 64 queries by 64 keys.
const MEMORY_TILE: usize = 64;
/// The sequence length and head size of the core crate's comparison.
const CORE_T: usize = 4096;
/// Head size of the core crate's comparison: small, so the unoptimised demo stays quick (the
/// weights, `T²` numbers, do not depend on it).
const CORE_HS: usize = 8;
/// Central differences' step.
const EPS: f64 = 1e-5;

/// Prints and draws the worked example.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson09");
    online(&d);
    forward(&d);
    backward(&d);
    memory(&d);
    core_memory(&d);
    d.finish()
}

/// One row folded in chunks of 2: the maximum jumps twice, and the sum is rescaled each time.
fn online(d: &Demo) {
    let row = array![1.0, 3.0, 2.0, 5.0, 0.0, 4.0];
    d.line(
        &format!("online softmax of {} in chunks of 2: ", np(&row)),
        || {
            let mut state = RowState::EMPTY;
            let mut steps = Vec::new();
            for chunk in row.axis_chunks_iter(Axis(0), 2) {
                state = online_softmax_update(state, chunk);
                steps.push(format!("(max {}, sum {:.4})", state.max, state.sum));
            }
            let p = row.mapv(|x| (x - state.max).exp() / state.sum);
            Ok(format!(
                "{}\n  softmax {}, logsumexp {:.4}",
                steps.join(" -> "),
                np(&p),
                state.logsumexp()
            ))
        },
    );
}

/// Lesson 3's attention by the core crate, one head at a time: `(B, h, T, hv)`.
fn plain(q: ArrayView4<f64>, k: ArrayView4<f64>, v: ArrayView4<f64>) -> Array4<f64> {
    let (b, h, t, _) = q.dim();
    let s_len = k.dim().2;
    let mask = Array2::from_shape_fn((t, s_len), |(i, j)| j + t <= i + s_len);
    let mut out = Array4::zeros((b, h, t, v.dim().3));
    for (bi, hi) in (0..b).flat_map(|bi| (0..h).map(move |hi| (bi, hi))) {
        let (o, _) = scaled_dot_product(
            q.slice(s![bi, hi, .., ..]).insert_axis(Axis(0)),
            k.slice(s![bi, hi, .., ..]).insert_axis(Axis(0)),
            v.slice(s![bi, hi, .., ..]).insert_axis(Axis(0)),
            Some(&mask.view()),
        )
        .expect("shapes fit");
        out.slice_mut(s![bi, hi, .., ..])
            .assign(&o.index_axis(Axis(0), 0));
    }
    out
}

/// The largest absolute difference between two arrays of one shape.
fn largest_difference(a: &Array4<f64>, b: &Array4<f64>) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// The worked example's tiled forward, against lesson 3's for every tile size, and its weights
/// recomputed from the logsumexp.
fn forward(d: &Demo) {
    let ex = worked_example();
    let tiled = d.value(|| {
        Ok(tiled_attention(
            ex.q.view(),
            ex.k.view(),
            ex.v.view(),
            Tiling::new(TILE, TILE, true),
        )?)
    });
    d.line(
        &format!("tiled forward, causal, tiles {TILE} × {TILE}: head 0's logsumexp "),
        || Ok(format!("{}", np(&tiled.got()?.1.slice(s![0, 0, ..])))),
    );
    d.line(
        "largest difference from lesson 3's attention over every tile size 1..=8 × 1..=8: ",
        || {
            let expected = plain(ex.q.view(), ex.k.view(), ex.v.view());
            let mut worst = 0.0f64;
            for (qt, kt) in (1..=T).flat_map(|a| (1..=T).map(move |b| (a, b))) {
                let tiling = Tiling::new(qt, kt, true);
                let (out, _) = tiled_attention(ex.q.view(), ex.k.view(), ex.v.view(), tiling)?;
                worst = worst.max(largest_difference(&out, &expected));
            }
            Ok(format!("{worst:.1e}"))
        },
    );
    d.figure(
        "lesson09-weights-from-lse",
        "Lesson 9: head 0's weights, recomputed from the logsumexp alone",
        |f| {
            let lse = &tiled.got()?.1;
            let (q, k) = (ex.q.slice(s![0, 0, .., ..]), ex.k.slice(s![0, 0, .., ..]));
            let p = Array2::from_shape_fn((T, T), |(i, j)| {
                if j > i {
                    0.0
                } else {
                    (q.row(i).dot(&k.row(j)) / 2.0 - lse[[0, 0, i]]).exp()
                }
            });
            Ok(f.axes("query", "key")
                .labels(&positions(T), &positions(T))
                .panel("exp(score − lse)", p.view()))
        },
    );
}

/// Central differences of `Σ tiled_attention(q, k, v) ∘ d_out` with respect to `q`.
fn dq_by_differences(ex: &WorkedExample, tiling: Tiling) -> attention::Result<Array4<f64>> {
    let mut q = ex.q.clone();
    let mut dq = Array4::zeros(q.raw_dim());
    for n in 0..q.len() {
        let x = q.as_slice().expect("standard layout")[n];
        let mut loss = |value: f64| -> attention::Result<f64> {
            q.as_slice_mut().expect("standard layout")[n] = value;
            let (out, _) = tiled_attention(q.view(), ex.k.view(), ex.v.view(), tiling)?;
            Ok((out * &ex.d_out).sum())
        };
        let (up, down) = (loss(x + EPS)?, loss(x - EPS)?);
        loss(x)?;
        dq.as_slice_mut().expect("standard layout")[n] = (up - down) / (2.0 * EPS);
    }
    Ok(dq)
}

/// Both backward passes of the worked example, against each other and central differences.
fn backward(d: &Demo) {
    let ex = worked_example();
    let tiling = Tiling::new(TILE, TILE, true);
    let plain_grads = d.value(|| {
        Ok(attention_backward(
            ex.q.view(),
            ex.k.view(),
            ex.v.view(),
            ex.d_out.view(),
            true,
        )?)
    });
    d.line("backward from the weights: dq of head 0, query 7 ", || {
        Ok(format!(
            "{}",
            np(&plain_grads.got()?.dq.slice(s![0, 0, T - 1, ..]))
        ))
    });
    let tiled_grads = d.value(|| {
        let (out, lse) = tiled_attention(ex.q.view(), ex.k.view(), ex.v.view(), tiling)?;
        Ok(tiled_attention_backward(
            ex.q.view(),
            ex.k.view(),
            ex.v.view(),
            out.view(),
            lse.view(),
            ex.d_out.view(),
            tiling,
        )?)
    });
    d.line(
        "tiled backward from the logsumexp: dq of head 0, query 7 ",
        || {
            Ok(format!(
                "{}",
                np(&tiled_grads.got()?.dq.slice(s![0, 0, T - 1, ..]))
            ))
        },
    );
    d.line(
        "largest difference between the two backward passes: ",
        || {
            let (g, t) = (plain_grads.got()?, tiled_grads.got()?);
            let worst = largest_difference(&t.dq, &g.dq)
                .max(largest_difference(&t.dk, &g.dk))
                .max(largest_difference(&t.dv, &g.dv));
            Ok(format!("{worst:.1e}"))
        },
    );
    d.line(
        &format!("dq against central differences of your tiled forward (ε = {EPS:e}): "),
        || {
            let numeric = dq_by_differences(&ex, tiling)?;
            Ok(format!(
                "largest difference {:.1e}",
                largest_difference(&numeric, &plain_grads.got()?.dq)
            ))
        },
    );
}

/// Peak extra bytes of lesson 3's attention and of the tiled forward, one head of
/// `hs = 16`, for each `T` of [`LENGTHS`].
fn memory(d: &Demo) {
    let peaks = d.value(|| {
        let mut rows = Vec::new();
        for t in LENGTHS {
            let mut rng = attention::rng::RandomState::new(t as u32);
            let q: Array4<f64> = rng.randn((1, 1, t, MEMORY_HS));
            let (k, v): (Array4<f64>, Array4<f64>) = (
                rng.randn((1, 1, t, MEMORY_HS)),
                rng.randn((1, 1, t, MEMORY_HS)),
            );
            let (_, plain_bytes) = METER.peak_during(|| plain(q.view(), k.view(), v.view()));
            let tiling = Tiling::new(MEMORY_TILE, MEMORY_TILE, true);
            let (result, tiled_bytes) =
                METER.peak_during(|| tiled_attention(q.view(), k.view(), v.view(), tiling));
            result?;
            rows.push((t, plain_bytes, tiled_bytes));
        }
        Ok(rows)
    });
    d.line(
        &format!(
            "peak extra memory of one head's causal forward, hs = {MEMORY_HS}, tiles {MEMORY_TILE} × {MEMORY_TILE} (plain / tiled, bytes): "
        ),
        || {
            let lines: Vec<String> = peaks
                .got()?
                .iter()
                .map(|(t, p, tl)| {
                    format!("\n  T = {t:>4}: {p:>9} / {tl:>7}  ({:.0}× less)", *p as f64 / *tl as f64)
                })
                .collect();
            Ok(lines.concat())
        },
    );
    d.figure(
        "lesson09-peak-memory",
        "Lesson 9: peak extra memory, plain (row 0) and tiled (row 1), log2 of bytes",
        |f| {
            let rows = peaks.got()?;
            let grid = Array2::from_shape_fn((2, rows.len()), |(r, c)| {
                let bytes = if r == 0 { rows[c].1 } else { rows[c].2 };
                (bytes as f64).log2()
            });
            let cols: Vec<String> = rows.iter().map(|(t, _, _)| format!("T={t}")).collect();
            Ok(f.axes("forward", "sequence length")
                .labels(&["plain", "tiled"], &cols)
                .panel("log2(peak bytes)", grid.view())
                .scaled_to_max())
        },
    );
}

/// The core crate's plain and tiled forwards at `T = 4096` (one head, not causal): the peak
/// extra bytes of each (`docs/bench-core.md` times them, optimised).
fn core_memory(d: &Demo) {
    d.line(
        &format!("the core crate at T = {CORE_T}, hs = {CORE_HS}, tiles 128 × 128 (scaled_dot_product / tiled::tiled_attention): "),
        || {
            let mut rng = attention::rng::RandomState::new(0);
            let q: ndarray::Array3<f64> = rng.randn((1, CORE_T, CORE_HS));
            let (k, v): (ndarray::Array3<f64>, ndarray::Array3<f64>) =
                (rng.randn((1, CORE_T, CORE_HS)), rng.randn((1, CORE_T, CORE_HS)));
            let none: Option<&ndarray::ArrayView2<bool>> = None;
            let (plain, plain_bytes) =
                METER.peak_during(|| scaled_dot_product(q.view(), k.view(), v.view(), none));
            let config = attention::tiled::TileConfig::default();
            let (tiled, tiled_bytes) = METER
                .peak_during(|| attention::tiled::tiled_attention(q.view(), k.view(), v.view(), config));
            let (plain, tiled) = (plain?.0, tiled?.0);
            let diff = plain.iter().zip(&tiled).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            Ok(format!(
                "{plain_bytes} / {tiled_bytes} bytes ({:.0}× less), outputs {diff:.1e} apart",
                plain_bytes as f64 / tiled_bytes as f64
            ))
        },
    );
}
