//! Attention in tiles with an online softmax (FlashAttention's forward, in f64 on the CPU): the
//! same output as [`crate::attend::scaled_dot_product`] without ever holding its `(T, S)`
//! weights, plus each query's logsumexp, which a backward pass recomputes the weights from.
//!
//! Per batch element and tile of queries, a running maximum `m`, sum `l` and output
//! accumulator `acc` per query; per tile of keys, the tile's scores `(q_tile, k_tile)`, then
//! `m' = max(m, rowmax)`, `p = exp(s − m')`, `l = l·exp(m − m') + rowsum(p)`,
//! `acc = acc·exp(m − m') + p v_tile`; after the last key tile, `out = acc / l` and
//! `lse = m + ln l` (lesson 9 explains each step). The buffers are one tile of scores and one
//! of the accumulator, reused for every tile: the extra memory is `O(q_tile · (k_tile + hv))`,
//! not `O(T · S)`. `docs/bench-core.md` measures its peak memory and time against
//! [`crate::attend::scaled_dot_product`].

use crate::error::{Result, ShapeError, shape_string};
use ndarray::linalg::general_mat_mul;
use ndarray::{Array1, Array2, Array3, ArrayView2, ArrayView3, Axis, s};

/// How [`tiled_attention`] cuts its work.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TileConfig {
    /// Queries per tile (at least 1).
    pub q_tile: usize,
    /// Keys per tile (at least 1).
    pub k_tile: usize,
    /// When `true`, query `i` reads keys `0..=i` only ([`crate::mask::causal`], top-left).
    pub causal: bool,
}

impl Default for TileConfig {
    /// Tiles of 128 × 128 (two 128 KiB buffers of f64: they stay in a core's L2 cache), no mask.
    fn default() -> Self {
        Self {
            q_tile: 128,
            k_tile: 128,
            causal: false,
        }
    }
}

/// Scaled dot-product attention in tiles, for one head over a batch.
///
/// * `q`: `(B, T, hs)` queries, `k`: `(B, S, hs)` keys, `v`: `(B, S, hv)` values.
///
/// Returns `(output (B, T, hv), lse (B, T))`: `output` is
/// [`scaled_dot_product`](crate::attend::scaled_dot_product)'s (with [`crate::mask::causal`] when
/// `config.causal`) up to rounding, and `lse[b, t] = log Σ_j exp(q_t · k_j / √hs)` over the keys
/// query `t` reads (`−∞`, with an output of 0, for a query that reads none).
///
/// Fails with a [`ShapeError`] when `k` or `v` do not fit `q`, or a tile size is 0.
///
/// ```
/// use attention::attend::scaled_dot_product;
/// use attention::mask::causal;
/// use attention::tiled::{TileConfig, tiled_attention};
/// use ndarray::Array3;
///
/// let q = Array3::from_shape_fn((1, 5, 2), |(_, t, c)| (t + 2 * c) as f64 / 4.0);
/// let config = TileConfig { q_tile: 2, k_tile: 3, causal: true };
/// let (out, lse) = tiled_attention(q.view(), q.view(), q.view(), config).unwrap();
/// let (plain, _) = scaled_dot_product(q.view(), q.view(), q.view(), Some(&causal(5, 5).view())).unwrap();
/// assert!(out.iter().zip(&plain).all(|(a, b)| (a - b).abs() < 1e-12));
/// let own = (q[[0, 0, 0]].powi(2) + q[[0, 0, 1]].powi(2)) / 2f64.sqrt();
/// assert!((lse[[0, 0]] - own).abs() < 1e-15); // query 0 reads one key: lse is its score
/// ```
pub fn tiled_attention(
    q: ArrayView3<f64>,
    k: ArrayView3<f64>,
    v: ArrayView3<f64>,
    config: TileConfig,
) -> Result<(Array3<f64>, Array2<f64>)> {
    let op = "tiled_attention";
    let (b, t, hs) = q.dim();
    let (s_len, hv) = (k.dim().1, v.dim().2);
    if k.dim() != (b, s_len, hs) || v.dim() != (b, s_len, hv) {
        return Err(ShapeError::new(
            op,
            format!(
                "keys (B, S, hs) = ({b}, S, {hs}) and values (B, S, hv) to match queries {}",
                shape_string(q.shape())
            ),
            if k.dim() != (b, s_len, hs) {
                k.shape()
            } else {
                v.shape()
            },
        ));
    }
    if config.q_tile == 0 || config.k_tile == 0 {
        return Err(ShapeError::with_got(
            op,
            "tiles of at least one query and one key",
            format!("{} × {}", config.q_tile, config.k_tile),
        ));
    }
    let mut out = Array3::zeros((b, t, hv));
    let mut lse = Array2::from_elem((b, t), f64::NEG_INFINITY);
    let mut work = Work::new(config, hv);
    for bi in 0..b {
        for r0 in (0..t).step_by(config.q_tile) {
            let r1 = (r0 + config.q_tile).min(t);
            work.query_tile(
                q.slice(s![bi, r0..r1, ..]),
                (k.index_axis(Axis(0), bi), v.index_axis(Axis(0), bi)),
                r0,
            );
            work.finish(
                out.slice_mut(s![bi, r0..r1, ..]),
                lse.slice_mut(s![bi, r0..r1]),
            );
        }
    }
    Ok((out, lse))
}

/// The buffers of one tile of queries, reused for every tile.
struct Work {
    config: TileConfig,
    scores: Array2<f64>,
    acc: Array2<f64>,
    max: Array1<f64>,
    sum: Array1<f64>,
    rows: usize,
}

