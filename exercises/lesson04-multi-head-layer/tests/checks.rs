//! The checks of lesson 4, shared by the exercise crate (`lesson04`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//! References are built from the core crate only: column slices, single-head attention, and the
//! core's fused `attention::fast::mha_forward`.

use attention::attend::{project, scaled_dot_product};
use attention::fast::{MhaConfig, mha_forward};
use attention::rng::RandomState;
use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, max_abs_diff, property};
use lesson04::setup::{
    B, HEADS, LAYER_SEED, MODULE_HEADS, MODULE_T, MODULE_WIDTH, PRACTICE_HEAD_OUTPUTS, S, T,
    TEXT_HEAD_OUTPUTS, TEXT_WO, WIDTH, attend_heads, causal, labelled, matrix, merge_heads,
    split_heads,
};
use lesson04::*;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView4, Axis, array, concatenate, s};

fn assert_close_to(got: &Array1<f64>, expected: &[f64], what: &str) {
    assert_eq!(got.len(), expected.len(), "{what}: wrong length");
    for (g, e) in got.iter().zip(expected) {
        assert!(
            (g - e).abs() < 1e-12,
            "{what}: expected {expected:?}, got {got}"
        );
    }
}

/// The layer computed head by head from column slices of the projections, with the core's
/// single-head attention, concatenated along the features and multiplied by `wo`.
fn per_head_reference(
    layer: &MultiHead,
    query: &Array3<f64>,
    context: &Array3<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> (Array3<f64>, Array4<f64>) {
    let (b, t, _) = query.dim();
    let s = context.dim().1;
    let hs = layer.head_size;
    let mut outputs = Vec::new();
    let mut weights = Array4::<f64>::zeros((b, layer.heads, t, s));
    for i in 0..layer.heads {
        let cols = s![.., i * hs..(i + 1) * hs];
        let q = project(query.view(), layer.wq.slice(cols)).unwrap();
        let k = project(context.view(), layer.wk.slice(cols)).unwrap();
        let v = project(context.view(), layer.wv.slice(cols)).unwrap();
        let mask = allowed.map(|m| m.index_axis_move(Axis(1), 0));
        let (o, w) = scaled_dot_product(q.view(), k.view(), v.view(), mask.as_ref()).unwrap();
        outputs.push(o);
        weights.index_axis_mut(Axis(1), i).assign(&w);
    }
    let views: Vec<_> = outputs.iter().map(|o| o.view()).collect();
    let joined = concatenate(Axis(2), &views).unwrap();
    (project(joined.view(), layer.wo.view()).unwrap(), weights)
}

/// A layer for the forward, fused and averaging checks, independent of `init_multi_head`:
/// four `randn((D, D)) * sqrt(2 / D)` draws from `seed` (scores with a spread of about 2),
/// through the given `MultiHead::from_weights`.
fn test_layer(width: usize, heads: usize, seed: u32) -> MultiHead {
    let mut rng = RandomState::new(seed);
    let scale = (2.0 / width as f64).sqrt();
    let mut draw = || rng.randn((width, width)) * scale;
    let (wq, wk, wv, wo) = (draw(), draw(), draw(), draw());
    MultiHead::from_weights(heads, wq, wk, wv, wo).unwrap()
}

fn fused_weight(layer: &MultiHead) -> Array2<f64> {
    concatenate![Axis(1), layer.wq, layer.wk, layer.wv]
}

// ---- concat_and_project ------------------------------------------------------------------------

#[test]
fn concat_and_project_worked_example() {
    let _proof = course_check::proof();
    let heads = matrix(&TEXT_HEAD_OUTPUTS);
    let y = concat_and_project(heads.view(), matrix(&TEXT_WO).view()).unwrap();
    assert_close_to(
        &y,
        &[1.0, 0.2, 0.5, 2.2],
        "(1, 0.2), (-0.5, 2) through the text's W_O",
    );
    let eye = Array2::<f64>::eye(4);
    let plain = concat_and_project(heads.view(), eye.view()).unwrap();
    assert_close_to(
        &plain,
        &[1.0, 0.2, -0.5, 2.0],
        "with W_O = I the result is the plain concatenation",
    );
}

#[test]
fn concat_and_project_practice() {
    let _proof = course_check::proof();
    let heads = matrix(&PRACTICE_HEAD_OUTPUTS);
    let eye = Array2::<f64>::eye(4);
    let plain = concat_and_project(heads.view(), eye.view()).unwrap();
    assert_close_to(
        &plain,
        &[2.0, -1.0, 0.0, 3.0],
        "concatenating (2, -1) and (0, 3)",
    );
    let y = concat_and_project(heads.view(), matrix(&TEXT_WO).view()).unwrap();
    assert_close_to(
        &y,
        &[2.0, -1.0, 2.0, 2.0],
        "(2, -1, 0, 3) through the text's W_O",
    );
}

#[test]
fn concat_and_project_many_heads() {
    let _proof = course_check::proof();
    // Three heads of size 2: the concatenation is head 0, then head 1, then head 2.
    let mut rng = RandomState::new(9);
    let heads: Array2<f64> = rng.randn((3, 2));
    let wo: Array2<f64> = rng.randn((6, 6));
    let y = concat_and_project(heads.view(), wo.view()).unwrap();
    let c = array![
        heads[[0, 0]],
        heads[[0, 1]],
        heads[[1, 0]],
        heads[[1, 1]],
        heads[[2, 0]],
        heads[[2, 1]]
    ];
    assert!(max_abs_diff(y.view(), c.dot(&wo).view()) < 1e-12);
    assert_close_snapshot!("three_heads", y);
}

#[test]
fn concat_and_project_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let heads = matrix(&TEXT_HEAD_OUTPUTS);
    for bad in [(4, 3), (3, 3), (2, 2), (8, 8)] {
        let wo = Array2::<f64>::zeros(bad);
        assert!(
            concat_and_project(heads.view(), wo.view()).is_err(),
            "W_O {bad:?} does not fit two heads of size 2 (it must be (4, 4))"
        );
    }
}

