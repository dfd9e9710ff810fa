//! The reference solution reproduces what lesson 9's text prints (`cargo xtask demo lesson09`),
//! and its numbers agree with computations written independently here: attention with loops and
//! a softmax of this file's own, its gradients by central differences, and the memory each
//! forward holds, counted by this test program's allocator.

use course_check::memory::PeakMeter;
use lesson09_solution::setup::{T, TILE};
use lesson09_solution::*;
use ndarray::{Array1, Array3, Array4, ArrayView4, array, s};

/// Counts the bytes each forward holds (`what_tiles_save`).
#[global_allocator]
static METER: PeakMeter = PeakMeter::new();

/// Held by each test that reads [`METER`]: the counts are process-wide, and `cargo test` runs
/// tests on several threads, so one test's 128 MiB would show in another's peak.
static MEASURING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Attention with loops: the causal mask aligned to the bottom right, a row that reads nothing
/// gives 0 and lse `−∞`. Returns `(out (B, h, T, hv), lse (B, h, T))`.
fn attention_by_hand(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    causal: bool,
) -> (Array4<f64>, Array3<f64>) {
    let (b, h, t, hs) = q.dim();
    let (s_len, hv) = (k.dim().2, v.dim().3);
    let mut out = Array4::zeros((b, h, t, hv));
    let mut lse = Array3::from_elem((b, h, t), f64::NEG_INFINITY);
    for (bi, hi, i) in
        (0..b).flat_map(|bi| (0..h).flat_map(move |hi| (0..t).map(move |i| (bi, hi, i))))
    {
        let keys: Vec<usize> = (0..s_len)
            .filter(|&j| !causal || j + t <= i + s_len)
            .collect();
        let scores: Vec<f64> = keys
            .iter()
            .map(|&j| {
                (0..hs)
                    .map(|c| q[[bi, hi, i, c]] * k[[bi, hi, j, c]])
                    .sum::<f64>()
                    / (hs as f64).sqrt()
            })
            .collect();
        if keys.is_empty() {
            continue;
        }
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = scores.iter().map(|x| (x - max).exp()).sum();
        lse[[bi, hi, i]] = max + total.ln();
        for (&j, x) in keys.iter().zip(&scores) {
            for c in 0..hv {
                out[[bi, hi, i, c]] += (x - max).exp() / total * v[[bi, hi, j, c]];
            }
        }
    }
    (out, lse)
}

