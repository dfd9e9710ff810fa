//! The checks of lesson 7, shared by the exercise crate (`lesson07`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.
//!
//! Step-by-step decoding is compared with causal attention over the whole sequence computed by the
//! core crate (`attention::attend`, `attention::mask::causal`), never with your own functions.

use attention::attend::{project, scaled_dot_product};
use attention::mask::causal;
use attention::rng::RandomState;
use course_check::{assert, assert_eq};
use course_check::{assert_close_snapshot, assert_exact_snapshot, max_abs_diff, property};
use lesson07::setup::{
    B, CAPACITY, H, H_KV, HS, NEW_TOKENS, PROMPT, T, kv_cache_bytes, labelled_step, split_step,
};
use lesson07::*;
use ndarray::{Array3, ArrayView3, Axis, s};

/// Causal grouped-query attention over the whole sequence, head by head with the core crate:
/// `(B, T, D) -> (B, T, D)`. Query head `i` reads key/value head `i / n_rep`.
fn full_causal_reference(x: ArrayView3<f64>, layer: &GqaLayer) -> Array3<f64> {
    let (b, t, d) = x.dim();
    let hs = layer.head_size();
    let q = project(x, layer.wq.view()).unwrap();
    let k = project(x, layer.wk.view()).unwrap();
    let v = project(x, layer.wv.view()).unwrap();
    let mask = causal(t, t);
    let mut merged = Array3::zeros((b, t, d));
    for i in 0..layer.heads {
        let g = i / layer.n_rep();
        let cols = |h: usize| s![.., .., h * hs..(h + 1) * hs];
        let (o, _) = scaled_dot_product(
            q.slice(cols(i)),
            k.slice(cols(g)),
            v.slice(cols(g)),
            Some(&mask.view()),
        )
        .unwrap();
        merged.slice_mut(cols(i)).assign(&o);
    }
    project(merged.view(), layer.wo.view()).unwrap()
}

/// Feeds `prompt` tokens in one call, then every later token in a call of its own, and returns
/// all the rows and the cache.
fn decode_in_pieces(
    x: ArrayView3<f64>,
    layer: &GqaLayer,
    prompt: usize,
    capacity: usize,
) -> (Array3<f64>, KvCache) {
    let (b, t, _) = x.dim();
    let mut cache = KvCache::new(b, layer.kv_heads, layer.head_size(), capacity);
    let mut rows = vec![generate(x.slice(s![.., ..prompt, ..]), layer, &mut cache).unwrap()];
    for p in prompt..t {
        rows.push(generate(x.slice(s![.., p..p + 1, ..]), layer, &mut cache).unwrap());
        assert_eq!(cache.len(), p + 1, "after feeding token {p}");
    }
    let views: Vec<_> = rows.iter().map(|r| r.view()).collect();
    (ndarray::concatenate(Axis(1), &views).unwrap(), cache)
}

/// Step-by-step decoding against full causal attention for one shape.
fn assert_decoding_matches_full(
    seed: u32,
    (b, t, d): (usize, usize, usize),
    heads: usize,
    kv_heads: usize,
    prompt: usize,
) {
    let mut rng = RandomState::new(seed);
    let x: Array3<f64> = rng.randn((b, t, d));
    let layer = GqaLayer::draw(&mut rng, d, heads, kv_heads, 0.3);
    let (stepped, cache) = decode_in_pieces(x.view(), &layer, prompt, t + 2);
    let full = full_causal_reference(x.view(), &layer);
    assert_eq!(stepped.shape(), full.shape());
    let diff = max_abs_diff(&stepped, &full);
    assert!(
        diff < 1e-10,
        "B = {b}, T = {t} (prompt {prompt}), D = {d}, H = {heads}, H_kv = {kv_heads}: \
         step-by-step decoding differs from causal attention over the whole sequence by {diff:e}"
    );
    assert_eq!(
        cache.keys().shape(),
        &[b, kv_heads, t, d / heads],
        "the cache holds H_kv heads, one position per token"
    );
}

// ---- KvCache::append ---------------------------------------------------------------------------

