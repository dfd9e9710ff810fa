//! The checks of lesson 6, shared by the exercise crate (`lesson06`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//! Data-movement checks use exactly representable inputs and must match exactly.

use attention::attend::{project, scaled_dot_product};
use attention::mask::causal;
use attention::rng::RandomState;
use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, max_abs_diff, property};
use lesson06::setup::{GIB, H, H_KV, HS, LLAMA2_70B, T, labelled_heads, split_heads};
use lesson06::*;
use ndarray::{Array1, Array2, Array3, Array4, ArrayView4, Axis, Ix2, array, s};

/// Multi-head attention, head by head with the core crate, where query head `i` is given the
/// key/value head `kv_of(i)`. Returns `(output (B, H, T, hs), weights (B, H, T, S))`.
fn mha_reference(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    kv_of: impl Fn(usize) -> usize,
    masked: bool,
) -> (Array4<f64>, Array4<f64>) {
    let (b, h, t, hs) = q.dim();
    let s_len = k.dim().2;
    let mask = causal(t, s_len);
    let mut out = Array4::zeros((b, h, t, hs));
    let mut weights = Array4::zeros((b, h, t, s_len));
    for i in 0..h {
        let view = mask.view();
        let (o, w) = scaled_dot_product::<Ix2>(
            q.index_axis(Axis(1), i),
            k.index_axis(Axis(1), kv_of(i)),
            v.index_axis(Axis(1), kv_of(i)),
            masked.then_some(&view),
        )
        .unwrap();
        out.slice_mut(s![.., i, .., ..]).assign(&o);
        weights.slice_mut(s![.., i, .., ..]).assign(&w);
    }
    (out, weights)
}

/// Random `(B, heads, T, hs)` heads from `rng`.
fn random_heads(rng: &mut RandomState, shape: (usize, usize, usize, usize)) -> Array4<f64> {
    rng.randn(shape)
}

// ---- n_rep -------------------------------------------------------------------------------------

#[test]
fn n_rep_divides_heads() {
    let _proof = course_check::proof();
    assert_eq!(n_rep(4, 2).unwrap(), 2);
    assert_eq!(
        n_rep(64, 8).unwrap(),
        8,
        "Llama 2 70B: 64 query heads, 8 kv heads"
    );
    assert_eq!(n_rep(8, 8).unwrap(), 1, "H_kv = H is multi-head attention");
    assert_eq!(
        n_rep(8, 1).unwrap(),
        8,
        "H_kv = 1: every query head shares one kv head"
    );
}

#[test]
fn n_rep_refuses_uneven_and_zero() {
    let _proof = course_check::proof();
    assert!(
        n_rep(4, 3).is_err(),
        "3 kv heads cannot serve 4 query heads evenly"
    );
    assert!(n_rep(2, 4).is_err(), "more kv heads than query heads");
    assert!(n_rep(4, 0).is_err(), "H_kv = 0 must be refused");
    assert!(n_rep(0, 2).is_err(), "H = 0 must be refused");
}

// ---- repeat_kv ---------------------------------------------------------------------------------

#[test]
fn repeat_kv_moves_data() {
    let _proof = course_check::proof();
    // (B, H_kv, T, hs) = (2, 2, 2, 2), n_rep = 2: every value encodes b, kv head, t, j.
    assert_exact_snapshot!(
        "repeat_kv_moves_data",
        repeat_kv(labelled_heads(2, 2, 2, 2).view(), 2).unwrap(),
        encoding = "b*1000 + kv*100 + t*10 + j"
    );
}

#[test]
fn repeat_kv_serves_consecutive_query_heads() {
    let _proof = course_check::proof();
    let kv = labelled_heads(1, 3, 2, 2);
    for n in 1..=4 {
        let out = repeat_kv(kv.view(), n).unwrap();
        assert_eq!(out.shape(), &[1, 3 * n, 2, 2]);
        for i in 0..3 * n {
            assert_eq!(
                out.index_axis(Axis(1), i),
                kv.index_axis(Axis(1), i / n),
                "n_rep = {n}: query head {i} must get kv head {} (copies sit side by side)",
                i / n
            );
        }
    }
}

