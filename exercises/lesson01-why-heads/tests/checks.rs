//! The checks of lesson 1, shared by the exercise crate (`lesson01`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.

use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, property};
use lesson01::setup::{C, DEMO_SCALE, HS, SMALL_SCALE};
use lesson01::*;
use ndarray::{Array2, Array3, Axis, array, s};

fn weights(ex: &WorkedExample, head: &Head) -> Array3<f64> {
    attention_weights(ex.x.view(), head.wq.view(), head.wk.view(), head.wv.view())
        .expect("the worked example's shapes are valid")
}

// ---- attention_weights -------------------------------------------------------------------------

#[test]
fn attention_weights_shape() {
    let _proof = course_check::proof();
    let ex = worked_example(DEMO_SCALE);
    assert_eq!(weights(&ex, &ex.head_a).shape(), &[1, 8, 8]);
}

#[test]
fn attention_weights_head_a() {
    let _proof = course_check::proof();
    let ex = worked_example(DEMO_SCALE);
    assert_close_snapshot!("head_a_weights", weights(&ex, &ex.head_a));
}

#[test]
fn attention_weights_head_b() {
    let _proof = course_check::proof();
    let ex = worked_example(DEMO_SCALE);
    assert_close_snapshot!("head_b_weights", weights(&ex, &ex.head_b));
}

#[test]
fn attention_weights_batch_of_two() {
    let _proof = course_check::proof();
    // Two different sequences in one batch must be attended independently.
    let ex = worked_example(DEMO_SCALE);
    let mut x = Array3::<f64>::zeros((2, 8, C));
    x.slice_mut(s![0, .., ..])
        .assign(&ex.x.slice(s![0, .., ..]));
    x.slice_mut(s![1, .., ..])
        .assign(&ex.x.slice(s![0, ..;-1, ..]));
    let h = &ex.head_a;
    let w = attention_weights(x.view(), h.wq.view(), h.wk.view(), h.wv.view()).unwrap();
    assert_close_snapshot!("batch_of_two", w);
}

#[test]
fn attention_weights_rejects_bad_shapes() {
    let _proof = course_check::proof();
    let ex = worked_example(DEMO_SCALE);
    let h = &ex.head_a;
    let narrow = ex.x.slice(s![.., .., ..C - 1]);
    assert!(
        attention_weights(narrow, h.wq.view(), h.wk.view(), h.wv.view()).is_err(),
        "X with C - 1 columns must be refused with a ShapeError"
    );
    let wk_wide = Array2::<f64>::zeros((C, HS + 1));
    assert!(
        attention_weights(ex.x.view(), h.wq.view(), wk_wide.view(), h.wv.view()).is_err(),
        "Wk of another shape than Wq must be refused"
    );
}

#[test]
fn attention_weights_rejects_bad_wv() {
    let _proof = course_check::proof();
    // Wv is not used by the weights, but a head whose Wv does not fit is still a broken head.
    let ex = worked_example(DEMO_SCALE);
    let h = &ex.head_a;
    for bad in [(C, HS + 1), (C + 1, HS), (HS, C)] {
        let wv = Array2::<f64>::zeros(bad);
        assert!(
            attention_weights(ex.x.view(), h.wq.view(), h.wk.view(), wv.view()).is_err(),
            "Wv {bad:?} does not have the shape of Wq ({C}, {HS}): it must be refused"
        );
    }
}

#[test]
fn attention_weights_large_scores_stay_finite() {
    let _proof = course_check::proof();
    // With Wq = Wk = I the scores are x_i . x_j / sqrt(2): about 700 to 725, past exp's range
    // (exp(710) is already infinite). A softmax shifted by each row's maximum stays finite.
    let x = array![[[32.0, 1.0], [32.0, 0.0], [31.0, 2.0]]];
    let eye = Array2::<f64>::eye(2);
    let w = attention_weights(x.view(), eye.view(), eye.view(), eye.view()).unwrap();
    assert!(
        w.iter().all(|v| v.is_finite()),
        "scores near 720 must give finite weights (subtract each row's maximum before exp), got {w}"
    );
    let x2 = x.index_axis(Axis(0), 0);
    let scores = x2.dot(&x2.t()) / 2f64.sqrt();
    let expected = attention::softmax::softmax(&scores);
    let d = course_check::max_abs_diff(w.index_axis(Axis(0), 0), expected.view());
    assert!(d < 1e-12, "the weights are off by {d:e}");
    assert_close_snapshot!("large_scores", w);
}

// ---- max_abs_diff ------------------------------------------------------------------------------