#[test]
fn append_writes_one_position_per_step() {
    let _proof = course_check::proof();
    let mut cache = KvCache::new(2, 3, 4, 5);
    assert!(cache.is_empty());
    for step in 0..3 {
        let k = labelled_step(step, 2, 3, 4);
        let v = -labelled_step(step, 2, 3, 4) - 1.0;
        assert_eq!(
            cache.append(k.view(), v.view()).unwrap(),
            step + 1,
            "append returns the new length"
        );
    }
    assert_eq!(cache.len(), 3);
    assert_eq!(cache.keys().shape(), &[2, 3, 3, 4], "(B, H_kv, len, hs)");
    assert_exact_snapshot!(
        "append_keys",
        cache.keys().to_owned(),
        encoding = "step*1000 + b*100 + i*10 + j"
    );
    assert_exact_snapshot!("append_values", cache.values().to_owned());
}

#[test]
fn append_past_capacity_is_an_error() {
    let _proof = course_check::proof();
    let mut cache = KvCache::new(1, 2, 3, 2);
    for step in 0..2 {
        let kv = labelled_step(step, 1, 2, 3);
        cache.append(kv.view(), kv.view()).unwrap();
    }
    let before = cache.clone();
    let kv = labelled_step(2, 1, 2, 3);
    let err = cache
        .append(kv.view(), kv.view())
        .expect_err("a third position in a cache of capacity 2 must be refused");
    assert_eq!(
        err,
        CacheError::Full {
            capacity: 2,
            len: 2,
            requested: 1
        }
    );
    assert_eq!(
        cache, before,
        "a refused append must leave the cache as it was"
    );
    let zero = KvCache::new(1, 2, 3, 0);
    assert!(matches!(
        zero.clone().append(kv.view(), kv.view()),
        Err(CacheError::Full { capacity: 0, .. })
    ));
}

#[test]
fn append_refuses_wrong_shapes() {
    let _proof = course_check::proof();
    let mut cache = KvCache::new(1, 2, 3, 4);
    let good = labelled_step(0, 1, 2, 3);
    let query_heads = labelled_step(0, 1, 4, 3);
    let wide = labelled_step(0, 1, 2, 4);
    for (k, v, what) in [
        (
            &query_heads,
            &query_heads,
            "H = 4 query heads instead of H_kv = 2",
        ),
        (&wide, &wide, "hs = 4 instead of 3"),
        (&good, &wide, "values of another shape than the keys"),
    ] {
        assert!(
            matches!(cache.append(k.view(), v.view()), Err(CacheError::Shape(_))),
            "{what} must be a CacheError::Shape"
        );
        assert_eq!(cache.len(), 0, "{what}: nothing may be appended");
    }
}

// ---- KvCache::memory_bytes ---------------------------------------------------------------------

#[test]
fn memory_matches_lesson_6_formula() {
    let _proof = course_check::proof();
    for (b, h_kv, hs) in [(1, 2, 4), (3, 1, 8), (2, 8, 16)] {
        let mut cache = KvCache::new(b, h_kv, hs, 5);
        for len in 0..=5 {
            for bytes in [2, 8] {
                assert_eq!(
                    cache.memory_bytes(bytes),
                    b * kv_cache_bytes(1, h_kv, hs, len, bytes),
                    "B = {b}, H_kv = {h_kv}, hs = {hs}, len = {len}, {bytes} bytes a number"
                );
            }
            assert_eq!(
                cache.memory_bytes(8),
                8 * (cache.keys().len() + cache.values().len()),
                "in f64, the bytes of the cached keys and values"
            );
            if len < 5 {
                let kv = labelled_step(len, b, h_kv, hs);
                cache.append(kv.view(), kv.view()).unwrap();
            }
        }
    }
}

