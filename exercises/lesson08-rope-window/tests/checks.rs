//! The checks of lesson 8, shared by the exercise crate (`lesson08`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//!
//! The rotation is compared with complex numbers multiplied out in this file, and decoding with
//! attention over the whole sequence computed by the core crate (`attention::attend`) on keys and
//! queries rotated here, never with your own functions.

use attention::attend::scaled_dot_product;
use attention::mask::causal;
use attention::rng::RandomState;
use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, max_abs_diff, property};
use lesson08::setup::{B, BASE, H, H_KV, HS, T, W, kv_cache_bytes, labelled};
use lesson08::*;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView4, Axis, array, s};

/// RoPE written with complex numbers: pair `(a, b)` of features is `z = x[a] + i·x[b]`, and
/// position `p` multiplies it by `e^{i p θ_j}`, `θ_j = base^(-2j/hs)`. Rotate-half pairs are
/// `(j, j + hs/2)`, interleaved ones `(2j, 2j + 1)`.
fn rotate_by_hand(x: ArrayView4<f64>, start: usize, base: f64, interleaved: bool) -> Array4<f64> {
    let (nb, nh, nt, hs) = x.dim();
    let half = hs / 2;
    let mut out = x.to_owned();
    for (b, h, t, j) in (0..nb).flat_map(|b| {
        (0..nh).flat_map(move |h| (0..nt).flat_map(move |t| (0..half).map(move |j| (b, h, t, j))))
    }) {
        let (a, c) = if interleaved {
            (2 * j, 2 * j + 1)
        } else {
            (j, j + half)
        };
        let angle = (start + t) as f64 * base.powf(-2.0 * j as f64 / hs as f64);
        let (re, im) = (x[[b, h, t, a]], x[[b, h, t, c]]);
        let (cos, sin) = (angle.cos(), angle.sin());
        out[[b, h, t, a]] = re * cos - im * sin;
        out[[b, h, t, c]] = re * sin + im * cos;
    }
    out
}

/// `i − W < j <= i`, written out here.
fn window_by_hand(t: usize, w: usize) -> Array2<bool> {
    Array2::from_shape_fn((t, t), |(i, j)| j <= i && i < j + w)
}

/// Attention with RoPE over the whole sequence, by the core crate: `q` `(B, H, T, hs)`, `k` and
/// `v` `(B, H_kv, T, hs)`, `allowed` `(T, T)`; query head `i` reads key/value head `i / n_rep`.
/// Returns `(outputs (B, H, T, hs), weights (B, H, T, T))`.
fn full_rope_attention(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    allowed: &Array2<bool>,
) -> (Array4<f64>, Array4<f64>) {
    let (b, h, t, hs) = q.dim();
    let n_rep = h / k.dim().1;
    let (rq, rk) = (
        rotate_by_hand(q, 0, BASE, false),
        rotate_by_hand(k, 0, BASE, false),
    );
    let mut out = Array4::zeros((b, h, t, hs));
    let mut weights = Array4::zeros((b, h, t, t));
    for i in 0..h {
        let g = i / n_rep;
        let (o, w) = scaled_dot_product(
            rq.index_axis(Axis(1), i),
            rk.index_axis(Axis(1), g),
            v.index_axis(Axis(1), g),
            Some(&allowed.view()),
        )
        .unwrap();
        out.index_axis_mut(Axis(1), i).assign(&o);
        weights.index_axis_mut(Axis(1), i).assign(&w);
    }
    (out, weights)
}

/// Feeds `q`, `k`, `v` token by token through `step`; returns every step's output
/// `(B, H, T, hs)` and every step's weights.
fn decode_all<E: std::fmt::Debug>(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    mut step: impl FnMut(
        ndarray::ArrayView3<f64>,
        ndarray::ArrayView3<f64>,
        ndarray::ArrayView3<f64>,
    ) -> Result<(Array3<f64>, Array3<f64>), E>,
) -> Result<(Array4<f64>, Vec<Array3<f64>>), E> {
    let mut out = Array4::zeros(q.dim());
    let mut weights = Vec::new();
    for t in 0..q.dim().2 {
        let (o, w) = step(
            q.index_axis(Axis(2), t),
            k.index_axis(Axis(2), t),
            v.index_axis(Axis(2), t),
        )?;
        out.index_axis_mut(Axis(2), t).assign(&o);
        weights.push(w);
    }
    Ok((out, weights))
}