// ---- init_multi_head ---------------------------------------------------------------------------

#[test]
fn new_refuses_zero_or_uneven_heads() {
    let _proof = course_check::proof();
    for (width, heads) in [(8, 0), (8, 3), (32, 5), (6, 4)] {
        match MultiHead::new(width, heads, 0) {
            Ok(_) => panic!("width {width} with {heads} heads must be refused"),
            Err(e) => {
                let msg = e.to_string();
                assert!(
                    msg.contains(&width.to_string()) && msg.contains(&heads.to_string()),
                    "the error should name the width {width} and the head count {heads}: `{msg}`"
                );
            }
        }
    }
    assert!(MultiHead::new(8, 8, 0).is_ok());
}

#[test]
fn new_draws_wq_wk_wv_wo_in_order() {
    let _proof = course_check::proof();
    let layer = MultiHead::new(8, 2, 5).unwrap();
    assert_eq!(
        (layer.width, layer.heads, layer.head_size),
        (8, 2, 4),
        "(width, heads, head_size)"
    );
    let mut replay = RandomState::new(5);
    let root = 8f64.sqrt();
    for (name, w) in [
        ("wq", &layer.wq),
        ("wk", &layer.wk),
        ("wv", &layer.wv),
        ("wo", &layer.wo),
    ] {
        let expected: Array2<f64> = replay.randn((8, 8)) / root;
        assert_eq!(w.shape(), &[8, 8], "{name} is (D, D)");
        let d = max_abs_diff(w.view(), expected.view());
        assert!(
            d < 1e-15,
            "{name} must be the next randn((D, D)) / sqrt(D) draw in the order wq, wk, wv, wo (off by {d})"
        );
    }
    assert_eq!(
        MultiHead::new(8, 4, 5).unwrap().wq,
        layer.wq,
        "the head count does not change the draws"
    );
}

#[test]
fn new_holds_4096_parameters_for_any_head_count() {
    let _proof = course_check::proof();
    let d = MODULE_WIDTH;
    for h in [1, 2, 4, 8] {
        let layer = MultiHead::new(d, h, 0).unwrap();
        let hs = d / h;
        assert_eq!(h * 3 * d * hs + d * d, 4096, "per-head count for h = {h}");
        assert_eq!(
            layer.parameter_count(),
            4096,
            "D = 32 with {h} heads must hold 4 * 32 * 32 = 4096 weights"
        );
    }
    assert_eq!(
        MultiHead::new(12, 3, 0).unwrap().parameter_count(),
        4 * 12 * 12
    );
}