#[test]
fn grouped_cache_is_n_rep_times_smaller() {
    let _proof = course_check::proof();
    // The worked example's shape after its 6 tokens, and the same layer without grouping.
    let mut gqa = KvCache::new(B, H_KV, HS, CAPACITY);
    let mut mha_full = KvCache::new(B, H, HS, CAPACITY);
    for step in 0..T {
        let kv = labelled_step(step, B, H_KV, HS);
        gqa.append(kv.view(), kv.view()).unwrap();
        let kv = labelled_step(step, B, H, HS);
        mha_full.append(kv.view(), kv.view()).unwrap();
    }
    assert_eq!(gqa.memory_bytes(8), 768, "6 tokens x 128 bytes");
    assert_eq!(mha_full.memory_bytes(8), 1536);
    assert_eq!(
        mha_full.memory_bytes(2) / gqa.memory_bytes(2),
        H / H_KV,
        "n_rep"
    );
}

// ---- decode_step -------------------------------------------------------------------------------

#[test]
fn decode_step_large_scores_stay_finite() {
    let _proof = course_check::proof();
    // Queries and keys near 30 in head size 4: scores q . k / 2 near 1800, past exp's range.
    // Only a softmax shifted by each row's maximum stays finite.
    let mut rng = RandomState::new(29);
    let (b, h, h_kv, s_len, hs) = (1, 4, 2, 3, 4);
    let q: Array3<f64> = rng.randn((b, h, hs)).mapv(|x: f64| 30.0 + x);
    let keys: ndarray::Array4<f64> = rng.randn((b, h_kv, s_len, hs)).mapv(|x: f64| 30.0 + x);
    let values: ndarray::Array4<f64> = rng.randn((b, h_kv, s_len, hs));
    let mut cache = KvCache::new(b, h_kv, hs, s_len);
    for p in 0..s_len {
        cache
            .append(keys.index_axis(Axis(2), p), values.index_axis(Axis(2), p))
            .unwrap();
    }
    let (out, weights) = decode_step(q.view(), &cache).unwrap();
    assert!(
        out.iter().chain(weights.iter()).all(|x| x.is_finite()),
        "scores near 1800 must give finite weights and outputs: exp overflowed (subtract each row's maximum before exp)"
    );
}

#[test]
fn decode_step_matches_last_row_of_full_attention() {
    let _proof = course_check::proof();
    // Random heads: query head i reads kv head i / n_rep; the last query sees every key.
    let mut rng = RandomState::new(3);
    for (b, h, h_kv, s_len, hs) in [(2, 4, 2, 5, 3), (1, 3, 3, 4, 2), (1, 6, 1, 7, 4)] {
        let q: ndarray::Array3<f64> = rng.randn((b, h, hs));
        let mut cache = KvCache::new(b, h_kv, hs, s_len);
        let keys: ndarray::Array4<f64> = rng.randn((b, h_kv, s_len, hs));
        let values: ndarray::Array4<f64> = rng.randn((b, h_kv, s_len, hs));
        for p in 0..s_len {
            cache
                .append(keys.index_axis(Axis(2), p), values.index_axis(Axis(2), p))
                .unwrap();
        }
        let (out, weights) = decode_step(q.view(), &cache).unwrap();
        assert_eq!(out.shape(), &[b, h, hs]);
        assert_eq!(weights.shape(), &[b, h, s_len], "(B, H, len)");
        let mask = causal(s_len, s_len);
        let last = mask.slice(s![s_len - 1..s_len, ..]);
        for i in 0..h {
            let g = i / (h / h_kv);
            let (o, w) = scaled_dot_product(
                q.slice(s![.., i..i + 1, ..]),
                keys.index_axis(Axis(1), g),
                values.index_axis(Axis(1), g),
                Some(&last),
            )
            .unwrap();
            let (dw, dout) = (
                max_abs_diff(&weights.slice(s![.., i..i + 1, ..]), &w),
                max_abs_diff(&out.slice(s![.., i..i + 1, ..]), &o),
            );
            assert!(
                dw < 1e-12 && dout < 1e-12,
                "H = {h}, H_kv = {h_kv}, query head {i} (kv head {g}): differs from the last \
                 row of causal attention by {dw:e} (weights), {dout:e} (output)"
            );
        }
    }
}

