//! Lesson 1's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` runs its body through `course_check::variant::check`;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.

use attention::rng::RandomState;
use course_check::{Variant, variant_close_snapshot, variant_text_snapshot};
use lesson01::*;
use ndarray::Array3;

/// `(B, T, C, hs)`: B 1 to 3, T 2 to 6, C 1 to 8, hs 1 to 6. T is never 1, where a softmax over
/// the queries is right too (that shape is the property checks', the same for everyone).
fn draw_shape(v: &mut Variant) -> (usize, usize, usize, usize) {
    (
        v.between(1, 3),
        v.between(2, 6),
        v.between(1, 8),
        v.between(1, 6),
    )
}

/// Random weight rows `(T, S)` that sum to 1, some of them with ties.
fn weights(v: &mut Variant, t: usize, s: usize) -> ndarray::Array2<f64> {
    // Values in quarters, so ties come up.
    let raw = v.uniform((t, s), 0.0, 4.0).mapv(|u| u.floor() + 1.0);
    let sums = raw.sum_axis(ndarray::Axis(1)).insert_axis(ndarray::Axis(1));
    &raw / &sums
}

#[test]
fn draw_head_variant() {
    course_check::variant::check("draw_head", draw_head_with);
}

/// `draw_head` from a random seed, width, head size and scale.
pub fn draw_head_with(v: &mut Variant) {
    let (_, _, c, hs) = draw_shape(v);
    let seed = v.between(0, 1 << 20) as u32;
    let scale = v.pick(&[0.02, 0.3, 1.0]);
    v.shapes(&format!("C={c}, hs={hs}, seed={seed}, scale={scale}"));
    let head = draw_head(&mut RandomState::new(seed), c, hs, scale);
    variant_close_snapshot!("draw_head_wq", head.wq);
    variant_close_snapshot!("draw_head_wk", head.wk);
    variant_close_snapshot!("draw_head_wv", head.wv);
}

#[test]
fn attention_weights_variant() {
    course_check::variant::check("attention_weights", attention_weights_with);
}

/// `attention_weights` of a random input and head.
pub fn attention_weights_with(v: &mut Variant) {
    let (b, t, c, hs) = draw_shape(v);
    v.shapes(&format!("B={b}, T={t}, C={c}, hs={hs}"));
    let x = v.randn((b, t, c));
    let (wq, wk, wv) = (v.randn((c, hs)), v.randn((c, hs)), v.randn((c, hs)));
    variant_close_snapshot!(
        "attention_weights",
        attention_weights(x.view(), wq.view(), wk.view(), wv.view()).unwrap()
    );
}

#[test]
fn max_abs_diff_variant() {
    course_check::variant::check("max_abs_diff", max_abs_diff_with);
}

/// `max_abs_diff` of two random arrays.
pub fn max_abs_diff_with(v: &mut Variant) {
    let (b, t, c, _) = draw_shape(v);
    v.shapes(&format!("shape=({b}, {t}, {c})"));
    let a: Array3<f64> = v.randn((b, t, c));
    let other: Array3<f64> = v.randn((b, t, c));
    let diff = max_abs_diff(a.view(), other.view()).unwrap();
    variant_text_snapshot!("max_abs_diff", format!("{diff:?}"));
}

#[test]
fn top_focus_variant() {
    course_check::variant::check("top_focus", top_focus_with);
}

/// `top_focus` of random weights with ties.
pub fn top_focus_with(v: &mut Variant) {
    let (t, s) = (v.between(1, 6), v.between(1, 6));
    v.shapes(&format!("T={t}, S={s}"));
    let w = weights(v, t, s);
    let words: Vec<String> = (0..s).map(|i| format!("w{i}")).collect();
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    variant_text_snapshot!("top_focus", top_focus(w.view(), &words).unwrap().join(" "));
}

#[test]
fn disagreements_variant() {
    course_check::variant::check("disagreements", disagreements_with);
}

/// `disagreements` between two random weight matrices with ties.
pub fn disagreements_with(v: &mut Variant) {
    let (t, s) = (v.between(1, 6), v.between(1, 6));
    v.shapes(&format!("T={t}, S={s}"));
    let (a, b) = (weights(v, t, s), weights(v, t, s));
    variant_text_snapshot!("disagreements", disagreements(a.view(), b.view()).unwrap());
}

#[test]
fn row_sums_variant() {
    course_check::variant::check("row_sums", row_sums_with);
}

/// `row_sums` of random values.
pub fn row_sums_with(v: &mut Variant) {
    let (b, t, s, _) = draw_shape(v);
    v.shapes(&format!("B={b}, T={t}, S={s}"));
    let w = v.randn((b, t, s));
    variant_close_snapshot!("row_sums", row_sums(w.view()));
}

#[test]
fn head_output_variant() {
    course_check::variant::check("head_output", head_output_with);
}

/// `head_output` of random weights, input and value projection, S apart from T.
pub fn head_output_with(v: &mut Variant) {
    let (b, t, c, hs) = draw_shape(v);
    let s = v.between(1, 6);
    v.shapes(&format!("B={b}, T={t}, S={s}, C={c}, hs={hs}"));
    let w = v.uniform((b, t, s), 0.0, 1.0);
    let x = v.randn((b, s, c));
    let wv = v.randn((c, hs));
    variant_close_snapshot!(
        "head_output",
        head_output(w.view(), x.view(), wv.view()).unwrap()
    );
}
