//! The checks of lesson 3, shared by the exercise crate (`lesson03`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//! The head-by-head reference uses the core's single-head `scaled_dot_product`.

use attention::attend::scaled_dot_product;
use attention::rng::RandomState;
use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, max_abs_diff, property};
use lesson03::setup::{B, H, HS, LENGTHS, S, T};
use lesson03::*;
use ndarray::{Array3, Array4, ArrayView4, Axis, array, s};

/// Every `(b, i)` head attended on its own with the core's single-head attention.
fn head_by_head(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> (Array4<f64>, Array4<f64>) {
    let (b, h, t, _) = q.dim();
    let (s, hv) = (k.dim().2, v.dim().3);
    let mut out = Array4::<f64>::zeros((b, h, t, hv));
    let mut weights = Array4::<f64>::zeros((b, h, t, s));
    for bi in 0..b {
        for i in 0..h {
            let head = s![bi..=bi, i, .., ..];
            let mask = allowed.map(|m| {
                let (mb, mh) = (m.dim().0, m.dim().1);
                m.slice_move(s![bi.min(mb - 1)..=bi.min(mb - 1), i.min(mh - 1), .., ..])
            });
            let (o, w) =
                scaled_dot_product(q.slice(head), k.slice(head), v.slice(head), mask.as_ref())
                    .expect("the reference's shapes fit");
            out.slice_mut(s![bi, i, .., ..])
                .assign(&o.index_axis(Axis(0), 0));
            weights
                .slice_mut(s![bi, i, .., ..])
                .assign(&w.index_axis(Axis(0), 0));
        }
    }
    (out, weights)
}

fn assert_rows_sum_to_one(w: ArrayView4<f64>) {
    for (n, row) in w.lanes(Axis(3)).into_iter().enumerate() {
        let sum = row.sum();
        assert!(
            (sum - 1.0).abs() < 1e-12,
            "weight row {n} (row-major order) sums to {sum}, not 1"
        );
    }
}

/// Why some weights are not finite: the first such row, its largest score, and what went wrong.
fn overflowed(w: ArrayView4<f64>, scores: ArrayView4<f64>) -> String {
    let rows = w.lanes(Axis(3)).into_iter().zip(scores.lanes(Axis(3)));
    let Some((n, (row, s))) = rows
        .enumerate()
        .find(|(_, (row, _))| row.iter().any(|x| !x.is_finite()))
    else {
        return "every weight is finite".into();
    };
    let max = s.fold(f64::NEG_INFINITY, |m, &x| m.max(x));
    format!(
        "weight row {n} (row-major order) is {row} for scores up to {max}: exp overflowed (exp of \
         anything past 709 is infinite, and infinity / infinity is NaN); subtract the row's \
         maximum from every score before exp"
    )
}

/// Where the first NaN weight of `fully_masked_row_gets_zero_weights` is, and why it is there.
fn nan_where(w: ArrayView4<f64>) -> String {
    match w.indexed_iter().find(|(_, x)| x.is_nan()) {
        Some(((_, head, 1, _), _)) => format!(
            "head {head}: the fully masked query 1 gets NaN weights, {}: its scores are all -inf, \
             every exp is 0, and 0 / 0 is NaN; a row whose maximum is -inf must get weights 0.0",
            w.slice(s![0, head, 1, ..])
        ),
        Some((at, _)) => format!("weight {at:?} is NaN: no NaN, ever"),
        None => "no NaN, ever".into(),
    }
}

// ---- fold_heads --------------------------------------------------------------------------------

#[test]
fn fold_heads_moves_data() {
    let _proof = course_check::proof();
    // (B, h, T, n) = (2, 2, 3, 2): every value encodes b, i, t, j.
    let x = labelled(2, 2, 3, 2);
    let folded = fold_heads(x.view());
    assert_exact_snapshot!(
        "fold_moves_data",
        folded,
        encoding = "b*1000 + i*100 + t*10 + j"
    );
    assert_eq!(
        unfold_heads(folded.view(), 2).unwrap(),
        x,
        "unfolding the fold must give the input back exactly"
    );
}

#[test]
fn fold_heads_keeps_each_head_whole() {
    let _proof = course_check::proof();
    let q = worked_example().q;
    let folded = fold_heads(q.view());
    assert_eq!(folded.shape(), &[B * H, T, HS]);
    for b in 0..B {
        for i in 0..H {
            assert_eq!(
                folded.index_axis(Axis(0), b * H + i),
                q.slice(s![b, i, .., ..]),
                "row b * h + i = {} of the fold must be head {i} of sequence {b}",
                b * H + i
            );
        }
    }
}

#[test]
fn fold_heads_accepts_views() {
    let _proof = course_check::proof();
    // A view with reversed positions and swapped batch/head axes is not row-major.
    let x = labelled(2, 3, 4, 2);
    let view = x.slice(s![.., .., ..;-1, ..]).permuted_axes([1, 0, 2, 3]);
    let copy = view.as_standard_layout().into_owned();
    assert_eq!(fold_heads(view), fold_heads(copy.view()));
    assert_eq!(fold_heads(view)[[0, 0, 1]], 31.0);
}

#[test]
fn fold_heads_batch_and_heads_differ() {
    let _proof = course_check::proof();
    // (B, h, T, n) = (3, 2, 2, 2): folding as (h, B) instead of (B, h) puts the heads in
    // another order, which a B = h example cannot show.
    let x = labelled(3, 2, 2, 2);
    let folded = fold_heads(x.view());
    assert_eq!(folded.shape(), &[6, 2, 2], "(B·h, T, n)");
    assert_exact_snapshot!(
        "fold_batch_and_heads_differ",
        folded,
        encoding = "b*1000 + i*100 + t*10 + j"
    );
}

// ---- attention_scores --------------------------------------------------------------------------

#[test]
fn attention_scores_shape_for_t_ne_s() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let scores = attention_scores(ex.q.view(), ex.k.view()).unwrap();
    assert_eq!(
        scores.shape(),
        &[B, H, T, S],
        "(B, h, T, S) with T = 4, S = 6"
    );
    let one_key = ex.k.slice(s![.., .., ..1, ..]);
    assert_eq!(
        attention_scores(ex.q.view(), one_key).unwrap().shape(),
        &[B, H, T, 1]
    );
}