#[test]
fn repeat_kv_once_is_identity() {
    let _proof = course_check::proof();
    let kv = labelled_heads(2, 3, 4, 2);
    assert_eq!(repeat_kv(kv.view(), 1).unwrap(), kv);
    // A non-contiguous view repeats like its contiguous copy.
    let swapped = kv.view().permuted_axes([0, 1, 3, 2]);
    let copy = swapped.as_standard_layout().into_owned();
    assert_eq!(
        repeat_kv(swapped, 2).unwrap(),
        repeat_kv(copy.view(), 2).unwrap()
    );
}

#[test]
fn repeat_kv_refuses_zero() {
    let _proof = course_check::proof();
    assert!(
        repeat_kv(labelled_heads(1, 2, 3, 2).view(), 0).is_err(),
        "n_rep = 0 would leave no heads"
    );
}

// ---- grouped_attention -------------------------------------------------------------------------

#[test]
fn grouped_attention_shapes() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (q, k, v) = (ex.q_heads(), ex.k_heads(), ex.v_heads());
    assert_eq!(q.shape(), &[1, 4, 6, 8], "Q: (B, H, T, hs)");
    assert_eq!(k.shape(), &[1, 2, 6, 8], "K: (B, H_kv, T, hs)");
    let (out, w) = grouped_attention(q.view(), k.view(), v.view(), true).unwrap();
    assert_eq!(out.shape(), &[1, 4, 6, 8], "output: (B, H, T, hs)");
    assert_eq!(w.shape(), &[1, 4, 6, 6], "weights: (B, H, T, T)");
    // Cross-attention: 3 queries over 5 keys.
    let mut rng = RandomState::new(7);
    let q = random_heads(&mut rng, (2, 6, 3, 4));
    let kv = random_heads(&mut rng, (2, 3, 5, 4));
    let (out, w) = grouped_attention(q.view(), kv.view(), kv.view(), false).unwrap();
    assert_eq!(
        (out.shape(), w.shape()),
        (&[2, 6, 3, 4][..], &[2, 6, 3, 5][..])
    );
}

#[test]
fn grouped_attention_equals_mha_on_repeated_kv() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(3);
    for (h, h_kv, t, s_len, masked) in [(4, 2, 6, 6, true), (6, 3, 4, 7, false), (4, 1, 5, 5, true)]
    {
        let n = h / h_kv;
        let q = random_heads(&mut rng, (2, h, t, 4));
        let k = random_heads(&mut rng, (2, h_kv, s_len, 4));
        let v = random_heads(&mut rng, (2, h_kv, s_len, 4));
        let (out, w) = grouped_attention(q.view(), k.view(), v.view(), masked).unwrap();
        let (ref_out, ref_w) = mha_reference(q.view(), k.view(), v.view(), |i| i / n, masked);
        let (dw, dout) = (max_abs_diff(&w, &ref_w), max_abs_diff(&out, &ref_out));
        assert!(
            dw < 1e-12 && dout < 1e-12,
            "H = {h}, H_kv = {h_kv}: differs from multi-head attention on the repeated keys and \
             values by {dw:e} (weights) and {dout:e} (output)"
        );
    }
}

#[test]
fn grouped_attention_weights() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (q, k, v) = (ex.q_heads(), ex.k_heads(), ex.v_heads());
    let (_, w) = grouped_attention(q.view(), k.view(), v.view(), true).unwrap();
    assert_close_snapshot!("worked_example_weights", w);
}

