//! The reference solution reproduces what lesson 8's text prints (`cargo xtask demo lesson08`),
//! and its numbers agree with computations written independently here: RoPE as a multiplication
//! of complex numbers, and attention with RoPE over the whole sequence (causal, and under the
//! window mask) with loops and a softmax of this file's own.

use lesson08_solution::setup::{B, BASE, H, H_KV, HS, T, W, kv_cache_bytes};
use lesson08_solution::*;
use ndarray::{Array3, Array4, ArrayView4, Axis, s};

/// A complex number, just what RoPE needs.
#[derive(Debug, Clone, Copy)]
struct Complex {
    re: f64,
    im: f64,
}

impl Complex {
    /// `e^{iφ}`.
    fn cis(phi: f64) -> Self {
        Self {
            re: phi.cos(),
            im: phi.sin(),
        }
    }

    fn times(self, o: Self) -> Self {
        Self {
            re: self.re * o.re - self.im * o.im,
            im: self.re * o.im + self.im * o.re,
        }
    }
}

/// RoPE as RoFormer writes it: feature pairs as complex numbers `z_j`, position `p` multiplies
/// `z_j` by `e^{i p θ_j}`. Pairs `(j, j + hs/2)` (rotate-half) or `(2j, 2j + 1)` (interleaved).
fn rope_complex(x: ArrayView4<f64>, start: usize, base: f64, interleaved: bool) -> Array4<f64> {
    let hs = x.dim().3;
    let half = hs / 2;
    let mut out = x.to_owned();
    for ((b, h, t, j), _) in x.slice(s![.., .., .., ..half]).indexed_iter() {
        let (a, c) = if interleaved {
            (2 * j, 2 * j + 1)
        } else {
            (j, j + half)
        };
        let theta = 1.0 / base.powf((2 * j) as f64 / hs as f64);
        let z = Complex {
            re: x[[b, h, t, a]],
            im: x[[b, h, t, c]],
        };
        let turned = z.times(Complex::cis((start + t) as f64 * theta));
        out[[b, h, t, a]] = turned.re;
        out[[b, h, t, c]] = turned.im;
    }
    out
}

/// Attention with RoPE over the whole sequence, loops only: `q` `(B, H, T, hs)`, `k`, `v`
/// `(B, H_kv, T, hs)`; query `i` reads key `j` when `allowed(i, j)`. Returns the outputs
/// `(B, H, T, hs)` and weights `(B, H, T, T)`.
fn attention_by_hand(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    allowed: impl Fn(usize, usize) -> bool,
) -> (Array4<f64>, Array4<f64>) {
    let (b, h, t, hs) = q.dim();
    let n_rep = h / k.dim().1;
    let (rq, rk) = (
        rope_complex(q, 0, BASE, false),
        rope_complex(k, 0, BASE, false),
    );
    let mut out = Array4::zeros((b, h, t, hs));
    let mut weights = Array4::zeros((b, h, t, t));
    for (bi, hi, i) in
        (0..b).flat_map(|bi| (0..h).flat_map(move |hi| (0..t).map(move |i| (bi, hi, i))))
    {
        let g = hi / n_rep;
        let scores: Vec<Option<f64>> = (0..t)
            .map(|j| {
                allowed(i, j).then(|| {
                    (0..hs)
                        .map(|c| rq[[bi, hi, i, c]] * rk[[bi, g, j, c]])
                        .sum::<f64>()
                        / (hs as f64).sqrt()
                })
            })
            .collect();
        let max = scores
            .iter()
            .flatten()
            .copied()
            .fold(f64::NEG_INFINITY, f64::max);
        let exps: Vec<f64> = scores
            .iter()
            .map(|s| s.map_or(0.0, |s| (s - max).exp()))
            .collect();
        let total: f64 = exps.iter().sum();
        for (j, e) in exps.iter().enumerate() {
            weights[[bi, hi, i, j]] = e / total;
            for c in 0..hs {
                out[[bi, hi, i, c]] += e / total * v[[bi, g, j, c]];
            }
        }
    }
    (out, weights)
}

/// Random `(q, k, v)` from the course's generator.
fn qkv(seed: u32, (b, h, h_kv, t, hs): (usize, usize, usize, usize, usize)) -> [Array4<f64>; 3] {
    let mut rng = attention::rng::RandomState::new(seed);
    [
        rng.randn((b, h, t, hs)),
        rng.randn((b, h_kv, t, hs)),
        rng.randn((b, h_kv, t, hs)),
    ]
}