impl Work {
    fn new(config: TileConfig, hv: usize) -> Self {
        Self {
            config,
            scores: Array2::zeros((config.q_tile, config.k_tile)),
            acc: Array2::zeros((config.q_tile, hv)),
            max: Array1::zeros(config.q_tile),
            sum: Array1::zeros(config.q_tile),
            rows: 0,
        }
    }

    /// Folds every key tile into the running state of queries `r0..r0 + q.nrows()`.
    fn query_tile(
        &mut self,
        q: ArrayView2<f64>,
        (k, v): (ArrayView2<f64>, ArrayView2<f64>),
        r0: usize,
    ) {
        let rows = q.nrows();
        let scale = 1.0 / (q.ncols() as f64).sqrt();
        self.rows = rows;
        self.max.fill(f64::NEG_INFINITY);
        self.sum.fill(0.0);
        self.acc.fill(0.0);
        let s_len = k.nrows();
        // Causal: queries r0..r0 + rows read keys 0..r0 + rows at most.
        let keys = if self.config.causal {
            s_len.min(r0 + rows)
        } else {
            s_len
        };
        for c0 in (0..keys).step_by(self.config.k_tile) {
            let c1 = (c0 + self.config.k_tile).min(keys);
            let mut scores = self.scores.slice_mut(s![..rows, ..c1 - c0]);
            general_mat_mul(scale, &q, &k.slice(s![c0..c1, ..]).t(), 0.0, &mut scores);
            let diagonal = self.config.causal && c1 > r0 + 1;
            for (r, mut row) in scores.axis_iter_mut(Axis(0)).enumerate() {
                if diagonal {
                    // Keys past query r0 + r are masked out.
                    let first_hidden = (r0 + r + 1).saturating_sub(c0).min(c1 - c0);
                    row.slice_mut(s![first_hidden..]).fill(f64::NEG_INFINITY);
                }
                let new_max = row.iter().copied().fold(self.max[r], f64::max);
                if new_max == f64::NEG_INFINITY {
                    row.fill(0.0);
                    continue;
                }
                let rescale = (self.max[r] - new_max).exp();
                let mut added = 0.0;
                row.mapv_inplace(|x| {
                    let p = (x - new_max).exp();
                    added += p;
                    p
                });
                self.sum[r] = self.sum[r] * rescale + added;
                if rescale != 1.0 {
                    self.acc.row_mut(r).mapv_inplace(|x| x * rescale);
                }
                self.max[r] = new_max;
            }
            let mut acc = self.acc.slice_mut(s![..rows, ..]);
            general_mat_mul(1.0, &scores, &v.slice(s![c0..c1, ..]), 1.0, &mut acc);
        }
    }

    /// Writes `acc / l` and `m + ln l` of the tile just folded.
    fn finish(&self, mut out: ndarray::ArrayViewMut2<f64>, mut lse: ndarray::ArrayViewMut1<f64>) {
        for r in 0..self.rows {
            if self.sum[r] > 0.0 {
                let inv = 1.0 / self.sum[r];
                out.row_mut(r)
                    .zip_mut_with(&self.acc.row(r), |o, a| *o = a * inv);
                lse[r] = self.max[r] + self.sum[r].ln();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::attend::scaled_dot_product;
    use crate::mask::causal;
    use crate::rng::RandomState;

    #[test]
    fn equals_scaled_dot_product_for_every_tile_size() {
        let mut rng = RandomState::new(1);
        for (b, t, s_len, hs, hv, is_causal) in [
            (2, 7, 7, 3, 2, true),
            (1, 5, 9, 4, 3, false),
            (1, 9, 4, 2, 2, true),
        ] {
            let q: Array3<f64> = rng.randn((b, t, hs));
            let k: Array3<f64> = rng.randn((b, s_len, hs));
            let v: Array3<f64> = rng.randn((b, s_len, hv));
            let mask = causal(t, s_len);
            let (plain, weights) = scaled_dot_product(
                q.view(),
                k.view(),
                v.view(),
                is_causal.then_some(&mask.view()),
            )
            .unwrap();
            for (qt, kt) in (1..=t + 1).flat_map(|a| (1..=s_len + 1).map(move |c| (a, c))) {
                let config = TileConfig {
                    q_tile: qt,
                    k_tile: kt,
                    causal: is_causal,
                };
                let (out, lse) = tiled_attention(q.view(), k.view(), v.view(), config).unwrap();
                let diff = out
                    .iter()
                    .zip(&plain)
                    .map(|(a, c)| (a - c).abs())
                    .fold(0.0, f64::max);
                assert!(diff < 1e-12, "{qt} × {kt}: {diff:e}");
                // exp(s − lse) gives back the weights.
                for ((bi, i, j), w) in weights.indexed_iter() {
                    let score =
                        q.slice(s![bi, i, ..]).dot(&k.slice(s![bi, j, ..])) / (hs as f64).sqrt();
                    let again = if *w == 0.0 {
                        0.0
                    } else {
                        (score - lse[[bi, i]]).exp()
                    };
                    assert!(
                        (again - w).abs() < 1e-12,
                        "{qt} × {kt}: weight ({bi}, {i}, {j})"
                    );
                }
            }
        }
    }

    #[test]
    fn refuses_shapes_that_do_not_fit_and_empty_tiles() {
        let q = Array3::<f64>::zeros((1, 3, 4));
        let kv = Array3::<f64>::zeros((1, 5, 4));
        let config = TileConfig::default();
        assert!(
            tiled_attention(q.view(), Array3::zeros((1, 5, 3)).view(), kv.view(), config).is_err()
        );
        assert!(
            tiled_attention(q.view(), kv.view(), Array3::zeros((1, 4, 4)).view(), config).is_err()
        );
        let empty = TileConfig {
            q_tile: 0,
            ..config
        };
        assert!(tiled_attention(q.view(), kv.view(), kv.view(), empty).is_err());
    }
}
