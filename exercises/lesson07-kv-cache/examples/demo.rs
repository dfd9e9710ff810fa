//! Lesson 7's worked example: a prompt, then one token at a time through a KV cache, printing the
//! cache as it grows and what each step's query heads read (with a picture of every head). Every
//! shape and number below is computed by your code; a line that needs a function you have not
//! written yet says so.
//!
//! Run it with `cargo xtask demo lesson07` (`--svg DIR` also writes its figures as SVG files).

use attention::error::shape_string;
use attention::print::np;
use lesson07::setup::{B, CAPACITY, H, H_KV, HS, PROMPT, T, kv_cache_bytes, split_step};
use lesson07::*;
use ndarray::{Array2, Array3, Axis, s};
use pictures::{Demo, Got, Skip, Val, positions};
use std::process::ExitCode;

/// Feeds the worked example's prompt, then each further token alone, and prints the cache and a
/// picture of what the new tokens read.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson07");
    let ex = worked_example();
    let layer = &ex.layer;
    d.say(format!(
        "D = {}, H = {H} query heads, H_kv = {H_KV} key/value heads, hs = {HS}; cache capacity {CAPACITY}",
        layer.width()
    ));
    let mut cache = KvCache::new(B, H_KV, HS, CAPACITY);
    let mut rows = vec![d.value(|| Ok(generate(ex.prompt(), layer, &mut cache)?))];
    d.line(&format!("prompt of {PROMPT} tokens: "), || {
        rows[0].got()?;
        Ok(format!(
            "cache keys {} values {}, {} bytes in f64",
            shape_string(cache.keys().shape()),
            shape_string(cache.values().shape()),
            cache.memory_bytes(8)
        ))
    });

    // Each new token alone; what its query heads read is the same query again, against the grown
    // cache.
    let mut reads: Vec<Val<Array3<f64>>> = Vec::new();
    for p in PROMPT..T {
        let token = ex.x.slice(s![.., p..p + 1, ..]);
        let out = d.value(|| Ok(generate(token, layer, &mut cache)?));
        let weights = d.value(|| {
            out.got()?;
            let q = split_step(token.index_axis(Axis(1), 0).dot(&layer.wq).view(), H)?;
            Ok(decode_step(q.view(), &cache)?.1)
        });
        d.line(&format!("token {p}: "), || {
            let w = weights.got()?;
            Ok(format!(
                "cache keys {}, {} bytes (lesson 6's formula: {}); weights {}\n{}",
                shape_string(cache.keys().shape()),
                cache.memory_bytes(8),
                B * kv_cache_bytes(1, H_KV, HS, cache.len(), 8),
                shape_string(w.shape()),
                np(&w.index_axis(Axis(0), 0))
            ))
        });
        rows.push(out);
        reads.push(weights);
    }
    d.figure(
        "lesson07-decode-weights",
        "Lesson 7: what each new token's query heads read from the cache",
        |mut f| {
            for i in 0..H {
                f = f.panel(
                    format!("head {i} (kv head {})", i / (H / H_KV)),
                    reads_of_head(&reads, i)?.view(),
                );
            }
            let new: Vec<String> = (PROMPT..T).map(|p| format!("token {p}")).collect();
            Ok(f.axes("new token", "cached position")
                .labels(&new, &positions(T))
                .scaled_to_max())
        },
    );

    let all = d.value(|| {
        let views = rows
            .iter()
            .map(|r| r.got().map(|a| a.view()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ndarray::concatenate(Axis(1), &views)?)
    });
    d.line("outputs ", || {
        let out = all.got()?;
        Ok(format!(
            "{}; the last row:\n{}",
            shape_string(out.shape()),
            np(&out.slice(s![0, out.dim().1 - 1, ..]))
        ))
    });
    d.line(&format!("after {T} tokens the cache takes "), || {
        all.got()?;
        Ok(format!(
            "{} bytes; a multi-head cache of {H} key/value heads would take {} bytes",
            cache.memory_bytes(8),
            B * kv_cache_bytes(1, H, HS, T, 8)
        ))
    });
    let more = ex.x.slice(s![.., ..3, ..]);
    d.line("3 more tokens: ", || {
        all.got()?;
        Ok(match generate(more, layer, &mut cache) {
            Ok(_) => "accepted (the cache should have been full)".to_owned(),
            Err(e) => e.to_string(),
        })
    });
    d.finish()
}

/// Query head `head`'s weights at every decoding step, one row per new token, over all `T`
/// positions: `(T - PROMPT, T)`, zero where a position was not cached yet.
fn reads_of_head(reads: &[Val<Array3<f64>>], head: usize) -> Val<Array2<f64>> {
    let mut grid = Array2::zeros((reads.len(), T));
    for (r, w) in reads.iter().enumerate() {
        let w = w.got()?;
        let len = PROMPT + r + 1;
        if w.dim() != (B, H, len) {
            return Err(Skip::Error(format!(
                "decode_step returned weights {} at token {}, expected {}",
                shape_string(w.shape()),
                len - 1,
                shape_string(&[B, H, len])
            )));
        }
        grid.slice_mut(s![r, ..len])
            .assign(&w.slice(s![0, head, ..]));
    }
    Ok(grid)
}
