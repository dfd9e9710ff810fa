//! The reference solution reproduces what texts 3, 4 and 5 print about the whole layer: the
//! cross-attention shapes, the module's output shape and 4096 parameters for any head count, the
//! worked W_O product, the practice items and the shape drills.

use lesson04_solution::setup::{PRACTICE_HEAD_OUTPUTS, TEXT_HEAD_OUTPUTS, TEXT_WO, matrix};
use lesson04_solution::*;

#[test]
fn text_3_cross_attention_shapes() {
    let ex = worked_example();
    let layer = MultiHead::new(8, 2, 0).unwrap();
    let (output, weights) = layer
        .forward(ex.query.view(), ex.context.view(), None)
        .unwrap();
    assert_eq!(output.shape(), &[2, 4, 8], "output.shape == (2, 4, 8)");
    assert_eq!(
        weights.shape(),
        &[2, 2, 4, 6],
        "weights.shape == (2, 2, 4, 6)"
    );
    for row in weights.rows() {
        assert!((row.sum() - 1.0).abs() < 1e-12, "weights.sum(-1) == 1");
    }
}

#[test]
fn text_4_module_and_parameter_count() {
    let layer = MultiHead::new(32, 4, 0).unwrap();
    let x = module_input();
    let causal = lesson04_solution::setup::causal(6, 6);
    let (out, _) = layer
        .forward(x.view(), x.view(), Some(causal.view()))
        .unwrap();
    assert_eq!(out.shape(), &[2, 6, 32], "output: (2, 6, 32)");
    assert_eq!(
        layer.parameter_count(),
        4096,
        "parameters: 4096 = 4 × 32 × 32"
    );
    assert_eq!(3 * 32 * 8, 768, "one head's three projections");
    assert_eq!(4 * 768, 3072);
    assert_eq!(32 * 32, 1024);
    for h in [1, 2, 4, 8] {
        let layer = MultiHead::new(32, h, 0).unwrap();
        assert_eq!(
            layer.parameter_count(),
            4096,
            "{h} heads of size {}",
            32 / h
        );
    }
}

#[test]
fn text_5_concatenate_then_mix() {
    let wo = matrix(&TEXT_WO);
    let y = concat_and_project(matrix(&TEXT_HEAD_OUTPUTS).view(), wo.view()).unwrap();
    assert_eq!(
        y.to_vec(),
        [1.0, 0.2, 0.5, 2.2],
        "c W_O = [1, 0.2, 0.5, 2.2]"
    );
    let y = concat_and_project(matrix(&PRACTICE_HEAD_OUTPUTS).view(), wo.view()).unwrap();
    assert_eq!(
        y.to_vec(),
        [2.0, -1.0, 2.0, 2.0],
        "(2, -1, 0, 3) W_O = (2, -1, 2, 2)"
    );
}

#[test]
fn text_5_shape_drills() {
    for (b, t, d, h, hs) in [(1, 3, 8, 2, 4), (2, 7, 24, 6, 4), (1, 5, 12, 3, 4)] {
        let layer = MultiHead::new(d, h, 1).unwrap();
        assert_eq!(layer.head_size, hs, "d_h = d / h");
        let x = lesson04_solution::setup::labelled(b, t, d);
        let q = attention::attend::project(x.view(), layer.wq.view()).unwrap();
        assert_eq!(q.shape(), &[b, t, d], "Q before the split");
        let heads = lesson04_solution::setup::split_heads(q.view(), h).unwrap();
        assert_eq!(
            heads.shape(),
            &[b, h, t, hs],
            "each head: all {t} tokens, {hs} features"
        );
        let (out, weights) = layer.forward(x.view(), x.view(), None).unwrap();
        assert_eq!(weights.shape(), &[b, h, t, t], "each head's P_r is T × T");
        assert_eq!(
            out.shape(),
            &[b, t, d],
            "W_O returns width D for the residual"
        );
    }
}
