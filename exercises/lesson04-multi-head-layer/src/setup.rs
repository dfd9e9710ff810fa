//! The lesson's given code: the [`MultiHead`] layer's fields and the methods that need none of
//! your exercises, lesson 2's split and merge, head-by-head attention on the core crate, the
//! text's figures, and the worked examples' inputs.
//!
//! Nothing to implement here, and nothing here calls your code: [`MultiHead::new`] and
//! [`MultiHead::forward`], which call your [`crate::exercises`], are in [`crate::worked`].

use attention::Result;
use attention::attend::scaled_dot_product;
use attention::error::{ShapeError, shape_string};
use attention::rng::RandomState;
use ndarray::{Array2, Array3, Array4, ArrayView3, ArrayView4, Axis};

/// Model width `D` of the cross-attention example.
pub const WIDTH: usize = 8;
/// Number of heads `h` of the cross-attention example (head size 4).
pub const HEADS: usize = 2;
/// Batch size `B` of the cross-attention example.
pub const B: usize = 2;
/// Target (query) length `T` of the cross-attention example.
pub const T: usize = 4;
/// Source (context) length `S` of the cross-attention example.
pub const S: usize = 6;
/// Seed of the cross-attention example's layer.
pub const LAYER_SEED: u32 = 0;
/// Seed of the cross-attention example's inputs (query first, then context).
pub const INPUT_SEED: u32 = 4;

/// Model width of the causal self-attention module example.
pub const MODULE_WIDTH: usize = 32;
/// Heads of the module example (head size 8).
pub const MODULE_HEADS: usize = 4;
/// Sequence length of the module example's input `(2, 6, 32)`.
pub const MODULE_T: usize = 6;

/// The text's single-token example: head 1 outputs `(1, 0.2)`, head 2 outputs `(-0.5, 2)`.
pub const TEXT_HEAD_OUTPUTS: [[f64; 2]; 2] = [[1.0, 0.2], [-0.5, 2.0]];
/// The practice item: head outputs `(2, -1)` and `(0, 3)`.
pub const PRACTICE_HEAD_OUTPUTS: [[f64; 2]; 2] = [[2.0, -1.0], [0.0, 3.0]];
/// The text's output projection `W_O` `(4, 4)`: the identity plus two extra ones,
/// `W_O[0][2] = W_O[1][3] = 1`, so output features 2 and 3 also receive head 1's features.
pub const TEXT_WO: [[f64; 4]; 4] = [
    [1.0, 0.0, 1.0, 0.0],
    [0.0, 1.0, 0.0, 1.0],
    [0.0, 0.0, 1.0, 0.0],
    [0.0, 0.0, 0.0, 1.0],
];

/// A fixed-size table as an `(R, C)` array, e.g. `matrix(&TEXT_WO)`.
pub fn matrix<const R: usize, const C: usize>(rows: &[[f64; C]; R]) -> Array2<f64> {
    Array2::from_shape_fn((R, C), |(i, j)| rows[i][j])
}

/// A multi-head attention layer without biases: four `(D, D)` projections.
///
/// Query, key and value projections are full width; head `i` owns columns
/// `i * head_size .. (i + 1) * head_size` of each. `wo` mixes the concatenated heads.
#[derive(Debug, Clone, PartialEq)]
pub struct MultiHead {
    /// Model width `D`.
    pub width: usize,
    /// Number of heads `h`.
    pub heads: usize,
    /// Head size `hs = D / h`.
    pub head_size: usize,
    /// Query projection `(D, D)`.
    pub wq: Array2<f64>,
    /// Key projection `(D, D)`.
    pub wk: Array2<f64>,
    /// Value projection `(D, D)`.
    pub wv: Array2<f64>,
    /// Output projection `W_O` `(D, D)`.
    pub wo: Array2<f64>,
}

impl MultiHead {
    /// A layer with the given projections, each `(D, D)`.
    ///
    /// Errors when `heads` is 0 or does not divide `D`, or a projection is not `(D, D)`.
    pub fn from_weights(
        heads: usize,
        wq: Array2<f64>,
        wk: Array2<f64>,
        wv: Array2<f64>,
        wo: Array2<f64>,
    ) -> Result<Self> {
        let d = wq.nrows();
        if heads == 0 || !d.is_multiple_of(heads) {
            return Err(ShapeError::with_got(
                "MultiHead::from_weights",
                "a head count h > 0 that divides the width D",
                format!("D = {d}, h = {heads}"),
            ));
        }
        for (name, w) in [("wq", &wq), ("wk", &wk), ("wv", &wv), ("wo", &wo)] {
            if w.dim() != (d, d) {
                return Err(ShapeError::new(
                    "MultiHead::from_weights",
                    format!("{name} of shape ({d}, {d})"),
                    w.shape(),
                ));
            }
        }
        Ok(Self {
            width: d,
            heads,
            head_size: d / heads,
            wq,
            wk,
            wv,
            wo,
        })
    }

    /// The number of weights the layer holds: the elements of its four projections.
    pub fn parameter_count(&self) -> usize {
        self.wq.len() + self.wk.len() + self.wv.len() + self.wo.len()
    }
}

