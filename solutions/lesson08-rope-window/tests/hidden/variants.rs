//! Lesson 8's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` runs its body through `course_check::variant::check`;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.
//!
//! Every draw keeps the catalogued mistakes visible: head sizes of at least 4 (with one pair the
//! two layouts coincide), positions past 0 (position 0 turns nothing), at least two decoded tokens
//! (the first token's softmax has one key), rings that have wrapped to a slot other than 0.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson08::*;
use ndarray::{Array3, Array4, Axis};

/// `(B, h, T, hs)` with `hs = 2 · pairs`, pairs 2 to 5.
fn draw_shape(v: &mut Variant, t: (usize, usize)) -> (usize, usize, usize, usize) {
    (
        v.between(1, 2),
        v.between(1, 3),
        v.between(t.0, t.1),
        2 * v.between(2, 5),
    )
}

#[test]
fn rope_frequencies_variant() {
    course_check::variant::check("rope_frequencies", rope_frequencies_with);
}

/// Frequencies for head sizes 10 to 24 and bases the fixed checks do not use.
pub fn rope_frequencies_with(v: &mut Variant) {
    let hs = 2 * v.between(5, 12);
    let base = v.pick(&[500.0, 50_000.0, 1_000_000.0]);
    v.shapes(&format!("hs={hs}, base={base}"));
    variant_close_snapshot!("frequencies", rope_frequencies(hs, base).unwrap());
}

#[test]
fn apply_rope_variant() {
    course_check::variant::check("apply_rope", apply_rope_with);
}

/// Rotate-half RoPE of a random tensor from a start past 20.
pub fn apply_rope_with(v: &mut Variant) {
    let shape = draw_shape(v, (1, 5));
    let start = v.between(20, 300);
    v.shapes(&format!("(B, h, T, hs)={shape:?}, start={start}"));
    let x: Array4<f64> = v.randn(shape);
    variant_close_snapshot!("rotate_half", apply_rope(x.view(), start, 10000.0).unwrap());
}

#[test]
fn apply_rope_interleaved_variant() {
    course_check::variant::check("apply_rope_interleaved", apply_rope_interleaved_with);
}

/// Interleaved RoPE of a random tensor from a start past 0.
pub fn apply_rope_interleaved_with(v: &mut Variant) {
    let shape = draw_shape(v, (1, 5));
    let start = v.between(1, 300);
    v.shapes(&format!("(B, h, T, hs)={shape:?}, start={start}"));
    let x: Array4<f64> = v.randn(shape);
    let rotated = apply_rope_interleaved(x.view(), start, 10000.0).unwrap();
    variant_close_snapshot!("rotate_interleaved", rotated);
}

#[test]
fn interleaved_to_half_variant() {
    course_check::variant::check("interleaved_to_half", interleaved_to_half_with);
}

/// The layout conversion of a random tensor.
pub fn interleaved_to_half_with(v: &mut Variant) {
    let (b, h, t, _) = draw_shape(v, (1, 4));
    let hs = 2 * v.between(5, 8);
    v.shapes(&format!("B={b}, h={h}, T={t}, hs={hs}"));
    let x: Array4<f64> = v.randn((b, h, t, hs));
    variant_exact_snapshot!("moved", interleaved_to_half(x.view()).unwrap());
}

#[test]
fn rope_scores_variant() {
    course_check::variant::check("rope_scores", rope_scores_with);
}

/// Scores of random queries and keys at random positions past 0.
pub fn rope_scores_with(v: &mut Variant) {
    let (b, h, t, hs) = draw_shape(v, (1, 4));
    let s_len = 2 * v.between(1, 3);
    let (qs, ks) = (v.between(1, 500), v.between(0, 500));
    v.shapes(&format!(
        "B={b}, h={h}, T={t}, S={s_len}, hs={hs}, q_start={qs}, k_start={ks}"
    ));
    let q: Array4<f64> = v.randn((b, h, t, hs));
    let k: Array4<f64> = v.randn((b, h, s_len, hs));
    variant_close_snapshot!(
        "scores",
        rope_scores(q.view(), k.view(), qs, ks, 10000.0).unwrap()
    );
}

/// Random `q (B, H, T, hs)`, `k`, `v (B, H_kv, T, hs)` with `T >= 3` and `H = H_kv · n_rep`.
fn draw_sequence(
    v: &mut Variant,
    t: usize,
    extra: &str,
) -> (Array4<f64>, Array4<f64>, Array4<f64>) {
    let (b, h_kv, hs) = (v.between(1, 2), v.between(1, 2), 2 * v.between(2, 4));
    let h = h_kv * v.between(1, 3);
    v.shapes(&format!("B={b}, H={h}, H_kv={h_kv}, T={t}, hs={hs}{extra}"));
    (
        v.randn((b, h, t, hs)),
        v.randn((b, h_kv, t, hs)),
        v.randn((b, h_kv, t, hs)),
    )
}