/// Every step of `step` over the tokens: the outputs `(B, H, T, hs)` and each step's weights.
fn decode(
    [q, k, v]: &[Array4<f64>; 3],
    mut step: impl FnMut(
        ndarray::ArrayView3<f64>,
        ndarray::ArrayView3<f64>,
        ndarray::ArrayView3<f64>,
    ) -> attention::Result<(Array3<f64>, Array3<f64>)>,
) -> (Array4<f64>, Vec<Array3<f64>>) {
    let mut out = Array4::zeros(q.dim());
    let mut weights = Vec::new();
    for t in 0..q.dim().2 {
        let (o, w) = step(
            q.index_axis(Axis(2), t),
            k.index_axis(Axis(2), t),
            v.index_axis(Axis(2), t),
        )
        .unwrap();
        out.index_axis_mut(Axis(2), t).assign(&o);
        weights.push(w);
    }
    (out, weights)
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

#[test]
fn rotation_is_a_complex_multiplication() {
    let [x, ..] = qkv(1, (2, 3, 1, 5, 8));
    for (start, base) in [(0, BASE), (5, BASE), (1000, 500_000.0), (3, 100.0)] {
        let half = apply_rope(x.view(), start, base).unwrap();
        let inter = apply_rope_interleaved(x.view(), start, base).unwrap();
        assert!(largest_difference(&half, &rope_complex(x.view(), start, base, false)) < 1e-12);
        assert!(largest_difference(&inter, &rope_complex(x.view(), start, base, true)) < 1e-12);
        // The layouts are one rotation with the features moved.
        let moved = interleaved_to_half(inter.view()).unwrap();
        let via = apply_rope(interleaved_to_half(x.view()).unwrap().view(), start, base).unwrap();
        assert!(largest_difference(&moved, &via) < 1e-12);
    }
}

#[test]
fn relative_positions_norms_and_position_zero() {
    let [q, k, _] = qkv(2, (1, 2, 2, 6, 8));
    let at_zero = rope_scores(q.view(), k.view(), 0, 0, BASE).unwrap();
    for shift in [1, 100, 10_000] {
        let shifted = rope_scores(q.view(), k.view(), shift, shift, BASE).unwrap();
        assert!(
            largest_difference(&shifted, &at_zero) < 1e-9,
            "scores at (m + {shift}, n + {shift}) are those at (m, n), up to rounding"
        );
    }
    let (m, n) = (7, 3);
    let offset = rope_scores(q.view(), k.view(), m, n, BASE).unwrap();
    let same = rope_scores(q.view(), k.view(), m - n, 0, BASE).unwrap();
    assert!(
        largest_difference(&offset, &same) < 1e-12,
        "only m - n counts"
    );
    let rotated = apply_rope(q.view(), 12_345, BASE).unwrap();
    let norms = |a: &Array4<f64>| a.map_axis(Axis(3), |r| r.dot(&r).sqrt());
    assert!(
        largest_difference(&norms(&rotated), &norms(&q)) < 1e-12,
        "lengths kept"
    );
    let first = q.slice(s![.., .., ..1, ..]);
    assert_eq!(
        apply_rope(first, 0, BASE).unwrap(),
        first,
        "position 0 turns nothing"
    );
}

#[test]
fn decoding_equals_full_attention_with_rope() {
    for (seed, shape) in [
        (3, (2, 4, 2, 7, 4)),
        (4, (1, 3, 3, 6, 8)),
        (5, (1, 4, 1, 9, 6)),
    ] {
        let (b, _, h_kv, t, hs) = shape;
        let seq = qkv(seed, shape);
        let mut cache = KvCache::new(b, h_kv, hs, t);
        let (out, weights) = decode(&seq, |q, k, v| rope_decode_step(q, k, v, &mut cache, BASE));
        let (full, full_w) =
            attention_by_hand(seq[0].view(), seq[1].view(), seq[2].view(), |i, j| j <= i);
        assert!(largest_difference(&out, &full) < 1e-10, "{shape:?}");
        for (p, w) in weights.iter().enumerate() {
            assert!(largest_difference(w, &full_w.slice(s![.., .., p, ..=p])) < 1e-10);
        }
    }
}

#[test]
fn ring_decoding_equals_attention_under_the_window() {
    for (seed, shape, w) in [
        (6, (2, 4, 2, 9, 4), 3),
        (7, (1, 2, 2, 7, 6), 1),
        (8, (1, 3, 1, 5, 4), 8),
        (9, (1, 2, 1, 10, 8), 4),
    ] {
        let (b, _, h_kv, t, hs) = shape;
        let seq = qkv(seed, shape);
        let mut ring = RingCache::new(b, h_kv, hs, w);
        let (out, weights) = decode(&seq, |q, k, v| window_decode_step(q, k, v, &mut ring, BASE));
        let (full, full_w) =
            attention_by_hand(seq[0].view(), seq[1].view(), seq[2].view(), |i, j| {
                j <= i && i < j + w
            });
        assert!(
            largest_difference(&out, &full) < 1e-10,
            "{shape:?}, W = {w}"
        );
        for (p, wts) in weights.iter().enumerate() {
            let first = (p + 1).saturating_sub(w);
            assert!(largest_difference(wts, &full_w.slice(s![.., .., p, first..=p])) < 1e-10);
        }
        let mask = window_mask(t, w);
        assert!(
            mask.indexed_iter()
                .all(|((i, j), &a)| a == (j <= i && i < j + w))
        );
    }
}

/// Rounds to the 2 decimals the demo prints.
fn two(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[test]
fn the_texts_figures() {
    let theta = rope_frequencies(HS, BASE).unwrap();
    assert_eq!(
        theta.iter().map(|t| t.to_string()).collect::<Vec<_>>(),
        ["1", "0.1", "0.01", "0.001"]
    );
    // One vector at every position: √8 = 2.83 at offset 0, then the wave the text shows.
    let ones = Array4::ones((1, 1, 12, HS));
    let grid = rope_scores(ones.view(), ones.view(), 0, 0, BASE).unwrap();
    let row: Vec<f64> = grid
        .slice(s![0, 0, 0, ..])
        .iter()
        .map(|&x| two(x))
        .collect();
    assert_eq!(
        row,
        [
            2.83, 2.5, 1.81, 1.39, 1.6, 2.23, 2.68, 2.49, 1.8, 1.21, 1.2, 1.73
        ]
    );
    // The worked example: 100 positions later, the same scores to 1e-15 or so.
    let ex = worked_example();
    let q = ex.q.slice(s![.., ..1, .., ..]);
    let near = rope_scores(q, ex.k.view(), 0, 0, BASE).unwrap();
    let far = rope_scores(q, ex.k.view(), 100, 100, BASE).unwrap();
    assert!(largest_difference(&near, &far) < 1e-13);
    let last: Vec<f64> = near
        .slice(s![0, 0, T - 1, ..])
        .iter()
        .map(|&x| two(x))
        .collect();
    assert_eq!(last, [-0.21, 0.33, -0.89, 0.49, -1.55, -0.86, 0.82, 0.07]);
    // Decoding: the last token's weights through the cache and through the ring.
    let seq = [ex.q.clone(), ex.k.clone(), ex.v.clone()];
    let mut cache = KvCache::new(B, H_KV, HS, T);
    let (_, cached) = decode(&seq, |q, k, v| rope_decode_step(q, k, v, &mut cache, BASE));
    let rows = cached[T - 1].mapv(two);
    assert_eq!(rows.shape(), &[1, H, T]);
    assert_eq!(
        rows.slice(s![0, 0, ..]).to_vec(),
        [0.1, 0.17, 0.05, 0.2, 0.03, 0.05, 0.28, 0.13]
    );
    assert_eq!(
        rows.slice(s![0, 1, ..]).to_vec(),
        [0.04, 0.59, 0.04, 0.1, 0.1, 0.1, 0.01, 0.02]
    );
    let mut ring = RingCache::new(B, H_KV, HS, W);
    let (_, windowed) = decode(&seq, |q, k, v| window_decode_step(q, k, v, &mut ring, BASE));
    let rows = windowed[T - 1].mapv(two);
    assert_eq!(rows.slice(s![0, 0, ..]).to_vec(), [0.11, 0.6, 0.28]);
    assert_eq!(rows.slice(s![0, 1, ..]).to_vec(), [0.8, 0.06, 0.14]);
    assert_eq!((ring.pushed(), ring.len()), (8, 3));
    // Mistral 7B's cache on a 32k context: 4 GiB for every position, 512 MiB with W = 4096.
    assert_eq!(kv_cache_bytes(32, 8, 128, 32768, 2), 4 << 30);
    assert_eq!(window_cache_bytes(32, 8, 128, 32768, 4096, 2), 512 << 20);
    assert_eq!(
        kv_cache_bytes(32, 8, 128, 1, 2),
        128 << 10,
        "128 KiB a token"
    );
}