#[test]
fn decode_step_attends_to_every_cached_position() {
    let _proof = course_check::proof();
    let mut rng = RandomState::new(5);
    let mut cache = KvCache::new(1, 2, 4, 6);
    for _ in 0..6 {
        let k: Array3<f64> = rng.randn((1, 2, 4));
        let v: Array3<f64> = rng.randn((1, 2, 4));
        cache.append(k.view(), v.view()).unwrap();
    }
    let q: Array3<f64> = rng.randn((1, 4, 4));
    let (out, weights) = decode_step(q.view(), &cache).unwrap();
    for i in 0..4 {
        let row = weights.slice(s![0, i, ..]);
        assert!(
            (row.sum() - 1.0).abs() < 1e-12,
            "head {i}: its weights sum to {}",
            row.sum()
        );
        assert!(
            row.iter().all(|&w| w > 0.0),
            "head {i}: every cached position must get some weight (no mask at decode time), got {row}"
        );
        let new_value = cache.values().slice(s![0, i / 2, 5, ..]).to_owned();
        assert!(
            max_abs_diff(&out.slice(s![0, i, ..]), &new_value) > 1e-6,
            "head {i}: the output is the newest value alone: the query must read the whole cache"
        );
    }
}

#[test]
fn decode_step_worked_example_weights() {
    let _proof = course_check::proof();
    // The worked example's six keys and values, cached by hand; then the last token's query.
    let ex = worked_example();
    let mut cache = KvCache::new(B, H_KV, HS, CAPACITY);
    for p in 0..T {
        let xp = ex.x.index_axis(Axis(1), p);
        let k = split_step(xp.dot(&ex.layer.wk).view(), H_KV).unwrap();
        let v = split_step(xp.dot(&ex.layer.wv).view(), H_KV).unwrap();
        cache.append(k.view(), v.view()).unwrap();
    }
    let last = ex.x.index_axis(Axis(1), T - 1).dot(&ex.layer.wq);
    let q = split_step(last.view(), H).unwrap();
    let (_, weights) = decode_step(q.view(), &cache).unwrap();
    assert!(
        (weights[[0, 0, 4]] - 0.4885).abs() < 5e-5,
        "head 0 must put 0.4885 of its weight on position 4; yours puts {:.4} there",
        weights[[0, 0, 4]]
    );
    assert_close_snapshot!("worked_example_last_weights", weights);
}

#[test]
fn decode_step_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let mut cache = KvCache::new(1, 2, 4, 3);
    let q: Array3<f64> = Array3::ones((1, 4, 4));
    assert!(
        decode_step(q.view(), &cache).is_err(),
        "an empty cache leaves the query nothing to read"
    );
    let kv = labelled_step(0, 1, 2, 4);
    cache.append(kv.view(), kv.view()).unwrap();
    assert!(decode_step(q.view(), &cache).is_ok());
    for (shape, what) in [
        ((1, 3, 4), "H = 3 query heads cannot share H_kv = 2"),
        ((1, 4, 3), "hs = 3 against a cache of hs = 4"),
        ((2, 4, 4), "B = 2 against a cache of B = 1"),
    ] {
        let bad: Array3<f64> = Array3::ones(shape);
        assert!(decode_step(bad.view(), &cache).is_err(), "{what}");
    }
}

// ---- generate ----------------------------------------------------------------------------------

#[test]
fn generate_equals_full_causal_attention_mha() {
    let _proof = course_check::proof();
    // H_kv = H: plain multi-head attention. Prompt of 4, then 3 tokens one by one.
    assert_decoding_matches_full(21, (2, 7, 12), 3, 3, 4);
    assert_decoding_matches_full(22, (1, 5, 8), 2, 2, 1);
}

#[test]
fn generate_equals_full_causal_attention_gqa() {
    let _proof = course_check::proof();
    assert_decoding_matches_full(31, (1, 6, 16), 4, 2, 3);
    assert_decoding_matches_full(32, (2, 9, 24), 6, 2, 5);
    assert_decoding_matches_full(33, (2, 5, 24), 6, 3, 2);
    assert_decoding_matches_full(34, (1, 6, 16), 8, 1, 2); // multi-query attention
}

