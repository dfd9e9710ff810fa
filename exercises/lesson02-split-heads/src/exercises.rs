//! Your exercises for lesson 2. Replace each `todo!()` with an implementation.
//!
//! ndarray tools that help: `into_shape_with_order`, `permuted_axes`, `as_standard_layout`,
//! `slice(s![.., a..b])`, `dot`; errors: [`attention::ShapeError`].
#![allow(unused_variables)]

use attention::Result;
use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayView4};

/// The head size `hs = C / h`.
///
/// Errors with a [`attention::ShapeError`] when `h` is 0 or `C` is not divisible by `h`
/// (for example `C = 64, h = 5`): the `C` columns could not be cut into `h` equal blocks.
pub fn head_size(c: usize, h: usize) -> Result<usize> {
    todo!("head_size: C / h, refusing h = 0 and uneven splits")
}

/// Splits the last axis into `h` heads and moves the head axis next to the batch axis:
/// `(B, T, C) -> (B, h, T, hs)`, with `out[b, i, t, j] == x[b, t, i * hs + j]`.
///
/// Errors when `C` is not divisible by `h` (see [`head_size`]).
pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {
    todo!("split_heads: reshape to (B, T, h, hs), then swap the T and h axes")
}

/// The exact inverse of [`split_heads`]: `(B, h, T, hs) -> (B, T, h * hs)`, with
/// `out[b, t, i * hs + j] == x[b, i, t, j]`. Never fails for a 4-D input.
pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {
    todo!("merge_heads: swap the h and T axes back, then reshape to (B, T, C)")
}

/// Head `i`'s queries computed on their own: `X @ Wq[:, i*hs..(i+1)*hs]`, `(B, T, hs)`.
///
/// `x`: `(B, T, C)`; `wq`: `(C, C)`; `h` heads. Equals `split_heads(X Wq, h)[:, i]`.
/// Errors when the shapes do not fit, `C` is not divisible by `h`, or `i >= h`.
pub fn head_projection(
    x: ArrayView3<f64>,
    wq: ArrayView2<f64>,
    h: usize,
    i: usize,
) -> Result<Array3<f64>> {
    todo!("head_projection: slice head i's hs columns out of Wq and project X by them")
}
