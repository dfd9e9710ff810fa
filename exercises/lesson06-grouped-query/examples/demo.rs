//! Lesson 6's worked example: grouped-query attention with 4 query heads sharing 2 key/value heads
//! (with a picture of every head), then the KV-cache memory of a published model with and without
//! grouping. Every shape and number below is computed by your code; a line that needs a function
//! you have not written yet says so.
//!
//! Run it with `cargo xtask demo lesson06` (`--svg DIR` also writes its figures as SVG files).

use attention::print::np;
use lesson06::setup::{GIB, H, H_KV, LLAMA2_70B, T};
use lesson06::*;
use ndarray::{Array4, s};
use pictures::{Demo, Got, Val, positions};
use std::process::ExitCode;

/// Prints the shapes through the layer, two heads that share keys, their pictures and the
/// KV-cache figures.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson06");
    let ex = worked_example();
    let w = &ex.weights;
    let rep = d.value(|| Ok(n_rep(H, H_KV)?));
    d.line(
        &format!("H = {H} query heads, H_kv = {H_KV} key/value heads, n_rep = "),
        || Ok(rep.got()?.to_string()),
    );
    d.say(format!(
        "X {:?}  Wq {:?}  Wk {:?}  Wv {:?}  W_O {:?}",
        ex.x.dim(),
        w.wq.dim(),
        w.wk.dim(),
        w.wv.dim(),
        w.wo.dim()
    ));
    let (q, k, v) = (ex.q_heads(), ex.k_heads(), ex.v_heads());
    d.line(
        &format!("Q heads {:?}  K heads {:?} -> repeated ", q.dim(), k.dim()),
        || Ok(format!("{:?}", repeat_kv(k.view(), *rep.got()?)?.dim())),
    );
    d.line("query head i uses kv head ", || {
        let rep = *rep.got()?;
        Ok(format!("{:?}", (0..H).map(|i| i / rep).collect::<Vec<_>>()))
    });

    let grouped: Val<(Array4<f64>, Array4<f64>)> =
        d.value(|| Ok(grouped_attention(q.view(), k.view(), v.view(), true)?));
    d.line("per-head output ", || {
        let (heads, weights) = grouped.got()?;
        Ok(format!("{:?}, weights {:?}", heads.dim(), weights.dim()))
    });
    for i in [0, 1] {
        d.line(&format!("head {i} "), || {
            Ok(format!(
                "(kv head {}), weights (T, T) = ({T}, {T}):\n{}",
                i / *rep.got()?,
                np(&grouped.got()?.1.slice(s![0, i, .., ..]))
            ))
        });
    }
    d.figure(
        "lesson06-gqa-heads",
        "Lesson 6: grouped-query attention (causal), every query head",
        |mut f| {
            let weights = &grouped.got()?.1;
            let rep = *rep.got()?;
            for i in 0..weights.dim().1 {
                f = f.panel(
                    format!("head {i} (kv head {})", i / rep),
                    weights.slice(s![0, i, .., ..]),
                );
            }
            Ok(f.labels(&positions(T), &positions(T)).scaled_to_max())
        },
    );
    d.line("output ", || {
        let (out, _) = gqa_forward(ex.x.view(), w, H, H_KV, true)?;
        Ok(format!(
            "{:?}: back to model width D; first token, first 8 features:\n{}\n",
            out.dim(),
            np(&out.slice(s![0, 0, ..8]))
        ))
    });

    let c = LLAMA2_70B;
    let gib = |bytes: usize| bytes as f64 / GIB as f64;
    d.say(format!(
        "KV cache, {} layers, H = {}, H_kv = {}, hs = {}, T = {}, {} bytes per number:",
        c.layers, c.h, c.h_kv, c.hs, c.t, c.bytes_per_value
    ));
    let bytes = |heads: usize, t: usize| {
        d.value(|| Ok(kv_cache_bytes(c.layers, heads, c.hs, t, c.bytes_per_value)))
    };
    let (per_token, gqa, mha) = (bytes(c.h_kv, 1), bytes(c.h_kv, c.t), bytes(c.h, c.t));
    d.line("  per token: ", || {
        let p = *per_token.got()?;
        Ok(format!("{p} bytes ({} KiB)", p / 1024))
    });
    d.line("  GQA: ", || {
        let g = *gqa.got()?;
        Ok(format!("{g} bytes = {:.2} GiB", gib(g)))
    });
    d.line("  MHA: ", || {
        let (m, g) = (*mha.got()?, *gqa.got()?);
        Ok(format!(
            "{m} bytes = {:.2} GiB ({}x more)",
            gib(m),
            m.checked_div(g).unwrap_or(0)
        ))
    });
    d.finish()
}