#[test]
fn init_multi_head_counts_its_own_weights() {
    let _proof = course_check::proof();
    // Count the weights the layer really holds: every one of the 4 · 32 · 32 = 4096 entries is
    // its own randn draw, so all 4096 values differ, and the head count does not change them.
    let d = MODULE_WIDTH;
    let first = init_multi_head(d, 1, 0).unwrap();
    for h in [1, 2, 4, 8] {
        let layer = init_multi_head(d, h, 0).unwrap();
        let matrices = [&layer.wq, &layer.wk, &layer.wv, &layer.wo];
        for (name, w) in ["wq", "wk", "wv", "wo"].iter().zip(matrices) {
            assert_eq!(
                w.shape(),
                &[d, d],
                "h = {h}: {name} must be (D, D) = ({d}, {d})"
            );
        }
        let distinct: std::collections::HashSet<u64> = matrices
            .iter()
            .flat_map(|w| w.iter())
            .map(|v| v.to_bits())
            .collect();
        assert_eq!(
            distinct.len(),
            4096,
            "h = {h}: the layer must hold 4096 separately drawn weights (4 (D, D) draws), it holds {} distinct values",
            distinct.len()
        );
        assert_eq!(
            (layer.heads, layer.head_size),
            (h, d / h),
            "h = {h}: (heads, head_size)"
        );
        assert!(
            layer.wq == first.wq && layer.wo == first.wo,
            "h = {h}: the head count cuts the same weights differently, it does not draw others"
        );
    }
}

// ---- multi_head_forward ------------------------------------------------------------------------

#[test]
fn forward_cross_attention_shapes() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (y, w) = test_layer(WIDTH, HEADS, 30)
        .forward(ex.query.view(), ex.context.view(), None)
        .unwrap();
    assert_eq!(y.shape(), &[B, T, WIDTH], "output (B, T, D)");
    assert_eq!(
        w.shape(),
        &[B, HEADS, T, S],
        "weights (B, h, T, S) with T = 4, S = 6"
    );
    for sum in w.sum_axis(Axis(3)) {
        assert!((sum - 1.0).abs() < 1e-12, "a weight row sums to {sum}");
    }
}

#[test]
fn forward_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let layer = MultiHead::new(WIDTH, HEADS, LAYER_SEED).unwrap();
    let (y, w) = layer
        .forward(ex.query.view(), ex.context.view(), None)
        .unwrap();
    assert_close_snapshot!("cross_output", y);
    assert_close_snapshot!("cross_weights", w);
}

#[test]
fn forward_matches_per_head_reference() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let layer = &test_layer(WIDTH, HEADS, 31);
    let mask = causal(T, T);
    let cases = [
        ("cross-attention", &ex.context, None),
        ("self-attention", &ex.query, None),
        ("causal self-attention", &ex.query, Some(mask.view())),
    ];
    for (name, context, allowed) in cases {
        let (y, w) = layer
            .forward(ex.query.view(), context.view(), allowed)
            .unwrap();
        let (ref_y, ref_w) = per_head_reference(layer, &ex.query, context, allowed);
        let (dy, dw) = (
            max_abs_diff(y.view(), ref_y.view()),
            max_abs_diff(w.view(), ref_w.view()),
        );
        assert!(
            dy < 1e-12 && dw < 1e-12,
            "{name}: output off by {dy:e}, weights off by {dw:e} from the head-by-head reference"
        );
    }
}

#[test]
fn forward_causal_self_attention() {
    let _proof = course_check::proof();
    let (layer, x) = (test_layer(MODULE_WIDTH, MODULE_HEADS, 32), module_input());
    let mask = causal(MODULE_T, MODULE_T);
    let (y, w) = layer
        .forward(x.view(), x.view(), Some(mask.view()))
        .unwrap();
    assert_eq!(
        y.shape(),
        x.shape(),
        "the output has the input's shape (2, 6, 32)"
    );
    assert_eq!(w.shape(), &[2, MODULE_HEADS, MODULE_T, MODULE_T]);
    for ((b, i, q, k), &x) in w.indexed_iter() {
        if k > q {
            assert_eq!(
                x, 0.0,
                "[{b}, {i}, {q}, {k}]: a query must not see a later key"
            );
        }
    }
    let fast = mha_forward(
        x.view(),
        fused_weight(&layer).view(),
        layer.wo.view(),
        MhaConfig::new(layer.heads).with_causal(true),
    )
    .unwrap();
    let (fast_y, fast_w) = fast.into_parts();
    let (dy, dw) = (
        max_abs_diff(y.view(), fast_y.view()),
        max_abs_diff(w.view(), fast_w.view()),
    );
    assert!(
        dy < 1e-10 && dw < 1e-10,
        "differs from the core's fused forward: output by {dy:e}, weights by {dw:e}"
    );
}

