//! The lesson's given code: a grouped-query layer's weights, the cache's error type, lesson 6's
//! memory formula, the one-position split and merge of heads, and the seeded worked example.

use attention::error::ShapeError;
use attention::rng::RandomState;
use ndarray::{Array2, Array3, ArrayView2, ArrayView3};
use std::fmt;

/// The worked example's seed (`np.random.seed(42)`).
pub const SEED: u32 = 42;
/// Batch size `B` of the worked example.
pub const B: usize = 1;
/// Model width `D` of the worked example.
pub const D: usize = 16;
/// Query heads `H` of the worked example.
pub const H: usize = 4;
/// Key/value heads `H_kv` of the worked example: each serves `H / H_kv = 2` query heads.
pub const H_KV: usize = 2;
/// Head size `hs = D / H` of the worked example.
pub const HS: usize = D / H;
/// Tokens of the prompt, fed first.
pub const PROMPT: usize = 3;
/// Tokens fed one at a time after the prompt.
pub const NEW_TOKENS: usize = 3;
/// Tokens in the whole worked example, `PROMPT + NEW_TOKENS`.
pub const T: usize = PROMPT + NEW_TOKENS;
/// Positions the worked example's cache can hold.
pub const CAPACITY: usize = 8;
/// Every weight of the worked example is `randn(...) * SCALE`.
pub const SCALE: f64 = 0.3;

/// A grouped-query attention layer (lesson 6) with its head counts: `heads` query heads share
/// `kv_heads` key/value heads (`kv_heads == heads` is plain multi-head attention).
#[derive(Debug, Clone, PartialEq)]
pub struct GqaLayer {
    /// Query projection `(D, H · hs) = (D, D)`.
    pub wq: Array2<f64>,
    /// Key projection `(D, H_kv · hs)`.
    pub wk: Array2<f64>,
    /// Value projection `(D, H_kv · hs)`.
    pub wv: Array2<f64>,
    /// Output projection `W_O`, `(H · hs, D) = (D, D)`.
    pub wo: Array2<f64>,
    /// Query heads `H`.
    pub heads: usize,
    /// Key/value heads `H_kv`, dividing `H`.
    pub kv_heads: usize,
}

impl GqaLayer {
    /// Draws a layer from `rng` in lesson 6's order `Wq`, `Wk`, `Wv`, `W_O`, each
    /// `randn(...) * scale`, for width `d`, `heads` query heads and `kv_heads` key/value heads.
    /// Panics unless `heads` divides `d` and `kv_heads` divides `heads`.
    pub fn draw(
        rng: &mut RandomState,
        d: usize,
        heads: usize,
        kv_heads: usize,
        scale: f64,
    ) -> Self {
        assert!(
            heads > 0 && d.is_multiple_of(heads),
            "H = {heads} must divide D = {d}"
        );
        assert!(
            kv_heads > 0 && heads.is_multiple_of(kv_heads),
            "H_kv = {kv_heads} must divide H = {heads}"
        );
        let hs = d / heads;
        let wq = rng.randn((d, d)) * scale;
        let wk = rng.randn((d, kv_heads * hs)) * scale;
        let wv = rng.randn((d, kv_heads * hs)) * scale;
        let wo = rng.randn((d, d)) * scale;
        Self {
            wq,
            wk,
            wv,
            wo,
            heads,
            kv_heads,
        }
    }

    /// Model width `D` (the rows of `Wq`).
    pub fn width(&self) -> usize {
        self.wq.nrows()
    }

    /// Head size `hs = D / H`.
    pub fn head_size(&self) -> usize {
        self.width() / self.heads
    }

    /// Query heads served by one key/value head: `n_rep = H / H_kv`.
    pub fn n_rep(&self) -> usize {
        self.heads / self.kv_heads
    }
}

/// Why a [`crate::KvCache`] refused to take more keys and values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheError {
    /// Every one of the cache's `capacity` positions is taken (or would be, for a call that
    /// asked for `requested` more positions while `len` were filled).
    Full {
        /// Positions the cache holds at most.
        capacity: usize,
        /// Positions already filled.
        len: usize,
        /// Positions the refused call asked for.
        requested: usize,
    },
    /// The keys, values, queries or weights had the wrong shape.
    Shape(ShapeError),
}