/// Random `(q, k, v)`: `(B, H, T, hs)` and twice `(B, H_kv, T, hs)`.
fn random_qkv(
    rng: &mut RandomState,
    (b, h, h_kv, t, hs): (usize, usize, usize, usize, usize),
) -> (Array4<f64>, Array4<f64>, Array4<f64>) {
    (
        rng.randn((b, h, t, hs)),
        rng.randn((b, h_kv, t, hs)),
        rng.randn((b, h_kv, t, hs)),
    )
}

/// The key or value of token `p`, `(B, H_kv, hs)`, labelled `b*1000 + i*100 + p*10 + j`.
fn labelled_token(p: usize, b: usize, h_kv: usize, hs: usize) -> Array3<f64> {
    Array3::from_shape_fn((b, h_kv, hs), |(b, i, j)| {
        (b * 1000 + i * 100 + p * 10 + j) as f64
    })
}

// ---- rope_frequencies --------------------------------------------------------------------------

#[test]
fn rope_frequencies_by_hand() {
    let _proof = course_check::proof();
    for (hs, base, expected) in [
        (8, 10000.0, array![1.0, 0.1, 0.01, 0.001]),
        (4, 100.0, array![1.0, 0.1]),
        (2, 500.0, array![1.0]),
    ] {
        let theta = rope_frequencies(hs, base).unwrap();
        assert_eq!(theta.len(), hs / 2, "one frequency per pair");
        assert!(
            max_abs_diff(&theta, &expected) < 1e-12,
            "hs = {hs}, base = {base}: expected {expected}, got {theta} (θ_i = base^(-2i/hs))"
        );
    }
}

#[test]
fn rope_frequencies_refuses_odd_sizes() {
    let _proof = course_check::proof();
    for hs in [0, 3, 7] {
        assert!(
            rope_frequencies(hs, BASE).is_err(),
            "hs = {hs} cannot be cut into pairs"
        );
    }
}

// ---- apply_rope --------------------------------------------------------------------------------

#[test]
fn apply_rope_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let rotated = apply_rope(ex.q.view(), 0, BASE).unwrap();
    assert_eq!(
        rotated.shape(),
        &[B, H, T, HS],
        "(B, h, T, hs) in, the same out"
    );
    assert_close_snapshot!("apply_rope_worked_q", rotated);
}

#[test]
fn apply_rope_position_zero_is_identity() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let first = ex.q.slice(s![.., .., ..1, ..]);
    assert_eq!(
        apply_rope(first, 0, BASE).unwrap(),
        first.to_owned(),
        "the token at position 0 is turned by angle 0: unchanged"
    );
    let all = apply_rope(ex.q.view(), 0, BASE).unwrap();
    let tail = apply_rope(ex.q.slice(s![.., .., 3.., ..]), 3, BASE).unwrap();
    assert!(
        max_abs_diff(&tail, &all.slice(s![.., .., 3.., ..])) < 1e-12,
        "rows 3.. rotated with start = 3 must equal rows 3.. of the whole text rotated from 0"
    );
}

#[test]
fn apply_rope_matches_complex_numbers() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(7);
    let x: Array4<f64> = rng.randn((2, 3, 5, 6));
    for (start, base) in [(11, 100.0), (0, BASE), (1000, 500000.0)] {
        let got = apply_rope(x.view(), start, base).unwrap();
        let expected = rotate_by_hand(x.view(), start, base, false);
        let diff = max_abs_diff(&got, &expected);
        assert!(
            diff < 1e-12,
            "start = {start}, base = {base}: differs from (x_j + i x_(j+hs/2)) e^(i p θ_j) by {diff:e}"
        );
        let norms = |a: &Array4<f64>| a.map_axis(Axis(3), |r| r.dot(&r).sqrt());
        assert!(
            max_abs_diff(&norms(&got), &norms(&x)) < 1e-12,
            "a rotation keeps every vector's length"
        );
    }
}

