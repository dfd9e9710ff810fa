//! Lesson 4's worked examples: concatenate-then-`W_O` for one token, a cross-attention layer,
//! the causal self-attention module and its parameter count.
//!
//! `cargo xtask demo lesson04` (or `cargo run -p lesson04 --example lesson04-demo`) runs it with
//! your code.

use attention::error::shape_string;
use attention::print::np;
use lesson04::setup::{
    HEADS, LAYER_SEED, MODULE_HEADS, MODULE_T, MODULE_WIDTH, PRACTICE_HEAD_OUTPUTS,
    TEXT_HEAD_OUTPUTS, TEXT_WO, WIDTH, causal, matrix,
};
use lesson04::{
    MultiHead, WorkedExample, average_over_heads, concat_and_project, fused_qkv, module_input,
    worked_example,
};
use ndarray::{Axis, s};

/// Runs the examples and prints the figures the lesson quotes.
pub fn main() -> Result<(), attention::ShapeError> {
    println!("== concatenate, then W_O (one token, D = 4, h = 2, hs = 2)");
    let wo = matrix(&TEXT_WO);
    println!("W_O =\n{}", np(&wo));
    for (name, outputs) in [
        ("text", TEXT_HEAD_OUTPUTS),
        ("practice", PRACTICE_HEAD_OUTPUTS),
    ] {
        let heads = matrix(&outputs);
        let concatenated = concat_and_project(heads.view(), ndarray::Array2::eye(4).view())?;
        let mixed = concat_and_project(heads.view(), wo.view())?;
        println!(
            "{name}: heads {} and {} -> concatenated {} -> times W_O {}",
            np(&heads.row(0)),
            np(&heads.row(1)),
            np(&concatenated),
            np(&mixed)
        );
    }

    println!("\n== cross-attention: B = 2, T = 4, S = 6, D = 8, h = 2");
    let WorkedExample { query, context } = worked_example();
    let layer = MultiHead::new(WIDTH, HEADS, LAYER_SEED)?;
    let (y, w) = layer.forward(query.view(), context.view(), None)?;
    println!(
        "query {}, context {} -> output {}, weights {}",
        shape_string(query.shape()),
        shape_string(context.shape()),
        shape_string(y.shape()),
        shape_string(w.shape())
    );
    let worst = w
        .sum_axis(Axis(3))
        .iter()
        .map(|x| (x - 1.0).abs())
        .fold(0.0, f64::max);
    println!("every weight row sums to 1: largest |row sum - 1| = {worst:e}");
    for i in 0..layer.heads {
        println!(
            "sequence 0, head {i} weights (T, S):\n{}",
            np(&w.slice(s![0, i, .., ..]))
        );
    }
    let avg = average_over_heads(w.view())?;
    println!(
        "average over heads (display only), sequence 0:\n{}",
        np(&avg.index_axis(Axis(0), 0))
    );
    println!(
        "output, sequence 0 (T, D):\n{}",
        np(&y.index_axis(Axis(0), 0))
    );

    println!("\n== causal self-attention module: D = {MODULE_WIDTH}, h = {MODULE_HEADS}");
    let module = MultiHead::new(MODULE_WIDTH, MODULE_HEADS, 0)?;
    let x = module_input();
    let mask = causal(MODULE_T, MODULE_T);
    let (my, mw) = module.forward(x.view(), x.view(), Some(mask.view()))?;
    println!(
        "input {} -> output {}, weights {}",
        shape_string(x.shape()),
        shape_string(my.shape()),
        shape_string(mw.shape())
    );
    let (q, _, _) = fused_qkv(&module, x.view())?;
    let separate = attention::attend::project(x.view(), module.wq.view())?;
    let gap = q
        .iter()
        .zip(separate.iter())
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("fused (D, 3D) projection vs x @ wq: largest difference {gap:e}");

    println!("\n== parameters (no biases)");
    for h in [1, 2, 4, 8] {
        let layer = MultiHead::new(MODULE_WIDTH, h, 0)?;
        let hs = MODULE_WIDTH / h;
        println!(
            "{h} heads of size {hs}: {h} x 3 x {MODULE_WIDTH} x {hs} + {MODULE_WIDTH} x {MODULE_WIDTH} = {} parameters",
            layer.parameter_count()
        );
    }
    match MultiHead::new(8, 3, 0) {
        Ok(_) => println!("8 wide with 3 heads was accepted (it should not be)"),
        Err(e) => println!("MultiHead::new(8, 3, 0): {e}"),
    }
    Ok(())
}