#[test]
fn max_abs_diff_small_cases() {
    let _proof = course_check::proof();
    let a = array![[1.0, -2.0], [0.5, 4.0]];
    let b = array![[1.5, -2.0], [0.5, 1.0]];
    assert_eq!(max_abs_diff(a.view(), b.view()).unwrap(), 3.0);
    assert_eq!(max_abs_diff(a.view(), a.view()).unwrap(), 0.0);
    assert!(max_abs_diff(a.view(), a.t()).is_ok());
    let c = array![[1.0, 2.0, 3.0]];
    assert!(
        max_abs_diff(a.view(), c.view()).is_err(),
        "shapes (2, 2) and (1, 3) must be refused"
    );
}

#[test]
fn max_abs_diff_between_heads() {
    let _proof = course_check::proof();
    let ex = worked_example(DEMO_SCALE);
    let d = max_abs_diff(
        weights(&ex, &ex.head_a).view(),
        weights(&ex, &ex.head_b).view(),
    )
    .unwrap();
    course_check::assert_text_snapshot!("max_abs_diff_heads", format!("{d:.4}"));
}

#[test]
fn small_init_blurs_heads() {
    let _proof = course_check::proof();
    // At * 0.02 the scores are tiny, so both heads' weights sit close to uniform (1/8).
    let ex = worked_example(SMALL_SCALE);
    let (wa, wb) = (weights(&ex, &ex.head_a), weights(&ex, &ex.head_b));
    let d = max_abs_diff(wa.view(), wb.view()).unwrap();
    let from_uniform = wa.iter().map(|w| (w - 0.125).abs()).fold(0.0, f64::max);
    course_check::assert_text_snapshot!(
        "small_init",
        format!(
            "max abs diff between heads: {d:.4}\nhead A max distance from uniform: {from_uniform:.4}"
        )
    );
}

// ---- top_focus ---------------------------------------------------------------------------------

#[test]
fn top_focus_of_both_heads() {
    let _proof = course_check::proof();
    let ex = worked_example(DEMO_SCALE);
    let words = ex.sentence.word_refs();
    let a = top_focus(weights(&ex, &ex.head_a).index_axis(Axis(0), 0), &words).unwrap();
    let b = top_focus(weights(&ex, &ex.head_b).index_axis(Axis(0), 0), &words).unwrap();
    course_check::assert_text_snapshot!(
        "top_focus",
        format!("head A: {}\nhead B: {}", a.join(" "), b.join(" "))
    );
}

#[test]
fn top_focus_ties_go_to_the_first_column() {
    let _proof = course_check::proof();
    let w = array![
        [0.25, 0.25, 0.5, 0.0],
        [0.4, 0.1, 0.1, 0.4],
        [0.0, 0.3, 0.3, 0.4],
        [0.25; 4]
    ];
    let focus = top_focus(w.view(), &["a", "b", "c", "d"]).unwrap();
    assert_eq!(focus, ["c", "a", "d", "a"]);
    assert!(
        top_focus(w.view(), &["a", "b"]).is_err(),
        "2 words for 4 columns must be refused"
    );
}

// ---- disagreements -----------------------------------------------------------------------------

#[test]
fn disagreements_between_heads() {
    let _proof = course_check::proof();
    let ex = worked_example(DEMO_SCALE);
    let (wa, wb) = (weights(&ex, &ex.head_a), weights(&ex, &ex.head_b));
    let n = disagreements(wa.index_axis(Axis(0), 0), wb.index_axis(Axis(0), 0)).unwrap();
    course_check::assert_text_snapshot!("disagreements", format!("{n} of {}", wa.shape()[1]));
}

#[test]
fn disagreements_small_cases() {
    let _proof = course_check::proof();
    let a = array![[0.9, 0.1], [0.5, 0.5], [0.2, 0.8]];
    let b = array![[0.1, 0.9], [0.5, 0.5], [0.3, 0.7]];
    assert_eq!(disagreements(a.view(), b.view()).unwrap(), 1);
    assert_eq!(disagreements(a.view(), a.view()).unwrap(), 0);
    assert!(
        disagreements(a.view(), a.t()).is_err(),
        "(3, 2) against (2, 3) must be refused"
    );
}

// ---- draw_head ---------------------------------------------------------------------------------

