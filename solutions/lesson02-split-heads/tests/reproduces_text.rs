//! The reference solution reproduces what lesson 2's source text (text 2, "Splitting into heads")
//! prints, and the hand split of text 4: every shape, every `True`, the `0.0` difference.

use lesson02_solution::setup::{B, C, H, T};
use lesson02_solution::*;
use ndarray::{Array, array, s};

fn shape(a: &[usize]) -> String {
    attention::error::shape_string(a)
}

#[test]
fn worked_example_prints_the_lesson_text() {
    let ex = worked_example();
    let hs = head_size(C, H).unwrap();
    assert_eq!(format!("B, T, C = {B} {T} {C}"), "B, T, C = 1 6 64");
    assert_eq!(
        format!("h = {H} | hs = C // h = {hs}"),
        "h = 4 | hs = C // h = 16"
    );
    assert_eq!(shape(ex.x.shape()), "(1, 6, 64)", "X shape");
    assert_eq!(shape(ex.wq.shape()), "(64, 64)", "Wq shape");
    let q = ex.q();
    assert_eq!(shape(q.shape()), "(1, 6, 64)", "Q = X @ Wq shape");
    let reshaped = q.clone().into_shape_with_order((B, T, H, hs)).unwrap();
    assert_eq!(
        shape(reshaped.shape()),
        "(1, 6, 4, 16)",
        "reshape -> (B, T, h, hs)"
    );
    let q_split = split_heads(q.view(), H).unwrap();
    assert_eq!(
        shape(q_split.shape()),
        "(1, 4, 6, 16)",
        "transpose -> (B, h, T, hs)"
    );
    assert_eq!(6 * 64, 384);
    assert_eq!(4 * 6 * 16, q_split.len());
    for i in 0..H {
        let direct = head_projection(ex.x.view(), ex.wq.view(), H, i).unwrap();
        let from_split = q_split.slice(s![.., i, .., ..]);
        let max = course_check::max_abs_diff(&direct, &from_split);
        assert!(
            max < 1e-12,
            "head {i}: split matches separate (C, hs) projection? True"
        );
    }
    let back = merge_heads(q_split.view());
    assert_eq!(back, q, "recovered Q equals original Q exactly? True");
    assert_eq!(
        course_check::max_abs_diff(&back, &q),
        0.0,
        "max abs diff: 0.0"
    );
}

#[test]
fn keys_and_values_split_the_same_way() {
    let ex = worked_example();
    for w in [&ex.wq, &ex.wk, &ex.wv] {
        let p = attention::attend::project(ex.x.view(), w.view()).unwrap();
        let heads = split_heads(p.view(), 4).unwrap();
        assert_eq!(shape(heads.shape()), "(1, 4, 6, 16)", "Qh / Kh / Vh");
    }
}

#[test]
fn practice_exercise_two() {
    let ex = worked_example();
    assert_eq!(head_size(64, 8).unwrap(), 8, "h = 8: hs = 8");
    let heads = split_heads(ex.q().view(), 8).unwrap();
    assert_eq!(shape(heads.shape()), "(1, 8, 6, 8)");
    assert!(head_size(64, 5).is_err(), "h = 5 does not divide 64");
    assert!(split_heads(ex.q().view(), 5).is_err());
}

#[test]
fn text_4_splits_arange_12_by_hand() {
    let x = Array::range(0.0, 12.0, 1.0)
        .into_shape_with_order((1, 3, 4))
        .unwrap();
    let heads = split_heads(x.view(), 2).unwrap();
    assert_eq!(shape(heads.shape()), "(1, 2, 3, 2)", "split shape");
    assert_eq!(
        heads.slice(s![0, 0, .., ..]),
        array![[0.0, 1.0], [4.0, 5.0], [8.0, 9.0]],
        "head 0 sees: [[0.0, 1.0], [4.0, 5.0], [8.0, 9.0]]"
    );
    assert_eq!(
        heads.slice(s![0, 1, .., ..]),
        array![[2.0, 3.0], [6.0, 7.0], [10.0, 11.0]],
        "head 1 sees: [[2.0, 3.0], [6.0, 7.0], [10.0, 11.0]]"
    );
    assert_eq!(merge_heads(heads.view()), x, "merged equals x: True");
    assert_eq!(
        head_size(768, 12).unwrap(),
        64,
        "GPT-2 small: 12 heads of 64 = 768"
    );
}
