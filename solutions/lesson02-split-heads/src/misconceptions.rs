//! Classic wrong answers to lesson 2's exercises, one submodule per misconception (see
//! `[[lessons.misconceptions]]` in `course.toml`). Each is planted into the reference solution by
//! its id (`grade --solutions --plant <id>`): the crate's `exercises` module then runs it in place
//! of the right function (see the crate docs); the checks listed for it must fail.

use attention::Result;
use attention::attend::project;
use attention::error::ShapeError;
use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayView4, s};

/// `split-without-transpose`: `(B, T, C)` reshaped straight into `(B, h, T, hs)`, so "head" `i`
/// gets a run of consecutive numbers across tokens instead of its own columns of every token.
pub mod split_without_transpose {
    use super::*;

    /// `(B, T, C) -> (B, h, T, hs)` with the right shape and the wrong data.
    pub fn split_heads(x: ArrayView3<f64>, h: usize) -> Result<Array4<f64>> {
        let (b, t, c) = x.dim();
        let hs = crate::reference::head_size(c, h)?;
        Ok(x.as_standard_layout()
            .into_owned()
            .into_shape_with_order((b, h, t, hs))
            .expect("a standard-layout array reshapes"))
    }
}

/// `merge-without-transpose`: `(B, h, T, hs)` reshaped straight into `(B, T, h · hs)`.
pub mod merge_without_transpose {
    use super::*;

    /// `(B, h, T, hs) -> (B, T, h * hs)` with the right shape and the wrong data.
    pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {
        let (b, h, t, hs) = x.dim();
        x.as_standard_layout()
            .into_owned()
            .into_shape_with_order((b, t, h * hs))
            .expect("a standard-layout array reshapes")
    }
}

/// `head-slice-off-by-one`: head `i`'s columns taken as the inclusive range
/// `i * hs ..= (i + 1) * hs`, one column too many.
pub mod head_slice_off_by_one {
    use super::*;

    /// `(B, T, C), (C, C) -> (B, T, hs + 1)`, or a panic for the last head.
    pub fn head_projection(
        x: ArrayView3<f64>,
        wq: ArrayView2<f64>,
        h: usize,
        i: usize,
    ) -> Result<Array3<f64>> {
        let c = x.dim().2;
        if wq.shape() != [c, c] {
            return Err(ShapeError::new("head_projection", "Wq (C, C)", wq.shape()));
        }
        let hs = crate::reference::head_size(c, h)?;
        if i >= h {
            return Err(ShapeError::with_got(
                "head_projection",
                "i < h",
                format!("i = {i}"),
            ));
        }
        project(x, wq.slice(s![.., i * hs..=(i + 1) * hs]))
    }
}
