//! Lesson 8's worked example: RoPE's frequencies, the score pattern of one vector at every
//! position, the same scores shifted by 100 positions, decoding with RoPE through a cache and
//! through a rolling buffer, the window mask, and what a window saves on a 32k context. Every
//! number below is computed by your code; a line that needs a function you have not written yet
//! says so.
//!
//! Run it with `cargo xtask demo lesson08` (`--svg DIR` also writes its figures as SVG files).

use attention::error::shape_string;
use attention::print::np;
use lesson08::setup::{B, BASE, H, H_KV, HS, T, W, kv_cache_bytes};
use lesson08::*;
use ndarray::{Array2, Array3, Array4, Axis, s};
use pictures::{Demo, Got, Val, positions};
use std::process::ExitCode;

/// Positions of the constant query and key in the score-pattern figure.
const PATTERN: usize = 12;
/// How far the second copy of the scores is shifted.
const SHIFT: usize = 100;
/// Mistral 7B's KV cache: layers, key/value heads, head size, bytes a number (fp16).
const MISTRAL: (usize, usize, usize, usize) = (32, 8, 128, 2);
/// A 32k context and Mistral 7B's window.
const CONTEXT: usize = 32768;
/// Mistral 7B's sliding window.
const MISTRAL_WINDOW: usize = 4096;

/// Prints and draws the worked example.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson08");
    d.say(format!(
        "B = {B}, H = {H} query heads, H_kv = {H_KV}, hs = {HS}, T = {T} tokens, base {BASE}; window W = {W}"
    ));
    d.line(&format!("θ for hs = {HS}: "), || {
        let theta = rope_frequencies(HS, BASE)?;
        Ok(theta
            .iter()
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
            .join(", "))
    });
    pattern(&d);
    shifted(&d);
    decoding(&d);
    let (layers, h_kv, hs, bytes) = MISTRAL;
    d.line(
        &format!("KV cache of Mistral 7B ({layers} layers, H_kv = {h_kv}, hs = {hs}, fp16), {CONTEXT} tokens: "),
        || {
            let full = kv_cache_bytes(layers, h_kv, hs, CONTEXT, bytes);
            let windowed = window_cache_bytes(layers, h_kv, hs, CONTEXT, MISTRAL_WINDOW, bytes);
            Ok(format!(
                "{} bytes ({} MiB) for every position, {} bytes ({} MiB) with a window of {MISTRAL_WINDOW}",
                full,
                full >> 20,
                windowed,
                windowed >> 20
            ))
        },
    );
    d.finish()
}

/// One vector at every position: its scores against itself, a function of m − n only.
fn pattern(d: &Demo) {
    let ones = Array4::ones((1, 1, PATTERN, HS));
    let grid = d.value(|| {
        let s = rope_scores(ones.view(), ones.view(), 0, 0, BASE)?;
        Ok(s.slice(s![0, 0, .., ..]).to_owned())
    });
    d.line(
        "constant q = k = 1, scores of position 0 against 0..12: ",
        || Ok(format!("{}", np(&grid.got()?.row(0)))),
    );
    d.figure(
        "lesson08-relative-scores",
        "Lesson 8: one vector at every position, scored with RoPE",
        |f| {
            let g = grid.got()?;
            // Scores run from about -√hs to √hs; (1 + s / s(0, 0)) / 2 puts them on [0, 1].
            let top = g[[0, 0]];
            Ok(f.axes("query position m", "key position n").panel(
                "(1 + score / score(0, 0)) / 2",
                g.mapv(|v| (1.0 + v / top) / 2.0).view(),
            ))
        },
    );
}

/// The worked example's scores at positions (m, n) and at (m + 100, n + 100).
fn shifted(d: &Demo) {
    let ex = worked_example();
    let q = ex.q.slice(s![.., ..1, .., ..]).to_owned();
    let at = |start| -> Val<Array2<f64>> {
        let s = rope_scores(q.view(), ex.k.view(), start, start, BASE)?;
        Ok(s.slice(s![0, 0, .., ..]).to_owned())
    };
    let (near, far) = (d.value(|| at(0)), d.value(|| at(SHIFT)));
    d.line(
        &format!("scores at (m, n) and at (m + {SHIFT}, n + {SHIFT}): "),
        || {
            let (a, b) = (near.got()?, far.got()?);
            let diff = a
                .iter()
                .zip(b)
                .map(|(x, y)| (x - y).abs())
                .fold(0.0, f64::max);
            Ok(format!(
                "largest difference {diff:.1e}; row 7 at (m, n):\n{}",
                np(&a.row(T - 1))
            ))
        },
    );
    d.figure(
        "lesson08-shifted-scores",
        "Lesson 8: the same scores, 100 positions later",
        |f| {
            let (a, b) = (near.got()?, far.got()?);
            let low = a.iter().chain(b.iter()).copied().fold(0.0, f64::min);
            let shown = |m: &Array2<f64>| m.mapv(|v| v - low);
            Ok(f.axes("query position", "key position")
                .panel("positions (m, n)", shown(a).view())
                .panel(
                    format!("positions (m + {SHIFT}, n + {SHIFT})"),
                    shown(b).view(),
                )
                .scaled_to_max())
        },
    );
}

/// Decodes the worked example through a KV cache, then through a rolling buffer of `W`.
fn decoding(d: &Demo) {
    let ex = worked_example();
    let mut cache = KvCache::new(B, H_KV, HS, T);
    let mut ring = RingCache::new(B, H_KV, HS, W);
    let cached = d.value(|| {
        steps(&ex, |q, k, v| {
            Ok(rope_decode_step(q, k, v, &mut cache, BASE)?)
        })
    });
    d.line(
        "decoding with RoPE through a KV cache, the last token's weights: ",
        || {
            let w = cached.got()?;
            Ok(format!(
                "{}\n{}",
                shape_string(w.shape()),
                np(&w.index_axis(Axis(0), 0))
            ))
        },
    );
    let windowed = d.value(|| {
        steps(&ex, |q, k, v| {
            Ok(window_decode_step(q, k, v, &mut ring, BASE)?)
        })
    });
    d.line(&format!("through a rolling buffer of W = {W}: "), || {
        let w = windowed.got()?;
        let (keys, _) = ring_in_time_order(&ring);
        Ok(format!(
            "{} tokens pushed, {} held, keys in time order {}; the last token's weights {}\n{}",
            ring.pushed(),
            ring.len(),
            shape_string(keys.shape()),
            shape_string(w.shape()),
            np(&w.index_axis(Axis(0), 0))
        ))
    });
    let mask = d.value(|| Ok(window_mask(T, W)));
    d.figure(
        "lesson08-window-mask",
        "Lesson 8: the sliding window, causal with W = 3",
        |f| {
            Ok(f.axes("query position", "key position")
                .labels(&positions(T), &positions(T))
                .mask("allowed (1) / outside (0)", mask.got()?.view()))
        },
    );
}

/// Feeds every token of the worked example to `step`; returns the last step's weights.
fn steps(
    ex: &WorkedExample,
    mut step: impl FnMut(
        ndarray::ArrayView3<f64>,
        ndarray::ArrayView3<f64>,
        ndarray::ArrayView3<f64>,
    ) -> Val<(Array3<f64>, Array3<f64>)>,
) -> Val<Array3<f64>> {
    let mut last = Array3::zeros((B, H, 0));
    for t in 0..T {
        let (_, w) = step(
            ex.q.index_axis(Axis(2), t),
            ex.k.index_axis(Axis(2), t),
            ex.v.index_axis(Axis(2), t),
        )?;
        last = w;
    }
    Ok(last)
}
