//! Lesson 2's variant checks: graded officially only, like the hidden checks (and shipped with
//! them), on shapes and values drawn from a seed per student and exercise (see
//! `course_check::variant`). Their expected outputs are the reference solution's for that seed.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson02::*;
use ndarray::Array4;

/// `(B, T, h, hs)`: B, T, h and hs each 1 to 4, so every axis is sometimes 1 and the shape is
/// rarely the same twice.
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
    let mut v = Variant::new("head_size");
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
    let mut v = Variant::new("split_heads");
    let (b, t, h, hs) = draw_shape(&mut v);
    v.shapes(&format!("B={b}, T={t}, C={}, h={h}", h * hs));
    let x = lesson02::setup::labelled(b, t, h * hs);
    variant_exact_snapshot!(
        "split_heads",
        split_heads(x.view(), h).unwrap(),
        encoding = "b*10000 + t*100 + c"
    );
}

#[test]
fn merge_heads_variant() {
    let _proof = course_check::proof();
    let mut v = Variant::new("merge_heads");
    let (b, t, h, hs) = draw_shape(&mut v);
    v.shapes(&format!("B={b}, h={h}, T={t}, hs={hs}"));
    // Each value is the position it must land on once merged: (b, t, c = i * hs + j).
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
    let mut v = Variant::new("head_projection");
    let (b, t, h, hs) = draw_shape(&mut v);
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