#[test]
fn draw_head_order_and_scale() {
    let _proof = course_check::proof();
    let mut rng = attention::rng::RandomState::new(7);
    let head = draw_head(&mut rng, 4, 2, 0.5);
    let mut replay = attention::rng::RandomState::new(7);
    let (q, k, v): (Array2<f64>, Array2<f64>, Array2<f64>) = (
        replay.randn((4, 2)),
        replay.randn((4, 2)),
        replay.randn((4, 2)),
    );
    assert_exact_snapshot!("draw_head_wq", head.wq);
    assert_eq!(
        head.wq,
        q * 0.5,
        "Wq is the first (c, hs) draw, times scale"
    );
    assert_eq!(head.wk, k * 0.5, "Wk is the second draw");
    assert_eq!(head.wv, v * 0.5, "Wv is the third draw");
}

#[test]
fn third_head_focus() {
    let _proof = course_check::proof();
    let mut ex = worked_example(DEMO_SCALE);
    let head_c = draw_head(&mut ex.rng, C, HS, DEMO_SCALE);
    let words = ex.sentence.word_refs();
    let focus = |h: &Head| top_focus(weights(&ex, h).index_axis(Axis(0), 0), &words).unwrap();
    let (a, b, c) = (focus(&ex.head_a), focus(&ex.head_b), focus(&head_c));
    let all_differ: Vec<usize> = (0..a.len())
        .filter(|&t| a[t] != b[t] && b[t] != c[t] && a[t] != c[t])
        .collect();
    assert!(
        !all_differ.is_empty(),
        "some row should have three different focus words"
    );
    course_check::assert_text_snapshot!(
        "third_head",
        format!(
            "head C: {}\nrows where all three differ: {all_differ:?}",
            c.join(" ")
        )
    );
}

// ---- row_sums ----------------------------------------------------------------------------------

#[test]
fn row_sums_small_case() {
    let _proof = course_check::proof();
    let w = array![[[0.25, 0.75, 0.0], [1.0, 2.0, 3.0]]];
    assert_exact_snapshot!("row_sums_small", row_sums(w.view()));
}

#[test]
fn rows_of_both_heads_sum_to_one() {
    let _proof = course_check::proof();
    let ex = worked_example(DEMO_SCALE);
    for head in [&ex.head_a, &ex.head_b] {
        let sums = row_sums(weights(&ex, head).view());
        assert_eq!(sums.shape(), &[1, 8]);
        for s in sums.iter() {
            assert!((s - 1.0).abs() < 1e-12, "a row sums to {s}, not 1");
        }
    }
}

// ---- head_output -------------------------------------------------------------------------------

#[test]
fn head_output_of_head_a() {
    let _proof = course_check::proof();
    // The text's `outA, wA = attention(X, WqA, WkA, WvA)`: weights and output from the core crate,
    // then your head_output from those weights must give the same (1, 8, 8) output.
    let ex = worked_example(DEMO_SCALE);
    let h = &ex.head_a;
    let q = attention::attend::project(ex.x.view(), h.wq.view()).unwrap();
    let k = attention::attend::project(ex.x.view(), h.wk.view()).unwrap();
    let v = attention::attend::project(ex.x.view(), h.wv.view()).unwrap();
    let (expected, w) =
        attention::attend::scaled_dot_product::<ndarray::Ix2>(q.view(), k.view(), v.view(), None)
            .unwrap();
    let out = head_output(w.view(), ex.x.view(), h.wv.view()).unwrap();
    assert_eq!(out.shape(), &[1, 8, 8], "outA shape: (1, 8, 8)");
    let d = course_check::max_abs_diff(&out, &expected);
    assert!(d < 1e-12, "outA differs from weights @ (X Wv) by {d:e}");
    assert_close_snapshot!("head_a_output", out);
}

#[test]
fn head_output_small_case() {
    let _proof = course_check::proof();
    // Row 0 averages the two values, row 1 takes the first: V = X Wv = [[2], [4]].
    let weights = array![[[0.5, 0.5], [1.0, 0.0]]];
    let x = array![[[1.0, 0.0], [0.0, 1.0]]];
    let wv = array![[2.0], [4.0]];
    let out = head_output(weights.view(), x.view(), wv.view()).unwrap();
    assert_eq!(out, array![[[3.0], [2.0]]]);
    let three_keys = Array3::<f64>::zeros((1, 2, 3));
    assert!(
        head_output(three_keys.view(), x.view(), wv.view()).is_err(),
        "weights over S = 3 keys for a sequence of 2 must be refused"
    );
    let wv_tall = Array2::<f64>::zeros((3, 1));
    assert!(
        head_output(weights.view(), x.view(), wv_tall.view()).is_err(),
        "Wv with 3 rows for C = 2 must be refused"
    );
}

// ---- properties: random shapes and values, shrunk to the smallest failing case ---------------

