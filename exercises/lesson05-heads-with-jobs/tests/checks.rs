//! The checks of lesson 5, shared by the exercise crate (`lesson05`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//! Hand-built matrices hold small integers and are compared exactly.

use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, property};
use lesson05::setup::{
    CATEGORY, F, N_CATEGORIES, PREVIOUS_TOKEN_GAIN, SAME_CATEGORY_GAIN, T, TOKENS, argmax_first,
};
use lesson05::*;
use ndarray::{Array2, Array3, Axis, array, s};

/// Head `i`'s `(T, T)` weights on the lesson's input, through `causal_weights` directly.
fn head_weights(x: &Array2<f64>, head: &Head) -> Array2<f64> {
    causal_weights(x.dot(&head.wq).view(), x.dot(&head.wk).view())
        .expect("the worked example's shapes fit")
}

/// `(T, d)` queries and keys with varied, non-symmetric values.
fn ramp(t: usize, d: usize, scale: f64, shift: usize) -> Array2<f64> {
    Array2::from_shape_fn((t, d), |(i, j)| {
        ((i * 5 + j * 3 + shift) % 7) as f64 * scale - 1.0
    })
}

// ---- token_features ----------------------------------------------------------------------------

#[test]
fn token_features_lesson_example() {
    let _proof = course_check::proof();
    let x = token_features(&CATEGORY, N_CATEGORIES).unwrap();
    assert_eq!(x.shape(), &[T, F], "X is (T, T + K) = (6, 9)");
    assert_exact_snapshot!("token_features", x);
}

#[test]
fn token_features_rows_are_two_hot() {
    let _proof = course_check::proof();
    let category = [1, 0, 1];
    let x = token_features(&category, 2).unwrap();
    assert_eq!(x.shape(), &[3, 5]);
    for (t, row) in x.rows().into_iter().enumerate() {
        let ones: Vec<usize> = (0..5).filter(|&j| row[j] == 1.0).collect();
        assert_eq!(
            ones,
            vec![t, 3 + category[t]],
            "row {t} must have exactly a 1 at its position {t} and at 3 + its category"
        );
        assert_eq!(row.sum(), 2.0, "row {t}: every other feature is 0");
    }
    assert_eq!(token_features(&[0], 1).unwrap(), array![[1.0, 1.0]]);
}

#[test]
fn token_features_refuses_unknown_category() {
    let _proof = course_check::proof();
    assert!(
        token_features(&[0, 3, 1], 3).is_err(),
        "category 3 does not exist when K = 3"
    );
    assert!(
        token_features(&[0], 0).is_err(),
        "no category exists when K = 0"
    );
}

// ---- causal_weights ----------------------------------------------------------------------------

#[test]
fn causal_weights_small_case() {
    let _proof = course_check::proof();
    // Unscaled scores: a correct answer does not divide by √d.
    let q = ramp(4, 3, 0.5, 0);
    let k = ramp(4, 3, 0.25, 2);
    assert_close_snapshot!("causal_small", causal_weights(q.view(), k.view()).unwrap());
}

#[test]
fn causal_weights_rows_sum_to_one() {
    let _proof = course_check::proof();
    let q = ramp(5, 2, 1.5, 1);
    let k = ramp(5, 2, 2.0, 4);
    let w = causal_weights(q.view(), k.view()).unwrap();
    assert_eq!(w.shape(), &[5, 5]);
    for (i, row) in w.rows().into_iter().enumerate() {
        assert!(
            (row.sum() - 1.0).abs() < 1e-12,
            "row {i} sums to {}, not 1",
            row.sum()
        );
    }
}

#[test]
fn causal_weights_future_is_exactly_zero() {
    let _proof = course_check::proof();
    // Large future scores: only a real mask gives them weight exactly 0.0.
    let q = Array2::from_elem((4, 1), 10.0);
    let k = array![[-1.0], [0.0], [5.0], [50.0]];
    let w = causal_weights(q.view(), k.view()).unwrap();
    for i in 0..4 {
        for j in 0..4 {
            if j > i {
                assert_eq!(w[[i, j]], 0.0, "query {i} must not see the later key {j}");
            } else {
                assert!(w[[i, j]] >= 0.0);
            }
        }
    }
    assert_eq!(w[[0, 0]], 1.0, "the first token can only look at itself");
}

#[test]
fn causal_weights_large_scores_stay_finite() {
    let _proof = course_check::proof();
    // Unscaled scores q . k near 1000: exp(1000) is infinite, so only a softmax that subtracts each
    // row's maximum first gives finite weights.
    let q = array![[10.0, 0.0], [0.0, 10.0], [10.0, 10.0], [5.0, 5.0]];
    let k = array![[100.0, 1.0], [99.0, 2.0], [50.0, 50.0], [101.0, 100.0]];
    let w = causal_weights(q.view(), k.view()).unwrap();
    assert!(
        w.iter().all(|x| x.is_finite()),
        "scores near 1000 must give finite weights (subtract each row's maximum before exp), got {w}"
    );
    for (i, row) in w.rows().into_iter().enumerate() {
        assert!(
            (row.sum() - 1.0).abs() < 1e-12,
            "row {i} sums to {}",
            row.sum()
        );
    }
    assert_close_snapshot!("causal_large_scores", w);
}

