//! Lesson 3's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` runs its body through `course_check::variant::check`;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.

use course_check::{Variant, variant_close_snapshot, variant_exact_snapshot};
use lesson03::*;
use ndarray::{Array4, Axis};

/// `(B, h, T, S, hs)`: B 2 to 3, h 2 to 4 but never B, T 2 to 5, S 3 to 5 (drawn apart, so T = S
/// only sometimes), hs 2 to 4. No catalogued mistake coincides with the reference on these:
/// folding (h, B) needs B = 1 or h = 1, unfolding with B needs B = h, a wrong scale needs hs = 1
/// or h = 1, a transposed product T = S = 1, a softmax over the queries T = 1. Those degenerate
/// shapes are the property checks', the same for everyone.
fn draw_shape(v: &mut Variant) -> (usize, usize, usize, usize, usize) {
    let b = v.between(2, 3);
    let h = v.between(2, 3);
    (
        b,
        if h >= b { h + 1 } else { h },
        v.between(2, 5),
        v.between(3, 5),
        v.between(2, 4),
    )
}

/// A mask of the given shape, each entry allowed with probability 3/4, whose first row allows
/// its first two keys and masks its last: a mask applied after the softmax, or a scale that
/// only one allowed key would hide, changes that row for every student.
fn random_mask(v: &mut Variant, shape: (usize, usize, usize, usize)) -> Array4<bool> {
    let mut mask = v.uniform(shape, 0.0, 1.0).mapv(|u| u < 0.75);
    let last = shape.3 - 1;
    mask[[0, 0, 0, 0]] = true;
    mask[[0, 0, 0, 1]] = true;
    mask[[0, 0, 0, last]] = false;
    mask
}

/// A padding mask `(B, 1, 1, S)` from [`random_mask`] where every sequence keeps its first key:
/// no query is ever fully masked, so a softmax without the max shift never meets 0 / 0 here (it
/// does, for everyone, in `masked_softmax_variant`).
fn padding_mask(v: &mut Variant, b: usize, s: usize) -> Array4<bool> {
    let mut mask = random_mask(v, (b, 1, 1, s));
    for seq in 0..b {
        mask[[seq, 0, 0, 0]] = true;
    }
    mask
}

#[test]
fn fold_heads_variant() {
    course_check::variant::check("fold_heads", fold_heads_with);
}

/// `fold_heads` of a `(B, h, T, hs)` whose values name their position.
pub fn fold_heads_with(v: &mut Variant) {
    let (b, h, t, _, hs) = draw_shape(v);
    v.shapes(&format!("B={b}, h={h}, T={t}, hs={hs}"));
    // Sequences numbered from a drawn first one: a small shape may repeat a visible check's, its
    // values never do.
    let first = v.between(1, 50);
    let x = Array4::from_shape_fn((b, h, t, hs), |(b, i, t, j)| {
        ((first + b) * 1000 + i * 100 + t * 10 + j) as f64
    });
    variant_exact_snapshot!("fold_heads", fold_heads(x.view()));
}

#[test]
fn attention_scores_variant() {
    course_check::variant::check("attention_scores", attention_scores_with);
}

/// `attention_scores` of random queries and keys, T and S drawn apart.
pub fn attention_scores_with(v: &mut Variant) {
    let (b, h, t, s, hs) = draw_shape(v);
    v.shapes(&format!("B={b}, h={h}, T={t}, S={s}, hs={hs}"));
    let q = v.randn((b, h, t, hs));
    let k = v.randn((b, h, s, hs));
    variant_close_snapshot!(
        "attention_scores",
        attention_scores(q.view(), k.view()).unwrap()
    );
}

#[test]
fn causal_mask_variant() {
    course_check::variant::check("causal_mask", causal_mask_with);
}

/// `causal_mask` for T and S drawn apart (1 = allowed), longer than the visible and property
/// checks' (at most 7), so no answer fitted to those is right here.
pub fn causal_mask_with(v: &mut Variant) {
    let (t, s) = (v.between(8, 16), v.between(8, 16));
    v.shapes(&format!("T={t}, S={s}"));
    let mask = causal_mask(t, s).mapv(|a| if a { 1.0 } else { 0.0 });
    variant_exact_snapshot!("causal_mask", mask);
}

#[test]
fn masked_softmax_variant() {
    course_check::variant::check("masked_softmax", masked_softmax_with);
}

/// `masked_softmax` of random scores, with a full, a padding-shaped and no mask.
pub fn masked_softmax_with(v: &mut Variant) {
    let (b, h, t, s, _) = draw_shape(v);
    v.shapes(&format!("B={b}, h={h}, T={t}, S={s}"));
    let scores = v.randn((b, h, t, s)) * 3.0;
    let mut full = random_mask(v, (b, h, t, s));
    // One query of every student's mask is fully masked: its weights are all 0, never 0 / 0.
    full.slice_mut(ndarray::s![b - 1, h - 1, t - 1, ..])
        .fill(false);
    let padding = padding_mask(v, b, s);
    variant_close_snapshot!("masked_softmax_full", {
        masked_softmax(scores.view(), Some(full.view())).unwrap()
    });
    variant_close_snapshot!("masked_softmax_padding", {
        masked_softmax(scores.view(), Some(padding.view())).unwrap()
    });
    variant_close_snapshot!(
        "masked_softmax_none",
        masked_softmax(scores.view(), None).unwrap()
    );
}

#[test]
fn parallel_attention_variant() {
    course_check::variant::check("parallel_attention", parallel_attention_with);
}

/// `parallel_attention` of random q, k, v (value size apart from the head size), with a padding
/// mask.
pub fn parallel_attention_with(v: &mut Variant) {
    let (b, h, t, s, hs) = draw_shape(v);
    let hv = v.between(1, 4);
    v.shapes(&format!("B={b}, h={h}, T={t}, S={s}, hs={hs}, hv={hv}"));
    let q = v.randn((b, h, t, hs));
    let k = v.randn((b, h, s, hs));
    let values = v.randn((b, h, s, hv));
    let padding = padding_mask(v, b, s);
    let (out, weights) =
        parallel_attention(q.view(), k.view(), values.view(), Some(padding.view())).unwrap();
    variant_close_snapshot!("parallel_attention_output", out);
    variant_close_snapshot!("parallel_attention_weights", weights);
    // The same with no mask: the sums of each weight row.
    let (_, open) = parallel_attention(q.view(), k.view(), values.view(), None).unwrap();
    variant_close_snapshot!("parallel_attention_row_sums", open.sum_axis(Axis(3)));
}