#[test]
fn attention_weights_property() {
    let _proof = course_check::proof();
    // Values up to 2·10^(m-1): from m = 3 on, the scores are past exp's range.
    let axes = [("B", 3), ("T", 6), ("C", 5), ("hs", 4), ("m", 3)];
    property::check(
        "attention_weights == softmax(Q Kᵀ / √hs) per row, and a Wk or Wv unlike Wq is refused",
        &axes,
        |case| {
            let (b, t, c, hs) = (case["B"], case["T"], case["C"], case["hs"]);
            let x = case.array((b, t, c)) * 10f64.powi(case["m"] as i32 - 1);
            let (wq, wk, wv) = (
                case.array((c, hs)),
                case.array((c, hs)),
                case.array((c, hs)),
            );
            let w = attention_weights(x.view(), wq.view(), wk.view(), wv.view())
                .map_err(case.error())?;
            property::has_shape(w.shape(), (b, t, t))?;
            for i in 0..b {
                let (q, k) = (
                    x.index_axis(Axis(0), i).dot(&wq),
                    x.index_axis(Axis(0), i).dot(&wk),
                );
                let plain =
                    property::plain_weights(q.view(), k.view(), 1.0 / (hs as f64).sqrt(), false);
                property::close(&plain, &w.index_axis(Axis(0), i))
                    .map_err(|why| format!("batch row {i}: {why}"))?;
            }
            let wide = case.array((c, hs + 1));
            for (name, wk, wv) in [
                ("Wk", wide.view(), wv.view()),
                ("Wv", wk.view(), wide.view()),
            ] {
                if attention_weights(x.view(), wq.view(), wk, wv).is_ok() {
                    return Err(format!(
                        "{name} ({c}, {}) was accepted with Wq ({c}, {hs})",
                        hs + 1
                    ));
                }
            }
            Ok(())
        },
    );
}

#[test]
fn row_sums_property() {
    let _proof = course_check::proof();
    property::check(
        "row_sums[b, t] == the sum of weights[b, t, s] over s",
        &[("B", 3), ("T", 5), ("S", 5)],
        |case| {
            let w = case.array((case["B"], case["T"], case["S"]));
            let expected = Array2::from_shape_fn((case["B"], case["T"]), |(b, t)| {
                w.slice(s![b, t, ..]).iter().sum::<f64>()
            });
            property::close(&expected, &row_sums(w.view()))
        },
    );
}

#[test]
fn head_output_property() {
    let _proof = course_check::proof();
    property::check(
        "head_output[b] == weights[b] (x[b] Wv), and weights with another S than x are refused",
        &[("B", 3), ("T", 5), ("S", 5), ("C", 4), ("hs", 4)],
        |case| {
            let (b, t, s_len, c, hs) = (case["B"], case["T"], case["S"], case["C"], case["hs"]);
            let (w, x, wv) = (
                case.array((b, t, s_len)),
                case.array((b, s_len, c)),
                case.array((c, hs)),
            );
            let got = head_output(w.view(), x.view(), wv.view()).map_err(case.error())?;
            property::has_shape(got.shape(), (b, t, hs))?;
            for i in 0..b {
                let expected = w
                    .index_axis(Axis(0), i)
                    .dot(&x.index_axis(Axis(0), i).dot(&wv));
                property::close(&expected, &got.index_axis(Axis(0), i))
                    .map_err(|why| format!("batch row {i}: {why}"))?;
            }
            let longer = case.array((b, t, s_len + 1));
            if head_output(longer.view(), x.view(), wv.view()).is_ok() {
                return Err(format!(
                    "weights ({b}, {t}, {}) were accepted with x ({b}, {s_len}, {c})",
                    s_len + 1
                ));
            }
            Ok(())
        },
    );
}

/// The first column of a row's largest value: the tie rule `top_focus` and `disagreements` promise.
fn first_argmax(row: ndarray::ArrayView1<f64>) -> usize {
    (0..row.len()).fold(0, |best, j| if row[j] > row[best] { j } else { best })
}

/// `w` on one line, row by row, for a property's failure message.
fn one_line(w: &Array2<f64>) -> String {
    let rows: Vec<String> = w.rows().into_iter().map(|row| row.to_string()).collect();
    format!("[{}]", rows.join(", "))
}

/// Random values rounded to -2..=2: few levels, so rows often tie for their maximum (`+ 0.0`
/// turns -0 into 0 for the failure messages).
fn tied_weights(case: &property::Case, shape: (usize, usize)) -> Array2<f64> {
    case.array(shape).mapv(|v| v.round() + 0.0)
}