#[test]
fn causal_weights_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let q = ramp(4, 3, 0.5, 0);
    assert!(
        causal_weights(q.view(), ramp(4, 2, 0.5, 0).view()).is_err(),
        "keys of width 2 cannot be compared with queries of width 3"
    );
    assert!(
        causal_weights(q.view(), ramp(5, 3, 0.5, 0).view()).is_err(),
        "self-attention: as many keys as queries"
    );
}

// ---- previous_token_head -----------------------------------------------------------------------

#[test]
fn previous_token_head_matrices() {
    let _proof = course_check::proof();
    let head = previous_token_head(4, 2, 6.0);
    assert_eq!(head.wq.shape(), &[6, 4], "Wq is (T + K, T)");
    assert_eq!(head.wk.shape(), &[6, 4], "Wk is (T + K, T)");
    assert_exact_snapshot!("previous_token_wq", head.wq);
    assert_exact_snapshot!("previous_token_wk", head.wk);
}

#[test]
fn previous_token_weights() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let w = head_weights(&ex.x, &ex.previous);
    assert_eq!(w.shape(), &[T, T]);
    assert_close_snapshot!("previous_token_weights", w);
    for (i, token) in TOKENS.iter().enumerate().skip(1) {
        assert_eq!(
            argmax_first(w.row(i)),
            i - 1,
            "{token:?} must look most at the token before it"
        );
    }
}

#[test]
fn packable_attends_to_light_in_head_1() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let w = head_weights(&ex.x, &ex.previous);
    let last = w.row(T - 1);
    let expected = PREVIOUS_TOKEN_GAIN.exp() / (PREVIOUS_TOKEN_GAIN.exp() + 5.0);
    assert!(
        (last[4] - 0.9878).abs() < 5e-5 && (last[4] - expected).abs() < 1e-12,
        "'packable' puts e⁶ / (e⁶ + 5) = 0.9878 on 'light', got {:.6}",
        last[4]
    );
    assert_eq!(TOKENS[argmax_first(last)], "light");
}

// ---- same_category_head ------------------------------------------------------------------------

#[test]
fn same_category_head_matrices() {
    let _proof = course_check::proof();
    let head = same_category_head(4, 2, 4.0);
    assert_eq!(head.wq.shape(), &[6, 2], "Wq is (T + K, K)");
    assert_eq!(head.wk, head.wq, "Wk equals Wq");
    assert_exact_snapshot!("same_category_wq", head.wq);
}

#[test]
fn same_category_weights() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let w = head_weights(&ex.x, &ex.same);
    assert_eq!(w.shape(), &[T, T]);
    assert_close_snapshot!("same_category_weights", w);
}

#[test]
fn packable_splits_between_light_and_itself() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let w = head_weights(&ex.x, &ex.same);
    let last = w.row(T - 1);
    let g = SAME_CATEGORY_GAIN * SAME_CATEGORY_GAIN;
    let expected = g.exp() / (2.0 * g.exp() + 4.0);
    for j in [4, 5] {
        assert!(
            (last[j] - 0.5).abs() < 1e-6 && (last[j] - expected).abs() < 1e-12,
            "'packable' puts half its weight on {:?}, got {:.8}",
            TOKENS[j],
            last[j]
        );
    }
    assert_eq!(last[4], last[5], "the two feature words tie exactly");
    assert_eq!(
        TOKENS[argmax_first(last)],
        "light",
        "a tie goes to the first"
    );
}

// ---- run_heads ---------------------------------------------------------------------------------

#[test]
fn run_heads_shapes() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let w = run_heads(ex.x.view(), &ex.heads()).unwrap();
    assert_eq!(w.shape(), &[2, T, T], "two heads, each a (T, T) matrix");
    let three = [ex.previous.clone(), ex.same.clone(), ex.previous.clone()];
    assert_eq!(run_heads(ex.x.view(), &three).unwrap().shape(), &[3, T, T]);
}

#[test]
fn run_heads_matches_each_head() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let w = run_heads(ex.x.view(), &ex.heads()).unwrap();
    assert_eq!(w.index_axis(Axis(0), 0), head_weights(&ex.x, &ex.previous));
    assert_eq!(w.index_axis(Axis(0), 1), head_weights(&ex.x, &ex.same));
}