// ---- apply_rope_interleaved --------------------------------------------------------------------

#[test]
fn apply_rope_interleaved_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let rotated = apply_rope_interleaved(ex.k.view(), 0, BASE).unwrap();
    assert_eq!(rotated.shape(), &[B, H_KV, T, HS]);
    assert_close_snapshot!("apply_rope_interleaved_worked_k", rotated);
}

#[test]
fn apply_rope_interleaved_through_the_layout() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(8);
    let x: Array4<f64> = rng.randn((1, 2, 4, 8));
    let half_first = apply_rope(interleaved_to_half(x.view()).unwrap().view(), 5, BASE).unwrap();
    let interleaved = apply_rope_interleaved(x.view(), 5, BASE).unwrap();
    let moved = interleaved_to_half(interleaved.view()).unwrap();
    let diff = max_abs_diff(&half_first, &moved);
    assert!(
        diff < 1e-12,
        "apply_rope(interleaved_to_half(x)) and interleaved_to_half(apply_rope_interleaved(x)) differ by {diff:e}"
    );
}

// ---- interleaved_to_half -----------------------------------------------------------------------

#[test]
fn interleaved_to_half_labelled() {
    let _proof = course_check::proof();
    let moved = interleaved_to_half(labelled(2, 2, 3, 6).view()).unwrap();
    assert_exact_snapshot!(
        "interleaved_to_half_labelled",
        moved,
        encoding = "b*1000 + i*100 + t*10 + j"
    );
}

#[test]
fn interleaved_to_half_refuses_odd_sizes() {
    let _proof = course_check::proof();
    for hs in [0, 3, 5] {
        assert!(
            interleaved_to_half(labelled(1, 1, 2, hs).view()).is_err(),
            "hs = {hs} has a feature without a partner"
        );
    }
}

// ---- rope_scores -------------------------------------------------------------------------------

#[test]
fn rope_scores_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let q = ex.q.slice(s![.., ..1, .., ..]);
    let scores = rope_scores(q, ex.k.view(), 0, 0, BASE).unwrap();
    assert_eq!(scores.shape(), &[B, 1, T, T], "(B, h, T, S)");
    assert_close_snapshot!("rope_scores_worked", scores);
}

#[test]
fn rope_scores_depend_only_on_the_offset() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(9);
    let q: Array4<f64> = rng.randn((1, 2, 5, 8));
    let k: Array4<f64> = rng.randn((1, 2, 6, 8));
    let at_zero = rope_scores(q.view(), k.view(), 0, 0, BASE).unwrap();
    for shift in [37, 100] {
        let shifted = rope_scores(q.view(), k.view(), shift, shift, BASE).unwrap();
        let diff = max_abs_diff(&shifted, &at_zero);
        assert!(
            diff < 1e-9,
            "positions (m + {shift}, n + {shift}) must score as (m, n): they differ by {diff:e}"
        );
    }
    // One vector at every position: the score of (m, n) is a function of m - n alone.
    let ones = Array4::ones((1, 1, 6, 8));
    let grid = rope_scores(ones.view(), ones.view(), 0, 0, BASE).unwrap();
    for (m, n) in (0..5).flat_map(|m| (0..5).map(move |n| (m, n))) {
        assert!(
            (grid[[0, 0, m + 1, n + 1]] - grid[[0, 0, m, n]]).abs() < 1e-12,
            "a constant query and key: scores ({m}, {n}) and ({}, {}) differ",
            m + 1,
            n + 1
        );
    }
    let one_q = q.slice(s![.., .., ..1, ..]);
    let one_k = k.slice(s![.., .., ..1, ..]);
    let plain = (&one_q * &one_k).sum() / 8f64.sqrt() / 2.0;
    let got = rope_scores(one_q, one_k, 0, 0, BASE).unwrap().sum() / 2.0;
    assert!(
        (got - plain).abs() < 1e-12,
        "at positions (0, 0) nothing turns: the score is q · k / √hs"
    );
}