#[test]
fn grouped_attention_rows_and_mask() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (q, k, v) = (ex.q_heads(), ex.k_heads(), ex.v_heads());
    let (_, w) = grouped_attention(q.view(), k.view(), v.view(), true).unwrap();
    for i in 0..H {
        for t in 0..T {
            let row = w.slice(s![0, i, t, ..]);
            assert!(
                (row.sum() - 1.0).abs() < 1e-12,
                "head {i}, query {t}: the weights sum to {}",
                row.sum()
            );
            for j in t + 1..T {
                assert_eq!(
                    row[j], 0.0,
                    "head {i}: query {t} must not see the later key {j}"
                );
            }
        }
    }
}

#[test]
fn grouped_attention_large_scores_stay_finite() {
    let _proof = course_check::proof();
    // Queries and keys of size 30 in head size 4: scores q . k / 2 near 1000, past exp's range.
    // Only a softmax shifted by each row's maximum stays finite.
    let mut rng = RandomState::new(17);
    let q = random_heads(&mut rng, (1, 4, 3, 4)).mapv(|x| 30.0 + x);
    let kv = random_heads(&mut rng, (1, 2, 3, 4)).mapv(|x| 15.0 + x);
    let (out, w) = grouped_attention(q.view(), kv.view(), kv.view(), false).unwrap();
    assert!(
        out.iter().chain(w.iter()).all(|x| x.is_finite()),
        "scores near 1000 must give finite weights and outputs (subtract each row's maximum before exp)"
    );
    let (ref_out, ref_w) = mha_reference(q.view(), kv.view(), kv.view(), |i| i / 2, false);
    let (dw, dout) = (max_abs_diff(&w, &ref_w), max_abs_diff(&out, &ref_out));
    assert!(
        dw < 1e-9 && dout < 1e-9,
        "differs from multi-head attention on the repeated keys and values by {dw:e} (weights) and {dout:e} (output)"
    );
}

#[test]
fn grouped_attention_refuses_bad_heads() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(5);
    let q = random_heads(&mut rng, (1, 4, 3, 2));
    let kv3 = random_heads(&mut rng, (1, 3, 3, 2));
    assert!(
        grouped_attention(q.view(), kv3.view(), kv3.view(), false).is_err(),
        "H = 4 query heads cannot share H_kv = 3 kv heads"
    );
    let wide = random_heads(&mut rng, (1, 2, 3, 5));
    assert!(
        grouped_attention(q.view(), wide.view(), wide.view(), false).is_err(),
        "keys of head size 5 cannot score queries of head size 2"
    );
    let kv = random_heads(&mut rng, (1, 2, 3, 2));
    let short_v = random_heads(&mut rng, (1, 2, 2, 2));
    assert!(
        grouped_attention(q.view(), kv.view(), short_v.view(), false).is_err(),
        "3 keys but 2 values"
    );
    let two_batches = random_heads(&mut rng, (2, 2, 3, 2));
    assert!(
        grouped_attention(q.view(), two_batches.view(), two_batches.view(), false).is_err(),
        "batch 1 of queries, batch 2 of keys"
    );
}

// ---- merge_and_project -------------------------------------------------------------------------

/// The lesson's `W_O`: identity, plus head 1's features added into head 2's columns.
fn lesson_wo() -> Array2<f64> {
    array![
        [1.0, 0.0, 1.0, 0.0],
        [0.0, 1.0, 0.0, 1.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0]
    ]
}

/// One token's two head outputs `o1`, `o2` as `(B, H, T, hs) = (1, 2, 1, 2)`.
fn one_token(o1: [f64; 2], o2: [f64; 2]) -> Array4<f64> {
    Array4::from_shape_fn(
        (1, 2, 1, 2),
        |(_, i, _, j)| if i == 0 { o1[j] } else { o2[j] },
    )
}