#[test]
fn forward_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let layer = &test_layer(WIDTH, HEADS, 33);
    let narrow = ex.query.slice(s![.., .., ..WIDTH - 1]);
    assert!(
        layer.forward(narrow, ex.context.view(), None).is_err(),
        "a query of width D - 1 must be refused"
    );
    let narrow_ctx = ex.context.slice(s![.., .., ..WIDTH - 2]);
    assert!(
        layer.forward(ex.query.view(), narrow_ctx, None).is_err(),
        "a context of width D - 2 must be refused"
    );
    let one_seq = ex.context.slice(s![..1, .., ..]);
    assert!(
        layer.forward(ex.query.view(), one_seq, None).is_err(),
        "2 query sequences against 1 context sequence must be refused"
    );
    let square = causal(T, T);
    assert!(
        layer
            .forward(ex.query.view(), ex.context.view(), Some(square.view()))
            .is_err(),
        "a (1, 1, 4, 4) mask does not broadcast to (2, 2, 4, 6)"
    );
}

// ---- fused_qkv ---------------------------------------------------------------------------------

#[test]
fn fused_qkv_splits_in_order() {
    let _proof = course_check::proof();
    let eye = Array2::<f64>::eye(4);
    let layer =
        MultiHead::from_weights(2, eye.clone(), &eye * 2.0, &eye * 3.0, eye.clone()).unwrap();
    let x = labelled(2, 3, 4);
    let (q, k, v) = fused_qkv(&layer, x.view()).unwrap();
    assert_exact_snapshot!("fused_q", q, encoding = "b*10000 + t*100 + c");
    // With Wq = I, Wk = 2I and Wv = 3I, each of q, k, v is x times its block's number. First that
    // it is one of the blocks at all, then that it is its own: a fused product cut at the wrong
    // columns fails the first, blocks stacked in the wrong order the second.
    let blocks = [x.clone(), &x * 2.0, &x * 3.0];
    let columns = ["the first D columns", "columns D..2D", "columns 2D..3D"];
    for (own, (name, got)) in [("q", &q), ("k", &k), ("v", &v)].into_iter().enumerate() {
        let block = blocks.iter().position(|b| b == got);
        assert!(
            block.is_some(),
            "{name} is none of the three blocks (x times 1, 2 or 3 here): the fused product \
             (B, T, 3D) is cut at the wrong columns"
        );
        let found = block.unwrap_or(own);
        assert!(
            found == own,
            "{name} = x @ w{name} comes from {}, but it holds the block of {}",
            columns[own],
            columns[found]
        );
    }
}

#[test]
fn fused_qkv_matches_separate_projections() {
    let _proof = course_check::proof();
    let (layer, x) = (test_layer(MODULE_WIDTH, MODULE_HEADS, 34), module_input());
    let (q, k, v) = fused_qkv(&layer, x.view()).unwrap();
    for (name, got, w) in [
        ("q", &q, &layer.wq),
        ("k", &k, &layer.wk),
        ("v", &v, &layer.wv),
    ] {
        let separate = project(x.view(), w.view()).unwrap();
        let d = max_abs_diff(got.view(), separate.view());
        assert!(
            d < 1e-12,
            "{name} from the fused projection is off by {d:e}"
        );
    }
    let narrow = x.slice(s![.., .., ..MODULE_WIDTH - 1]);
    assert!(
        fused_qkv(&layer, narrow).is_err(),
        "an input of width D - 1 must be refused"
    );
}

