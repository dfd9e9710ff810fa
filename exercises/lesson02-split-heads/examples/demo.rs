//! Lesson 2's worked example, printed the way the lesson text prints it. Every shape and number
//! below is computed by your code; a line that needs a function you have not written yet says so.
//!
//! Run it with `cargo xtask demo lesson02`.

use attention::error::shape_string;
use lesson02::setup::{B, C, H, T};
use lesson02::*;
use ndarray::{Array3, ArrayView3, s};
use pictures::{Demo, Got, Val, py};
use std::process::ExitCode;

/// NumPy's `allclose` (`rtol = 1e-5`, `atol = 1e-8`), `False` when the shapes differ.
fn allclose(a: ArrayView3<f64>, b: ArrayView3<f64>) -> bool {
    a.shape() == b.shape()
        && a.iter()
            .zip(b.iter())
            .all(|(x, y)| (x - y).abs() <= 1e-8 + 1e-5 * y.abs())
}

/// Builds the worked example and prints it.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson02");
    let ex = worked_example();
    let hs = d.value(|| Ok(head_size(C, H)?));
    d.say(format!("B, T, C = {B} {T} {C}"));
    d.line(&format!("h = {H} | hs = C // h = "), || {
        Ok(hs.got()?.to_string())
    });
    d.say(format!("X shape:  {}", shape_string(ex.x.shape())));
    d.say(format!("Wq shape: {}\n", shape_string(ex.wq.shape())));

    let q = ex.q();
    let split = d.value(|| Ok(split_heads(q.view(), H)?));
    d.say(format!(
        "Q = X @ Wq shape:           {}",
        shape_string(q.shape())
    ));
    // The shape between the two steps: Q's (B, T), then h heads of your head_size.
    d.line("reshape -> (B, T, h, hs):   ", || {
        Ok(shape_string(&[q.shape()[0], q.shape()[1], H, *hs.got()?]))
    });
    d.line("transpose -> (B, h, T, hs): ", || {
        Ok(shape_string(split.got()?.shape()))
    });
    d.say("");

    let mut all: Val<bool> = Ok(true);
    for i in 0..H {
        let ok = d.value(|| {
            let direct = head_projection(ex.x.view(), ex.wq.view(), H, i)?;
            let from_split = split.got()?.slice(s![.., i, .., ..]).to_owned();
            Ok(allclose(direct.view(), from_split.view()))
        });
        d.line(
            &format!("head {i}: split matches separate (C, hs) projection? "),
            || Ok(py::bool(*ok.got()?).to_owned()),
        );
        all = match (all, ok) {
            (Ok(a), Ok(b)) => Ok(a && b),
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
    }
    d.line("all heads match: ", || Ok(py::bool(*all.got()?).to_owned()));
    d.say("");

    let back: Val<Array3<f64>> = d.value(|| Ok(merge_heads(split.got()?.view())));
    d.line("recovered Q equals original Q exactly? ", || {
        Ok(py::bool(*back.got()? == q).to_owned())
    });
    d.line("max abs diff: ", || {
        let back = back.got()?;
        if back.shape() != q.shape() {
            return Err(pictures::Skip::Error(format!(
                "merge_heads returned {}, Q is {}",
                shape_string(back.shape()),
                shape_string(q.shape())
            )));
        }
        let max = back
            .iter()
            .zip(q.iter())
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        Ok(format!("{max:?}"))
    });
    d.say("");

    // Keys and values go through the same split.
    d.line("Qh: ", || {
        let shape = |w: &ndarray::Array2<f64>| -> Val<String> {
            let p = attention::attend::project(ex.x.view(), w.view())?;
            Ok(shape_string(split_heads(p.view(), H)?.shape()))
        };
        Ok(format!(
            "{} | Kh: {} | Vh: {}",
            shape(&ex.wq)?,
            shape(&ex.wk)?,
            shape(&ex.wv)?
        ))
    });
    d.say("");

    d.line("h = 8: ", || {
        let hs8 = head_size(C, 8)?;
        let split8 = split_heads(q.view(), 8)?;
        Ok(format!(
            "hs = {hs8}, split shape {}",
            shape_string(split8.shape())
        ))
    });
    d.line("h = 5: ", || {
        Ok(match head_size(C, 5) {
            Ok(hs5) => format!("hs = {hs5} (C = 64 should not split into 5 heads!)"),
            Err(e) => e.to_string(),
        })
    });
    d.finish()
}
