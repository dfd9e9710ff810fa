//! Lesson 4's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` runs its body through `course_check::variant::check`;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.

use course_check::{Variant, variant_close_snapshot, variant_text_snapshot};
use lesson04::setup::MultiHead;
use lesson04::*;
use ndarray::Array4;

/// `(h, hs)`: h 1 to 4 and hs 1 to 4, so the width `D = h · hs` ranges from 1 to 16.
fn draw_heads(v: &mut Variant) -> (usize, usize) {
    (v.between(1, 4), v.between(1, 4))
}

/// A layer of `h` heads of size `hs` with random weights.
fn draw_layer(v: &mut Variant, h: usize, hs: usize) -> MultiHead {
    let d = h * hs;
    let scale = 1.0 / (d as f64).sqrt();
    let mut w = || v.randn((d, d)) * scale;
    let (wq, wk, wv, wo) = (w(), w(), w(), w());
    MultiHead::from_weights(h, wq, wk, wv, wo).expect("a valid layer")
}

#[test]
fn concat_and_project_variant() {
    course_check::variant::check("concat_and_project", concat_and_project_with);
}

/// `concat_and_project` of random head outputs and `W_O`.
pub fn concat_and_project_with(v: &mut Variant) {
    let (h, hs) = draw_heads(v);
    v.shapes(&format!("h={h}, hs={hs}, D={}", h * hs));
    let heads = v.randn((h, hs));
    let wo = v.randn((h * hs, h * hs));
    variant_close_snapshot!(
        "concat_and_project",
        concat_and_project(heads.view(), wo.view()).unwrap()
    );
}

#[test]
fn init_multi_head_variant() {
    course_check::variant::check("init_multi_head", init_multi_head_with);
}

/// `init_multi_head` for a random width, head count and seed: its four projections.
pub fn init_multi_head_with(v: &mut Variant) {
    let (h, hs) = draw_heads(v);
    let seed = v.between(0, 1 << 20) as u32;
    v.shapes(&format!("D={}, h={h}, seed={seed}", h * hs));
    let layer = init_multi_head(h * hs, h, seed).unwrap();
    variant_text_snapshot!(
        "init_multi_head_heads",
        format!("{} {}", layer.heads, layer.head_size)
    );
    variant_close_snapshot!("init_multi_head_wq", layer.wq);
    variant_close_snapshot!("init_multi_head_wk", layer.wk);
    variant_close_snapshot!("init_multi_head_wv", layer.wv);
    variant_close_snapshot!("init_multi_head_wo", layer.wo);
}

#[test]
fn multi_head_forward_variant() {
    course_check::variant::check("multi_head_forward", multi_head_forward_with);
}

/// The layer's forward pass, cross-attention with T and S drawn apart and a random mask.
pub fn multi_head_forward_with(v: &mut Variant) {
    let (h, hs) = draw_heads(v);
    let (b, t, s) = (v.between(1, 3), v.between(1, 5), v.between(1, 5));
    let d = h * hs;
    v.shapes(&format!("B={b}, T={t}, S={s}, D={d}, h={h}"));
    let layer = draw_layer(v, h, hs);
    let query = v.randn((b, t, d));
    let context = v.randn((b, s, d));
    let allowed: Array4<bool> = v.uniform((b, 1, t, s), 0.0, 1.0).mapv(|u| u < 0.8);
    let (out, weights) =
        multi_head_forward(&layer, query.view(), context.view(), Some(allowed.view())).unwrap();
    variant_close_snapshot!("multi_head_forward_output", out);
    variant_close_snapshot!("multi_head_forward_weights", weights);
}

#[test]
fn fused_qkv_variant() {
    course_check::variant::check("fused_qkv", fused_qkv_with);
}

/// `fused_qkv` of a random layer and input.
pub fn fused_qkv_with(v: &mut Variant) {
    let (h, hs) = draw_heads(v);
    let (b, t) = (v.between(1, 3), v.between(1, 5));
    v.shapes(&format!("B={b}, T={t}, D={}, h={h}", h * hs));
    let layer = draw_layer(v, h, hs);
    let x = v.randn((b, t, h * hs));
    let (q, k, values) = fused_qkv(&layer, x.view()).unwrap();
    variant_close_snapshot!("fused_qkv_q", q);
    variant_close_snapshot!("fused_qkv_k", k);
    variant_close_snapshot!("fused_qkv_v", values);
}

#[test]
fn average_over_heads_variant() {
    course_check::variant::check("average_over_heads", average_over_heads_with);
}

/// `average_over_heads` of random weights, h at least 2 (with one head and one sequence,
/// averaging over the batch is right too).
pub fn average_over_heads_with(v: &mut Variant) {
    let (b, h, t, s) = (
        v.between(1, 3),
        v.between(2, 5),
        v.between(1, 4),
        v.between(1, 4),
    );
    v.shapes(&format!("B={b}, h={h}, T={t}, S={s}"));
    let weights = v.uniform((b, h, t, s), 0.0, 1.0);
    variant_close_snapshot!(
        "average_over_heads",
        average_over_heads(weights.view()).unwrap()
    );
}