#[test]
fn fused_path_matches_core_fast_path() {
    let _proof = course_check::proof();
    let (layer, x) = (test_layer(MODULE_WIDTH, MODULE_HEADS, 35), module_input());
    let (q, k, v) = fused_qkv(&layer, x.view()).unwrap();
    let h = layer.heads;
    let mask = causal(MODULE_T, MODULE_T);
    let (heads, w) = attend_heads(
        split_heads(q.view(), h).unwrap().view(),
        split_heads(k.view(), h).unwrap().view(),
        split_heads(v.view(), h).unwrap().view(),
        Some(mask.view()),
    )
    .unwrap();
    let y = project(merge_heads(heads.view()).view(), layer.wo.view()).unwrap();
    let fast = mha_forward(
        x.view(),
        fused_weight(&layer).view(),
        layer.wo.view(),
        MhaConfig::new(h).with_causal(true),
    )
    .unwrap();
    let (fast_y, fast_w) = fast.into_parts();
    let (dy, dw) = (
        max_abs_diff(y.view(), fast_y.view()),
        max_abs_diff(w.view(), fast_w.view()),
    );
    assert!(
        dy < 1e-10 && dw < 1e-10,
        "the fused path differs from the core's mha_forward: output by {dy:e}, weights by {dw:e}"
    );
    assert_close_snapshot!("module_output_first_token", y.slice(s![0, 0, ..]));
}

// ---- average_over_heads ------------------------------------------------------------------------

#[test]
fn average_over_heads_small_case() {
    let _proof = course_check::proof();
    // Two heads that disagree: the average is halfway between them.
    let w = array![[[[0.25, 0.75], [1.0, 0.0]], [[0.5, 0.5], [0.5, 0.5]]]];
    assert_eq!(w.shape(), &[1, 2, 2, 2]);
    assert_exact_snapshot!("average_small", average_over_heads(w.view()).unwrap());
    assert!(
        average_over_heads(Array4::<f64>::zeros((1, 0, 2, 2)).view()).is_err(),
        "no heads, no average"
    );
}

#[test]
fn average_hides_head_differences() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (_, w) = test_layer(WIDTH, HEADS, 36)
        .forward(ex.query.view(), ex.context.view(), None)
        .unwrap();
    let avg = average_over_heads(w.view()).unwrap();
    assert_eq!(avg.shape(), &[B, T, S], "the head axis is gone");
    for sum in avg.sum_axis(Axis(2)) {
        assert!((sum - 1.0).abs() < 1e-12, "an averaged row sums to {sum}");
    }
    let gaps: Vec<f64> = (0..HEADS)
        .map(|i| max_abs_diff(w.index_axis(Axis(1), i), avg.view()))
        .collect();
    assert!(
        gaps.iter().all(|&g| g > 0.05),
        "each head should differ visibly from the average: {gaps:?}"
    );
    // With two heads, each sits half the gap between them away from the average.
    assert!((gaps[0] - gaps[1]).abs() < 1e-12);
    course_check::assert_text_snapshot!(
        "average_gaps",
        format!("largest |head - average|: {:.4}", gaps[0])
    );
}

#[test]
fn average_over_heads_batch_and_heads_differ() {
    let _proof = course_check::proof();
    // (B, h, T, S) = (3, 2, 2, 4): the mean runs over the head axis (1), never the batch axis (0).
    let w = Array4::from_shape_fn((3, 2, 2, 4), |(b, i, t, s)| {
        (b * 1000 + i * 100 + t * 10 + s) as f64
    });
    let avg = average_over_heads(w.view()).unwrap();
    assert_eq!(avg.shape(), &[3, 2, 4], "(B, T, S): the head axis is gone");
    assert_exact_snapshot!("average_batch_and_heads_differ", avg);
}

#[test]
fn averaged_weights_are_not_the_layer_output() {
    let _proof = course_check::proof();
    // Mixing the full-width values with the averaged weights, then W_O, is another computation.
    let ex = worked_example();
    let layer = &test_layer(WIDTH, HEADS, 37);
    let (y, w) = layer
        .forward(ex.query.view(), ex.context.view(), None)
        .unwrap();
    let avg = average_over_heads(w.view()).unwrap();
    let values = project(ex.context.view(), layer.wv.view()).unwrap();
    let mut mixed = Array3::<f64>::zeros((B, T, WIDTH));
    for b in 0..B {
        mixed.index_axis_mut(Axis(0), b).assign(
            &avg.index_axis(Axis(0), b)
                .dot(&values.index_axis(Axis(0), b)),
        );
    }
    let from_average = project(mixed.view(), layer.wo.view()).unwrap();
    let gap = max_abs_diff(y.view(), from_average.view());
    assert!(
        gap > 0.01,
        "the layer's output must not be what averaged weights give (gap {gap})"
    );
    course_check::assert_text_snapshot!("average_output_gap", format!("{gap:.4}"));
}