// ---- rope_decode_step --------------------------------------------------------------------------

#[test]
fn rope_decode_step_equals_full_rope_attention() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(10);
    for shape in [(2, 4, 2, 6, 4), (1, 3, 3, 5, 6), (1, 4, 1, 7, 8)] {
        let (b, h, h_kv, t, hs) = shape;
        let (q, k, v) = random_qkv(&mut rng, shape);
        let mut cache = KvCache::new(b, h_kv, hs, t);
        let (stepped, weights) = decode_all(q.view(), k.view(), v.view(), |q, k, v| {
            rope_decode_step(q, k, v, &mut cache, BASE)
        })
        .unwrap();
        let (full, full_weights) = full_rope_attention(q.view(), k.view(), v.view(), &causal(t, t));
        let diff = max_abs_diff(&stepped, &full);
        assert!(
            diff < 1e-10,
            "B = {b}, H = {h}, H_kv = {h_kv}, T = {t}, hs = {hs}: token-by-token decoding differs \
             from causal attention with RoPE over the whole sequence by {diff:e}"
        );
        let last = full_weights.slice(s![.., .., t - 1, ..]);
        assert!(
            max_abs_diff(&weights[t - 1], &last) < 1e-10,
            "the last token's weights must be the last row of the full weights"
        );
    }
}

#[test]
fn rope_decode_step_cache_holds_rotated_keys() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let mut cache = KvCache::new(B, H_KV, HS, T);
    decode_all(ex.q.view(), ex.k.view(), ex.v.view(), |q, k, v| {
        rope_decode_step(q, k, v, &mut cache, BASE)
    })
    .unwrap();
    let rotated = rotate_by_hand(ex.k.view(), 0, BASE, false);
    let diff = max_abs_diff(&cache.keys(), &rotated);
    assert!(
        diff < 1e-12,
        "position p of the cache holds key p rotated at p: off by {diff:e}"
    );
    assert_eq!(
        cache.values(),
        ex.v.view(),
        "the values are cached as they are: RoPE turns queries and keys only"
    );
}

#[test]
fn rope_decode_step_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let mut cache = KvCache::new(B, H_KV, HS, T);
    let (out, weights) = decode_all(ex.q.view(), ex.k.view(), ex.v.view(), |q, k, v| {
        rope_decode_step(q, k, v, &mut cache, BASE)
    })
    .unwrap();
    assert_eq!(weights[T - 1].shape(), &[B, H, T], "(B, H, len)");
    assert_close_snapshot!("rope_decode_outputs", out);
    assert_close_snapshot!("rope_decode_last_weights", weights[T - 1]);
}

#[test]
fn rope_decode_step_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let mut cache = KvCache::new(1, 2, 4, 1);
    let (q, kv) = (Array3::ones((1, 4, 4)), Array3::ones((1, 2, 4)));
    for (q, k, what) in [
        (
            Array3::ones((1, 3, 4)),
            kv.clone(),
            "H = 3 query heads cannot share H_kv = 2",
        ),
        (
            Array3::ones((1, 4, 2)),
            kv.clone(),
            "hs = 2 against a cache of hs = 4",
        ),
        (
            q.clone(),
            Array3::ones((1, 4, 4)),
            "keys of H = 4 heads for H_kv = 2",
        ),
    ] {
        assert!(
            rope_decode_step(q.view(), k.view(), kv.view(), &mut cache, BASE).is_err(),
            "{what}"
        );
        assert!(cache.is_empty(), "{what}: nothing may be appended");
    }
    assert!(rope_decode_step(q.view(), kv.view(), kv.view(), &mut cache, BASE).is_ok());
    let before = cache.clone();
    assert!(
        rope_decode_step(q.view(), kv.view(), kv.view(), &mut cache, BASE).is_err(),
        "a full cache"
    );
    assert_eq!(cache, before, "a refused step leaves the cache as it was");
}

