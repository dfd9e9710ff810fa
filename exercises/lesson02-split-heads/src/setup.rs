//! The lesson's given code: the seeded inputs of the worked example.

use attention::rng::RandomState;
use ndarray::{Array2, Array3};

/// The worked example's seed (`np.random.seed(42)`).
pub const SEED: u32 = 42;
/// Batch size `B` of the worked example.
pub const B: usize = 1;
/// Sequence length `T` of the worked example.
pub const T: usize = 6;
/// Model width `C` of the worked example.
pub const C: usize = 64;
/// Number of heads `h` of the worked example.
pub const H: usize = 4;

/// The worked example's inputs, drawn in this order from one generator.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// `X = randn(B, T, C) * 0.1`: `(1, 6, 64)`.
    pub x: Array3<f64>,
    /// `Wq = randn(C, C) * 0.1`: `(64, 64)`.
    pub wq: Array2<f64>,
    /// `Wk`, drawn after `Wq`: `(64, 64)`.
    pub wk: Array2<f64>,
    /// `Wv`, drawn after `Wk`: `(64, 64)`.
    pub wv: Array2<f64>,
}

impl WorkedExample {
    /// `Q = X Wq`: `(B, T, C)`.
    pub fn q(&self) -> Array3<f64> {
        attention::attend::project(self.x.view(), self.wq.view()).expect("shapes fit")
    }
}

/// Draws the worked example: seed 42, then `X`, `Wq`, `Wk`, `Wv` (each `randn(...) * 0.1`).
pub fn worked_example() -> WorkedExample {
    let mut rng = RandomState::new(SEED);
    let x = rng.randn((B, T, C)) * 0.1;
    let wq = rng.randn((C, C)) * 0.1;
    let wk = rng.randn((C, C)) * 0.1;
    let wv = rng.randn((C, C)) * 0.1;
    WorkedExample { x, wq, wk, wv }
}

/// A `(B, T, C)` tensor whose every value tells where it sits: `b * 10000 + t * 100 + c`.
/// Exactly representable, so a split or merge can be checked for exact equality.
pub fn labelled(b: usize, t: usize, c: usize) -> Array3<f64> {
    Array3::from_shape_fn((b, t, c), |(i, j, k)| (i * 10000 + j * 100 + k) as f64)
}