#[test]
fn attention_scores_scale_by_head_size() {
    let _proof = course_check::proof();
    // All-ones queries and keys: every dot product is hs, so every score is hs / sqrt(hs).
    for (hs, expected) in [(1, 1.0), (4, 2.0), (9, 3.0), (16, 4.0)] {
        let q = Array4::<f64>::ones((1, 2, 3, hs));
        let k = Array4::<f64>::ones((1, 2, 5, hs));
        let scores = attention_scores(q.view(), k.view()).unwrap();
        for &x in &scores {
            assert!(
                (x - expected).abs() < 1e-12,
                "hs = {hs}: expected every score to be {expected} (hs / sqrt(hs)), got {x}"
            );
        }
    }
}

#[test]
fn attention_scores_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    assert_close_snapshot!(
        "scores",
        attention_scores(ex.q.view(), ex.k.view()).unwrap()
    );
}

#[test]
fn attention_scores_refuses_mismatched_inputs() {
    let _proof = course_check::proof();
    let q = Array4::<f64>::zeros((2, 2, 4, 4));
    for bad in [(2, 2, 6, 3), (2, 3, 6, 4), (1, 2, 6, 4)] {
        let k = Array4::<f64>::zeros(bad);
        assert!(
            attention_scores(q.view(), k.view()).is_err(),
            "keys {bad:?} do not fit queries (2, 2, 4, 4): B, h and hs must agree"
        );
    }
}

#[test]
fn attention_scores_batch_and_heads_differ() {
    let _proof = course_check::proof();
    // B = 3 sequences, h = 2 heads, T = 4 queries, S = 5 keys, hs = 3: unfolding the folded
    // (B·h) axis with the wrong count, or as (h, B), gives another shape or pairs the wrong heads.
    let mut rng = RandomState::new(31);
    let q: Array4<f64> = rng.randn((3, 2, 4, 3));
    let k: Array4<f64> = rng.randn((3, 2, 5, 3));
    let scores = attention_scores(q.view(), k.view()).unwrap();
    assert_eq!(scores.shape(), &[3, 2, 4, 5], "(B, h, T, S)");
    for b in 0..3usize {
        for i in 0..2usize {
            let (qh, kh) = (q.slice(s![b, i, .., ..]), k.slice(s![b, i, .., ..]));
            let expected = qh.dot(&kh.t()) / 3f64.sqrt();
            let d = max_abs_diff(scores.slice(s![b, i, .., ..]), expected.view());
            assert!(
                d < 1e-12,
                "sequence {b}, head {i}: the scores must be q[{b}, {i}] k[{b}, {i}]ᵀ / √hs (off by {d:e})"
            );
        }
    }
    assert_close_snapshot!("scores_batch_and_heads_differ", scores);
}

