//! Lesson 6's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` calls its body with the grader's seed;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson06::setup::GqaWeights;
use lesson06::*;
use ndarray::Array4;

/// Head counts of grouped-query attention: `H_kv` 1 to 3 key/value heads, each serving `n_rep`
/// 1 to 3 query heads (`H = H_kv · n_rep`), so MHA (`n_rep = 1`) and MQA (`H_kv = 1`) both
/// come up.
fn draw_heads(v: &mut Variant) -> (usize, usize) {
    let (h_kv, n_rep) = (v.between(1, 3), v.between(1, 3));
    (h_kv * n_rep, h_kv)
}

#[test]
fn n_rep_variant() {
    let _proof = course_check::proof();
    n_rep_with(&mut Variant::new("n_rep"));
}

/// `n_rep` of a pair that divides, and of one that does not.
pub fn n_rep_with(v: &mut Variant) {
    let (h_kv, rep) = (v.between(1, 8), v.between(1, 8));
    let off = if h_kv > 1 { v.between(1, h_kv - 1) } else { 0 };
    v.shapes(&format!("H={}, H_kv={h_kv}", h_kv * rep));
    variant_text_snapshot!("n_rep", format!("{:?}", n_rep(h_kv * rep, h_kv).ok()));
    let refused = off == 0 || n_rep(h_kv * rep + off, h_kv).is_err();
    variant_text_snapshot!(
        "n_rep_uneven",
        format!("H = {} refused: {refused}", h_kv * rep + off)
    );
}

#[test]
fn repeat_kv_variant() {
    let _proof = course_check::proof();
    repeat_kv_with(&mut Variant::new("repeat_kv"));
}

/// `repeat_kv` of key/value heads whose values name their position.
pub fn repeat_kv_with(v: &mut Variant) {
    let (b, h_kv, t, hs, rep) = (
        v.between(1, 3),
        v.between(1, 3),
        v.between(1, 4),
        v.between(1, 3),
        v.between(1, 3),
    );
    v.shapes(&format!("B={b}, H_kv={h_kv}, T={t}, hs={hs}, n_rep={rep}"));
    let kv = Array4::from_shape_fn((b, h_kv, t, hs), |(b, i, t, j)| {
        (b * 1000 + i * 100 + t * 10 + j) as f64
    });
    variant_exact_snapshot!("repeat_kv", repeat_kv(kv.view(), rep).unwrap());
}

#[test]
fn grouped_attention_variant() {
    let _proof = course_check::proof();
    grouped_attention_with(&mut Variant::new("grouped_attention"));
}

/// `grouped_attention` of random q, k, v, T and S drawn apart, causal or not.
pub fn grouped_attention_with(v: &mut Variant) {
    let (h, h_kv) = draw_heads(v);
    let (b, t, s, hs) = (
        v.between(1, 3),
        v.between(1, 5),
        v.between(1, 5),
        v.between(1, 4),
    );
    let causal = v.pick(&[false, true]);
    v.shapes(&format!(
        "B={b}, H={h}, H_kv={h_kv}, T={t}, S={s}, hs={hs}, causal={causal}"
    ));
    let q = v.randn((b, h, t, hs));
    let k = v.randn((b, h_kv, s, hs));
    let values = v.randn((b, h_kv, s, hs));
    let (out, weights) = grouped_attention(q.view(), k.view(), values.view(), causal).unwrap();
    variant_close_snapshot!("grouped_attention_output", out);
    variant_close_snapshot!("grouped_attention_weights", weights);
}

#[test]
fn merge_and_project_variant() {
    let _proof = course_check::proof();
    merge_and_project_with(&mut Variant::new("merge_and_project"));
}

/// `merge_and_project` of random heads and a `W_O` to another width.
pub fn merge_and_project_with(v: &mut Variant) {
    let (b, h, t, hs, d) = (
        v.between(1, 3),
        v.between(1, 4),
        v.between(1, 4),
        v.between(1, 3),
        v.between(1, 6),
    );
    v.shapes(&format!("B={b}, H={h}, T={t}, hs={hs}, D={d}"));
    let heads = v.randn((b, h, t, hs));
    let wo = v.randn((h * hs, d));
    variant_close_snapshot!(
        "merge_and_project",
        merge_and_project(heads.view(), wo.view()).unwrap()
    );
}

#[test]
fn gqa_forward_variant() {
    let _proof = course_check::proof();
    gqa_forward_with(&mut Variant::new("gqa_forward"));
}

/// A whole grouped-query layer on a random input, causal or not.
pub fn gqa_forward_with(v: &mut Variant) {
    let (h, h_kv) = draw_heads(v);
    let (b, t, hs) = (v.between(1, 3), v.between(1, 5), v.between(1, 3));
    let causal = v.pick(&[false, true]);
    let d = h * hs;
    v.shapes(&format!(
        "B={b}, T={t}, D={d}, H={h}, H_kv={h_kv}, causal={causal}"
    ));
    let w = GqaWeights::draw(v.rng(), d, h, h_kv, 0.5);
    let x = v.randn((b, t, d));
    let (out, weights) = gqa_forward(x.view(), &w, h, h_kv, causal).unwrap();
    variant_close_snapshot!("gqa_forward_output", out);
    variant_close_snapshot!("gqa_forward_weights", weights);
}

#[test]
fn kv_cache_bytes_variant() {
    let _proof = course_check::proof();
    kv_cache_bytes_with(&mut Variant::new("kv_cache_bytes"));
}

/// `kv_cache_bytes` of a random configuration.
pub fn kv_cache_bytes_with(v: &mut Variant) {
    let (layers, h_kv, hs, t) = (
        v.between(1, 80),
        v.between(1, 16),
        v.pick(&[32, 64, 128]),
        v.between(1, 8192),
    );
    let bytes = v.pick(&[1, 2, 4]);
    v.shapes(&format!(
        "layers={layers}, H_kv={h_kv}, hs={hs}, T={t}, bytes={bytes}"
    ));
    variant_text_snapshot!("kv_cache_bytes", kv_cache_bytes(layers, h_kv, hs, t, bytes));
}