/// Every step's `(output, weights)` of `step` over the tokens.
fn steps(
    (q, k, vals): &(Array4<f64>, Array4<f64>, Array4<f64>),
    mut step: impl FnMut(
        ndarray::ArrayView3<f64>,
        ndarray::ArrayView3<f64>,
        ndarray::ArrayView3<f64>,
    ) -> (Array3<f64>, Array3<f64>),
) -> Vec<(Array3<f64>, Array3<f64>)> {
    (0..q.dim().2)
        .map(|t| {
            step(
                q.index_axis(Axis(2), t),
                k.index_axis(Axis(2), t),
                vals.index_axis(Axis(2), t),
            )
        })
        .collect()
}

#[test]
fn rope_decode_step_variant() {
    course_check::variant::check("rope_decode_step", rope_decode_step_with);
}

/// Decoding 3 to 6 random tokens through a KV cache.
pub fn rope_decode_step_with(v: &mut Variant) {
    let t = v.between(3, 6);
    let seq = draw_sequence(v, t, "");
    let (b, h_kv, _, hs) = seq.1.dim();
    let mut cache = KvCache::new(b, h_kv, hs, t);
    let out = steps(&seq, |q, k, vals| {
        rope_decode_step(q, k, vals, &mut cache, 10000.0).unwrap()
    });
    for (p, (o, w)) in out.iter().enumerate() {
        variant_close_snapshot!(&format!("cache_output_{p}"), o);
        variant_close_snapshot!(&format!("cache_weights_{p}"), w);
    }
}

#[test]
fn window_mask_variant() {
    course_check::variant::check("window_mask", window_mask_with);
}

/// A window mask longer than the fixed and property checks' ones.
pub fn window_mask_with(v: &mut Variant) {
    let t = v.between(8, 12);
    let w = v.between(2, t - 1);
    v.shapes(&format!("T={t}, W={w}"));
    let rows: Vec<String> = window_mask(t, w)
        .rows()
        .into_iter()
        .map(|r| r.iter().map(|&a| if a { '1' } else { '0' }).collect())
        .collect();
    variant_text_snapshot!("mask", rows.join("\n"));
}

#[test]
fn ring_in_time_order_variant() {
    course_check::variant::check("ring_in_time_order", ring_in_time_order_with);
}

/// A ring that has wrapped around, its next slot not slot 0.
pub fn ring_in_time_order_with(v: &mut Variant) {
    let (b, h_kv, hs, w) = (
        v.between(1, 2),
        v.between(1, 2),
        v.between(1, 3),
        v.between(2, 5),
    );
    let n = w * v.between(1, 2) + v.between(1, w - 1);
    v.shapes(&format!("B={b}, H_kv={h_kv}, hs={hs}, W={w}, pushed={n}"));
    let mut ring = RingCache::new(b, h_kv, hs, w);
    for _ in 0..n {
        let (k, vals): (Array3<f64>, Array3<f64>) =
            (v.randn((b, h_kv, hs)), v.randn((b, h_kv, hs)));
        ring.push(k.view(), vals.view()).unwrap();
    }
    let (keys, values) = ring_in_time_order(&ring);
    variant_exact_snapshot!("keys", keys);
    variant_exact_snapshot!("values", values);
}

#[test]
fn window_decode_step_variant() {
    course_check::variant::check("window_decode_step", window_decode_step_with);
}

/// Decoding past a window of 2 to 4 through a rolling buffer.
pub fn window_decode_step_with(v: &mut Variant) {
    let w = v.between(2, 4);
    let t = w + v.between(2, 4);
    let seq = draw_sequence(v, t, &format!(", W={w}"));
    let (b, h_kv, _, hs) = seq.1.dim();
    let mut ring = RingCache::new(b, h_kv, hs, w);
    let out = steps(&seq, |q, k, vals| {
        window_decode_step(q, k, vals, &mut ring, 10000.0).unwrap()
    });
    for (p, (o, wts)) in out.iter().enumerate() {
        variant_close_snapshot!(&format!("ring_output_{p}"), o);
        variant_close_snapshot!(&format!("ring_weights_{p}"), wts);
    }
}

#[test]
fn window_cache_bytes_variant() {
    course_check::variant::check("window_cache_bytes", window_cache_bytes_with);
}

/// A model's windowed cache bill, shapes of real models.
pub fn window_cache_bytes_with(v: &mut Variant) {
    let (layers, h_kv) = (v.between(1, 80), v.pick(&[1, 2, 4, 8]));
    let (hs, t) = (v.pick(&[64, 96, 128]), v.between(1000, 200_000));
    let (w, bytes) = (v.pick(&[512, 1024, 4096, 8192]), v.pick(&[1, 2, 4]));
    v.shapes(&format!(
        "layers={layers}, H_kv={h_kv}, hs={hs}, T={t}, W={w}, bytes={bytes}"
    ));
    variant_text_snapshot!("bytes", window_cache_bytes(layers, h_kv, hs, t, w, bytes));
}