#[test]
fn attention_scores_refuses_swapped_batch_and_heads() {
    let _proof = course_check::proof();
    // Each pair has as many (B·h) rows on both sides, so a batched product alone would run.
    for (q_shape, k_shape) in [
        ((2, 3, 4, 4), (3, 2, 6, 4)),
        ((1, 4, 4, 4), (2, 2, 6, 4)),
        ((2, 2, 4, 4), (1, 4, 6, 4)),
    ] {
        let q = Array4::<f64>::zeros(q_shape);
        let k = Array4::<f64>::zeros(k_shape);
        assert!(
            attention_scores(q.view(), k.view()).is_err(),
            "keys {k_shape:?} for queries {q_shape:?}: the batch size and the head count must each agree"
        );
    }
}

// ---- causal_mask -------------------------------------------------------------------------------

/// The first `(query, key)` that `pick` selects where `mask` (`(1, 1, T, S)`) disagrees with
/// causal attention: a key is allowed exactly when it is at or before the query (`j <= i`).
fn first_wrong(mask: &Array4<bool>, pick: fn(usize, usize) -> bool) -> (usize, usize, bool) {
    let (_, _, t, s) = mask.dim();
    (0..t)
        .flat_map(|i| (0..s).map(move |j| (i, j)))
        .filter(|&(i, j)| pick(i, j))
        .find(|&(i, j)| mask[[0, 0, i, j]] != (j <= i))
        .map_or((0, 0, false), |(i, j)| (i, j, true))
}

/// `mask` is the `(1, 1, t, s)` causal mask: the earlier keys allowed, then each query's own key,
/// then the later keys masked, each its own assertion, so that a mask wrong in one way fails
/// that one first and says where.
fn assert_causal(mask: &Array4<bool>, t: usize, s: usize) {
    assert_eq!(mask.shape(), &[1, 1, t, s]);
    let (i, j, earlier_masked) = first_wrong(mask, |i, j| j < i);
    assert!(
        !earlier_masked,
        "query {i} may read the earlier key {j} (j < i), but the mask says false"
    );
    let (i, j, own_masked) = first_wrong(mask, |i, j| j == i);
    assert!(
        !own_masked,
        "query {i} may read its own position's key {j} (j == i), but the mask says false"
    );
    let (i, j, later_allowed) = first_wrong(mask, |i, j| j > i);
    assert!(
        !later_allowed,
        "query {i} must not read the later key {j} (j > i), but the mask says true"
    );
}

#[test]
fn causal_mask_square() {
    let _proof = course_check::proof();
    assert_causal(&causal_mask(4, 4), 4, 4);
    assert_eq!(attention::mask::count_allowed(&causal_mask(6, 6)), 21);
}

#[test]
fn causal_mask_t_ne_s() {
    let _proof = course_check::proof();
    assert_causal(&causal_mask(3, 5), 3, 5);
    let tall = causal_mask(5, 2);
    assert_eq!(tall.shape(), &[1, 1, 5, 2]);
    assert_eq!(attention::mask::count_allowed(&tall), 9);
}

// ---- masked_softmax ----------------------------------------------------------------------------

#[test]
fn masked_softmax_without_mask() {
    let _proof = course_check::proof();
    let mut scores = RandomState::new(3).randn((2, 2, 3, 5)) * 2.0;
    // Scores far beyond exp's range must not overflow.
    scores
        .slice_mut(s![0, 0, 0, ..])
        .assign(&array![1000.0, 1001.0, 999.0, -1000.0, 1000.0]);
    let w = masked_softmax(scores.view(), None).unwrap();
    assert!(
        w.iter().all(|x| x.is_finite()),
        "{}",
        overflowed(w.view(), scores.view())
    );
    assert_rows_sum_to_one(w.view());
    let reference = attention::softmax::softmax(&scores);
    assert!(max_abs_diff(w.view(), reference.view()) < 1e-12);
    assert_close_snapshot!("softmax_large_row", w.slice(s![0, 0, 0, ..]));
}

