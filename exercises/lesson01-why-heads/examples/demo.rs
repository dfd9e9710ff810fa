//! Lesson 1's worked example, printed the way the lesson text prints it, with a picture of both
//! heads. Every shape and number below is computed by your code; a line that needs a function you
//! have not written yet says so.
//!
//! Run it with `cargo xtask demo lesson01` (`--svg DIR` also writes its figures as SVG files).

use attention::error::shape_string;
use attention::print::np;
use attention::rng::RandomState;
use lesson01::setup::{C, DEMO_SCALE, SEED, SENTENCE, Sentence};
use lesson01::*;
use ndarray::{Array3, Axis};
use pictures::{Demo, Got, py};
use std::process::ExitCode;

/// Builds the worked example and prints it.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson01");
    // The sentence and its embedding are given code; the heads are drawn by your `draw_head`.
    let sentence = Sentence::tokenize(SENTENCE);
    let words = sentence.word_refs();
    let mut rng = RandomState::new(SEED);
    let x = sentence.embed(&rng.randn((sentence.vocab.len(), C)));
    d.say(format!("words: {}", py::strs(&words)));
    d.say(format!("T: {}", sentence.len()));
    d.say(format!("X shape: {}", shape_string(x.shape())));

    let ex = d.value(|| Ok(worked_example(DEMO_SCALE)));
    let run = |h: &Head| -> pictures::Val<(Array3<f64>, Array3<f64>)> {
        let w = attention_weights(x.view(), h.wq.view(), h.wk.view(), h.wv.view())?;
        let v = attention::attend::project(x.view(), h.wv.view())?;
        let out = attention::attend::batched_matmul(w.view(), v.view())?;
        Ok((out, w))
    };
    let a = d.value(|| run(&ex.got()?.head_a));
    let b = d.value(|| run(&ex.got()?.head_b));
    d.line("outA shape: ", || {
        let (out, w) = a.got()?;
        Ok(format!(
            "{} | wA shape: {}",
            shape_string(out.shape()),
            shape_string(w.shape())
        ))
    });
    d.say("");

    let wa =
        |a: &pictures::Val<(Array3<f64>, Array3<f64>)>| -> pictures::Val<ndarray::Array2<f64>> {
            Ok(a.got()?.1.index_axis(Axis(0), 0).to_owned())
        };
    let (a0, b0) = (wa(&a), wa(&b));
    d.say("Head A attention matrix (rows = query word, cols = key word):");
    d.line("", || Ok(np(a0.got()?).to_string()));
    d.say("Head B attention matrix:");
    d.line("", || Ok(np(b0.got()?).to_string()));
    d.line("max abs difference between the two heads: ", || {
        let diff = max_abs_diff(a0.got()?.view(), b0.got()?.view())?;
        // Python's `round(x, 4)` printed with `repr`: the shortest digits, e.g. 0.2617 or 0.26.
        Ok(format!("{:?}", (diff * 1e4).round() / 1e4))
    });
    d.say("");
    d.figure(
        "lesson01-heads-a-b",
        "Lesson 1: two heads over the same sentence",
        |f| {
            Ok(f.labels(&words, &words)
                .axes("query word", "key word")
                .panel("head A", a0.got()?.view())
                .panel("head B", b0.got()?.view())
                .scaled_to_max())
        },
    );

    d.line("Head A: each word's top focus -> ", || {
        Ok(py::strs(&top_focus(a0.got()?.view(), &words)?))
    });
    d.line("Head B: each word's top focus -> ", || {
        Ok(py::strs(&top_focus(b0.got()?.view(), &words)?))
    });
    d.line("rows where the two heads disagree: ", || {
        let n = disagreements(a0.got()?.view(), b0.got()?.view())?;
        Ok(format!("{n} of {}", words.len()))
    });
    d.finish()
}
