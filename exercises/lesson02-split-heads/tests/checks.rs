//! The checks of lesson 2, shared by the exercise crate (`lesson02`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//! Data-movement checks use exactly representable inputs and must match exactly.

use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, max_abs_diff};
use lesson02::setup::{C, H, labelled};
use lesson02::*;
use ndarray::{Array4, s};

// ---- head_size ---------------------------------------------------------------------------------

#[test]
fn head_size_divides_width() {
    let _proof = course_check::proof();
    assert_eq!(head_size(64, 4).unwrap(), 16);
    assert_eq!(head_size(64, 8).unwrap(), 8);
    assert_eq!(head_size(64, 1).unwrap(), 64);
    assert_eq!(head_size(64, 64).unwrap(), 1);
}

#[test]
fn head_size_refuses_uneven_and_zero() {
    let _proof = course_check::proof();
    assert!(head_size(64, 5).is_err(), "h = 5 does not divide C = 64");
    assert!(head_size(64, 0).is_err(), "h = 0 heads must be refused");
    assert!(head_size(6, 4).is_err(), "h = 4 does not divide C = 6");
}

// ---- split_heads -------------------------------------------------------------------------------

#[test]
fn split_heads_lesson_shapes() {
    let _proof = course_check::proof();
    let q = worked_example().q();
    assert_eq!(q.shape(), &[1, 6, 64]);
    assert_eq!(split_heads(q.view(), 4).unwrap().shape(), &[1, 4, 6, 16]);
    assert_eq!(split_heads(q.view(), 8).unwrap().shape(), &[1, 8, 6, 8]);
}

#[test]
fn split_heads_moves_data() {
    let _proof = course_check::proof();
    // (B, T, C) = (2, 3, 4) with h = 2: every value encodes b, t, c.
    assert_exact_snapshot!(
        "split_moves_data",
        split_heads(labelled(2, 3, 4).view(), 2).unwrap(),
        encoding = "b*10000 + t*100 + c"
    );
}

#[test]
fn split_heads_batch_and_heads_differ() {
    let _proof = course_check::proof();
    // (B, T, C) = (3, 4, 6) with h = 2 (hs = 3): B, h, T and hs all differ, so no two axes can
    // be swapped unnoticed. out[b, i, t, j] must be x[b, t, i * hs + j].
    let x = labelled(3, 4, 6);
    let heads = split_heads(x.view(), 2).unwrap();
    assert_eq!(heads.shape(), &[3, 2, 4, 3], "(B, h, T, hs)");
    assert_exact_snapshot!(
        "split_batch_and_heads_differ",
        heads,
        encoding = "b*10000 + t*100 + c"
    );
}

#[test]
fn split_heads_refuses_uneven() {
    let _proof = course_check::proof();
    let q = worked_example().q();
    assert!(
        split_heads(q.view(), 5).is_err(),
        "C = 64 cannot be split into h = 5 heads"
    );
}

#[test]
fn split_heads_accepts_views() {
    let _proof = course_check::proof();
    // A transposed (non-contiguous) view must split exactly like its contiguous copy.
    let x = labelled(3, 4, 2);
    let view = x
        .view()
        .permuted_axes([1, 0, 2])
        .reversed_axes()
        .reversed_axes();
    let copy = view.as_standard_layout().into_owned();
    assert_eq!(
        split_heads(view, 2).unwrap(),
        split_heads(copy.view(), 2).unwrap()
    );
}

// ---- merge_heads -------------------------------------------------------------------------------

#[test]
fn merge_heads_moves_data() {
    let _proof = course_check::proof();
    let heads = Array4::from_shape_fn((1, 2, 3, 2), |(b, i, t, j)| {
        (b * 1000 + i * 100 + t * 10 + j) as f64
    });
    assert_exact_snapshot!(
        "merge_moves_data",
        merge_heads(heads.view()),
        encoding = "b*1000 + i*100 + t*10 + j"
    );
}

#[test]
fn merge_heads_batch_and_heads_differ() {
    let _proof = course_check::proof();
    // (B, h, T, hs) = (3, 2, 4, 3): every value encodes b, i, t, j as b*1000 + i*100 + t*10 + j.
    let heads = Array4::from_shape_fn((3, 2, 4, 3), |(b, i, t, j)| {
        (b * 1000 + i * 100 + t * 10 + j) as f64
    });
    let merged = merge_heads(heads.view());
    assert_eq!(merged.shape(), &[3, 4, 6], "(B, T, h * hs)");
    assert_exact_snapshot!(
        "merge_batch_and_heads_differ",
        merged,
        encoding = "b*1000 + i*100 + t*10 + j"
    );
}

#[test]
fn merge_inverts_split_exactly() {
    let _proof = course_check::proof();
    let q = worked_example().q();
    for h in [1, 2, 4, 8, 16] {
        let back = merge_heads(split_heads(q.view(), h).unwrap().view());
        assert_eq!(back.shape(), q.shape());
        let max = max_abs_diff(&back, q.view());
        assert_eq!(
            max, 0.0,
            "h = {h}: merge(split(Q)) must give Q back exactly"
        );
    }
}