#[test]
fn masked_entries_get_exactly_zero() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(11);
    let scores = rng.randn((2, 3, 4, 6)) * 3.0;
    let coin = rng.rand((2, 3, 4, 6));
    let mut allowed = coin.mapv(|u| u < 0.5);
    allowed.slice_mut(s![.., .., .., 0]).fill(true); // every query may read at least key 0
    let w = masked_softmax(scores.view(), Some(allowed.view())).unwrap();
    for ((idx, &x), &ok) in w.indexed_iter().zip(allowed.iter()) {
        if ok {
            assert!(x > 0.0, "allowed entry {idx:?} must get positive weight");
        } else {
            assert_eq!(x, 0.0, "masked entry {idx:?} must get weight exactly 0.0");
        }
    }
    assert_rows_sum_to_one(w.view());
}

#[test]
fn fully_masked_row_gets_zero_weights() {
    let _proof = course_check::proof();
    let scores = RandomState::new(5).randn((1, 2, 3, 4));
    // One (1, 1, T, S) mask for both heads; query 1 may read nothing.
    let mut allowed = Array4::from_elem((1, 1, 3, 4), true);
    allowed.slice_mut(s![.., .., 1, ..]).fill(false);
    allowed[[0, 0, 2, 3]] = false;
    let w = masked_softmax(scores.view(), Some(allowed.view())).unwrap();
    assert!(w.iter().all(|x| !x.is_nan()), "{}", nan_where(w.view()));
    for head in 0..2 {
        let row = w.slice(s![0, head, 1, ..]);
        assert!(
            row.iter().all(|&x| x == 0.0),
            "head {head}: the fully masked query's weights must all be exactly 0.0, got {row}"
        );
        for q in [0, 2] {
            let sum = w.slice(s![0, head, q, ..]).sum();
            assert!((sum - 1.0).abs() < 1e-12, "row {q} sums to {sum}");
        }
        assert_eq!(w[[0, head, 2, 3]], 0.0);
    }
}

#[test]
fn masked_softmax_broadcasts_padding_mask() {
    let _proof = course_check::proof();
    let scores = RandomState::new(8).randn((B, H, T, S));
    let pad = padding_mask(&LENGTHS, S);
    assert_eq!(pad.shape(), &[B, 1, 1, S]);
    let w = masked_softmax(scores.view(), Some(pad.view())).unwrap();
    assert!(
        w.slice(s![1, .., .., 4..]).iter().all(|&x| x == 0.0),
        "sequence 1 has only 4 real source positions: keys 4 and 5 get weight 0 in every head"
    );
    assert_rows_sum_to_one(w.view());
    assert_close_snapshot!("padded_weights", w);
}

#[test]
fn masked_softmax_refuses_unbroadcastable_mask() {
    let _proof = course_check::proof();
    let scores = Array4::<f64>::zeros((1, 2, 3, 4));
    for bad in [(1, 1, 3, 5), (2, 1, 1, 4), (1, 3, 3, 4), (1, 1, 2, 4)] {
        let mask = Array4::from_elem(bad, true);
        assert!(
            masked_softmax(scores.view(), Some(mask.view())).is_err(),
            "a mask {bad:?} does not broadcast to scores (1, 2, 3, 4)"
        );
    }
}

// ---- parallel_attention ------------------------------------------------------------------------

#[test]
fn parallel_attention_shapes_and_errors() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (out, w) = parallel_attention(ex.q.view(), ex.k.view(), ex.v.view(), None).unwrap();
    assert_eq!(out.shape(), &[B, H, T, HS], "output (B, h, T, hs)");
    assert_eq!(w.shape(), &[B, H, T, S], "weights (B, h, T, S)");
    assert_rows_sum_to_one(w.view());
    // Values may be wider or narrower than the keys.
    let v3 = ex.v.slice(s![.., .., .., ..3]);
    let (out3, _) = parallel_attention(ex.q.view(), ex.k.view(), v3, None).unwrap();
    assert_eq!(out3.shape(), &[B, H, T, 3]);
    let short_v = ex.v.slice(s![.., .., ..S - 1, ..]);
    assert!(
        parallel_attention(ex.q.view(), ex.k.view(), short_v, None).is_err(),
        "values with S - 1 positions for S keys must be refused"
    );
    let one_head_k = ex.k.slice(s![.., ..1, .., ..]);
    assert!(
        parallel_attention(ex.q.view(), one_head_k, ex.v.view(), None).is_err(),
        "keys with 1 head for queries with 2 heads must be refused"
    );
}

