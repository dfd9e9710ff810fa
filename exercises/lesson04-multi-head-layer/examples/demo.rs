//! Lesson 4's worked examples: concatenate-then-`W_O` for one token, a cross-attention layer, the
//! causal self-attention module and its parameter count, with pictures of every head and of their
//! average. Every shape and number below is computed by your code; a line that needs a function you
//! have not written yet says so.
//!
//! Run it with `cargo xtask demo lesson04` (`--svg DIR` also writes its figures as SVG files).

use attention::error::shape_string;
use attention::print::np;
use lesson04::setup::{
    HEADS, LAYER_SEED, MODULE_HEADS, MODULE_T, MODULE_WIDTH, PRACTICE_HEAD_OUTPUTS, S, T,
    TEXT_HEAD_OUTPUTS, TEXT_WO, WIDTH, causal, matrix,
};
use lesson04::{
    MultiHead, WorkedExample, average_over_heads, concat_and_project, fused_qkv, module_input,
    worked_example,
};
use ndarray::{Array3, Array4, Axis, s};
use pictures::{Demo, Figure, Got, Val, positions};
use std::process::ExitCode;

/// One panel per head of sequence 0 of `(B, h, T, S)` weights.
fn heads_of(mut f: Figure, w: &Array4<f64>) -> Figure {
    for i in 0..w.dim().1 {
        f = f.panel(format!("head {i}"), w.slice(s![0, i, .., ..]));
    }
    f
}

/// Runs the examples and prints the figures the lesson quotes.
pub fn main() -> ExitCode {
    let d = Demo::start("lesson04");
    d.say("== concatenate, then W_O (one token, D = 4, h = 2, hs = 2)");
    let wo = matrix(&TEXT_WO);
    d.say(format!("W_O =\n{}", np(&wo)));
    for (name, outputs) in [
        ("text", TEXT_HEAD_OUTPUTS),
        ("practice", PRACTICE_HEAD_OUTPUTS),
    ] {
        let heads = matrix(&outputs);
        d.line(
            &format!(
                "{name}: heads {} and {} -> concatenated ",
                np(&heads.row(0)),
                np(&heads.row(1))
            ),
            || {
                let concatenated =
                    concat_and_project(heads.view(), ndarray::Array2::eye(4).view())?;
                let mixed = concat_and_project(heads.view(), wo.view())?;
                Ok(format!("{} -> times W_O {}", np(&concatenated), np(&mixed)))
            },
        );
    }

    d.say(format!(
        "\n== cross-attention: B = 2, T = {T}, S = {S}, D = {WIDTH}, h = {HEADS}"
    ));
    let WorkedExample { query, context } = worked_example();
    let layer = d.value(|| Ok(MultiHead::new(WIDTH, HEADS, LAYER_SEED)?));
    let cross: Val<(Array3<f64>, Array4<f64>)> =
        d.value(|| Ok(layer.got()?.forward(query.view(), context.view(), None)?));
    d.line(
        &format!(
            "query {}, context {} -> output ",
            shape_string(query.shape()),
            shape_string(context.shape())
        ),
        || {
            let (y, w) = cross.got()?;
            Ok(format!(
                "{}, weights {}",
                shape_string(y.shape()),
                shape_string(w.shape())
            ))
        },
    );
    d.line(
        "every weight row sums to 1: largest |row sum - 1| = ",
        || {
            let worst = cross
                .got()?
                .1
                .sum_axis(Axis(3))
                .iter()
                .map(|x| (x - 1.0).abs())
                .fold(0.0, f64::max);
            Ok(format!("{worst:e}"))
        },
    );
    let heads = layer.got().map(|l| l.heads).unwrap_or(HEADS);
    for i in 0..heads {
        d.line(&format!("sequence 0, head {i} weights (T, S):\n"), || {
            Ok(np(&cross.got()?.1.slice(s![0, i, .., ..])).to_string())
        });
    }
    d.figure(
        "lesson04-cross-heads",
        "Lesson 4: cross-attention, every head, sequence 0",
        |f| {
            Ok(heads_of(f, &cross.got()?.1)
                .axes("query position", "context position")
                .labels(&positions(T), &positions(S))
                .scaled_to_max())
        },
    );
    let avg = d.value(|| Ok(average_over_heads(cross.got()?.1.view())?));
    d.line("average over heads (display only), sequence 0:\n", || {
        Ok(np(&avg.got()?.index_axis(Axis(0), 0)).to_string())
    });
    d.figure(
        "lesson04-head-average",
        "Lesson 4: cross-attention averaged over heads (display only), sequence 0",
        |f| {
            Ok(f.axes("query position", "context position")
                .labels(&positions(T), &positions(S))
                .panel("average over heads", avg.got()?.index_axis(Axis(0), 0))
                .scaled_to_max())
        },
    );
    d.line("output, sequence 0 (T, D):\n", || {
        Ok(np(&cross.got()?.0.index_axis(Axis(0), 0)).to_string())
    });

    d.say(format!(
        "\n== causal self-attention module: D = {MODULE_WIDTH}, h = {MODULE_HEADS}"
    ));
    let module = d.value(|| Ok(MultiHead::new(MODULE_WIDTH, MODULE_HEADS, 0)?));
    let x = module_input();
    let mask = causal(MODULE_T, MODULE_T);
    let module_out: Val<(Array3<f64>, Array4<f64>)> = d.value(|| {
        Ok(module
            .got()?
            .forward(x.view(), x.view(), Some(mask.view()))?)
    });
    d.line(
        &format!("input {} -> output ", shape_string(x.shape())),
        || {
            let (my, mw) = module_out.got()?;
            Ok(format!(
                "{}, weights {}",
                shape_string(my.shape()),
                shape_string(mw.shape())
            ))
        },
    );
    d.figure(
        "lesson04-causal-heads",
        "Lesson 4: causal self-attention module, every head, sequence 0",
        |f| {
            Ok(heads_of(f, &module_out.got()?.1)
                .axes("query position", "key position")
                .labels(&positions(MODULE_T), &positions(MODULE_T))
                .scaled_to_max())
        },
    );
    d.line(
        "fused (D, 3D) projection vs x @ wq: largest difference ",
        || {
            let module = module.got()?;
            let (q, _, _) = fused_qkv(module, x.view())?;
            let separate = attention::attend::project(x.view(), module.wq.view())?;
            if q.shape() != separate.shape() {
                return Ok(format!(
                    "(shapes differ: {} vs {})",
                    shape_string(q.shape()),
                    shape_string(separate.shape())
                ));
            }
            let gap = q
                .iter()
                .zip(separate.iter())
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            Ok(format!("{gap:e}"))
        },
    );

    d.say("\n== parameters (no biases)");
    for h in [1, 2, 4, 8] {
        let hs = MODULE_WIDTH / h;
        d.line(
            &format!("{h} heads of size {hs}: {h} x 3 x {MODULE_WIDTH} x {hs} + {MODULE_WIDTH} x {MODULE_WIDTH} = "),
            || Ok(format!("{} parameters", MultiHead::new(MODULE_WIDTH, h, 0)?.parameter_count())),
        );
    }
    d.line("MultiHead::new(8, 3, 0): ", || {
        Ok(match MultiHead::new(8, 3, 0) {
            Ok(_) => "accepted (it should not be: 8 is not a multiple of 3)".to_owned(),
            Err(e) => e.to_string(),
        })
    });
    d.finish()
}