impl fmt::Display for CacheError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full {
                capacity,
                len,
                requested,
            } => write!(
                f,
                "KV cache full: {len} of {capacity} positions taken, {requested} more requested"
            ),
            Self::Shape(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for CacheError {}

impl From<ShapeError> for CacheError {
    fn from(e: ShapeError) -> Self {
        Self::Shape(e)
    }
}

/// Lesson 6's formula, given: the bytes of a KV cache for one sequence,
/// `2 · layers · H_kv · hs · T · bytes_per_value` (a key and a value per head and position).
pub fn kv_cache_bytes(
    layers: usize,
    h_kv: usize,
    hs: usize,
    t: usize,
    bytes_per_value: usize,
) -> usize {
    2 * layers * h_kv * hs * t * bytes_per_value
}

/// Splits one position's projection into heads: `(B, n · hs) -> (B, n, hs)`, with
/// `out[b, i, j] == x[b, i * hs + j]`.
///
/// With a single position there is no `T` axis to swap the heads past, so lesson 2's split is a
/// plain reshape. Errors unless `n > 0` divides the width.
pub fn split_step(x: ArrayView2<f64>, n: usize) -> attention::Result<Array3<f64>> {
    let (b, c) = x.dim();
    if n == 0 || !c.is_multiple_of(n) {
        return Err(ShapeError::new(
            "split_step",
            format!("(B, n · hs) with a width divisible by n = {n}"),
            x.shape(),
        ));
    }
    Ok(Array3::from_shape_fn((b, n, c / n), |(b, i, j)| {
        x[[b, i * (c / n) + j]]
    }))
}

/// Concatenates one position's heads: `(B, H, hs) -> (B, H · hs)`, the inverse of
/// [`split_step`].
pub fn merge_step(x: ArrayView3<f64>) -> Array2<f64> {
    let (b, h, hs) = x.dim();
    Array2::from_shape_fn((b, h * hs), |(b, c)| x[[b, c / hs, c % hs]])
}

/// Checks that `got` is `expected` and names both when it is not (the core's).
pub use attention::error::expect_shape;

/// The worked example: a prompt and the tokens that follow it, and the layer that reads them.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// `X = randn(B, T, D)`: `(1, 6, 16)`; the first [`PROMPT`] rows are the prompt.
    pub x: Array3<f64>,
    /// The layer, drawn after `X`: `Wq (16, 16)`, `Wk` and `Wv (16, 8)`, `W_O (16, 16)`,
    /// `H = 4`, `H_kv = 2`.
    pub layer: GqaLayer,
}

impl WorkedExample {
    /// The prompt, `(B, PROMPT, D) = (1, 3, 16)`.
    pub fn prompt(&self) -> ArrayView3<'_, f64> {
        self.x.slice(ndarray::s![.., ..PROMPT, ..])
    }

    /// The tokens after the prompt, `(B, NEW_TOKENS, D) = (1, 3, 16)`.
    pub fn continuation(&self) -> ArrayView3<'_, f64> {
        self.x.slice(ndarray::s![.., PROMPT.., ..])
    }
}

/// Draws the worked example: seed 42, `X = randn(1, 6, 16)`, then the layer with
/// [`GqaLayer::draw`] (`H = 4`, `H_kv = 2`, scale 0.3).
pub fn worked_example() -> WorkedExample {
    let mut rng = RandomState::new(SEED);
    let x = rng.randn((B, T, D));
    let layer = GqaLayer::draw(&mut rng, D, H, H_KV, SCALE);
    WorkedExample { x, layer }
}

/// A `(B, n, hs)` tensor whose every value tells where it sits, tagged by `step`:
/// `step * 1000 + b * 100 + i * 10 + j`. Exactly representable, so what the cache stores can be
/// checked exactly (keep `n, hs <= 10`).
pub fn labelled_step(step: usize, b: usize, n: usize, hs: usize) -> Array3<f64> {
    Array3::from_shape_fn((b, n, hs), |(b, i, j)| {
        (step * 1000 + b * 100 + i * 10 + j) as f64
    })
}