/// The largest `|a - b|`, element by element in logical order (0 for empty arrays).
fn largest_abs_diff<D: ndarray::Dimension>(
    a: ndarray::ArrayView<f64, D>,
    b: ndarray::ArrayView<f64, D>,
) -> f64 {
    a.iter()
        .zip(b.iter())
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

#[test]
fn max_abs_diff_property() {
    let _proof = course_check::proof();
    property::check(
        "max_abs_diff == the largest |a - b| in 1, 2 and 3 dimensions and for a transposed view, \
         and arrays of different shapes are refused",
        &[("B", 3), ("R", 5), ("C", 5)],
        |case| {
            let (b, r, c) = (case["B"], case["R"], case["C"]);
            let same = |what: &str, expected: f64, got: f64| {
                if expected == got {
                    Ok(())
                } else {
                    Err(format!("{what}: expected {expected}, got {got}"))
                }
            };
            let (a1, b1) = (case.array(c), case.array(c));
            let got = max_abs_diff(a1.view(), b1.view()).map_err(case.error())?;
            same("1-D", largest_abs_diff(a1.view(), b1.view()), got)?;
            let (a3, b3) = (case.array((b, r, c)), case.array((b, r, c)));
            let got = max_abs_diff(a3.view(), b3.view()).map_err(case.error())?;
            same("3-D", largest_abs_diff(a3.view(), b3.view()), got)?;
            let (a2, bt) = (case.array((r, c)), case.array((c, r)));
            let got = max_abs_diff(a2.view(), bt.t()).map_err(case.error())?;
            same(
                "2-D against a transposed view",
                largest_abs_diff(a2.view(), bt.t()),
                got,
            )?;
            let wider = case.array((r, c + 1));
            if max_abs_diff(a2.view(), wider.view()).is_ok() {
                return Err(format!(
                    "shapes ({r}, {c}) and ({r}, {}) were accepted",
                    c + 1
                ));
            }
            Ok(())
        },
    );
}

#[test]
fn top_focus_property() {
    let _proof = course_check::proof();
    property::check(
        "top_focus[t] == the word of row t's first largest weight, and a word list of another \
         length than S is refused",
        &[("T", 5), ("S", 6)],
        |case| {
            let (t, s_len) = (case["T"], case["S"]);
            let w = tied_weights(case, (t, s_len));
            let names: Vec<String> = (0..=s_len).map(|j| format!("w{j}")).collect();
            let words: Vec<&str> = names.iter().map(String::as_str).collect();
            let got = top_focus(w.view(), &words[..s_len]).map_err(case.error())?;
            let expected: Vec<&str> = w
                .rows()
                .into_iter()
                .map(|row| words[first_argmax(row)])
                .collect();
            if got != expected {
                return Err(format!(
                    "weights {}: expected {expected:?}, got {got:?}",
                    one_line(&w)
                ));
            }
            if top_focus(w.view(), &words).is_ok() {
                return Err(format!(
                    "{} words for S = {s_len} columns were accepted",
                    s_len + 1
                ));
            }
            Ok(())
        },
    );
}

#[test]
fn disagreements_property() {
    let _proof = course_check::proof();
    property::check(
        "disagreements == the number of rows whose first largest weights sit in different \
         columns, and matrices of different shapes are refused",
        &[("T", 6), ("S", 5)],
        |case| {
            let (t, s_len) = (case["T"], case["S"]);
            let a = tied_weights(case, (t, s_len));
            // Some rows of b copy a's, so both agreeing and disagreeing rows come up.
            let (fresh, keep) = (tied_weights(case, (t, s_len)), case.array(t));
            let b = Array2::from_shape_fn((t, s_len), |(i, j)| {
                if keep[i] < 0.0 {
                    a[[i, j]]
                } else {
                    fresh[[i, j]]
                }
            });
            let expected = (0..t)
                .filter(|&i| first_argmax(a.row(i)) != first_argmax(b.row(i)))
                .count();
            let got = disagreements(a.view(), b.view()).map_err(case.error())?;
            if got != expected {
                return Err(format!(
                    "a = {}, b = {}: expected {expected}, got {got}",
                    one_line(&a),
                    one_line(&b)
                ));
            }
            let taller = tied_weights(case, (t + 1, s_len));
            if disagreements(a.view(), taller.view()).is_ok() {
                return Err(format!(
                    "shapes ({t}, {s_len}) and ({}, {s_len}) were accepted",
                    t + 1
                ));
            }
            Ok(())
        },
    );
}
