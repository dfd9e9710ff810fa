//! Lesson 3's worked example: attention for two sequences and two heads in one batched call.
//!
//! `cargo xtask demo lesson03` (or `cargo run -p lesson03 --example lesson03-demo`) runs it with
//! your code.

use attention::error::shape_string;
use attention::print::np;
use lesson03::setup::{B, H, HS, LENGTHS, S, T};
use lesson03::{
    WorkedExample, attention_scores, causal_mask, padding_mask, parallel_attention, worked_example,
};
use ndarray::{ArrayView4, Axis, s};

/// Runs the example and prints shapes, weights and the figures the lesson quotes.
pub fn main() -> Result<(), attention::ShapeError> {
    let WorkedExample { q, k, v } = worked_example();
    println!(
        "seed 42: B = {B}, h = {H}, T = {T}, S = {S}, hs = {HS} (model width {})",
        H * HS
    );
    println!("q (B, h, T, hs): {}", shape_string(q.shape()));
    println!("k (B, h, S, hs): {}", shape_string(k.shape()));
    println!("v (B, h, S, hs): {}", shape_string(v.shape()));

    let scores = attention_scores(q.view(), k.view())?;
    println!(
        "\nscores (B, h, T, S): {}, scaled by 1/sqrt({HS}) = {}",
        shape_string(scores.shape()),
        1.0 / (HS as f64).sqrt()
    );

    let (out, w) = parallel_attention(q.view(), k.view(), v.view(), None)?;
    println!(
        "weights (B, h, T, S): {} = {} numbers; output (B, h, T, hs): {}",
        shape_string(w.shape()),
        w.len(),
        shape_string(out.shape())
    );
    for i in 0..H {
        println!("\nsequence 0, head {i}: weights (T, S)");
        println!("{}", np(&w.slice(s![0, i, .., ..])));
    }
    let worst = w
        .sum_axis(Axis(3))
        .iter()
        .map(|x| (x - 1.0).abs())
        .fold(0.0, f64::max);
    println!("\nevery row sums to 1: largest |row sum - 1| = {worst:e}");
    println!(
        "head-by-head loop vs batched call: largest difference = {:e}",
        head_loop_gap(q.view(), k.view(), v.view())?
    );

    let pad = padding_mask(&LENGTHS, S);
    let (_, w_pad) = parallel_attention(q.view(), k.view(), v.view(), Some(pad.view()))?;
    println!(
        "\npadding mask {} for source lengths {LENGTHS:?}: sequence 1, head 1",
        shape_string(pad.shape())
    );
    println!("{}", np(&w_pad.slice(s![1, 1, .., ..])));

    let x = k.slice(s![.., .., ..T, ..]);
    let causal = causal_mask(T, T);
    let (_, w_causal) = parallel_attention(x, x, x, Some(causal.view()))?;
    println!(
        "\ncausal self-attention over the first {T} positions, mask {}: sequence 0, head 0",
        shape_string(causal.shape())
    );
    println!("{}", np(&w_causal.slice(s![0, 0, .., ..])));

    let mut allowed = ndarray::Array4::from_elem((B, H, T, S), true);
    allowed.slice_mut(s![0, 1, 2, ..]).fill(false);
    let (out_m, w_m) = parallel_attention(q.view(), k.view(), v.view(), Some(allowed.view()))?;
    println!("\nsequence 0, head 1, query 2 may read no key:");
    println!("  weights {}", np(&w_m.slice(s![0, 1, 2, ..])));
    println!("  output  {}", np(&out_m.slice(s![0, 1, 2, ..])));
    Ok(())
}

/// The largest difference between the batched call and one single-head call per `(b, i)`.
fn head_loop_gap(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
) -> Result<f64, attention::ShapeError> {
    let (out, w) = parallel_attention(q, k, v, None)?;
    let mut gap: f64 = 0.0;
    for b in 0..q.dim().0 {
        for i in 0..q.dim().1 {
            let head = s![b..=b, i, .., ..];
            let (o, wi) = attention::attend::scaled_dot_product::<ndarray::Ix3>(
                q.slice(head),
                k.slice(head),
                v.slice(head),
                None,
            )?;
            let pairs = o
                .iter()
                .zip(out.slice(s![b, i, .., ..]))
                .chain(wi.iter().zip(w.slice(s![b, i, .., ..])));
            for (a, c) in pairs {
                gap = gap.max((a - c).abs());
            }
        }
    }
    Ok(gap)
}