// ---- window_mask -------------------------------------------------------------------------------

#[test]
fn window_mask_by_hand() {
    let _proof = course_check::proof();
    let expected = array![
        [true, false, false, false, false],
        [true, true, false, false, false],
        [false, true, true, false, false],
        [false, false, true, true, false],
        [false, false, false, true, true],
    ];
    assert_eq!(
        window_mask(5, 2),
        expected,
        "W = 2: each token and the one before"
    );
    assert_eq!(window_mask(4, 4), causal(4, 4), "W >= T is the causal mask");
    assert_eq!(window_mask(4, 9), causal(4, 4), "W >= T is the causal mask");
    assert_eq!(
        window_mask(3, 1),
        Array2::from_shape_fn((3, 3), |(i, j)| i == j),
        "W = 1: each token reads itself only"
    );
}

// ---- ring_in_time_order ------------------------------------------------------------------------

/// A ring of window `w` for `(B, H_kv, hs) = (1, 2, 3)` after `n` labelled tokens (values are
/// the keys negated).
fn labelled_ring(w: usize, n: usize) -> RingCache {
    let mut ring = RingCache::new(1, 2, 3, w);
    for p in 0..n {
        let k = labelled_token(p, 1, 2, 3);
        ring.push(k.view(), (-&k).view()).unwrap();
    }
    ring
}

#[test]
fn ring_in_time_order_before_the_wrap() {
    let _proof = course_check::proof();
    let ring = labelled_ring(4, 3);
    let (keys, values) = ring_in_time_order(&ring);
    assert_eq!(
        keys.shape(),
        &[1, 2, 3, 3],
        "(B, H_kv, len, hs), len = 3 tokens pushed"
    );
    assert_eq!(keys.view(), ring.key_slots().slice(s![.., .., ..3, ..]));
    assert_eq!(values, -keys, "values travel with their keys");
}

#[test]
fn ring_in_time_order_after_the_wrap() {
    let _proof = course_check::proof();
    // Window 3 after 5 tokens: slots hold tokens 3, 4, 2; in time order 2, 3, 4.
    let ring = labelled_ring(3, 5);
    let (keys, values) = ring_in_time_order(&ring);
    assert_exact_snapshot!(
        "ring_after_5_tokens",
        keys,
        encoding = "b*1000 + i*100 + t*10 + j"
    );
    assert_eq!(values, -&keys, "values travel with their keys");
    let (keys, _) = ring_in_time_order(&labelled_ring(3, 7));
    assert_exact_snapshot!(
        "ring_after_7_tokens",
        keys,
        encoding = "b*1000 + i*100 + t*10 + j"
    );
}

// ---- window_decode_step ------------------------------------------------------------------------

#[test]
fn window_decode_step_equals_windowed_attention() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(11);
    for (shape, w) in [
        ((2, 4, 2, 7, 4), 3),
        ((1, 2, 2, 6, 6), 1),
        ((1, 3, 1, 5, 4), 8),
    ] {
        let (b, h, h_kv, t, hs) = shape;
        let (q, k, v) = random_qkv(&mut rng, shape);
        let mut ring = RingCache::new(b, h_kv, hs, w);
        let (stepped, _) = decode_all(q.view(), k.view(), v.view(), |q, k, v| {
            window_decode_step(q, k, v, &mut ring, BASE)
        })
        .unwrap();
        let (full, _) = full_rope_attention(q.view(), k.view(), v.view(), &window_by_hand(t, w));
        let diff = max_abs_diff(&stepped, &full);
        assert!(
            diff < 1e-10,
            "B = {b}, H = {h}, H_kv = {h_kv}, T = {t}, hs = {hs}, W = {w}: decoding through the \
             ring differs from attention with RoPE under the window mask by {diff:e}"
        );
        assert_eq!(ring.len(), w.min(t), "the ring holds min(T, W) tokens");
    }
}

