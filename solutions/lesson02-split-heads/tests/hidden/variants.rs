//! Lesson 2's variant checks: graded officially only, like the hidden checks (and kept with
//! them), on shapes and values drawn from a seed per student and exercise (see
//! `course_check::variant`). Their expected outputs are the reference solution's for that seed.
//! Each check is a `#[test]` calling its body with the grader's seed; `tests/variant_seeds.rs`
//! runs the bodies over many seeds.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson02::*;
use ndarray::Array4;

/// `(B, T, h, hs)`: B, h and hs 1 to 4 and T 1 to 5, so every axis is sometimes 1 and the shape
/// is rarely the same twice.
fn draw_shape(v: &mut Variant) -> (usize, usize, usize, usize) {
    (
        v.between(1, 4),
        v.between(1, 5),
        v.between(1, 4),
        v.between(1, 4),
    )
}

#[test]
fn head_size_variant() {
    let _proof = course_check::proof();
    head_size_with(&mut Variant::new("head_size"));
}

/// `head_size` of a width that fits and of one that does not.
pub fn head_size_with(v: &mut Variant) {
    let (h, hs) = (v.between(1, 9), v.between(1, 12));
    let extra = if h > 1 { v.between(1, h - 1) } else { 0 };
    v.shapes(&format!("C={}, h={h}", h * hs));
    let fits = head_size(h * hs, h).ok();
    variant_text_snapshot!(
        "head_size",
        format!("head_size({}, {h}) = {fits:?}", h * hs)
    );
    let uneven = head_size(h * hs + extra, h).is_err() || extra == 0;
    variant_text_snapshot!(
        "head_size_uneven",
        format!("C = {} refused: {uneven}", h * hs + extra)
    );
}

#[test]
fn split_heads_variant() {
    let _proof = course_check::proof();
    split_heads_with(&mut Variant::new("split_heads"));
}

/// `split_heads` of a labelled `(B, T, C)`.
pub fn split_heads_with(v: &mut Variant) {
    let (b, t, h, hs) = draw_shape(v);
    v.shapes(&format!("B={b}, T={t}, C={}, h={h}", h * hs));
    // Sequences numbered from a drawn first one: a small shape may repeat a visible check's, its
    // values never do.
    let first = v.between(1, 50) as f64 * 10000.0;
    let x = lesson02::setup::labelled(b, t, h * hs) + first;
    variant_exact_snapshot!(
        "split_heads",
        split_heads(x.view(), h).unwrap(),
        encoding = "b*10000 + t*100 + c"
    );
}

#[test]
fn merge_heads_variant() {
    let _proof = course_check::proof();
    merge_heads_with(&mut Variant::new("merge_heads"));
}

/// `merge_heads` of a `(B, h, T, hs)` whose values are the positions they merge to.
pub fn merge_heads_with(v: &mut Variant) {
    let (b, t, h, hs) = draw_shape(v);
    v.shapes(&format!("B={b}, h={h}, T={t}, hs={hs}"));
    let heads = Array4::from_shape_fn((b, h, t, hs), |(b, i, t, j)| {
        (b * 10000 + t * 100 + i * hs + j) as f64
    });
    variant_exact_snapshot!(
        "merge_heads",
        merge_heads(heads.view()),
        encoding = "b*10000 + t*100 + c"
    );
}

#[test]
fn head_projection_variant() {
    let _proof = course_check::proof();
    head_projection_with(&mut Variant::new("head_projection"));
}

/// `head_projection` of random X and Wq, for a random head.
pub fn head_projection_with(v: &mut Variant) {
    let (b, t, h, hs) = draw_shape(v);
    let i = v.between(0, h - 1);
    let c = h * hs;
    v.shapes(&format!("B={b}, T={t}, C={c}, h={h}, i={i}"));
    let x = v.randn((b, t, c));
    let wq = v.randn((c, c));
    variant_close_snapshot!(
        "head_projection",
        head_projection(x.view(), wq.view(), h, i).unwrap()
    );
}