// ---- the texts' other examples -----------------------------------------------------------------

#[test]
fn forward_returns_model_width_for_the_residual() {
    let _proof = course_check::proof();
    // The shape drills: T = 3, d = 8, h = 2; the practice item B = 2, T = 7, d = 24, h = 6; the
    // retrieval question T = 5, d = 12, h = 3. Every head reads all T positions, and W_O brings
    // the concatenated heads back to width D, so the output can be added to the input.
    for (b, t, d, h) in [(1, 3, 8, 2), (2, 7, 24, 6), (1, 5, 12, 3)] {
        let layer = test_layer(d, h, 40 + d as u32);
        let mut rng = RandomState::new(d as u32);
        let x: Array3<f64> = rng.randn((b, t, d));
        let (out, w) = multi_head_forward(&layer, x.view(), x.view(), None).unwrap();
        assert_eq!(
            out.shape(),
            x.shape(),
            "B = {b}, T = {t}, D = {d}, h = {h}: the output must be (B, T, D) to add it back"
        );
        assert_eq!(
            w.shape(),
            &[b, h, t, t],
            "B = {b}, T = {t}, D = {d}, h = {h}: one (T, T) score matrix per head"
        );
        let residual = &x + &out;
        assert_eq!(residual.shape(), &[b, t, d]);
    }
}

#[test]
fn forward_with_pytorch_layout_weights() {
    let _proof = course_check::proof();
    // PyTorch's nn.Linear stores its weight as (out_features, in_features) and computes x @ W.T;
    // this course multiplies x @ W with W as (in_features, out_features). Weights read from a
    // PyTorch layer must be transposed once, as the text's init copies `w.T`.
    let layer = test_layer(8, 2, 9);
    let torch: Vec<Array2<f64>> = [&layer.wq, &layer.wk, &layer.wv, &layer.wo]
        .iter()
        .map(|w| w.t().to_owned())
        .collect();
    let transposed = |w: &Array2<f64>| w.t().to_owned();
    let from_torch = MultiHead::from_weights(
        2,
        transposed(&torch[0]),
        transposed(&torch[1]),
        transposed(&torch[2]),
        transposed(&torch[3]),
    )
    .unwrap();
    let untransposed = MultiHead::from_weights(
        2,
        torch[0].clone(),
        torch[1].clone(),
        torch[2].clone(),
        torch[3].clone(),
    )
    .unwrap();
    let mut rng = RandomState::new(8);
    let x: Array3<f64> = rng.randn((2, 4, 8));
    let (y, _) = multi_head_forward(&layer, x.view(), x.view(), None).unwrap();
    let (y_torch, _) = multi_head_forward(&from_torch, x.view(), x.view(), None).unwrap();
    let (y_wrong, _) = multi_head_forward(&untransposed, x.view(), x.view(), None).unwrap();
    assert_eq!(y_torch, y, "the transposed copy is the same layer");
    assert_eq!(
        y_wrong.shape(),
        y.shape(),
        "(D, D) weights fit either way round"
    );
    assert!(
        max_abs_diff(&y_wrong, &y) > 1e-3,
        "square weights used without the transpose must give another layer"
    );
}

// ---- properties: random shapes and values, shrunk to the smallest failing case ---------------

