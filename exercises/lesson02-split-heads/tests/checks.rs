//! The checks of lesson 2, shared by the exercise crate (`lesson02`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//! Data-movement checks use exactly representable inputs and must match exactly.

use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, max_abs_diff, property};
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

// ---- properties: random shapes and values, shrunk to the smallest failing case ---------------

#[test]
fn head_size_property() {
    let _proof = course_check::proof();
    property::check(
        "head_size(h·hs, h) == hs, and h = 0 or an h that does not divide C is refused",
        &[("h", 12), ("hs", 12), ("r", 11)],
        |case| {
            let (h, hs, r) = (case["h"], case["hs"], case["r"]);
            let got = head_size(h * hs, h).map_err(case.error())?;
            if got != hs {
                return Err(format!("head_size({}, {h}) gave {got}", h * hs));
            }
            // C = h·hs + r with 0 < r < h does not divide into h heads.
            if r < h && head_size(h * hs + r, h).is_ok() {
                return Err(format!("head_size({}, {h}) was accepted", h * hs + r));
            }
            if head_size(h * hs, 0).is_ok() {
                return Err(format!("head_size({}, 0) was accepted", h * hs));
            }
            Ok(())
        },
    );
}

#[test]
fn split_heads_property() {
    let _proof = course_check::proof();
    property::check(
        "split_heads moves x[b, t, j·hs + k] to [b, j, t, k]",
        &[("B", 3), ("T", 6), ("h", 4), ("hs", 4)],
        |case| {
            let (b, t, h, hs) = (case["B"], case["T"], case["h"], case["hs"]);
            let x = labelled(b, t, h * hs);
            let got = split_heads(x.view(), h).map_err(case.error())?;
            let expected =
                Array4::from_shape_fn((b, h, t, hs), |(b, j, t, k)| x[[b, t, j * hs + k]]);
            property::exactly(&expected, &got, Some("b*10000 + t*100 + c"))
        },
    );
}

#[test]
fn merge_heads_property() {
    let _proof = course_check::proof();
    property::check(
        "merge_heads moves heads[b, j, t, k] to [b, t, j·hs + k], and merge(split(x)) == x",
        &[("B", 3), ("T", 6), ("h", 4), ("hs", 4)],
        |case| {
            let (b, t, h, hs) = (case["B"], case["T"], case["h"], case["hs"]);
            let heads = Array4::from_shape_fn((b, h, t, hs), |(b, j, t, k)| {
                (b * 1000 + j * 100 + t * 10 + k) as f64
            });
            let expected = ndarray::Array3::from_shape_fn((b, t, h * hs), |(b, t, c)| {
                heads[[b, c / hs, t, c % hs]]
            });
            let got = merge_heads(heads.view());
            property::exactly(&expected, &got, Some("b*1000 + i*100 + t*10 + j"))?;
            let x = case.array((b, t, h * hs));
            let split = split_heads(x.view(), h).map_err(case.error())?;
            property::exactly(&x, &merge_heads(split.view()), None)
                .map_err(|why| format!("merge(split(x)) is not x: {why}"))
        },
    );
}

#[test]
fn head_projection_property() {
    let _proof = course_check::proof();
    property::check(
        "head_projection(x, Wq, h, i) == (x Wq)[.., .., i·hs..(i + 1)·hs], and i = h is refused",
        &[("B", 2), ("T", 4), ("h", 4), ("hs", 3), ("i", 4)],
        |case| {
            let (b, t, h, hs) = (case["B"], case["T"], case["h"], case["hs"]);
            let i = (case["i"] - 1) % h;
            let c = h * hs;
            let (x, wq) = (case.array((b, t, c)), case.array((c, c)));
            let got = head_projection(x.view(), wq.view(), h, i).map_err(case.error())?;
            let columns = wq.slice(s![.., i * hs..(i + 1) * hs]);
            let expected = ndarray::Array3::from_shape_fn((b, t, hs), |(bi, ti, k)| {
                x.slice(s![bi, ti, ..]).dot(&columns.column(k))
            });
            property::close(&expected, &got).map_err(|why| format!("head i = {i}: {why}"))?;
            if head_projection(x.view(), wq.view(), h, h).is_ok() {
                return Err(format!("head i = {h} of h = {h} heads was accepted"));
            }
            Ok(())
        },
    );
}
