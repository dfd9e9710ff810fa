//! Lesson 2's variant checks: graded officially only, like the hidden checks (and kept with
//! them), on shapes and values drawn from a seed per student and exercise (see
//! `course_check::variant`). Their expected outputs are the reference solution's for that seed.
//! Each check is a `#[test]` running its body through `course_check::variant::check`; `tests/variant_seeds.rs`
//! runs the bodies over many seeds.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson02::*;
use ndarray::Array4;

/// `(B, T, h, hs)`: B and hs 1 to 4, T 2 to 5 and h 2 to 4, so the shape is rarely the same
/// twice and no mistake coincides with the reference (a reshape without the transpose is right
/// when T or h is 1: those shapes are the property checks', the same for everyone).
fn draw_shape(v: &mut Variant) -> (usize, usize, usize, usize) {
    (
        v.between(1, 4),
        v.between(2, 5),
        v.between(2, 4),
        v.between(1, 4),
    )
}

#[test]
fn head_size_variant() {
    course_check::variant::check("head_size", head_size_with);
}

/// `head_size` of a width that fits and of one that does not.
pub fn head_size_with(v: &mut Variant) {
    // Head sizes past the property's (at most 12): no fixed check asks for these widths.
    let (h, hs) = (v.between(2, 9), v.between(13, 40));
    let extra = v.between(1, h - 1);
    v.shapes(&format!("C={}, h={h}", h * hs));
    let fits = head_size(h * hs, h).ok();
    variant_text_snapshot!(
        "head_size",
        format!("head_size({}, {h}) = {fits:?}", h * hs)
    );
    let uneven = head_size(h * hs + extra, h).is_err();
    variant_text_snapshot!(
        "head_size_uneven",
        format!("C = {} refused: {uneven}", h * hs + extra)
    );
}

#[test]
fn split_heads_variant() {
    course_check::variant::check("split_heads", split_heads_with);
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
    course_check::variant::check("merge_heads", merge_heads_with);
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
    course_check::variant::check("head_projection", head_projection_with);
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
