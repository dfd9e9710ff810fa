//! Lesson 6's worked example: grouped-query attention with 4 query heads sharing 2 key/value
//! heads, then the KV-cache memory of a published model with and without grouping.
//!
//! Run it with `cargo xtask demo lesson06` (your code) or `--solutions` (the reference).

use attention::print::np;
use lesson06::setup::{GIB, H, H_KV, LLAMA2_70B, T};
use lesson06::*;
use ndarray::s;

/// Prints the shapes through the layer, two heads that share keys, and the KV-cache figures.
pub fn main() {
    let ex = worked_example();
    let w = &ex.weights;
    let rep = n_rep(H, H_KV).expect("H_kv divides H");
    println!("H = {H} query heads, H_kv = {H_KV} key/value heads, n_rep = {rep}");
    println!(
        "X {:?}  Wq {:?}  Wk {:?}  Wv {:?}  W_O {:?}",
        ex.x.dim(),
        w.wq.dim(),
        w.wk.dim(),
        w.wv.dim(),
        w.wo.dim()
    );
    let (q, k, v) = (ex.q_heads(), ex.k_heads(), ex.v_heads());
    let k_rep = repeat_kv(k.view(), rep).expect("n_rep >= 1");
    println!(
        "Q heads {:?}  K heads {:?} -> repeated {:?}",
        q.dim(),
        k.dim(),
        k_rep.dim()
    );
    let serves: Vec<usize> = (0..H).map(|i| i / rep).collect();
    println!("query head i uses kv head {serves:?}");

    let (heads, weights) =
        grouped_attention(q.view(), k.view(), v.view(), true).expect("shapes fit");
    println!(
        "per-head output {:?}, weights {:?}",
        heads.dim(),
        weights.dim()
    );
    for i in [0, 1] {
        println!(
            "head {i} (kv head {}), weights (T, T) = ({T}, {T}):",
            i / rep
        );
        println!("{}", np(&weights.slice(s![0, i, .., ..])));
    }
    let (out, _) = gqa_forward(ex.x.view(), w, H, H_KV, true).expect("shapes fit");
    println!(
        "output {:?}: back to model width D; first token, first 8 features:",
        out.dim()
    );
    println!("{}\n", np(&out.slice(s![0, 0, ..8])));

    let c = LLAMA2_70B;
    let gib = |bytes: usize| bytes as f64 / GIB as f64;
    let per_token = kv_cache_bytes(c.layers, c.h_kv, c.hs, 1, c.bytes_per_value);
    let gqa = kv_cache_bytes(c.layers, c.h_kv, c.hs, c.t, c.bytes_per_value);
    let mha = kv_cache_bytes(c.layers, c.h, c.hs, c.t, c.bytes_per_value);
    println!(
        "KV cache, {} layers, H = {}, H_kv = {}, hs = {}, T = {}, {} bytes per number:",
        c.layers, c.h, c.h_kv, c.hs, c.t, c.bytes_per_value
    );
    println!("  per token: {per_token} bytes ({} KiB)", per_token / 1024);
    println!("  GQA: {gqa} bytes = {:.2} GiB", gib(gqa));
    println!(
        "  MHA: {mha} bytes = {:.2} GiB ({}x more)",
        gib(mha),
        mha / gqa
    );
}