#[test]
fn every_head_sees_every_position() {
    let _proof = course_check::proof();
    // Heads split features, not the sentence: each head weighs every token it may see.
    let ex = worked_example();
    let w: Array3<f64> = run_heads(ex.x.view(), &ex.heads()).unwrap();
    assert_eq!(w.shape(), &[2, T, T], "every head gets all T positions");
    for (h, head) in w.outer_iter().enumerate() {
        for (i, row) in head.rows().into_iter().enumerate() {
            assert!((row.sum() - 1.0).abs() < 1e-12, "head {h}, row {i}");
            for (j, &weight) in row.iter().enumerate() {
                if j <= i {
                    assert!(
                        weight > 0.0,
                        "head {h}: {:?} gives {:?} no weight at all",
                        TOKENS[i],
                        TOKENS[j]
                    );
                } else {
                    assert_eq!(
                        weight, 0.0,
                        "head {h}: the causal mask hides {:?}",
                        TOKENS[j]
                    );
                }
            }
        }
    }
}

#[test]
fn run_heads_refuses_bad_heads() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let short = Head {
        wq: ex.previous.wq.slice(s![..F - 1, ..]).to_owned(),
        wk: ex.previous.wk.slice(s![..F - 1, ..]).to_owned(),
    };
    assert!(
        run_heads(ex.x.view(), &[ex.same.clone(), short]).is_err(),
        "a head whose projections have F - 1 rows must be refused"
    );
    let mixed = Head {
        wq: ex.previous.wq.clone(),
        wk: ex.same.wk.clone(),
    };
    assert!(
        run_heads(ex.x.view(), &[mixed]).is_err(),
        "Wq (9, 6) and Wk (9, 3) cannot be compared"
    );
}

// ---- same_category -----------------------------------------------------------------------------

#[test]
fn same_category_of_jacket() {
    let _proof = course_check::proof();
    assert_eq!(same_category(&CATEGORY, 2).unwrap(), vec![1, 2], "jacket");
    assert_eq!(same_category(&CATEGORY, 0).unwrap(), vec![0], "the");
    assert_eq!(same_category(&CATEGORY, 3).unwrap(), vec![0, 3], "is");
    assert_eq!(same_category(&CATEGORY, 5).unwrap(), vec![4, 5], "packable");
}

#[test]
fn same_category_matches_head_2() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let w = head_weights(&ex.x, &ex.same);
    for i in 0..T {
        let looked_at: Vec<usize> = (0..T).filter(|&j| w[[i, j]] > 0.01).collect();
        assert_eq!(
            same_category(&CATEGORY, i).unwrap(),
            looked_at,
            "row {i} ({:?}) of head 2",
            TOKENS[i]
        );
    }
}

#[test]
fn same_category_refuses_out_of_range() {
    let _proof = course_check::proof();
    assert!(same_category(&CATEGORY, T).is_err(), "there is no token 6");
    assert!(
        same_category(&[], 0).is_err(),
        "an empty sentence has no token 0"
    );
}

// ---- properties: random shapes and values, shrunk to the smallest failing case ---------------

#[test]
fn causal_weights_property() {
    let _proof = course_check::proof();
    // Values up to 2·10^(m-1): from m = 3 on, the scores are past exp's range.
    property::check(
        "causal_weights == softmax(Q Kᵀ) with the future exactly 0, and a K unlike Q is refused",
        &[("T", 6), ("d", 4), ("m", 3)],
        |case| {
            let (t, d) = (case["T"], case["d"]);
            let scale = 10f64.powi(case["m"] as i32 - 1);
            let (q, k) = (case.array((t, d)) * scale, case.array((t, d)) * scale);
            let w = causal_weights(q.view(), k.view()).map_err(case.error())?;
            property::has_shape(w.shape(), (t, t))?;
            if let Some(((i, j), v)) = w.indexed_iter().find(|((i, j), v)| j > i && **v != 0.0) {
                return Err(format!(
                    "weight [{i}, {j}] is in the future but {v}, not exactly 0"
                ));
            }
            property::close(&property::plain_weights(q.view(), k.view(), 1.0, true), &w)?;
            let wide = case.array((t, d + 1));
            if causal_weights(q.view(), wide.view()).is_ok() {
                return Err(format!("K ({t}, {}) was accepted with Q ({t}, {d})", d + 1));
            }
            Ok(())
        },
    );
}

#[test]
fn run_heads_property() {
    let _proof = course_check::proof();
    property::check(
        "run_heads[i] == causal softmax((X Wq_i)(X Wk_i)ᵀ) for every head i",
        &[("heads", 3), ("T", 5), ("F", 4), ("d", 3)],
        |case| {
            let (n, t, f, d) = (case["heads"], case["T"], case["F"], case["d"]);
            let x = case.array((t, f));
            let heads: Vec<Head> = (0..n)
                .map(|_| Head {
                    wq: case.array((f, d)),
                    wk: case.array((f, d)),
                })
                .collect();
            let got = run_heads(x.view(), &heads).map_err(case.error())?;
            property::has_shape(got.shape(), (n, t, t))?;
            for (i, head) in heads.iter().enumerate() {
                let plain = property::plain_weights(
                    x.dot(&head.wq).view(),
                    x.dot(&head.wk).view(),
                    1.0,
                    true,
                );
                property::close(&plain, &got.index_axis(Axis(0), i))
                    .map_err(|why| format!("head {i}: {why}"))?;
            }
            Ok(())
        },
    );
}