/// Lesson 2's split: `(B, T, D) -> (B, h, T, hs)`, `out[b, i, t, j] == x[b, t, i * hs + j]`.
///
/// Errors when `h` is 0 or does not divide `D`.
pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {
    let (b, t, d) = x.dim();
    if h == 0 || d % h != 0 {
        return Err(ShapeError::new(
            "split_heads",
            format!("(B, T, D) with D divisible by h = {h}"),
            x.shape(),
        ));
    }
    Ok(x.as_standard_layout()
        .into_owned()
        .into_shape_with_order((b, t, h, d / h))
        .expect("a standard-layout array reshapes")
        .permuted_axes([0, 2, 1, 3])
        .as_standard_layout()
        .into_owned())
}

/// Lesson 2's merge, the concatenation of the heads: `(B, h, T, hs) -> (B, T, h * hs)`.
pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {
    let (b, h, t, hs) = x.dim();
    x.permuted_axes([0, 2, 1, 3])
        .as_standard_layout()
        .into_owned()
        .into_shape_with_order((b, t, h * hs))
        .expect("a standard-layout array reshapes")
}

/// The causal mask `(1, 1, T, S)`: query `t` may read keys `0..=t`.
pub fn causal(t: usize, s: usize) -> Array4<bool> {
    Array4::from_shape_fn((1, 1, t, s), |(_, _, i, j)| j <= i)
}

/// Attention for every head, one head at a time on the core's
/// [`attention::attend::scaled_dot_product`].
///
/// `q`: `(B, h, T, hs)`, `k`: `(B, h, S, hs)`, `v`: `(B, h, S, hv)`, `allowed`: optional mask
/// `(B or 1, h or 1, T or 1, S or 1)`. Returns `(output (B, h, T, hv), weights (B, h, T, S))`.
/// A fully masked query gets all-zero weights and a zero output (the core's policy).
///
/// Errors when the shapes do not fit or the mask does not broadcast.
pub fn attend_heads(
    q: ArrayView4<f64>,
    k: ArrayView4<f64>,
    v: ArrayView4<f64>,
    allowed: Option<ArrayView4<bool>>,
) -> Result<(Array4<f64>, Array4<f64>)> {
    let (b, h, t, _) = q.dim();
    let (s, hv) = (k.dim().2, v.dim().3);
    if k.dim().1 != h || v.dim().1 != h {
        return Err(ShapeError::new(
            "attend_heads",
            format!("keys and values with h = {h} heads like the queries"),
            if k.dim().1 != h { k.shape() } else { v.shape() },
        ));
    }
    if let Some(m) = &allowed
        && m.dim().1 != 1
        && m.dim().1 != h
    {
        return Err(ShapeError::new(
            "attend_heads",
            format!("a mask broadcastable to {}", shape_string(&[b, h, t, s])),
            m.shape(),
        ));
    }
    let mut out = Array4::<f64>::zeros((b, h, t, hv));
    let mut weights = Array4::<f64>::zeros((b, h, t, s));
    for i in 0..h {
        let mask = allowed.map(|m| {
            let mi = if m.dim().1 == 1 { 0 } else { i };
            m.index_axis_move(Axis(1), mi)
        });
        let (o, w) = scaled_dot_product(
            q.index_axis(Axis(1), i),
            k.index_axis(Axis(1), i),
            v.index_axis(Axis(1), i),
            mask.as_ref(),
        )?;
        out.index_axis_mut(Axis(1), i).assign(&o);
        weights.index_axis_mut(Axis(1), i).assign(&w);
    }
    Ok((out, weights))
}

/// The cross-attention example's inputs: two target sequences of 4 positions read two sources
/// of 6. The example's layer is `MultiHead::new(WIDTH, HEADS, LAYER_SEED)`, i.e. `(8, 2, 0)`.
#[derive(Debug, Clone)]
pub struct WorkedExample {
    /// `query = randn(2, 4, 8)`, drawn first from seed 4: `(B, T, D)`.
    pub query: Array3<f64>,
    /// `context = randn(2, 6, 8)`, drawn second: `(B, S, D)`.
    pub context: Array3<f64>,
}

/// Draws the cross-attention example's inputs from seed 4: `query`, then `context`.
pub fn worked_example() -> WorkedExample {
    let mut rng = RandomState::new(INPUT_SEED);
    let query = rng.randn((B, T, WIDTH));
    let context = rng.randn((B, S, WIDTH));
    WorkedExample { query, context }
}

/// The module example's input `x = randn(2, 6, 32)` from seed 1, for causal self-attention with
/// `MultiHead::new(MODULE_WIDTH, MODULE_HEADS, 0)`.
pub fn module_input() -> Array3<f64> {
    RandomState::new(1).randn((2, MODULE_T, MODULE_WIDTH))
}

/// A `(B, T, D)` tensor whose every value tells where it sits: `b * 10000 + t * 100 + d`.
pub fn labelled(b: usize, t: usize, d: usize) -> Array3<f64> {
    Array3::from_shape_fn((b, t, d), |(i, j, k)| (i * 10000 + j * 100 + k) as f64)
}
