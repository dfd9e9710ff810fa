//! Lesson 2's worked example, printed the way the lesson text prints it.
//! Run it with `cargo xtask demo lesson02` (your code) or `--solutions` (the reference).

use attention::error::shape_string;
use lesson02::setup::{B, C, H, T};
use lesson02::*;
use ndarray::s;

/// Builds the worked example and prints it.
pub fn main() -> Result<(), attention::ShapeError> {
    let ex = worked_example();
    let hs = head_size(C, H)?;
    println!("B, T, C = {B} {T} {C}");
    println!("h = {H} | hs = C // h = {hs}");
    println!("X shape:  {}", shape_string(ex.x.shape()));
    println!("Wq shape: {}\n", shape_string(ex.wq.shape()));

    let q = ex.q();
    let split = split_heads(q.view(), H)?;
    println!("Q = X @ Wq shape:           {}", shape_string(q.shape()));
    println!("reshape -> (B, T, h, hs):   ({B}, {T}, {H}, {hs})");
    println!(
        "transpose -> (B, h, T, hs): {}\n",
        shape_string(split.shape())
    );

    let mut all = true;
    for i in 0..H {
        let direct = head_projection(ex.x.view(), ex.wq.view(), H, i)?;
        let from_split = split.slice(s![.., i, .., ..]);
        let ok = direct
            .iter()
            .zip(from_split.iter())
            .all(|(a, b)| (a - b).abs() <= 1e-12);
        all &= ok;
        println!("head {i}: split matches separate (C, hs) projection? {ok}");
    }
    println!("all heads match: {all}\n");

    let back = merge_heads(split.view());
    let max = back
        .iter()
        .zip(q.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("recovered Q equals original Q exactly? {}", back == q);
    println!("max abs diff: {max:?}\n");

    let hs8 = head_size(C, 8)?;
    let split8 = split_heads(q.view(), 8)?;
    println!(
        "h = 8: hs = {hs8}, split shape {}",
        shape_string(split8.shape())
    );
    match head_size(C, 5) {
        Ok(hs5) => println!("h = 5: hs = {hs5} (C = 64 should not split into 5 heads!)"),
        Err(e) => println!("h = 5: {e}"),
    }
    Ok(())
}
