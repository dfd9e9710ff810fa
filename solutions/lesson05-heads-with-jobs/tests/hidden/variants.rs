//! Lesson 5's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` runs its body through `course_check::variant::check`;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson05::setup::Head;
use lesson05::*;

/// `T` 7 to 10 tokens of `K` 2 to 4 categories: longer than every fixed check's sentence, so
/// code fitted to those never meets these.
fn draw_sentence(v: &mut Variant) -> (Vec<usize>, usize) {
    let (t, k) = (v.between(7, 10), v.between(2, 4));
    let category = (0..t).map(|_| v.between(0, k - 1)).collect();
    (category, k)
}

#[test]
fn token_features_variant() {
    course_check::variant::check("token_features", token_features_with);
}

/// `token_features` of random categories.
pub fn token_features_with(v: &mut Variant) {
    let (category, k) = draw_sentence(v);
    v.shapes(&format!(
        "T={}, K={k}, categories={category:?}",
        category.len()
    ));
    variant_exact_snapshot!("token_features", token_features(&category, k).unwrap());
}

#[test]
fn causal_weights_variant() {
    course_check::variant::check("causal_weights", causal_weights_with);
}

/// `causal_weights` of random queries and keys: T at least 3 and d at least 2, since with one
/// token (or a width of 1, whose scale is 1) a wrong scale, axis or mask gives the right weights,
/// and small scores, whose softmax never saturates into the same one-hot rows.
pub fn causal_weights_with(v: &mut Variant) {
    let (t, d) = (v.between(3, 7), v.between(2, 5));
    v.shapes(&format!("T={t}, d={d}"));
    let q = v.randn((t, d)) * 0.5;
    let k = v.randn((t, d));
    variant_close_snapshot!(
        "causal_weights",
        causal_weights(q.view(), k.view()).unwrap()
    );
}

#[test]
fn previous_token_head_variant() {
    course_check::variant::check("previous_token_head", previous_token_head_with);
}

/// `previous_token_head` for a random length, category count and gain.
pub fn previous_token_head_with(v: &mut Variant) {
    let (t, k) = (v.between(1, 8), v.between(1, 4));
    let gain = v.pick(&[0.5, 3.0, 8.0]);
    v.shapes(&format!("T={t}, K={k}, gain={gain}"));
    let head = previous_token_head(t, k, gain);
    variant_exact_snapshot!("previous_token_head_wq", head.wq);
    variant_exact_snapshot!("previous_token_head_wk", head.wk);
}

#[test]
fn same_category_head_variant() {
    course_check::variant::check("same_category_head", same_category_head_with);
}

/// `same_category_head` for a random length, category count and gain.
pub fn same_category_head_with(v: &mut Variant) {
    let (t, k) = (v.between(1, 8), v.between(1, 4));
    let gain = v.pick(&[0.5, 3.0, 8.0]);
    v.shapes(&format!("T={t}, K={k}, gain={gain}"));
    let head = same_category_head(t, k, gain);
    variant_exact_snapshot!("same_category_head_wq", head.wq);
    variant_exact_snapshot!("same_category_head_wk", head.wk);
}

#[test]
fn run_heads_variant() {
    course_check::variant::check("run_heads", run_heads_with);
}

/// `run_heads` of random heads of different widths over a random input (T at least 3 and each
/// width at least 2, as in `causal_weights_with`).
pub fn run_heads_with(v: &mut Variant) {
    let (t, f, n) = (v.between(3, 6), v.between(1, 6), v.between(1, 3));
    let widths: Vec<usize> = (0..n).map(|_| v.between(2, 4)).collect();
    v.shapes(&format!("T={t}, F={f}, head widths={widths:?}"));
    let x = v.randn((t, f));
    let heads: Vec<Head> = widths
        .iter()
        // Small weights: scores whose softmax never saturates (see `causal_weights_with`).
        .map(|&d| Head {
            wq: v.randn((f, d)) * 0.3,
            wk: v.randn((f, d)) * 0.3,
        })
        .collect();
    variant_close_snapshot!("run_heads", run_heads(x.view(), &heads).unwrap());
}

#[test]
fn same_category_variant() {
    course_check::variant::check("same_category", same_category_with);
}

/// `same_category` of every token of a random sentence.
pub fn same_category_with(v: &mut Variant) {
    let (category, k) = draw_sentence(v);
    v.shapes(&format!(
        "T={}, K={k}, categories={category:?}",
        category.len()
    ));
    let all: Vec<String> = (0..category.len())
        .map(|i| format!("{:?}", same_category(&category, i).unwrap()))
        .collect();
    variant_text_snapshot!("same_category", all.join(" "));
}
