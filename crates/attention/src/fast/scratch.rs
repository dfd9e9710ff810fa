//! The forward's per-thread scratch buffers, laid out for the GEMM, and the views cut from them.

use super::pool;
use ndarray::{ArrayViewMut2, Axis, ShapeBuilder};

/// A thread's `(T, 3D)` and `(T, D)` scratch buffers (or `(B·T, ·)`), given back to the pool
/// when dropped.
///
/// Their layout keeps a GEMM's accesses to them spread over the caches:
/// - each starts on a 64-byte boundary ([`pool::aligned`]): glibc's large blocks start 16 bytes
///   past one, so every row of a GEMM tile (8 values, one cache line, with AVX2; 16, two lines,
///   with AVX-512) touched one line more than it needs (aligning the returned arrays as well changed nothing
///   measurable);
/// - each row is [`ROW_PAD`] values longer than its data: rows of `3D = 1536` or `D = 512`
///   values are a multiple of 4 KiB apart, so the same columns of every row map to the same L1
///   cache set (64 sets of 64-byte lines on the CPUs measured), and a GEMM's column of tiles
///   could not stay in L1 (figures of both choices in `docs/bench-core.md`).
pub(super) struct Scratch {
    qkv: Vec<f64>,
    merged: Vec<f64>,
    rows: usize,
    d: usize,
}

/// Values of padding after each row of the scratch buffers (one cache line).
const ROW_PAD: usize = 8;

impl Scratch {
    /// Buffers for `rows` rows of `[q | k | v]` (`3d` values) and of merged heads (`d`).
    pub(super) fn new(rows: usize, d: usize) -> Self {
        Scratch {
            qkv: pool::take(padded_len(rows, 3 * d) + pool::ALIGN_SPARE),
            merged: pool::take(padded_len(rows, d) + pool::ALIGN_SPARE),
            rows,
            d,
        }
    }

    /// The `(rows, 3d)` and `(rows, d)` views, each from its buffer's first 64-byte boundary,
    /// rows [`ROW_PAD`] values apart beyond their length.
    pub(super) fn views(&mut self) -> (ArrayViewMut2<'_, f64>, ArrayViewMut2<'_, f64>) {
        let (rows, d) = (self.rows, self.d);
        (
            padded_view(&mut self.qkv, rows, 3 * d),
            padded_view(&mut self.merged, rows, d),
        )
    }
}

/// `(rows, cols)` from `buf`'s first 64-byte boundary, rows [`ROW_PAD`] values apart beyond
/// their length.
fn padded_view(buf: &mut [f64], rows: usize, cols: usize) -> ArrayViewMut2<'_, f64> {
    if rows == 0 || cols == 0 {
        // Nothing to pad, and ndarray refuses strides past the end of an empty slice.
        return ArrayViewMut2::from_shape((rows, cols), &mut buf[..0]).expect("an empty view");
    }
    let len = padded_len(rows, cols);
    ArrayViewMut2::from_shape(
        (rows, cols).strides((cols + ROW_PAD, 1)),
        &mut pool::aligned(buf)[..len],
    )
    .expect("the buffer holds the padded rows")
}

/// Values `rows` rows of `cols` values take with [`ROW_PAD`] after each but the last.
fn padded_len(rows: usize, cols: usize) -> usize {
    rows.checked_sub(1)
        .map_or(0, |more| more * (cols + ROW_PAD) + cols)
}

/// `count` consecutive blocks of `size` along `axis` of `m` (`size` may be 0; blocks past the end
/// are empty).
pub(super) fn blocks<'a>(
    m: ArrayViewMut2<'a, f64>,
    axis: Axis,
    size: usize,
    count: usize,
) -> impl Iterator<Item = ArrayViewMut2<'a, f64>> {
    let mut rest = Some(m);
    std::iter::from_fn(move || {
        let r = rest.take()?;
        let at = size.min(r.len_of(axis));
        let (block, tail) = r.split_at(axis, at);
        rest = Some(tail);
        Some(block)
    })
    .take(count)
}

impl Drop for Scratch {
    fn drop(&mut self) {
        pool::give(std::mem::take(&mut self.qkv));
        pool::give(std::mem::take(&mut self.merged));
    }
}