#[test]
fn merge_and_project_text_example() {
    let _proof = course_check::proof();
    let heads = one_token([1.0, 0.2], [-0.5, 2.0]);
    let concat = merge_and_project(heads.view(), Array2::eye(4).view()).unwrap();
    assert_eq!(concat, array![[[1.0, 0.2, -0.5, 2.0]]], "concatenation c");
    let out = merge_and_project(heads.view(), lesson_wo().view()).unwrap();
    let expected = array![[[1.0, 0.2, 0.5, 2.2]]];
    assert!(
        max_abs_diff(&out, &expected) < 1e-12,
        "c W_O must be [1, 0.2, 0.5, 2.2], got {out}"
    );
}

#[test]
fn merge_and_project_practice() {
    let _proof = course_check::proof();
    let heads = one_token([2.0, -1.0], [0.0, 3.0]);
    let concat = merge_and_project(heads.view(), Array2::eye(4).view()).unwrap();
    assert_eq!(concat, array![[[2.0, -1.0, 0.0, 3.0]]]);
    let out = merge_and_project(heads.view(), lesson_wo().view()).unwrap();
    assert_eq!(out, array![[[2.0, -1.0, 2.0, 2.0]]]);
}

#[test]
fn merge_and_project_token_major() {
    let _proof = course_check::proof();
    // (B, H, T, hs) = (2, 3, 2, 2) with the identity W_O: the merge alone, exactly.
    let heads = labelled_heads(2, 3, 2, 2);
    assert_exact_snapshot!(
        "merge_token_major",
        merge_and_project(heads.view(), Array2::eye(6).view()).unwrap(),
        encoding = "b*1000 + i*100 + t*10 + j"
    );
}

#[test]
fn merge_and_project_several_tokens() {
    let _proof = course_check::proof();
    // (B, H, T, hs) = (2, 3, 4, 2) through a random W_O (6, 5): token t of sequence b reads
    // [head 0 at t | head 1 at t | head 2 at t] · W_O.
    let mut rng = RandomState::new(23);
    let heads = random_heads(&mut rng, (2, 3, 4, 2));
    let wo: Array2<f64> = rng.randn((6, 5));
    let out = merge_and_project(heads.view(), wo.view()).unwrap();
    assert_eq!(out.shape(), &[2, 4, 5], "(B, T, D)");
    for b in 0..2 {
        for t in 0..4 {
            let concat = Array1::from_shape_fn(6, |c| heads[[b, c / 2, t, c % 2]]);
            let expected = concat.dot(&wo);
            let d = max_abs_diff(out.slice(s![b, t, ..]), expected.view());
            assert!(
                d < 1e-12,
                "sequence {b}, token {t}: expected its heads' outputs concatenated, then W_O (off by {d:e})"
            );
        }
    }
}

#[test]
fn merge_and_project_refuses_bad_wo() {
    let _proof = course_check::proof();
    let heads = labelled_heads(1, 2, 3, 2);
    assert!(
        merge_and_project(heads.view(), Array2::eye(3).view()).is_err(),
        "W_O needs H · hs = 4 rows"
    );
}

// ---- gqa_forward -------------------------------------------------------------------------------

#[test]
fn gqa_forward_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let (out, w) = gqa_forward(ex.x.view(), &ex.weights, H, H_KV, true).unwrap();
    assert_eq!(
        out.shape(),
        &[1, 6, 32],
        "GQA returns model width: (B, T, D)"
    );
    assert_eq!(w.shape(), &[1, H, T, T]);
    assert_close_snapshot!("worked_example_output", out);
}

#[test]
fn gqa_forward_returns_model_width() {
    let _proof = course_check::proof();
    // B = 2, T = 7, D = 24, H = 6 (hs = 4): the output is (B, T, D) whatever H_kv is.
    let mut rng = RandomState::new(11);
    let x: Array3<f64> = rng.randn((2, 7, 24));
    for h_kv in [1, 2, 3, 6] {
        let w = GqaWeights::draw(&mut rng, 24, 6, h_kv, 0.2);
        assert_eq!(w.wk.shape(), &[24, h_kv * 4]);
        let (out, weights) = gqa_forward(x.view(), &w, 6, h_kv, true).unwrap();
        assert_eq!(out.shape(), &[2, 7, 24], "H_kv = {h_kv}");
        assert_eq!(
            weights.shape(),
            &[2, 6, 7, 7],
            "H_kv = {h_kv}: one (T, T) per query head"
        );
    }
}

