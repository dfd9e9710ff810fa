//! The lesson's given code: the seeded inputs of the worked example, a padding mask, the inverse
//! of [`crate::exercises::fold_heads`], and a labelled tensor for exact data-movement checks.
//!
//! Nothing to implement here.

use attention::Result;
use attention::error::ShapeError;
use attention::rng::RandomState;
use ndarray::{Array4, ArrayView3};

/// The worked example's seed (`np.random.seed(42)`).
pub const SEED: u32 = 42;
/// Batch size `B` of the worked example.
pub const B: usize = 2;
/// Number of heads `h` of the worked example.
pub const H: usize = 2;
/// Target (query) length `T` of the worked example.
pub const T: usize = 4;
/// Source (key/value) length `S` of the worked example; `S != T`, as in cross-attention.
pub const S: usize = 6;
/// Head size `hs` of the worked example (model width `D = h * hs = 8`).
pub const HS: usize = 4;
/// How many source positions of each sequence are real; the rest is padding.
pub const LENGTHS: [usize; B] = [6, 4];

/// The worked example's tensors, already split into heads.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// Queries `(B, h, T, hs)` = `(2, 2, 4, 4)`, drawn first.
    pub q: Array4<f64>,
    /// Keys `(B, h, S, hs)` = `(2, 2, 6, 4)`, drawn second.
    pub k: Array4<f64>,
    /// Values `(B, h, S, hs)` = `(2, 2, 6, 4)`, drawn third.
    pub v: Array4<f64>,
}

/// Draws the worked example from one generator seeded with 42: `q = randn(2, 2, 4, 4)`, then
/// `k = randn(2, 2, 6, 4)`, then `v = randn(2, 2, 6, 4)`.
pub fn worked_example() -> WorkedExample {
    let mut rng = RandomState::new(SEED);
    let q = rng.randn((B, H, T, HS));
    let k = rng.randn((B, H, S, HS));
    let v = rng.randn((B, H, S, HS));
    WorkedExample { q, k, v }
}

/// A padding mask `(B, 1, 1, S)`: in sequence `b`, key `j` is allowed when `j < lengths[b]`.
///
/// The two size-1 axes let one mask serve every head and every query of a sequence.
pub fn padding_mask(lengths: &[usize], s: usize) -> Array4<bool> {
    Array4::from_shape_fn((lengths.len(), 1, 1, s), |(b, _, _, j)| j < lengths[b])
}

/// The inverse of [`crate::exercises::fold_heads`]: `(B·h, T, n) -> (B, h, T, n)` with
/// `out[b, i] == x[b * h + i]`.
///
/// Errors when `h` is 0 or does not divide the leading axis.
pub fn unfold_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {
    let (bh, t, n) = x.dim();
    if h == 0 || bh % h != 0 {
        return Err(ShapeError::new(
            "unfold_heads",
            format!("(B·h, T, n) with a leading axis divisible by h = {h}"),
            x.shape(),
        ));
    }
    Ok(x.as_standard_layout()
        .into_owned()
        .into_shape_with_order((bh / h, h, t, n))
        .expect("a standard-layout array reshapes"))
}

/// A `(B, h, T, n)` tensor whose every value tells where it sits: `b*1000 + i*100 + t*10 + j`.
/// Exactly representable, so a fold or unfold can be checked for exact equality.
pub fn labelled(b: usize, h: usize, t: usize, n: usize) -> Array4<f64> {
    Array4::from_shape_fn((b, h, t, n), |(p, i, q, j)| {
        (p * 1000 + i * 100 + q * 10 + j) as f64
    })
}
