//! The lesson's given code: the seeded worked example, lesson 2's `split_heads`, labelled test
//! tensors and a published model configuration for the KV-cache figures.

use attention::Result;
use attention::error::ShapeError;
use attention::rng::RandomState;
use ndarray::{Array2, Array3, Array4, ArrayView3};

/// The worked example's seed (`np.random.seed(42)`).
pub const SEED: u32 = 42;
/// Batch size `B` of the worked example.
pub const B: usize = 1;
/// Sequence length `T` of the worked example.
pub const T: usize = 6;
/// Model width `D` of the worked example.
pub const D: usize = 32;
/// Query heads `H` of the worked example.
pub const H: usize = 4;
/// Key/value heads `H_kv` of the worked example: each serves `H / H_kv = 2` query heads.
pub const H_KV: usize = 2;
/// Head size `hs = D / H` of the worked example.
pub const HS: usize = D / H;
/// Every weight of the worked example is `randn(...) * SCALE`.
pub const SCALE: f64 = 0.3;

/// The four projections of a grouped-query attention layer.
#[derive(Debug, Clone, PartialEq)]
pub struct GqaWeights {
    /// Query projection `(D, H · hs) = (D, D)`.
    pub wq: Array2<f64>,
    /// Key projection `(D, H_kv · hs)`: narrower than `Wq` when `H_kv < H`.
    pub wk: Array2<f64>,
    /// Value projection `(D, H_kv · hs)`.
    pub wv: Array2<f64>,
    /// Output projection `W_O`, `(H · hs, D) = (D, D)`.
    pub wo: Array2<f64>,
}

impl GqaWeights {
    /// Draws a layer's weights from `rng`, in the order `Wq`, `Wk`, `Wv`, `W_O`, each
    /// `randn(...) * scale`, for width `d`, `h` query heads and `h_kv` key/value heads.
    /// Panics unless `h` divides `d`.
    pub fn draw(rng: &mut RandomState, d: usize, h: usize, h_kv: usize, scale: f64) -> Self {
        assert!(h > 0 && d.is_multiple_of(h), "h = {h} must divide d = {d}");
        let hs = d / h;
        let wq = rng.randn((d, d)) * scale;
        let wk = rng.randn((d, h_kv * hs)) * scale;
        let wv = rng.randn((d, h_kv * hs)) * scale;
        let wo = rng.randn((d, d)) * scale;
        Self { wq, wk, wv, wo }
    }
}

/// The worked example's input and layer.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// `X = randn(B, T, D)`: `(1, 6, 32)`.
    pub x: Array3<f64>,
    /// The layer, drawn after `X`: `Wq (32, 32)`, `Wk` and `Wv (32, 16)`, `W_O (32, 32)`.
    pub weights: GqaWeights,
}

impl WorkedExample {
    /// `Q = X Wq` split into `H` heads: `(B, H, T, hs) = (1, 4, 6, 8)`.
    pub fn q_heads(&self) -> Array4<f64> {
        project_heads(self.x.view(), &self.weights.wq, H)
    }

    /// `K = X Wk` split into `H_kv` heads: `(B, H_kv, T, hs) = (1, 2, 6, 8)`.
    pub fn k_heads(&self) -> Array4<f64> {
        project_heads(self.x.view(), &self.weights.wk, H_KV)
    }

    /// `V = X Wv` split into `H_kv` heads: `(B, H_kv, T, hs) = (1, 2, 6, 8)`.
    pub fn v_heads(&self) -> Array4<f64> {
        project_heads(self.x.view(), &self.weights.wv, H_KV)
    }
}

fn project_heads(x: ArrayView3<f64>, w: &Array2<f64>, heads: usize) -> Array4<f64> {
    let p = attention::attend::project(x, w.view()).expect("the worked example's shapes fit");
    split_heads(p.view(), heads).expect("the worked example's widths divide")
}

/// Draws the worked example: seed 42, `X = randn(1, 6, 32)`, then the layer with
/// [`GqaWeights::draw`] (`H = 4`, `H_kv = 2`, scale 0.3).
pub fn worked_example() -> WorkedExample {
    let mut rng = RandomState::new(SEED);
    let x = rng.randn((B, T, D));
    let weights = GqaWeights::draw(&mut rng, D, H, H_KV, SCALE);
    WorkedExample { x, weights }
}

/// Lesson 2's split, given: `(B, T, h · hs) -> (B, h, T, hs)` with
/// `out[b, i, t, j] == x[b, t, i * hs + j]`. Errors unless `h > 0` divides the width.
pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {
    let (b, t, c) = x.dim();
    if h == 0 || !c.is_multiple_of(h) {
        return Err(ShapeError::new(
            "split_heads",
            format!("(B, T, C) with C divisible by h = {h}"),
            x.shape(),
        ));
    }
    let x = x.as_standard_layout();
    let heads = x
        .view()
        .into_shape_with_order((b, t, h, c / h))
        .expect("a standard-layout array reshapes")
        .permuted_axes([0, 2, 1, 3]);
    Ok(heads.as_standard_layout().into_owned())
}

/// A `(B, h, T, hs)` tensor whose every value tells where it sits:
/// `b * 1000 + i * 100 + t * 10 + j`. Exactly representable, so data movement can be checked
/// exactly (keep `h, T, hs <= 10`).
pub fn labelled_heads(b: usize, h: usize, t: usize, hs: usize) -> Array4<f64> {
    Array4::from_shape_fn((b, h, t, hs), |(b, i, t, j)| {
        (b * 1000 + i * 100 + t * 10 + j) as f64
    })
}

/// The attention shape of a decoder, as far as its KV cache is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheConfig {
    /// Number of layers; each keeps its own keys and values.
    pub layers: usize,
    /// Query heads `H`.
    pub h: usize,
    /// Key/value heads `H_kv` (`H_kv = H` is plain multi-head attention).
    pub h_kv: usize,
    /// Head size `hs`.
    pub hs: usize,
    /// Cached positions `T` (the context length).
    pub t: usize,
    /// Bytes per stored number: 2 for fp16/bf16.
    pub bytes_per_value: usize,
}

/// Llama 2 70B's published shape: 80 layers, 64 query heads, 8 key/value heads, width
/// 8192 (so `hs = 128`), a 4096-token context, 16-bit numbers.
pub const LLAMA2_70B: CacheConfig = CacheConfig {
    layers: 80,
    h: 64,
    h_kv: 8,
    hs: 128,
    t: 4096,
    bytes_per_value: 2,
};

/// Bytes in a GiB (`2³⁰`).
pub const GIB: usize = 1 << 30;
