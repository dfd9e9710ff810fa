//! Lesson 3's worked example: attention for two sequences and two heads in one batched call, with
//! pictures of every head and of the masks. Every shape and number below is computed by your code
//!; a line that needs a function you have not written yet
//! says so.
//!
//! Run it with `cargo xtask demo lesson03` (`--svg DIR` also writes its figures as SVG files).

use attention::error::shape_string;
use attention::print::np;
use lesson03::setup::{B, H, HS, LENGTHS, S, T};
use lesson03::{
    WorkedExample, attention_scores, causal_mask, padding_mask, parallel_attention, worked_example,
};
use ndarray::{Array4, ArrayView4, Axis, s};
use pictures::{Demo, Got, Skip, Val, positions};
use std::process::ExitCode;

type Attended = (Array4<f64>, Array4<f64>);

/// Runs the example and prints shapes, weights, pictures and the figures the lesson quotes.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson03");
    let WorkedExample { q, k, v } = worked_example();
    d.say(format!(
        "seed 42: B = {B}, h = {H}, T = {T}, S = {S}, hs = {HS} (model width {})",
        H * HS
    ));
    d.say(format!("q (B, h, T, hs): {}", shape_string(q.shape())));
    d.say(format!("k (B, h, S, hs): {}", shape_string(k.shape())));
    d.say(format!("v (B, h, S, hs): {}", shape_string(v.shape())));

    d.line("\nscores (B, h, T, S): ", || {
        let scores = attention_scores(q.view(), k.view())?;
        Ok(format!(
            "{}, {}",
            shape_string(scores.shape()),
            scale_of(&scores, q.view(), k.view())?
        ))
    });

    let plain: Val<Attended> =
        d.value(|| Ok(parallel_attention(q.view(), k.view(), v.view(), None)?));
    d.line("weights (B, h, T, S): ", || {
        let (out, w) = plain.got()?;
        Ok(format!(
            "{} = {} numbers; output (B, h, T, hs): {}",
            shape_string(w.shape()),
            w.len(),
            shape_string(out.shape())
        ))
    });
    for i in 0..H {
        d.say(format!("\nsequence 0, head {i}: weights (T, S)"));
        d.line("", || {
            Ok(np(&plain.got()?.1.slice(s![0, i, .., ..])).to_string())
        });
    }
    d.say("");
    d.figure(
        "lesson03-weights",
        "Lesson 3: every head's weights, sequence 0",
        |mut f| {
            let w = &plain.got()?.1;
            for i in 0..w.dim().1 {
                f = f.panel(format!("head {i}"), w.slice(s![0, i, .., ..]));
            }
            Ok(f.labels(&positions(T), &positions(S)).scaled_to_max())
        },
    );
    d.line("every row sums to 1: largest |row sum - 1| = ", || {
        let worst = plain
            .got()?
            .1
            .sum_axis(Axis(3))
            .iter()
            .map(|x| (x - 1.0).abs())
            .fold(0.0, f64::max);
        Ok(format!("{worst:e}"))
    });
    d.line(
        "head-by-head loop vs batched call: largest difference = ",
        || {
            Ok(format!(
                "{:e}",
                head_loop_gap(plain.got()?, q.view(), k.view(), v.view())?
            ))
        },
    );

    let pad = padding_mask(&LENGTHS, S);
    d.say(format!(
        "\npadding mask {} for source lengths {LENGTHS:?}: sequence 1, head 1",
        shape_string(pad.shape())
    ));
    d.line("", || {
        let (_, w) = parallel_attention(q.view(), k.view(), v.view(), Some(pad.view()))?;
        Ok(np(&w.slice(s![1, 1, .., ..])).to_string())
    });
    d.say("");
    d.figure(
        "lesson03-padding-mask",
        "Lesson 3: padding mask (which keys each sequence may read)",
        |f| {
            let rows: Vec<String> = (0..B).map(|b| format!("seq {b}")).collect();
            Ok(f.axes("sequence", "key position")
                .labels(&rows, &positions(S))
                .mask("allowed (1) / padding (0)", pad.slice(s![.., 0, 0, ..])))
        },
    );

    let x = k.slice(s![.., .., ..T, ..]);
    let causal = d.value(|| Ok(causal_mask(T, T)));
    let w_causal: Val<Attended> =
        d.value(|| Ok(parallel_attention(x, x, x, Some(causal.got()?.view()))?));
    d.line(
        &format!("\ncausal self-attention over the first {T} positions, mask "),
        || {
            Ok(format!(
                "{}: sequence 0, head 0",
                shape_string(causal.got()?.shape())
            ))
        },
    );
    d.line("", || {
        Ok(np(&w_causal.got()?.1.slice(s![0, 0, .., ..])).to_string())
    });
    d.say("");
    d.figure("lesson03-causal-mask", "Lesson 3: causal mask", |f| {
        let m = causal.got()?;
        if m.dim().0 != 1 || m.dim().1 != 1 {
            return Err(Skip::Error(format!(
                "causal_mask returned {}, not (1, 1, T, S)",
                shape_string(m.shape())
            )));
        }
        Ok(f.axes("query position", "key position")
            .labels(&positions(T), &positions(T))
            .mask("allowed (1) / future (0)", m.slice(s![0, 0, .., ..])))
    });
    d.figure(
        "lesson03-causal-weights",
        "Lesson 3: causal self-attention, sequence 0",
        |mut f| {
            let w = &w_causal.got()?.1;
            for i in 0..w.dim().1 {
                f = f.panel(format!("head {i}"), w.slice(s![0, i, .., ..]));
            }
            Ok(f.labels(&positions(T), &positions(T)).scaled_to_max())
        },
    );

    let mut allowed = Array4::from_elem((B, H, T, S), true);
    allowed.slice_mut(s![0, 1, 2, ..]).fill(false);
    let masked: Val<Attended> = d.value(|| {
        Ok(parallel_attention(
            q.view(),
            k.view(),
            v.view(),
            Some(allowed.view()),
        )?)
    });
    d.say("sequence 0, head 1, query 2 may read no key:");
    d.line("  weights ", || {
        Ok(np(&masked.got()?.1.slice(s![0, 1, 2, ..])).to_string())
    });
    d.line("  output  ", || {
        Ok(np(&masked.got()?.0.slice(s![0, 1, 2, ..])).to_string())
    });
    d.finish()
}