#[test]
fn gqa_with_as_many_kv_heads_is_mha() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(42);
    let x: Array3<f64> = rng.randn((2, 5, 16));
    let w = GqaWeights::draw(&mut rng, 16, 4, 4, 0.3);
    for masked in [true, false] {
        let (out, weights) = gqa_forward(x.view(), &w, 4, 4, masked).unwrap();
        // Plain multi-head attention: every head has its own keys and values.
        let split =
            |m: &Array2<f64>| split_heads(project(x.view(), m.view()).unwrap().view(), 4).unwrap();
        let (heads, ref_w) = mha_reference(
            split(&w.wq).view(),
            split(&w.wk).view(),
            split(&w.wv).view(),
            |i| i,
            masked,
        );
        let merged = Array3::from_shape_fn((2, 5, 16), |(b, t, c)| heads[[b, c / 4, t, c % 4]]);
        let ref_out = project(merged.view(), w.wo.view()).unwrap();
        let (dw, dout) = (max_abs_diff(&weights, &ref_w), max_abs_diff(&out, &ref_out));
        assert!(
            dw < 1e-12 && dout < 1e-12,
            "H_kv = H must be multi-head attention: differs by {dw:e} (weights), {dout:e} (output)"
        );
    }
}

#[test]
fn gqa_forward_refuses_bad_head_counts() {
    let _proof = course_check::proof();
    let ex = worked_example();
    assert!(
        gqa_forward(ex.x.view(), &ex.weights, H, 3, true).is_err(),
        "H_kv = 3 does not divide H = 4"
    );
    assert!(
        gqa_forward(ex.x.view(), &ex.weights, 5, 1, true).is_err(),
        "H = 5 does not divide D = 32"
    );
    assert!(
        gqa_forward(ex.x.view(), &ex.weights, H, H, true).is_err(),
        "Wk is (32, 16): it holds H_kv = 2 heads, not 4"
    );
    let mut w = ex.weights.clone();
    w.wo = w.wo.slice(s![.., ..HS]).to_owned();
    assert!(
        gqa_forward(ex.x.view(), &w, H, H_KV, true).is_err(),
        "W_O must be (D, D)"
    );
}

// ---- kv_cache_bytes ----------------------------------------------------------------------------

#[test]
fn kv_cache_bytes_small_case() {
    let _proof = course_check::proof();
    assert_eq!(kv_cache_bytes(1, 1, 1, 1, 1), 2, "one key and one value");
    // The worked example's layer in f64: 2 x 1 x 2 x 8 x 6 x 8.
    assert_eq!(kv_cache_bytes(1, H_KV, HS, T, 8), 1536);
    assert_eq!(
        kv_cache_bytes(1, H, HS, T, 8),
        3072,
        "the same layer as full MHA"
    );
    assert_eq!(kv_cache_bytes(3, 2, 4, 0, 2), 0, "nothing cached yet");
}

#[test]
fn kv_cache_llama2_70b() {
    let _proof = course_check::proof();
    let c = LLAMA2_70B;
    let gqa = kv_cache_bytes(c.layers, c.h_kv, c.hs, c.t, c.bytes_per_value);
    let mha = kv_cache_bytes(c.layers, c.h, c.hs, c.t, c.bytes_per_value);
    let per_token = kv_cache_bytes(c.layers, c.h_kv, c.hs, 1, c.bytes_per_value);
    assert_eq!(per_token, 327_680, "320 KiB per cached token");
    assert_eq!(gqa, 1_342_177_280, "1.25 GiB for a full 4096-token context");
    assert_eq!(
        mha, 10_737_418_240,
        "10 GiB with one kv head per query head"
    );
    assert_eq!(gqa * 4, 5 * GIB);
    assert_eq!(mha, 10 * GIB);
    assert_eq!(
        mha / gqa,
        c.h / c.h_kv,
        "GQA saves a factor n_rep = H / H_kv = 8"
    );
}