#[test]
fn generate_worked_example() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let mut cache = KvCache::new(B, H_KV, HS, CAPACITY);
    let prompt = generate(ex.prompt(), &ex.layer, &mut cache).unwrap();
    assert_eq!(prompt.shape(), &[B, PROMPT, ex.layer.width()]);
    assert_eq!(cache.keys().shape(), &[1, 2, 3, 4]);
    let rest = generate(ex.continuation(), &ex.layer, &mut cache).unwrap();
    assert_eq!(cache.keys().shape(), &[1, 2, 6, 4]);
    let last = rest.index_axis(Axis(0), 0).row(NEW_TOKENS - 1).to_owned();
    assert!(
        (last[0] + 1.8084).abs() < 5e-5 && (last[last.len() - 1] - 3.1573).abs() < 5e-5,
        "the last row runs from -1.8084 to 3.1573, got {last}"
    );
    assert_close_snapshot!("worked_example_prompt", prompt);
    assert_close_snapshot!("worked_example_continuation", rest);
}

#[test]
fn generate_past_capacity_is_an_error() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let mut cache = KvCache::new(B, H_KV, HS, 5);
    generate(ex.prompt(), &ex.layer, &mut cache).unwrap();
    let before = cache.clone();
    let err = generate(ex.continuation(), &ex.layer, &mut cache)
        .expect_err("3 more tokens do not fit in the 2 free positions");
    assert_eq!(
        err,
        CacheError::Full {
            capacity: 5,
            len: 3,
            requested: 3
        }
    );
    assert_eq!(
        cache, before,
        "a refused call must not append part of its tokens"
    );
    let two = ex.x.slice(s![.., 3..5, ..]);
    assert!(
        generate(two, &ex.layer, &mut cache).is_ok(),
        "2 tokens still fit"
    );
    assert_eq!(cache.len(), 5);
}

#[test]
fn generate_refuses_bad_shapes() {
    let _proof = course_check::proof();
    let ex = worked_example();
    let mut mha_cache = KvCache::new(B, H, HS, CAPACITY);
    assert!(
        matches!(
            generate(ex.prompt(), &ex.layer, &mut mha_cache),
            Err(CacheError::Shape(_))
        ),
        "a cache of H = 4 heads for a layer with H_kv = 2"
    );
    let mut cache = KvCache::new(B, H_KV, HS, CAPACITY);
    let narrow = ex.x.slice(s![.., .., 1..]);
    assert!(
        matches!(
            generate(narrow, &ex.layer, &mut cache),
            Err(CacheError::Shape(_))
        ),
        "x with D - 1 features"
    );
    let mut uneven = ex.layer.clone();
    uneven.kv_heads = 3;
    assert!(
        matches!(
            generate(ex.prompt(), &uneven, &mut cache),
            Err(CacheError::Shape(_))
        ),
        "H_kv = 3 does not divide H = 4"
    );
    assert!(cache.is_empty(), "refused calls append nothing");
}

// ---- properties: random shapes and values, shrunk to the smallest failing case ---------------

#[test]
fn decode_step_property() {
    let _proof = course_check::proof();
    property::check(
        "decode_step: query head i reads every cached position of kv head i / n_rep, softmax(q kᵀ / √hs)",
        &[
            ("B", 2),
            ("H_kv", 3),
            ("n_rep", 3),
            ("hs", 3),
            ("len", 5),
            ("m", 3),
        ],
        |case| {
            let (b, h_kv, n, hs, len) = (
                case["B"],
                case["H_kv"],
                case["n_rep"],
                case["hs"],
                case["len"],
            );
            // Queries and keys up to 10² in magnitude: scores past exp's range unless each row is
            // shifted by its maximum.
            let magnitude = 10f64.powi(case["m"] as i32 - 1);
            let mut cache = KvCache::new(b, h_kv, hs, len + 1);
            for _ in 0..len {
                let (k, v) = (
                    case.array((b, h_kv, hs)) * magnitude,
                    case.array((b, h_kv, hs)),
                );
                cache.append(k.view(), v.view()).map_err(case.error())?;
            }
            let q = case.array((b, h_kv * n, hs)) * magnitude;
            let (out, w) = decode_step(q.view(), &cache).map_err(case.error())?;
            property::has_shape(w.shape(), (b, h_kv * n, len))?;
            property::has_shape(out.shape(), (b, h_kv * n, hs))?;
            for (bi, i) in (0..b).flat_map(|bi| (0..h_kv * n).map(move |i| (bi, i))) {
                let keys = cache.keys().slice_move(s![bi, i / n, ..len, ..]);
                let values = cache.values().slice_move(s![bi, i / n, ..len, ..]);
                let q_row = q.slice(s![bi, i..=i, ..]);
                let plain = property::plain_weights(q_row, keys, 1.0 / (hs as f64).sqrt(), false);
                let at = |why| format!("batch row {bi}, head {i}: {why}");
                property::close(&plain.row(0), &w.slice(s![bi, i, ..])).map_err(at)?;
                property::close(&plain.dot(&values).row(0), &out.slice(s![bi, i, ..]))
                    .map_err(at)?;
            }
            Ok(())
        },
    );
}

