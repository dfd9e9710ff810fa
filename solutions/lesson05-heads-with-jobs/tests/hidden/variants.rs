//! Lesson 5's variant checks: graded officially only, on shapes and values drawn from a seed per
//! student and exercise (see `course_check::variant`). Their expected outputs are the reference
//! solution's for that seed. Each `#[test]` calls its body with the grader's seed;
//! `tests/variant_seeds.rs` runs the bodies over many seeds.

use course_check::{
    Variant, variant_close_snapshot, variant_exact_snapshot, variant_text_snapshot,
};
use lesson05::setup::Head;
use lesson05::*;

/// `T` 1 to 8 tokens of `K` 1 to 4 categories.
fn draw_sentence(v: &mut Variant) -> (Vec<usize>, usize) {
    let (t, k) = (v.between(1, 8), v.between(1, 4));
    let category = (0..t).map(|_| v.between(0, k - 1)).collect();
    (category, k)
}

#[test]
fn token_features_variant() {
    let _proof = course_check::proof();
    token_features_with(&mut Variant::new("token_features"));
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
    let _proof = course_check::proof();
    causal_weights_with(&mut Variant::new("causal_weights"));
}

/// `causal_weights` of random queries and keys.
pub fn causal_weights_with(v: &mut Variant) {
    let (t, d) = (v.between(1, 7), v.between(1, 5));
    v.shapes(&format!("T={t}, d={d}"));
    let q = v.randn((t, d)) * 2.0;
    let k = v.randn((t, d));
    variant_close_snapshot!(
        "causal_weights",
        causal_weights(q.view(), k.view()).unwrap()
    );
}

#[test]
fn previous_token_head_variant() {
    let _proof = course_check::proof();
    previous_token_head_with(&mut Variant::new("previous_token_head"));
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
    let _proof = course_check::proof();
    same_category_head_with(&mut Variant::new("same_category_head"));
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
    let _proof = course_check::proof();
    run_heads_with(&mut Variant::new("run_heads"));
}

/// `run_heads` of random heads of different widths over a random input.
pub fn run_heads_with(v: &mut Variant) {
    let (t, f, n) = (v.between(1, 6), v.between(1, 6), v.between(1, 3));
    let widths: Vec<usize> = (0..n).map(|_| v.between(1, 4)).collect();
    v.shapes(&format!("T={t}, F={f}, head widths={widths:?}"));
    let x = v.randn((t, f));
    let heads: Vec<Head> = widths
        .iter()
        .map(|&d| Head {
            wq: v.randn((f, d)),
            wk: v.randn((f, d)),
        })
        .collect();
    variant_close_snapshot!("run_heads", run_heads(x.view(), &heads).unwrap());
}

#[test]
fn same_category_variant() {
    let _proof = course_check::proof();
    same_category_with(&mut Variant::new("same_category"));
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