#[test]
fn window_decode_step_weights_in_time_order() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let mut ring = RingCache::new(B, H_KV, HS, W);
    let (_, weights) = decode_all(ex.q.view(), ex.k.view(), ex.v.view(), |q, k, v| {
        window_decode_step(q, k, v, &mut ring, BASE)
    })
    .unwrap();
    let (_, full) =
        full_rope_attention(ex.q.view(), ex.k.view(), ex.v.view(), &window_by_hand(T, W));
    for (t, w) in weights.iter().enumerate() {
        let first = (t + 1).saturating_sub(W);
        let row = full.slice(s![.., .., t, first..=t]);
        assert_eq!(w.shape(), row.shape(), "token {t}: (B, H, min(t + 1, W))");
        assert!(
            max_abs_diff(w, &row) < 1e-10,
            "token {t}: the weights must be those of tokens {first}..={t}, oldest first, got {w}"
        );
    }
}

#[test]
fn window_decode_step_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let mut ring = RingCache::new(B, H_KV, HS, W);
    let (out, weights) = decode_all(ex.q.view(), ex.k.view(), ex.v.view(), |q, k, v| {
        window_decode_step(q, k, v, &mut ring, BASE)
    })
    .unwrap();
    assert_close_snapshot!("window_decode_outputs", out);
    assert_close_snapshot!("window_decode_last_weights", weights[T - 1]);
}

// ---- window_cache_bytes ------------------------------------------------------------------------

#[test]
fn window_cache_bytes_mistral() {
    let _proof = course_check::proof();
    // Mistral 7B: 32 layers, 8 key/value heads of 128, fp16; a window of 4096 on a 32k context.
    let full = kv_cache_bytes(32, 8, 128, 32768, 2);
    let windowed = window_cache_bytes(32, 8, 128, 32768, 4096, 2);
    assert_eq!(windowed, 536_870_912, "512 MiB");
    assert_eq!(full / windowed, 8, "32768 / 4096 positions");
}

#[test]
fn window_cache_bytes_short_texts() {
    let _proof = course_check::proof();
    for (t, w) in [(100, 4096), (4096, 4096), (0, 16), (5, 3)] {
        assert_eq!(
            window_cache_bytes(2, 4, 16, t, w, 8),
            kv_cache_bytes(2, 4, 16, t.min(w), 8),
            "T = {t}, W = {w}: min(T, W) positions"
        );
    }
}

// ---- properties: random shapes and values, shrunk to the smallest failing case ---------------

#[test]
fn rope_frequencies_property() {
    let _proof = course_check::proof();
    property::check(
        "rope_frequencies(hs, base) == base^(-2i/hs) for i in 0..hs/2",
        &[("pairs", 8), ("digits", 5)],
        |case| {
            let (pairs, base) = (case["pairs"], 10f64.powi(case["digits"] as i32));
            let hs = 2 * pairs;
            let theta = rope_frequencies(hs, base).map_err(case.error())?;
            let expected = Array1::from_shape_fn(pairs, |i| base.powf(-2.0 * i as f64 / hs as f64));
            property::close(&expected, &theta).map_err(|why| format!("base = {base}: {why}"))
        },
    );
}

#[test]
fn apply_rope_property() {
    let _proof = course_check::proof();
    property::check(
        "apply_rope(x, start) turns pair (j, j + hs/2) of row t by (start + t) θ_j",
        &[("B", 2), ("h", 2), ("T", 4), ("pairs", 3), ("start", 6)],
        |case| {
            let (b, h, t, hs) = (case["B"], case["h"], case["T"], 2 * case["pairs"]);
            let start = (case["start"] - 1) * 7;
            let x = case.array((b, h, t, hs));
            let got = apply_rope(x.view(), start, BASE).map_err(case.error())?;
            property::close(&rotate_by_hand(x.view(), start, BASE, false), &got)
                .map_err(|why| format!("start = {start}: {why}"))
        },
    );
}