#[test]
fn generate_property() {
    let _proof = course_check::proof();
    property::check(
        "generate, a prompt then one token per call, == causal attention over the whole sequence",
        &[
            ("B", 2),
            ("H_kv", 2),
            ("n_rep", 2),
            ("hs", 2),
            ("T", 5),
            ("prompt", 4),
        ],
        |case| {
            let (b, h_kv, n, hs, t) = (
                case["B"],
                case["H_kv"],
                case["n_rep"],
                case["hs"],
                case["T"],
            );
            let prompt = case["prompt"].min(t);
            let (h, d) = (h_kv * n, h_kv * n * hs);
            let layer = GqaLayer {
                wq: case.array((d, d)),
                wk: case.array((d, h_kv * hs)),
                wv: case.array((d, h_kv * hs)),
                wo: case.array((d, d)),
                heads: h,
                kv_heads: h_kv,
            };
            let x = case.array((b, t, d));
            let mut cache = KvCache::new(b, h_kv, hs, t);
            let mut rows = vec![
                generate(x.slice(s![.., ..prompt, ..]), &layer, &mut cache)
                    .map_err(case.error())?,
            ];
            for p in prompt..t {
                rows.push(
                    generate(x.slice(s![.., p..=p, ..]), &layer, &mut cache)
                        .map_err(case.error())?,
                );
            }
            let views: Vec<_> = rows.iter().map(|r| r.view()).collect();
            let stepped = ndarray::concatenate(Axis(1), &views)
                .map_err(|e| format!("the calls' outputs do not stack: {e}"))?;
            property::close(&full_causal_reference(x.view(), &layer), &stepped)
                .map_err(|why| format!("prompt of {prompt}: {why}"))
        },
    );
}

#[test]
fn append_property() {
    let _proof = course_check::proof();
    property::check(
        "after n appends, position p of the cache holds the p-th key and value, and one more is refused",
        &[("B", 2), ("H_kv", 3), ("hs", 3), ("n", 4)],
        |case| {
            let (b, h_kv, hs, n) = (case["B"], case["H_kv"], case["hs"], case["n"]);
            let mut cache = KvCache::new(b, h_kv, hs, n);
            let mut sent = Vec::new();
            for p in 0..n {
                let (k, v) = (case.array((b, h_kv, hs)), case.array((b, h_kv, hs)));
                let len = cache.append(k.view(), v.view()).map_err(case.error())?;
                if len != p + 1 {
                    return Err(format!("append {} returned length {len}", p + 1));
                }
                sent.push((k, v));
            }
            for (p, (k, v)) in sent.iter().enumerate() {
                property::exactly(k, &cache.keys().slice(s![.., .., p, ..]), None)
                    .map_err(|why| format!("keys at position {p}: {why}"))?;
                property::exactly(v, &cache.values().slice(s![.., .., p, ..]), None)
                    .map_err(|why| format!("values at position {p}: {why}"))?;
            }
            let (k, v) = (case.array((b, h_kv, hs)), case.array((b, h_kv, hs)));
            if cache.append(k.view(), v.view()).is_ok() {
                return Err(format!(
                    "append {} was accepted by a cache of capacity {n}",
                    n + 1
                ));
            }
            Ok(())
        },
    );
}