fn largest_difference<D: ndarray::Dimension>(
    a: &ndarray::ArrayBase<impl ndarray::Data<Elem = f64>, D>,
    b: &ndarray::ArrayBase<impl ndarray::Data<Elem = f64>, D>,
) -> f64 {
    assert_eq!(a.shape(), b.shape());
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

/// Random `[q, k, v, d_out]` for `(B, h, T, S, hs, hv)`.
fn inputs(
    seed: u32,
    (b, h, t, s, hs, hv): (usize, usize, usize, usize, usize, usize),
) -> [Array4<f64>; 4] {
    let mut rng = attention::rng::RandomState::new(seed);
    [
        rng.randn((b, h, t, hs)),
        rng.randn((b, h, s, hs)),
        rng.randn((b, h, s, hv)),
        rng.randn((b, h, t, hv)),
    ]
}

/// Central differences of `Σ attention_by_hand(q, k, v) ∘ d_out`: `[dq, dk, dv]`.
fn differences([q, k, v, d_out]: &[Array4<f64>; 4], causal: bool) -> [Array4<f64>; 3] {
    let eps = 1e-5;
    let mut xs = [q.clone(), k.clone(), v.clone()];
    let mut grads = [
        Array4::zeros(q.raw_dim()),
        Array4::zeros(k.raw_dim()),
        Array4::zeros(v.raw_dim()),
    ];
    for which in 0..3 {
        for n in 0..xs[which].len() {
            let x = xs[which].as_slice().unwrap()[n];
            let mut loss = |value| {
                xs[which].as_slice_mut().unwrap()[n] = value;
                let (out, _) = attention_by_hand(xs[0].view(), xs[1].view(), xs[2].view(), causal);
                (out * d_out).sum()
            };
            let (up, down) = (loss(x + eps), loss(x - eps));
            loss(x);
            grads[which].as_slice_mut().unwrap()[n] = (up - down) / (2.0 * eps);
        }
    }
    grads
}

#[test]
fn online_softmax_is_the_softmax_for_every_chunking() {
    let row = [
        f64::NEG_INFINITY,
        0.3,
        -700.0,
        710.0,
        2.0,
        709.5,
        f64::NEG_INFINITY,
    ];
    let max = 710.0;
    let total: f64 = row.iter().map(|x| (x - max).exp()).sum();
    for chunk in 1..=row.len() {
        let state = row.chunks(chunk).fold(RowState::EMPTY, |s, c| {
            online_softmax_update(s, Array1::from(c.to_vec()).view())
        });
        assert_eq!(state.max, max);
        assert!((state.sum - total).abs() < 1e-12, "chunks of {chunk}");
        assert!((state.logsumexp() - (max + total.ln())).abs() < 1e-12);
    }
}

#[test]
fn tiled_forward_equals_attention_by_hand() {
    for (seed, shape, causal) in [
        (1, (2, 2, 7, 7, 3, 2), true),
        (2, (1, 3, 9, 4, 4, 5), true),
        (3, (1, 1, 4, 9, 2, 3), false),
    ] {
        let [q, k, v, _] = inputs(seed, shape);
        let (out, lse) = attention_by_hand(q.view(), k.view(), v.view(), causal);
        for (qt, kt) in [(1, 1), (2, 3), (4, 2), (16, 16)] {
            let (got, got_lse) =
                tiled_attention(q.view(), k.view(), v.view(), Tiling::new(qt, kt, causal)).unwrap();
            assert!(
                largest_difference(&got, &out) < 1e-12,
                "{shape:?} {qt}x{kt}"
            );
            assert!(
                lse.iter()
                    .zip(&got_lse)
                    .all(|(e, g)| e == g || (e - g).abs() < 1e-12),
                "{shape:?} {qt}x{kt}"
            );
        }
    }
}

#[test]
fn both_backward_passes_equal_central_differences() {
    for (seed, shape, causal) in [
        (4, (1, 2, 5, 5, 3, 2), true),
        (5, (2, 1, 4, 6, 2, 3), false),
        (6, (1, 1, 6, 3, 4, 2), true),
    ] {
        let data = inputs(seed, shape);
        let [q, k, v, d_out] = &data;
        let numeric = differences(&data, causal);
        let plain = attention_backward(q.view(), k.view(), v.view(), d_out.view(), causal).unwrap();
        let (out, lse) = attention_by_hand(q.view(), k.view(), v.view(), causal);
        let tiled = tiled_attention_backward(
            q.view(),
            k.view(),
            v.view(),
            out.view(),
            lse.view(),
            d_out.view(),
            Tiling::new(2, 2, causal),
        )
        .unwrap();
        for g in [&plain, &tiled] {
            for (e, got) in numeric.iter().zip([&g.dq, &g.dk, &g.dv]) {
                assert!(largest_difference(e, got) < 1e-8, "{shape:?}");
            }
        }
        // Shifting every key by one vector changes nothing: the key gradients sum to 0.
        let total = plain.dk.sum_axis(ndarray::Axis(2));
        assert!(total.iter().all(|x| x.abs() < 1e-12));
    }
}

/// Rounds to the 2 decimals the demo prints.
fn two(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[test]
fn the_texts_figures() {
    // The row [1, 3, 2, 5, 0, 4] in chunks of 2.
    let row = array![1.0, 3.0, 2.0, 5.0, 0.0, 4.0];
    let mut state = RowState::EMPTY;
    let mut states = Vec::new();
    for chunk in row.axis_chunks_iter(ndarray::Axis(0), 2) {
        state = online_softmax_update(state, chunk);
        states.push((state.max, (state.sum * 1e4).round() / 1e4));
    }
    assert_eq!(states, [(3.0, 1.1353), (5.0, 1.2034), (5.0, 1.5781)]);
    let p = row.mapv(|x| two((x - state.max).exp() / state.sum));
    assert_eq!(p.to_vec(), [0.01, 0.09, 0.03, 0.63, 0.0, 0.23]);
    assert_eq!((state.logsumexp() * 1e4).round() / 1e4, 5.4562);
    // The worked example, causal, tiles of 3 × 3.
    let ex = worked_example();
    let tiling = Tiling::new(TILE, TILE, true);
    let (out, lse) = tiled_attention(ex.q.view(), ex.k.view(), ex.v.view(), tiling).unwrap();
    let head0: Vec<f64> = lse.slice(s![0, 0, ..]).iter().map(|&x| two(x)).collect();
    assert_eq!(head0, [0.85, 1.27, 1.33, 1.62, 2.01, 2.07, 2.4, 2.64]);
    let (by_hand, _) = attention_by_hand(ex.q.view(), ex.k.view(), ex.v.view(), true);
    for (qt, kt) in (1..=T).flat_map(|a| (1..=T).map(move |b| (a, b))) {
        let (o, _) = tiled_attention(
            ex.q.view(),
            ex.k.view(),
            ex.v.view(),
            Tiling::new(qt, kt, true),
        )
        .unwrap();
        assert!(
            largest_difference(&o, &by_hand) < 1e-15,
            "tiles {qt} × {kt}"
        );
    }
    let plain =
        attention_backward(ex.q.view(), ex.k.view(), ex.v.view(), ex.d_out.view(), true).unwrap();
    let row7: Vec<f64> = plain
        .dq
        .slice(s![0, 0, T - 1, ..])
        .iter()
        .map(|&x| two(x))
        .collect();
    assert_eq!(row7, [-0.32, 1.11, -1.11, -0.59]);
    let tiled = tiled_attention_backward(
        ex.q.view(),
        ex.k.view(),
        ex.v.view(),
        out.view(),
        lse.view(),
        ex.d_out.view(),
        tiling,
    )
    .unwrap();
    for (a, b) in [
        (&plain.dq, &tiled.dq),
        (&plain.dk, &tiled.dk),
        (&plain.dv, &tiled.dv),
    ] {
        assert!(largest_difference(a, b) < 1e-15);
    }
}

#[test]
fn what_tiles_save() {
    let _alone = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // One head, hs = 16, causal, tiles of 64 × 64: the tiled forward holds a small part of what
    // the (T, T) weights take (lesson 3's attention holds them: the checks measure it), and the
    // gap grows with T.
    let mut ratios = Vec::new();
    for t in [128, 256, 512, 1024] {
        let [q, k, v, _] = inputs(t as u32, (1, 1, t, t, 16, 16));
        let (result, tiled) = METER.peak_during(|| {
            tiled_attention(q.view(), k.view(), v.view(), Tiling::new(64, 64, true))
        });
        result.unwrap();
        let t_by_t = t * t * 8;
        assert!(tiled < t_by_t / 4 + 128 * 1024, "T = {t}: {tiled} bytes");
        ratios.push((t, t_by_t as f64 / tiled as f64));
    }
    let (t, ratio) = ratios[3];
    assert!(
        ratio > 20.0,
        "T = {t}: (T, T) f64 over the tiled forward's bytes: {ratio}"
    );
    assert!(ratios.windows(2).all(|w| w[1].1 > w[0].1), "{ratios:?}");
}

#[test]
fn the_cores_tiled_forward_at_4096() {
    let _alone = MEASURING.lock().unwrap_or_else(|e| e.into_inner());
    // The demo's last line: the core's two forwards, one head, T = 4096, hs = 8.
    let (t, hs) = (4096, 8);
    let mut rng = attention::rng::RandomState::new(0);
    let q: Array3<f64> = rng.randn((1, t, hs));
    let (k, v): (Array3<f64>, Array3<f64>) = (rng.randn((1, t, hs)), rng.randn((1, t, hs)));
    let none: Option<&ndarray::ArrayView2<bool>> = None;
    let (plain, plain_bytes) = METER.peak_during(|| {
        attention::attend::scaled_dot_product(q.view(), k.view(), v.view(), none).unwrap()
    });
    let config = attention::tiled::TileConfig::default();
    let (tiled, tiled_bytes) = METER.peak_during(|| {
        attention::tiled::tiled_attention(q.view(), k.view(), v.view(), config).unwrap()
    });
    assert!(
        plain_bytes >= t * t * 8,
        "the (T, T) weights: {plain_bytes}"
    );
    assert!(
        plain_bytes > 100 * tiled_bytes,
        "{plain_bytes} / {tiled_bytes}"
    );
    assert!(largest_difference(&plain.0, &tiled.0) < 1e-14);
}
