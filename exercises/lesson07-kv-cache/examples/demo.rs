//! Lesson 7's worked example: a prompt, then one token at a time through a KV cache, printing
//! the cache as it grows and what each step's query heads read.
//!
//! Run it with `cargo xtask demo lesson07` (your code) or `--solutions` (the reference).

use attention::error::shape_string;
use attention::print::np;
use lesson07::setup::{B, CAPACITY, H, H_KV, HS, PROMPT, T, kv_cache_bytes, split_step};
use lesson07::*;
use ndarray::{Axis, s};

/// Feeds the worked example's prompt, then each further token alone, and prints the cache.
pub fn main() {
    let ex = worked_example();
    let layer = &ex.layer;
    println!(
        "D = {}, H = {H} query heads, H_kv = {H_KV} key/value heads, hs = {HS}; cache capacity {CAPACITY}",
        layer.width()
    );
    let mut cache = KvCache::new(B, H_KV, HS, CAPACITY);
    let mut rows = Vec::new();
    let prompt = generate(ex.prompt(), layer, &mut cache).expect("the prompt fits the cache");
    rows.push(prompt);
    println!(
        "prompt of {PROMPT} tokens: cache keys {} values {}, {} bytes in f64",
        shape_string(cache.keys().shape()),
        shape_string(cache.values().shape()),
        cache.memory_bytes(8)
    );
    for p in PROMPT..T {
        let token = ex.x.slice(s![.., p..p + 1, ..]);
        let out = generate(token, layer, &mut cache).expect("the token fits the cache");
        rows.push(out);
        // What this step's query heads read: the same query again, against the grown cache.
        let q =
            split_step(token.index_axis(Axis(1), 0).dot(&layer.wq).view(), H).expect("H divides D");
        let (_, weights) = decode_step(q.view(), &cache).expect("the cache holds this token");
        println!(
            "token {p}: cache keys {}, {} bytes (lesson 6's formula: {}); weights {}",
            shape_string(cache.keys().shape()),
            cache.memory_bytes(8),
            B * kv_cache_bytes(1, H_KV, HS, cache.len(), 8),
            shape_string(weights.shape())
        );
        println!("{}", np(&weights.index_axis(Axis(0), 0)));
    }
    let views: Vec<_> = rows.iter().map(|r| r.view()).collect();
    let out = ndarray::concatenate(Axis(1), &views).expect("rows of one width");
    println!("outputs {}; the last row:", shape_string(out.shape()));
    println!("{}", np(&out.slice(s![0, T - 1, ..])));
    println!(
        "a multi-head cache of {H} key/value heads would take {} bytes",
        B * kv_cache_bytes(1, H, HS, cache.len(), 8)
    );
    let more = ex.x.slice(s![.., ..3, ..]);
    match generate(more, layer, &mut cache) {
        Ok(_) => println!("3 more tokens: accepted (the cache should have been full)"),
        Err(e) => println!("3 more tokens: {e}"),
    }
}