#[test]
fn multi_head_forward_property() {
    let _proof = course_check::proof();
    property::check(
        "multi_head_forward == every head's softmax(q kᵀ / √hs) v, concatenated, times W_O",
        &[("B", 2), ("h", 3), ("hs", 3), ("T", 4), ("S", 4)],
        |case| {
            let (b, h, hs, t, s_len) = (case["B"], case["h"], case["hs"], case["T"], case["S"]);
            let d = h * hs;
            let [wq, wk, wv, wo] = [(); 4].map(|_| case.array((d, d)));
            let layer = MultiHead::from_weights(h, wq, wk, wv, wo).map_err(case.error())?;
            let (query, context) = (case.array((b, t, d)), case.array((b, s_len, d)));
            let (out, w) = multi_head_forward(&layer, query.view(), context.view(), None)
                .map_err(case.error())?;
            property::has_shape(w.shape(), (b, h, t, s_len))?;
            let mut merged = Array3::<f64>::zeros((b, t, d));
            for (bi, i) in (0..b).flat_map(|bi| (0..h).map(move |i| (bi, i))) {
                let cols = s![.., i * hs..(i + 1) * hs];
                let q = query.index_axis(Axis(0), bi).dot(&layer.wq.slice(cols));
                let k = context.index_axis(Axis(0), bi).dot(&layer.wk.slice(cols));
                let v = context.index_axis(Axis(0), bi).dot(&layer.wv.slice(cols));
                let plain =
                    property::plain_weights(q.view(), k.view(), 1.0 / (hs as f64).sqrt(), false);
                property::close(&plain, &w.slice(s![bi, i, .., ..]))
                    .map_err(|why| format!("weights of batch row {bi}, head {i}: {why}"))?;
                merged
                    .slice_mut(s![bi, .., i * hs..(i + 1) * hs])
                    .assign(&plain.dot(&v));
            }
            let expected = Array3::from_shape_fn((b, t, d), |(bi, ti, o)| {
                (0..d)
                    .map(|c| merged[[bi, ti, c]] * layer.wo[[c, o]])
                    .sum::<f64>()
            });
            property::close(&expected, &out).map_err(|why| format!("output: {why}"))
        },
    );
}

#[test]
fn average_over_heads_property() {
    let _proof = course_check::proof();
    property::check(
        "average_over_heads[b, t, s] == the mean of weights[b, i, t, s] over the heads i",
        &[("B", 3), ("h", 3), ("T", 4), ("S", 4)],
        |case| {
            let (b, h, t, s_len) = (case["B"], case["h"], case["T"], case["S"]);
            let w = case.array((b, h, t, s_len));
            let got = average_over_heads(w.view()).map_err(case.error())?;
            let expected = Array3::from_shape_fn((b, t, s_len), |(bi, ti, si)| {
                (0..h).map(|i| w[[bi, i, ti, si]]).sum::<f64>() / h as f64
            });
            property::close(&expected, &got)
        },
    );
}

#[test]
fn concat_and_project_property() {
    let _proof = course_check::proof();
    property::check(
        "concat_and_project == [heads[0] | … | heads[h - 1]] W_O, and a W_O of another size is refused",
        &[("h", 4), ("hs", 4)],
        |case| {
            let (h, hs) = (case["h"], case["hs"]);
            let (heads, wo) = (case.array((h, hs)), case.array((h * hs, h * hs)));
            let got = concat_and_project(heads.view(), wo.view()).map_err(case.error())?;
            let expected = Array1::from_shape_fn(h * hs, |o| {
                (0..h * hs)
                    .map(|c| heads[[c / hs, c % hs]] * wo[[c, o]])
                    .sum::<f64>()
            });
            property::close(&expected, &got)?;
            let wider = case.array((h * hs + 1, h * hs + 1));
            if concat_and_project(heads.view(), wider.view()).is_ok() {
                return Err(format!(
                    "W_O ({0}, {0}) was accepted for {h} heads of {hs}",
                    h * hs + 1
                ));
            }
            Ok(())
        },
    );
}

#[test]
fn fused_qkv_property() {
    let _proof = course_check::proof();
    property::check(
        "fused_qkv(layer, x) == (x Wq, x Wk, x Wv)",
        &[("B", 2), ("T", 4), ("h", 3), ("hs", 3)],
        |case| {
            let (b, t, d) = (case["B"], case["T"], case["h"] * case["hs"]);
            let [wq, wk, wv, wo] = [(); 4].map(|_| case.array((d, d)));
            let layer = MultiHead::from_weights(case["h"], wq, wk, wv, wo).map_err(case.error())?;
            let x = case.array((b, t, d));
            let (q, k, v) = fused_qkv(&layer, x.view()).map_err(case.error())?;
            for (name, got, w) in [
                ("q", &q, &layer.wq),
                ("k", &k, &layer.wk),
                ("v", &v, &layer.wv),
            ] {
                let expected = Array3::from_shape_fn((b, t, d), |(bi, ti, o)| {
                    (0..d).map(|c| x[[bi, ti, c]] * w[[c, o]]).sum::<f64>()
                });
                property::close(&expected, got).map_err(|why| format!("{name}: {why}"))?;
            }
            Ok(())
        },
    );
}