// ---- properties: random shapes and values, shrunk to the smallest failing case ---------------

#[test]
fn n_rep_property() {
    let _proof = course_check::proof();
    property::check(
        "n_rep(H_kv·r, H_kv) == r, and an H_kv that does not divide H is refused",
        &[("H_kv", 8), ("r", 8), ("e", 7)],
        |case| {
            let (h_kv, r, e) = (case["H_kv"], case["r"], case["e"]);
            let got = n_rep(h_kv * r, h_kv).map_err(case.error())?;
            if got != r {
                return Err(format!("n_rep({}, {h_kv}) gave {got}", h_kv * r));
            }
            if e < h_kv && n_rep(h_kv * r + e, h_kv).is_ok() {
                return Err(format!("n_rep({}, {h_kv}) was accepted", h_kv * r + e));
            }
            Ok(())
        },
    );
}

#[test]
fn repeat_kv_property() {
    let _proof = course_check::proof();
    property::check(
        "repeat_kv moves kv[b, i, t, j] to every [b, i·n_rep + r, t, j], r < n_rep",
        &[("B", 3), ("H_kv", 3), ("T", 4), ("hs", 3), ("n_rep", 3)],
        |case| {
            let (b, h_kv, t, hs, n) = (
                case["B"],
                case["H_kv"],
                case["T"],
                case["hs"],
                case["n_rep"],
            );
            let kv = labelled_heads(b, h_kv, t, hs);
            let got = repeat_kv(kv.view(), n).map_err(case.error())?;
            let expected =
                Array4::from_shape_fn((b, h_kv * n, t, hs), |(b, i, t, j)| kv[[b, i / n, t, j]]);
            property::exactly(&expected, &got, Some("b*1000 + i*100 + t*10 + j"))
        },
    );
}

#[test]
fn grouped_attention_property() {
    let _proof = course_check::proof();
    // Values up to 2·10^(m-1): from m = 3 on, the scores are past exp's range. H_kv = H (n_rep
    // = 1) is multi-head attention.
    property::check(
        "grouped_attention: query head i reads kv head i / n_rep with softmax(q kᵀ / √hs) weights",
        &[
            ("B", 2),
            ("H_kv", 3),
            ("n_rep", 3),
            ("T", 4),
            ("S", 4),
            ("hs", 3),
            ("m", 3),
        ],
        |case| {
            let (b, h_kv, n, hs) = (case["B"], case["H_kv"], case["n_rep"], case["hs"]);
            let (h, t, s_len) = (h_kv * n, case["T"], case["S"]);
            let causal = (t + s_len) % 2 == 0;
            let scale = 10f64.powi(case["m"] as i32 - 1);
            let q = case.array((b, h, t, hs)) * scale;
            let k = case.array((b, h_kv, s_len, hs)) * scale;
            let v = case.array((b, h_kv, s_len, hs));
            let (out, w) =
                grouped_attention(q.view(), k.view(), v.view(), causal).map_err(case.error())?;
            property::has_shape(w.shape(), (b, h, t, s_len))?;
            property::has_shape(out.shape(), (b, h, t, hs))?;
            for (bi, i) in (0..b).flat_map(|bi| (0..h).map(move |i| (bi, i))) {
                let (kh, vh) = (
                    k.slice(s![bi, i / n, .., ..]),
                    v.slice(s![bi, i / n, .., ..]),
                );
                let plain = property::plain_weights(
                    q.slice(s![bi, i, .., ..]),
                    kh,
                    1.0 / (hs as f64).sqrt(),
                    causal,
                );
                let at = |why| format!("batch row {bi}, head {i} (causal: {causal}): {why}");
                property::close(&plain, &w.slice(s![bi, i, .., ..])).map_err(at)?;
                property::close(&plain.dot(&vh), &out.slice(s![bi, i, .., ..])).map_err(at)?;
            }
            Ok(())
        },
    );
}