// ---- head_projection ---------------------------------------------------------------------------

#[test]
fn head_projection_matches_split() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let split = split_heads(ex.q().view(), H).unwrap();
    for i in 0..H {
        let direct = head_projection(ex.x.view(), ex.wq.view(), H, i).unwrap();
        assert_eq!(direct.shape(), &[1, 6, 16]);
        let from_split = split.slice(s![.., i, .., ..]);
        let max = max_abs_diff(&direct, from_split.view());
        assert!(
            max < 1e-12,
            "head {i}: the column-slice projection differs from the split by {max}"
        );
    }
}

#[test]
fn head_projection_head_two() {
    let _proof = course_check::proof();
    let ex = worked_example();
    assert_close_snapshot!(
        "head_two",
        head_projection(ex.x.view(), ex.wq.view(), H, 2).unwrap()
    );
}

#[test]
fn head_projection_refuses_bad_input() {
    let _proof = course_check::proof();
    let ex = worked_example();
    assert!(
        head_projection(ex.x.view(), ex.wq.view(), H, H).is_err(),
        "head index h is out of range"
    );
    assert!(
        head_projection(ex.x.view(), ex.wq.view(), 5, 0).is_err(),
        "h = 5 does not divide 64"
    );
    let narrow = ex.wq.slice(s![.., ..C / 2]);
    assert!(
        head_projection(ex.x.view(), narrow, H, 0).is_err(),
        "Wq must be (C, C)"
    );
}

#[test]
fn keys_and_values_split_the_same_way() {
    let _proof = course_check::proof();
    let ex = worked_example();
    for w in [&ex.wk, &ex.wv] {
        let p = attention::attend::project(ex.x.view(), w.view()).unwrap();
        let split = split_heads(p.view(), H).unwrap();
        assert_eq!(split.shape(), &[1, 4, 6, 16]);
        let last = head_projection(ex.x.view(), w.view(), H, H - 1).unwrap();
        let from_split = split.slice(s![.., H - 1, .., ..]);
        let max = max_abs_diff(&last, from_split.view());
        assert!(
            max < 1e-12,
            "the last head of a key/value split differs from its slice by {max}"
        );
    }
}

// ---- the texts' other examples -----------------------------------------------------------------

#[test]
fn head_size_of_gpt2_small() {
    let _proof = course_check::proof();
    assert_eq!(
        head_size(768, 12).unwrap(),
        64,
        "GPT-2 small: 12 heads of 64 numbers make a width of 768"
    );
    assert_eq!(
        head_size(24, 6).unwrap(),
        4,
        "the practice item: d = 24, h = 6"
    );
    assert_eq!(head_size(12, 3).unwrap(), 4, "T = 5, d = 12, h = 3");
}

#[test]
fn split_heads_by_hand() {
    let _proof = course_check::proof();
    // x = arange(12).reshape(1, 3, 4): token 0 = [0, 1, 2, 3], token 1 = [4, 5, 6, 7], ...
    let x = ndarray::Array::range(0.0, 12.0, 1.0)
        .into_shape_with_order((1, 3, 4))
        .unwrap();
    let heads = split_heads(x.view(), 2).unwrap();
    assert_eq!(heads.shape(), &[1, 2, 3, 2], "split shape: (1, 2, 3, 2)");
    assert_eq!(
        heads.slice(s![0, 0, .., ..]),
        ndarray::array![[0.0, 1.0], [4.0, 5.0], [8.0, 9.0]],
        "head 0 sees the first two features of every token"
    );
    assert_eq!(
        heads.slice(s![0, 1, .., ..]),
        ndarray::array![[2.0, 3.0], [6.0, 7.0], [10.0, 11.0]],
        "head 1 sees the last two features of every token"
    );
    assert_exact_snapshot!("arange_12_two_heads", heads, encoding = "b*12 + t*4 + c");
}

#[test]
fn split_heads_shape_drills() {
    let _proof = course_check::proof();
    // Heads split features, not the sentence: every head holds all T positions.
    for (b, t, d, h) in [(1, 3, 8, 2), (2, 7, 24, 6), (1, 5, 12, 3)] {
        let x = labelled(b, t, d);
        let heads = split_heads(x.view(), h).unwrap();
        let hs = d / h;
        assert_eq!(
            heads.shape(),
            &[b, h, t, hs],
            "B = {b}, T = {t}, d = {d}, h = {h}: (B, h, T, d / h)"
        );
        for r in 0..h {
            assert_eq!(
                heads.slice(s![.., r, .., ..]),
                x.slice(s![.., .., r * hs..(r + 1) * hs]),
                "B = {b}, T = {t}, d = {d}, h = {h}: head {r} must hold features \
                 {}..{} of all {t} positions",
                r * hs,
                (r + 1) * hs
            );
        }
    }
}