#[test]
fn apply_rope_interleaved_property() {
    let _proof = course_check::proof();
    property::check(
        "apply_rope_interleaved(x, start) turns pair (2j, 2j + 1) of row t by (start + t) θ_j",
        &[("B", 2), ("h", 2), ("T", 4), ("pairs", 3), ("start", 6)],
        |case| {
            let (b, h, t, hs) = (case["B"], case["h"], case["T"], 2 * case["pairs"]);
            let start = (case["start"] - 1) * 7;
            let x = case.array((b, h, t, hs));
            let got = apply_rope_interleaved(x.view(), start, BASE).map_err(case.error())?;
            property::close(&rotate_by_hand(x.view(), start, BASE, true), &got)
                .map_err(|why| format!("start = {start}: {why}"))
        },
    );
}

#[test]
fn interleaved_to_half_property() {
    let _proof = course_check::proof();
    property::check(
        "interleaved_to_half(x)[j] == x[2j] and [hs/2 + j] == x[2j + 1]",
        &[("B", 2), ("h", 3), ("T", 3), ("pairs", 4)],
        |case| {
            let (b, h, t, half) = (case["B"], case["h"], case["T"], case["pairs"]);
            let x = labelled(b, h, t, 2 * half);
            let got = interleaved_to_half(x.view()).map_err(case.error())?;
            let expected = Array4::from_shape_fn(x.dim(), |(b, i, t, j)| {
                let from = if j < half { 2 * j } else { 2 * (j - half) + 1 };
                x[[b, i, t, from]]
            });
            property::exactly(&expected, &got, Some("b*1000 + i*100 + t*10 + j"))
        },
    );
}

#[test]
fn rope_scores_property() {
    let _proof = course_check::proof();
    property::check(
        "rope_scores(q, k, m, n) == R(m) q · R(n) k / √hs, and the same at (m + d, n + d)",
        &[
            ("B", 2),
            ("h", 2),
            ("T", 3),
            ("S", 3),
            ("pairs", 3),
            ("shift", 4),
        ],
        |case| {
            let (b, h, t, s_len, hs) = (
                case["B"],
                case["h"],
                case["T"],
                case["S"],
                2 * case["pairs"],
            );
            let shift = (case["shift"] - 1) * 50;
            let (q, k) = (case.array((b, h, t, hs)), case.array((b, h, s_len, hs)));
            let (rq, rk) = (
                rotate_by_hand(q.view(), 3, BASE, false),
                rotate_by_hand(k.view(), 1, BASE, false),
            );
            let expected = Array4::from_shape_fn((b, h, t, s_len), |(bi, i, ti, si)| {
                rq.slice(s![bi, i, ti, ..])
                    .dot(&rk.slice(s![bi, i, si, ..]))
                    / (hs as f64).sqrt()
            });
            let got = rope_scores(q.view(), k.view(), 3, 1, BASE).map_err(case.error())?;
            property::close(&expected, &got)?;
            let shifted = rope_scores(q.view(), k.view(), 3 + shift, 1 + shift, BASE)
                .map_err(case.error())?;
            property::close(&expected, &shifted)
                .map_err(|why| format!("both positions shifted by {shift}: {why}"))
        },
    );
}

#[test]
fn rope_decode_step_property() {
    let _proof = course_check::proof();
    property::check(
        "rope_decode_step, token by token == causal attention with RoPE over the whole sequence",
        &[("B", 2), ("H_kv", 2), ("n_rep", 2), ("T", 5), ("pairs", 2)],
        |case| {
            let (b, h_kv, n, t, hs) = (
                case["B"],
                case["H_kv"],
                case["n_rep"],
                case["T"],
                2 * case["pairs"],
            );
            let (q, k, v) = (
                case.array((b, h_kv * n, t, hs)),
                case.array((b, h_kv, t, hs)),
                case.array((b, h_kv, t, hs)),
            );
            let mut cache = KvCache::new(b, h_kv, hs, t);
            let (stepped, weights) = decode_all(q.view(), k.view(), v.view(), |q, k, v| {
                rope_decode_step(q, k, v, &mut cache, BASE)
            })
            .map_err(case.error())?;
            let (full, full_weights) =
                full_rope_attention(q.view(), k.view(), v.view(), &causal(t, t));
            property::close(&full_weights.slice(s![.., .., t - 1, ..]), &weights[t - 1])
                .map_err(|why| format!("the last token's weights: {why}"))?;
            property::close(&full, &stepped)
        },
    );
}

