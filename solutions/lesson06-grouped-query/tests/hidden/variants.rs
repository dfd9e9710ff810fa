//! Lesson 6's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` runs its body through `course_check::variant::check`;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson06::setup::GqaWeights;
use lesson06::*;
use ndarray::Array4;

/// Head counts of grouped-query attention: `H_kv` 2 to 3 key/value heads, each serving `n_rep`
/// 2 to 3 query heads (`H = H_kv · n_rep`). Never MHA (`n_rep = 1`) nor MQA (`H_kv = 1`), where
/// tiling the heads instead of repeating each is right too: those are the property checks'.
fn draw_heads(v: &mut Variant) -> (usize, usize) {
    let (h_kv, n_rep) = (v.between(2, 3), v.between(2, 3));
    (h_kv * n_rep, h_kv)
}

#[test]
fn n_rep_variant() {
    course_check::variant::check("n_rep", n_rep_with);
}

/// `n_rep` of a pair that divides, and of one that does not: H_kv past the property's (at most
/// 8), so no fixed check asks for these counts.
pub fn n_rep_with(v: &mut Variant) {
    let (h_kv, rep) = (v.between(9, 16), v.between(1, 8));
    let off = v.between(1, h_kv - 1);
    v.shapes(&format!("H={}, H_kv={h_kv}", h_kv * rep));
    variant_text_snapshot!("n_rep", format!("{:?}", n_rep(h_kv * rep, h_kv).ok()));
    let refused = n_rep(h_kv * rep + off, h_kv).is_err();
    variant_text_snapshot!(
        "n_rep_uneven",
        format!("H = {} refused: {refused}", h_kv * rep + off)
    );
}

#[test]
fn repeat_kv_variant() {
    course_check::variant::check("repeat_kv", repeat_kv_with);
}

/// `repeat_kv` of key/value heads whose values name their position (H_kv and n_rep at least 2,
/// see [`draw_heads`]).
pub fn repeat_kv_with(v: &mut Variant) {
    let (b, t, hs) = (v.between(1, 3), v.between(1, 4), v.between(1, 3));
    let (h, h_kv) = draw_heads(v);
    let rep = h / h_kv;
    v.shapes(&format!("B={b}, H_kv={h_kv}, T={t}, hs={hs}, n_rep={rep}"));
    // Sequences numbered from a drawn first one: a shape may repeat a fixed check's, its values
    // never do.
    let first = v.between(5, 50);
    let kv = Array4::from_shape_fn((b, h_kv, t, hs), |(b, i, t, j)| {
        ((first + b) * 1000 + i * 100 + t * 10 + j) as f64
    });
    variant_exact_snapshot!("repeat_kv", repeat_kv(kv.view(), rep).unwrap());
}

#[test]
fn grouped_attention_variant() {
    course_check::variant::check("grouped_attention", grouped_attention_with);
}

/// `grouped_attention` of random q, k, v, T and S drawn apart, causal or not.
pub fn grouped_attention_with(v: &mut Variant) {
    let (h, h_kv) = draw_heads(v);
    // T and hs at least 2: one query makes a softmax over the queries right, and hs = S = 1 an
    // untransposed product.
    let (b, t, s, hs) = (
        v.between(1, 3),
        v.between(2, 5),
        v.between(1, 5),
        v.between(2, 4),
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
    course_check::variant::check("merge_and_project", merge_and_project_with);
}

/// `merge_and_project` of random heads and a `W_O` to another width.
pub fn merge_and_project_with(v: &mut Variant) {
    // H and T at least 2: with one head or one position, merging without the transpose is right.
    let (b, h, t, hs, d) = (
        v.between(1, 3),
        v.between(2, 4),
        v.between(2, 4),
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
    course_check::variant::check("gqa_forward", gqa_forward_with);
}

/// A whole grouped-query layer on a random input, causal or not.
pub fn gqa_forward_with(v: &mut Variant) {
    let (h, h_kv) = draw_heads(v);
    // T and hs at least 2, as in `grouped_attention_with`.
    let (b, t, hs) = (v.between(1, 3), v.between(2, 5), v.between(2, 3));
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
    course_check::variant::check("kv_cache_bytes", kv_cache_bytes_with);
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
