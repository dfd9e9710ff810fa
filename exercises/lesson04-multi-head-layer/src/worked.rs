//! The given code that calls your exercises: [`MultiHead::new`] (your
//! [`crate::exercises::init_multi_head`]) and [`MultiHead::forward`] (your
//! [`crate::exercises::multi_head_forward`]), which the worked examples run. Nothing to implement
//! here; it is kept apart from [`crate::setup`], which never calls your code.

use crate::setup::MultiHead;
use attention::Result;
use ndarray::{Array3, Array4, ArrayView3, ArrayView4};

impl MultiHead {
    /// A layer of width `width` with `heads` heads, drawn from `seed`: see
    /// [`crate::exercises::init_multi_head`].
    pub fn new(width: usize, heads: usize, seed: u32) -> Result<Self> {
        crate::exercises::init_multi_head(width, heads, seed)
    }

    /// The layer's forward pass: see [`crate::exercises::multi_head_forward`].
    ///
    /// `query`: `(B, T, D)`, `context`: `(B, S, D)` (the same array for self-attention),
    /// `allowed`: optional mask broadcastable to `(B, h, T, S)`. Returns
    /// `(output (B, T, D), weights (B, h, T, S))`.
    pub fn forward(
        &self,
        query: ArrayView3<f64>,
        context: ArrayView3<f64>,
        allowed: Option<ArrayView4<bool>>,
    ) -> Result<(Array3<f64>, Array4<f64>)> {
        crate::exercises::multi_head_forward(self, query, context, allowed)
    }
}