#[test]
fn window_mask_property() {
    let _proof = course_check::proof();
    property::check(
        "window_mask(T, W)[i, j] == (j <= i and i - j < W)",
        &[("T", 7), ("W", 7)],
        |case| {
            let (t, w) = (case["T"], case["W"]);
            let got = window_mask(t, w);
            let as_f64 = |m: &Array2<bool>| m.mapv(|a| if a { 1.0 } else { 0.0 });
            property::exactly(&as_f64(&window_by_hand(t, w)), &as_f64(&got), None)
                .map_err(|why| format!("W = {w}: {why}"))
        },
    );
}

#[test]
fn ring_in_time_order_property() {
    let _proof = course_check::proof();
    property::check(
        "after n pushes into a ring of W, ring_in_time_order holds the last min(n, W) tokens, oldest first",
        &[("B", 2), ("H_kv", 2), ("hs", 2), ("W", 4), ("n", 9)],
        |case| {
            let (b, h_kv, hs, w, n) = (case["B"], case["H_kv"], case["hs"], case["W"], case["n"]);
            let mut ring = RingCache::new(b, h_kv, hs, w);
            let tokens: Vec<_> = (0..n).map(|p| labelled_token(p, b, h_kv, hs)).collect();
            for k in &tokens {
                ring.push(k.view(), (-k).view()).map_err(case.error())?;
            }
            let views: Vec<_> = tokens[n - n.min(w)..]
                .iter()
                .map(|k| k.view().insert_axis(Axis(2)))
                .collect();
            let expected = ndarray::concatenate(Axis(2), &views).expect("same shapes");
            let (keys, values) = ring_in_time_order(&ring);
            let at = |why| format!("{n} tokens in a window of {w}: {why}");
            property::exactly(&expected, &keys, Some("b*1000 + i*100 + t*10 + j")).map_err(at)?;
            property::exactly(&(-&expected), &values, None).map_err(at)
        },
    );
}

#[test]
fn window_decode_step_property() {
    let _proof = course_check::proof();
    property::check(
        "window_decode_step, token by token == attention with RoPE under window_mask(T, W), weights oldest first",
        &[
            ("B", 2),
            ("H_kv", 2),
            ("n_rep", 2),
            ("T", 6),
            ("pairs", 2),
            ("W", 4),
        ],
        |case| {
            let (b, h_kv, n, t, hs, w) = (
                case["B"],
                case["H_kv"],
                case["n_rep"],
                case["T"],
                2 * case["pairs"],
                case["W"],
            );
            let (q, k, v) = (
                case.array((b, h_kv * n, t, hs)),
                case.array((b, h_kv, t, hs)),
                case.array((b, h_kv, t, hs)),
            );
            let mut ring = RingCache::new(b, h_kv, hs, w);
            let (stepped, weights) = decode_all(q.view(), k.view(), v.view(), |q, k, v| {
                window_decode_step(q, k, v, &mut ring, BASE)
            })
            .map_err(case.error())?;
            let (full, full_weights) =
                full_rope_attention(q.view(), k.view(), v.view(), &window_by_hand(t, w));
            let first = t - t.min(w);
            property::close(
                &full_weights.slice(s![.., .., t - 1, first..]),
                &weights[t - 1],
            )
            .map_err(|why| format!("W = {w}, the last token's weights: {why}"))?;
            property::close(&full, &stepped).map_err(|why| format!("W = {w}: {why}"))
        },
    );
}
