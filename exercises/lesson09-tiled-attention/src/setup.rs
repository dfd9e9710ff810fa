//! The lesson's given code: the state of a row's online softmax, the tile sizes, the gradients'
//! container, which keys a query may read, and the seeded worked example.

use attention::rng::RandomState;
use ndarray::Array4;

/// The worked example's seed (`np.random.seed(42)`).
pub const SEED: u32 = 42;
/// Batch size `B` of the worked example.
pub const B: usize = 1;
/// Heads `h` of the worked example.
pub const H: usize = 2;
/// Tokens `T` of the worked example (queries and keys alike).
pub const T: usize = 8;
/// Head size `hs` of the worked example.
pub const HS: usize = 4;
/// The worked example's tile sizes: 3 queries by 3 keys, so the last tile of each axis holds 2.
pub const TILE: usize = 3;

/// What an online softmax keeps of a row it has seen part of: the largest score so far, `max`,
/// and `sum = Σ exp(x − max)` over the scores so far. Nothing seen yet is [`RowState::EMPTY`]:
/// `max = −∞`, `sum = 0`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowState {
    /// The largest score seen so far (`−∞` while every score seen was masked, or none was).
    pub max: f64,
    /// `Σ exp(x − max)` over the scores seen so far (`0` while none counted).
    pub sum: f64,
}

impl RowState {
    /// Nothing seen yet.
    pub const EMPTY: RowState = RowState {
        max: f64::NEG_INFINITY,
        sum: 0.0,
    };

    /// `log Σ exp(x)` over the scores seen so far: `max + ln(sum)`, `−∞` when nothing counted.
    pub fn logsumexp(&self) -> f64 {
        if self.sum == 0.0 {
            f64::NEG_INFINITY
        } else {
            self.max + self.sum.ln()
        }
    }
}

/// How a tiled attention cuts its work: `q_tile` queries by `k_tile` keys at a time, and whether
/// the causal mask applies ([`may_attend`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tiling {
    /// Queries per tile (`>= 1`; the last tile holds what is left).
    pub q_tile: usize,
    /// Keys per tile (`>= 1`; the last tile holds what is left).
    pub k_tile: usize,
    /// Whether query `i` reads only the keys [`may_attend`] allows.
    pub causal: bool,
}

impl Tiling {
    /// Tiles of `q_tile` queries by `k_tile` keys, with or without the causal mask.
    pub fn new(q_tile: usize, k_tile: usize, causal: bool) -> Self {
        Self {
            q_tile,
            k_tile,
            causal,
        }
    }
}

/// The causal mask, aligned to the bottom right: of `t` queries and `s` keys, query `i` is the
/// token at position `i + s − t` (the queries are the last `t` of the `s` positions, as when new
/// tokens are scored against a KV cache) and may read key `j` when `j <= i + s − t`.
///
/// When `t == s` this is lesson 3's causal mask, `j <= i`. When `t > s` the first `t − s`
/// queries come before every key and read none: their rows are fully masked, their output is 0
/// (FlashAttention-2's convention) and their logsumexp `−∞`, the log of an empty sum.
pub fn may_attend(i: usize, j: usize, t: usize, s: usize) -> bool {
    j + t <= i + s
}

/// The three gradients of a loss through attention, each the shape of its input: `dq`
/// `(B, h, T, hs)`, `dk` `(B, h, S, hs)`, `dv` `(B, h, S, hv)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Grads {
    /// `∂L/∂q`, `(B, h, T, hs)`.
    pub dq: Array4<f64>,
    /// `∂L/∂k`, `(B, h, S, hs)`.
    pub dk: Array4<f64>,
    /// `∂L/∂v`, `(B, h, S, hv)`.
    pub dv: Array4<f64>,
}

/// Checks that `got` is `expected` and names both when it is not (the core's).
pub use attention::error::expect_shape;

/// The worked example: queries, keys and values of one sequence, and the gradient of a loss
/// with respect to the attention's output.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// Queries `(B, h, T, hs) = (1, 2, 8, 4)`.
    pub q: Array4<f64>,
    /// Keys `(B, h, T, hs) = (1, 2, 8, 4)`.
    pub k: Array4<f64>,
    /// Values `(B, h, T, hs) = (1, 2, 8, 4)`.
    pub v: Array4<f64>,
    /// `∂L/∂out`, `(B, h, T, hs) = (1, 2, 8, 4)`.
    pub d_out: Array4<f64>,
}

/// Draws the worked example: seed 42, then `q`, `k`, `v` and `d_out`, each `randn(1, 2, 8, 4)`,
/// in that order.
pub fn worked_example() -> WorkedExample {
    let mut rng = RandomState::new(SEED);
    let q = rng.randn((B, H, T, HS));
    let k = rng.randn((B, H, T, HS));
    let v = rng.randn((B, H, T, HS));
    let d_out = rng.randn((B, H, T, HS));
    WorkedExample { q, k, v, d_out }
}