#[test]
fn parallel_attention_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (out, _) = parallel_attention(ex.q.view(), ex.k.view(), ex.v.view(), None).unwrap();
    assert_close_snapshot!("output", out);
}

#[test]
fn parallel_attention_matches_head_loop() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let pad = padding_mask(&LENGTHS, S);
    let mut random = RandomState::new(21).rand((B, H, T, S)).mapv(|u| u < 0.6);
    random.slice_mut(s![.., .., .., S - 1]).fill(true);
    let masks: [(&str, Option<ArrayView4<bool>>); 3] = [
        ("no mask", None),
        ("padding mask (B, 1, 1, S)", Some(pad.view())),
        ("full mask (B, h, T, S)", Some(random.view())),
    ];
    for (name, mask) in masks {
        let (out, w) = parallel_attention(ex.q.view(), ex.k.view(), ex.v.view(), mask).unwrap();
        let (ref_out, ref_w) = head_by_head(ex.q.view(), ex.k.view(), ex.v.view(), mask);
        let (d_out, d_w) = (
            max_abs_diff(out.view(), ref_out.view()),
            max_abs_diff(w.view(), ref_w.view()),
        );
        assert!(
            d_out < 1e-12 && d_w < 1e-12,
            "{name}: the batched result differs from the head-by-head loop (output by {d_out:e}, weights by {d_w:e})"
        );
    }
}

#[test]
fn parallel_attention_batch_and_heads_differ() {
    let _proof = course_check::proof();
    // B = 3, h = 2 with a padding mask, then B = 1, h = 3 unmasked: against the head-by-head loop.
    let mut rng = RandomState::new(32);
    for (b, h, lengths) in [(3, 2, vec![5, 2, 4]), (1, 3, vec![5])] {
        let q: Array4<f64> = rng.randn((b, h, 4, 3));
        let k: Array4<f64> = rng.randn((b, h, 5, 3));
        let v: Array4<f64> = rng.randn((b, h, 5, 2));
        let pad = padding_mask(&lengths, 5);
        let mask = (b > 1).then(|| pad.view());
        let (out, w) = parallel_attention(q.view(), k.view(), v.view(), mask).unwrap();
        assert_eq!(
            out.shape(),
            &[b, h, 4, 2],
            "output (B, h, T, hv) for B = {b}, h = {h}"
        );
        assert_eq!(
            w.shape(),
            &[b, h, 4, 5],
            "weights (B, h, T, S) for B = {b}, h = {h}"
        );
        let (ref_out, ref_w) = head_by_head(q.view(), k.view(), v.view(), mask);
        let (d_out, d_w) = (
            max_abs_diff(out.view(), ref_out.view()),
            max_abs_diff(w.view(), ref_w.view()),
        );
        assert!(
            d_out < 1e-12 && d_w < 1e-12,
            "B = {b}, h = {h}: the batched result differs from the head-by-head loop (output by {d_out:e}, weights by {d_w:e})"
        );
    }
}

#[test]
fn parallel_attention_causal_self_attention() {
    let _proof = course_check::proof();
    // Self-attention over the first four source positions: T = S = 4.
    let ex = worked_example();
    let x = ex.k.slice(s![.., .., ..T, ..]);
    let causal: Array4<bool> = attention::mask::causal(T, T)
        .into_shape_with_order((1, 1, T, T))
        .unwrap();
    let (out, w) = parallel_attention(x, x, x, Some(causal.view())).unwrap();
    for b in 0..B {
        for i in 0..H {
            for q in 0..T {
                for key in q + 1..T {
                    assert_eq!(
                        w[[b, i, q, key]],
                        0.0,
                        "query {q} must not see the later key {key}"
                    );
                }
            }
            assert_eq!(w[[b, i, 0, 0]], 1.0, "the first query sees only itself");
            let d = max_abs_diff(out.slice(s![b, i, 0, ..]), x.slice(s![b, i, 0, ..]));
            assert!(
                d < 1e-15,
                "the first output row must be the first value row"
            );
        }
    }
    assert_close_snapshot!("causal_weights", w);
}