/// What the scores were multiplied by: the one factor `c` with `scores = c · Q Kᵀ` (fitted by
/// least squares, then checked everywhere), compared with `1/sqrt(hs)`.
fn scale_of(scores: &Array4<f64>, q: ArrayView4<f64>, k: ArrayView4<f64>) -> Result<String, Skip> {
    let hs = q.dim().3;
    let mut raw = Array4::<f64>::zeros((q.dim().0, q.dim().1, q.dim().2, k.dim().2));
    for b in 0..q.dim().0 {
        for i in 0..q.dim().1 {
            let prod = q
                .slice(s![b, i, .., ..])
                .dot(&k.slice(s![b, i, .., ..]).t());
            raw.slice_mut(s![b, i, .., ..]).assign(&prod);
        }
    }
    if raw.shape() != scores.shape() {
        return Ok(format!(
            "not the shape of Q Kᵀ {}",
            shape_string(raw.shape())
        ));
    }
    let (sr, rr) = scores
        .iter()
        .zip(raw.iter())
        .fold((0.0, 0.0), |(sr, rr), (s, r)| (sr + s * r, rr + r * r));
    let c = sr / rr;
    let gap = scores
        .iter()
        .zip(raw.iter())
        .map(|(s, r)| (s - c * r).abs())
        .fold(0.0, f64::max);
    let expected = 1.0 / (hs as f64).sqrt();
    Ok(if gap > 1e-9 {
        format!("not Q Kᵀ times one number (off by up to {gap:.3e})")
    } else if (c - expected).abs() <= 1e-12 {
        format!("scaled by 1/sqrt({hs}) = {c}")
    } else {
        format!("scaled by {c:.4}, not 1/sqrt({hs}) = {expected}")
    })
}

/// The largest difference between the batched call and one single-head call per `(b, i)`.
fn head_loop_gap(
    (out, w): &Attended,
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
) -> Result<f64, attention::ShapeError> {
    let mut gap: f64 = 0.0;
    for b in 0..q.dim().0 {
        for i in 0..q.dim().1 {
            let head = s![b..=b, i, .., ..];
            let (o, wi) = attention::attend::scaled_dot_product::<ndarray::Ix3>(
                q.slice(head),
                k.slice(head),
                v.slice(head),
                None,
            )?;
            let pairs = o
                .iter()
                .zip(out.slice(s![b, i, .., ..]))
                .chain(wi.iter().zip(w.slice(s![b, i, .., ..])));
            for (a, c) in pairs {
                gap = gap.max((a - c).abs());
            }
        }
    }
    Ok(gap)
}