#[test]
fn merge_and_project_property() {
    let _proof = course_check::proof();
    property::check(
        "merge_and_project == heads merged token-major (merged[b, t, i·hs + j] = heads[b, i, t, j]) times W_O",
        &[("B", 3), ("H", 3), ("T", 4), ("hs", 3), ("D", 4)],
        |case| {
            let (b, h, t, hs, d) = (case["B"], case["H"], case["T"], case["hs"], case["D"]);
            let heads = case.array((b, h, t, hs));
            let wo = case.array((h * hs, d));
            let got = merge_and_project(heads.view(), wo.view()).map_err(case.error())?;
            let merged = Array3::from_shape_fn((b, t, h * hs), |(bi, ti, c)| {
                heads[[bi, c / hs, ti, c % hs]]
            });
            let expected = Array3::from_shape_fn((b, t, d), |(bi, ti, o)| {
                (0..h * hs)
                    .map(|c| merged[[bi, ti, c]] * wo[[c, o]])
                    .sum::<f64>()
            });
            property::close(&expected, &got)
        },
    );
}

#[test]
fn gqa_forward_property() {
    let _proof = course_check::proof();
    property::check(
        "gqa_forward == grouped attention head by head (multi-head attention when H_kv = H), merged, times W_O",
        &[("B", 2), ("H_kv", 2), ("n_rep", 2), ("hs", 2), ("T", 4)],
        |case| {
            let (b, h_kv, n, hs, t) = (
                case["B"],
                case["H_kv"],
                case["n_rep"],
                case["hs"],
                case["T"],
            );
            let (h, d) = (h_kv * n, h_kv * n * hs);
            let causal = t % 2 == 0;
            let w = GqaWeights {
                wq: case.array((d, d)),
                wk: case.array((d, h_kv * hs)),
                wv: case.array((d, h_kv * hs)),
                wo: case.array((d, d)),
            };
            let x = case.array((b, t, d));
            let (out, weights) =
                gqa_forward(x.view(), &w, h, h_kv, causal).map_err(case.error())?;
            property::has_shape(weights.shape(), (b, h, t, t))?;
            let mut merged = Array3::<f64>::zeros((b, t, d));
            for (bi, i) in (0..b).flat_map(|bi| (0..h).map(move |i| (bi, i))) {
                let (own, kv) = (
                    s![.., i * hs..(i + 1) * hs],
                    s![.., (i / n) * hs..(i / n + 1) * hs],
                );
                let xb = x.index_axis(Axis(0), bi);
                let (q, k, v) = (
                    xb.dot(&w.wq.slice(own)),
                    xb.dot(&w.wk.slice(kv)),
                    xb.dot(&w.wv.slice(kv)),
                );
                let plain =
                    property::plain_weights(q.view(), k.view(), 1.0 / (hs as f64).sqrt(), causal);
                property::close(&plain, &weights.slice(s![bi, i, .., ..])).map_err(|why| {
                    format!("weights of batch row {bi}, head {i} (causal: {causal}): {why}")
                })?;
                merged
                    .slice_mut(s![bi, .., i * hs..(i + 1) * hs])
                    .assign(&plain.dot(&v));
            }
            let expected = Array3::from_shape_fn((b, t, d), |(bi, ti, o)| {
                (0..d)
                    .map(|c| merged[[bi, ti, c]] * w.wo[[c, o]])
                    .sum::<f64>()
            });
            property::close(&expected, &out)
                .map_err(|why| format!("output (causal: {causal}): {why}"))
        },
    );
}