#[test]
fn parallel_attention_fully_masked_query() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let mut allowed = Array4::from_elem((B, H, T, S), true);
    allowed.slice_mut(s![0, 1, 2, ..]).fill(false);
    let (out, w) =
        parallel_attention(ex.q.view(), ex.k.view(), ex.v.view(), Some(allowed.view())).unwrap();
    assert!(
        out.iter().chain(w.iter()).all(|x| !x.is_nan()),
        "a fully masked query must not produce NaN"
    );
    let row = w.slice(s![0, 1, 2, ..]);
    assert!(
        row.iter().all(|&x| x == 0.0),
        "sequence 0, head 1, query 2 may read no key: all its weights must be 0.0, got {row}"
    );
    let out_row = out.slice(s![0, 1, 2, ..]);
    assert!(
        out_row.iter().all(|&x| x == 0.0),
        "... and its output must be the zero vector, got {out_row}"
    );
    let sum = w.slice(s![0, 0, 2, ..]).sum();
    assert!(
        (sum - 1.0).abs() < 1e-12,
        "head 0 of the same query is unmasked and sums to 1, got {sum}"
    );
}

// ---- properties: random shapes and values, shrunk to the smallest failing case ---------------

#[test]
fn fold_heads_property() {
    let _proof = course_check::proof();
    property::check(
        "fold_heads moves x[b, i, t, j] to [b·h + i, t, j]",
        &[("B", 3), ("h", 4), ("T", 5), ("n", 4)],
        |case| {
            let (b, h, t, n) = (case["B"], case["h"], case["T"], case["n"]);
            let x = labelled(b, h, t, n);
            let expected =
                Array3::from_shape_fn((b * h, t, n), |(r, t, j)| x[[r / h, r % h, t, j]]);
            property::exactly(
                &expected,
                &fold_heads(x.view()),
                Some("b*1000 + i*100 + t*10 + j"),
            )
        },
    );
}

#[test]
fn attention_scores_property() {
    let _proof = course_check::proof();
    property::check(
        "attention_scores[b, i] == q[b, i] k[b, i]ᵀ / √hs, and keys with B and h swapped are refused",
        &[("B", 3), ("h", 3), ("T", 4), ("S", 4), ("hs", 4)],
        |case| {
            let (b, h, t, s, hs) = (case["B"], case["h"], case["T"], case["S"], case["hs"]);
            let (q, k) = (case.array((b, h, t, hs)), case.array((b, h, s, hs)));
            let got = attention_scores(q.view(), k.view()).map_err(case.error())?;
            property::has_shape(got.shape(), (b, h, t, s))?;
            let scale = 1.0 / (hs as f64).sqrt();
            let expected = Array4::from_shape_fn((b, h, t, s), |(bi, i, ti, si)| {
                let (qr, kr) = (q.slice(s![bi, i, ti, ..]), k.slice(s![bi, i, si, ..]));
                scale * qr.iter().zip(kr).map(|(x, y)| x * y).sum::<f64>()
            });
            property::close(&expected, &got)?;
            let swapped = case.array((h, b, s, hs));
            if b != h && attention_scores(q.view(), swapped.view()).is_ok() {
                return Err(format!(
                    "keys ({h}, {b}, {s}, {hs}) were accepted for queries ({b}, {h}, {t}, {hs})"
                ));
            }
            Ok(())
        },
    );
}

#[test]
fn causal_mask_property() {
    let _proof = course_check::proof();
    property::check(
        "causal_mask(T, S)[0, 0, i, j] == (j <= i)",
        &[("T", 7), ("S", 7)],
        |case| {
            let (t, s) = (case["T"], case["S"]);
            let mask = causal_mask(t, s);
            property::has_shape(mask.shape(), (1, 1, t, s))?;
            match mask
                .indexed_iter()
                .find(|((_, _, i, j), m)| **m != (j <= i))
            {
                None => Ok(()),
                Some(((_, _, i, j), m)) => {
                    Err(format!("query {i}, key {j}: {m}, expected {}", j <= i))
                }
            }
        },
    );
}

#[test]
fn masked_softmax_property() {
    let _proof = course_check::proof();
    property::check(
        "masked_softmax rows: the allowed keys' softmax, masked weights exactly 0, a row with no key all 0",
        &[("B", 3), ("h", 3), ("T", 4), ("S", 5)],
        |case| {
            let (b, h, t, s) = (case["B"], case["h"], case["T"], case["S"]);
            let scores = case.array((b, h, t, s)) * 200.0;
            // A mask of (B, 1, T, S): broadcast over the heads, about one key in four hidden.
            let allowed = case.array((b, 1, t, s)).mapv(|v| v > -1.0);
            let got = masked_softmax(scores.view(), Some(allowed.view())).map_err(case.error())?;
            property::has_shape(got.shape(), (b, h, t, s))?;
            let mut expected = Array4::<f64>::zeros((b, h, t, s));
            for ((bi, i, ti), mut row) in expected
                .lanes_mut(Axis(3))
                .into_iter()
                .enumerate()
                .map(|(n, r)| ((n / (h * t), n / t % h, n % t), r))
            {
                let keys: Vec<usize> = (0..s).filter(|&j| allowed[[bi, 0, ti, j]]).collect();
                let max = keys
                    .iter()
                    .map(|&j| scores[[bi, i, ti, j]])
                    .fold(f64::NEG_INFINITY, f64::max);
                let sum: f64 = keys
                    .iter()
                    .map(|&j| (scores[[bi, i, ti, j]] - max).exp())
                    .sum();
                for &j in &keys {
                    row[j] = (scores[[bi, i, ti, j]] - max).exp() / sum;
                }
            }
            if let Some(((bi, i, ti, j), w)) = got
                .indexed_iter()
                .find(|((bi, _, ti, j), w)| !allowed[[*bi, 0, *ti, *j]] && **w != 0.0)
            {
                return Err(format!(
                    "weight [{bi}, {i}, {ti}, {j}] is masked but {w}, not exactly 0"
                ));
            }
            property::close(&expected, &got)
        },
    );
}

#[test]
fn parallel_attention_property() {
    let _proof = course_check::proof();
    property::check(
        "parallel_attention[b, i] == softmax(q kᵀ / √hs) v of head (b, i) alone, causal or not",
        &[("B", 2), ("h", 3), ("T", 4), ("S", 4), ("hs", 3), ("hv", 3)],
        |case| {
            let (b, h, t, s_len) = (case["B"], case["h"], case["T"], case["S"]);
            let (hs, hv) = (case["hs"], case["hv"]);
            let causal = (t + s_len) % 2 == 1;
            let (q, k, v) = (
                case.array((b, h, t, hs)),
                case.array((b, h, s_len, hs)),
                case.array((b, h, s_len, hv)),
            );
            let mask = causal_mask_of(t, s_len);
            let allowed = causal.then(|| mask.view());
            let (out, w) =
                parallel_attention(q.view(), k.view(), v.view(), allowed).map_err(case.error())?;
            property::has_shape(w.shape(), (b, h, t, s_len))?;
            property::has_shape(out.shape(), (b, h, t, hv))?;
            for (bi, i) in (0..b).flat_map(|bi| (0..h).map(move |i| (bi, i))) {
                let head = s![bi, i, .., ..];
                let plain = property::plain_weights(
                    q.slice(head),
                    k.slice(head),
                    1.0 / (hs as f64).sqrt(),
                    causal,
                );
                let at = |why| format!("batch row {bi}, head {i} (causal: {causal}): {why}");
                property::close(&plain, &w.slice(head)).map_err(at)?;
                property::close(&plain.dot(&v.slice(head)), &out.slice(head)).map_err(at)?;
            }
            Ok(())
        },
    );
}

/// The causal mask `(1, 1, T, S)`, built here rather than by the student's `causal_mask`.
fn causal_mask_of(t: usize, s: usize) -> Array4<bool> {
    Array4::from_shape_fn((1, 1, t, s), |(_, _, i, j)| j <= i)
}
