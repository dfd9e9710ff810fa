//! A fast multi-head self-attention forward pass, for benchmarks and large inputs.
//!
//! [`mha_forward`] computes the same thing as composing the simple pieces of [`crate::attend`]
//! (project, split heads, [`crate::attend::scaled_dot_product`], merge heads, project), but:
//!
//! * Q, K and V come from one fused product with `w_qkv` `(D, 3D)`; heads are strided views
//!   into it (head `i` of `q` is columns `i·hs..(i+1)·hs` of the `q` block), never copied;
//! * scores are written straight into the returned `(B, h, T, T)` weights and soft-maxed in
//!   place (a vectorised `exp`), and `weights @ v` goes straight into the merged heads at column
//!   `i·hs`: there is no other `(B, h, T, T)` temporary;
//! * with the causal mask, key blocks that a block of queries cannot see are skipped (queries
//!   `r0..r1` only need keys `0..r1`);
//! * the work is split over the machine's cores with [`std::thread::scope`]. With at least as
//!   many batch elements as cores, each thread runs whole batch elements, `(T, D) @ (D, 3D)`,
//!   attention, `(T, D) @ (D, D)`, through `(T, 3D)` and `(T, D)` scratch buffers that stay in
//!   cache (this measured faster than one `(B·T, D) @ (D, 3D)` product through a `(B·T, 3D)`
//!   buffer); otherwise each phase is split: rows of the `(B·T, D)` products, `(batch, head)`
//!   pairs of the attention;
//! * matrix products use a packed GEMM with an AVX-512 micro-kernel (see `fast/gemm.rs`,
//!   written with `pulp`'s safe SIMD types; about 70 GFLOP/s per core on the benchmark machine,
//!   twice `matrixmultiply`'s), with the weight matrices packed once per call and shared by the
//!   threads. Without AVX-512 they fall back to [`ndarray::linalg::general_mat_mul`];
//! * packed weights and scratch buffers come from a small process-wide pool (at most sixteen
//!   buffers, about 17 MiB at `B = 8, T = 256, D = 512`) so that repeated calls do not fault in
//!   fresh pages; only the two returned arrays are new memory.

use crate::error::{Result, ShapeError};
use gemm::PackedB;
use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayViewMut2, Axis, s};
use softmax::softmax_rows;

mod gemm;
mod pool;
mod softmax;

/// Set by [`force_portable_kernels`]: skip the AVX-512 kernels even where the CPU has them.
static PORTABLE_ONLY: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Makes every later [`mha_forward`] in this process use the portable kernels
/// (`general_mat_mul`, `f64::exp`) even on a CPU with AVX-512, or (`false`) lets it pick again.
///
/// For tests and comparisons: the portable path is what runs on machines without AVX-512, and
/// this is how a machine with it exercises that path too.
pub fn force_portable_kernels(on: bool) {
    PORTABLE_ONLY.store(on, std::sync::atomic::Ordering::SeqCst);
}

/// The AVX-512 token when the CPU has it and the portable kernels are not forced.
#[cfg(target_arch = "x86_64")]
fn avx512() -> Option<pulp::x86::V4> {
    if PORTABLE_ONLY.load(std::sync::atomic::Ordering::SeqCst) {
        None
    } else {
        pulp::x86::V4::try_new()
    }
}

/// Query rows per block in the causal path: a block of queries `r0..r1` scores only keys `0..r1`.
const CAUSAL_BLOCK: usize = 64;

/// Below this many floating-point operations the forward runs on the calling thread only.
const MIN_PARALLEL_FLOPS: usize = 1 << 22;

/// Multi-head self-attention forward pass.
///
/// * `x`: `(B, T, D)` inputs.
/// * `w_qkv`: `(D, 3D)` fused projection; columns `0..D` give the queries, `D..2D` the keys,
///   `2D..3D` the values.
/// * `w_o`: `(D, D)` output projection.
/// * `heads`: number of heads `h`; `D` must be divisible by it, head size `hs = D / h`.
/// * `causal`: when `true`, query `i` attends to keys `0..=i` only.
///
/// Returns `(output (B, T, D), weights (B, h, T, T))`, where
/// `weights[b, i] = softmax(q_i kᵢᵀ / √hs)` (masked entries exactly `0.0`) and
/// `output = merge_heads(weights @ v) @ w_o`.
///
/// Fails with a [`ShapeError`] when `heads == 0`, `D % heads != 0`, `w_qkv` is not `(D, 3D)` or
/// `w_o` is not `(D, D)`.
///
/// ```
/// use attention::fast::mha_forward;
/// use ndarray::{Array2, Array3};
///
/// let x = Array3::<f64>::ones((2, 3, 4)); // (B, T, D)
/// let w_qkv = Array2::<f64>::eye(4).to_shape((2, 8)).unwrap().to_owned(); // wrong shape
/// assert!(mha_forward(x.view(), w_qkv.view(), Array2::eye(4).view(), 2, true).is_err());
///
/// let w_qkv = ndarray::concatenate![ndarray::Axis(1), Array2::eye(4), Array2::eye(4), Array2::eye(4)];
/// let (y, w) = mha_forward(x.view(), w_qkv.view(), Array2::eye(4).view(), 2, true).unwrap();
/// assert_eq!(y.dim(), (2, 3, 4));
/// assert_eq!(w.dim(), (2, 2, 3, 3)); // (B, h, T, T)
/// assert_eq!(w[[0, 0, 0, 1]], 0.0); // query 0 cannot see key 1
/// assert!((w[[0, 0, 2, 0]] - 1.0 / 3.0).abs() < 1e-15); // equal scores: uniform over 0..=2
/// ```
pub fn mha_forward(
    x: ArrayView3<f64>,
    w_qkv: ArrayView2<f64>,
    w_o: ArrayView2<f64>,
    heads: usize,
    causal: bool,
) -> Result<(Array3<f64>, Array4<f64>)> {
    let op = "mha_forward";
    let (b, t, d) = x.dim();
    if heads == 0 || d % heads != 0 {
        return Err(ShapeError::with_got(
            op,
            "x (B, T, D) with D divisible by heads > 0",
            format!("D = {d}, heads = {heads}"),
        ));
    }
    if w_qkv.dim() != (d, 3 * d) {
        return Err(ShapeError::new(
            op,
            format!("w_qkv (D, 3D) = ({d}, {})", 3 * d),
            w_qkv.shape(),
        ));
    }
    if w_o.dim() != (d, d) {
        return Err(ShapeError::new(
            op,
            format!("w_o (D, D) = ({d}, {d})"),
            w_o.shape(),
        ));
    }
    let hs = d / heads;
    let flops = 8 * b * t * d * d + 4 * b * heads * t * t * hs;
    let threads = if flops < MIN_PARALLEL_FLOPS {
        1
    } else {
        std::thread::available_parallelism().map_or(1, usize::from)
    };
    let shape = Shape { t, d, hs, causal };
    let mut out = Array3::<f64>::zeros((b, t, d));
    let mut weights = Array4::<f64>::zeros((b, heads, t, t));
    // The weight matrices are packed for the GEMM kernel once, then shared by all threads.
    let (w_qkv, w_o) = (PackedB::new(w_qkv, threads), PackedB::new(w_o, threads));
    if b >= threads {
        // Whole batches per thread: projections, attention and output for one batch element
        // stay in per-thread scratch buffers of (T, 3D) and (T, D).
        let tasks: Vec<_> = x
            .outer_iter()
            .zip(weights.outer_iter_mut())
            .zip(out.outer_iter_mut())
            .collect();
        run_split_with(
            tasks,
            threads,
            || Scratch(pool::take(t * 3 * d), pool::take(t * d)),
            |scratch, ((xb, wb), ob)| {
                let mut qkv = ArrayViewMut2::from_shape((t, 3 * d), &mut scratch.0[..])
                    .expect("scratch holds (T, 3D)");
                let mut merged = ArrayViewMut2::from_shape((t, d), &mut scratch.1[..])
                    .expect("scratch holds (T, D)");
                w_qkv.matmul(1.0, xb, qkv.view_mut());
                let heads = wb
                    .into_outer_iter_mut()
                    .zip(
                        merged
                            .view_mut()
                            .into_shape_with_order((t, heads, hs))
                            .expect("standard layout")
                            .into_axis_iter_mut(Axis(1)),
                    )
                    .enumerate()
                    .map(|(hi, (w, o))| shape.head(qkv.view(), 0, hi, w, o));
                heads.for_each(|head| head.attend(&shape));
                w_o.matmul(1.0, merged.view(), ob);
            },
        );
    } else {
        // Fewer batch elements than threads: split each phase instead, through (B·T, 3D) and
        // (B·T, D) buffers.
        let n = b * t;
        let x2 = x
            .to_shape((n, d))
            .expect("(B, T, D) always reshapes to (B·T, D)");
        let mut scratch = Scratch(pool::take(n * 3 * d), pool::take(n * d));
        let mut qkv = ArrayViewMut2::from_shape((n, 3 * d), &mut scratch.0[..])
            .expect("scratch holds (B·T, 3D)");
        par_matmul(x2.view(), &w_qkv, qkv.view_mut(), threads);
        let mut merged =
            ArrayViewMut2::from_shape((n, d), &mut scratch.1[..]).expect("scratch holds (B·T, D)");
        let w_views = weights
            .view_mut()
            .into_shape_with_order((b * heads, t, t))
            .expect("standard layout")
            .into_outer_iter_mut();
        let o_views = merged
            .view_mut()
            .into_shape_with_order((b, t, heads, hs))
            .expect("standard layout")
            .into_outer_iter_mut()
            .flat_map(|ob| ob.into_axis_iter_mut(Axis(1)));
        let tasks: Vec<_> = w_views
            .zip(o_views)
            .enumerate()
            .map(|(p, (w, o))| shape.head(qkv.view(), p / heads, p % heads, w, o))
            .collect();
        run_split_with(tasks, threads, || (), |(), head| head.attend(&shape));
        let out2 = out
            .view_mut()
            .into_shape_with_order((n, d))
            .expect("standard layout");
        par_matmul(merged.view(), &w_o, out2, threads);
    }
    Ok((out, weights))
}

/// A thread's `(T, 3D)` and `(T, D)` scratch buffers, given back to the pool when dropped.
struct Scratch(Vec<f64>, Vec<f64>);

impl Drop for Scratch {
    fn drop(&mut self) {
        pool::give(std::mem::take(&mut self.0));
        pool::give(std::mem::take(&mut self.1));
    }
}

/// The sizes every head needs.
#[derive(Clone, Copy)]
struct Shape {
    t: usize,
    d: usize,
    hs: usize,
    causal: bool,
}

impl Shape {
    /// The views of head `hi` of batch element `bi`, given a `qkv` buffer whose rows
    /// `bi·T..(bi+1)·T` hold that element's `[q | k | v]`.
    fn head<'a>(
        &self,
        qkv: ArrayView2<'a, f64>,
        bi: usize,
        hi: usize,
        w: ArrayViewMut2<'a, f64>,
        o: ArrayViewMut2<'a, f64>,
    ) -> Head<'a> {
        let (t, d, hs) = (self.t, self.d, self.hs);
        let rows = bi * t..(bi + 1) * t;
        let cols = |block: usize| block * d + hi * hs..block * d + (hi + 1) * hs;
        Head {
            q: qkv.slice_move(s![rows.clone(), cols(0)]),
            k: qkv.slice_move(s![rows.clone(), cols(1)]),
            v: qkv.slice_move(s![rows, cols(2)]),
            w,
            o,
        }
    }
}

/// One (batch, head) pair: its strided views into the QKV product, its weights and its output.
struct Head<'a> {
    /// `(T, hs)` queries.
    q: ArrayView2<'a, f64>,
    /// `(T, hs)` keys.
    k: ArrayView2<'a, f64>,
    /// `(T, hs)` values.
    v: ArrayView2<'a, f64>,
    /// `(T, T)` weights, zero on entry.
    w: ArrayViewMut2<'a, f64>,
    /// `(T, hs)` columns of the merged heads.
    o: ArrayViewMut2<'a, f64>,
}

impl Head<'_> {
    /// Scores, (masked) softmax and `weights @ v` for this head.
    fn attend(mut self, shape: &Shape) {
        let t = self.q.nrows();
        let scale = 1.0 / (shape.hs as f64).sqrt();
        // Keys (as kᵀ) and values are packed once per head; the causal blocks use prefixes.
        let (kt, v) = (PackedB::new(self.k.t(), 1), PackedB::new(self.v, 1));
        if !shape.causal {
            kt.matmul(scale, self.q, self.w.view_mut());
            softmax_rows(self.w.view_mut(), None);
            v.matmul(1.0, self.w.view(), self.o.view_mut());
            return;
        }
        let mut r0 = 0;
        while r0 < t {
            let r1 = (r0 + CAUSAL_BLOCK).min(t);
            let mut wb = self.w.slice_mut(s![r0..r1, ..r1]);
            kt.matmul_prefix(scale, self.q.slice(s![r0..r1, ..]), wb.view_mut());
            softmax_rows(wb.view_mut(), Some(r0));
            v.matmul_prefix(1.0, wb.view(), self.o.slice_mut(s![r0..r1, ..]));
            r0 = r1;
        }
    }
}

/// `c = a @ b`, the rows of `a` and `c` split into `threads` contiguous chunks.
fn par_matmul(a: ArrayView2<f64>, b: &PackedB, c: ArrayViewMut2<f64>, threads: usize) {
    let chunk = a.nrows().div_ceil(threads.max(1)).max(1);
    let tasks: Vec<_> = a
        .axis_chunks_iter(Axis(0), chunk)
        .zip(c.into_axis_chunks_iter_mut(Axis(0), chunk))
        .collect();
    run_split_with(tasks, threads, || (), |(), (a, c)| b.matmul(1.0, a, c));
}

/// Runs `work` on every task, the tasks split into `threads` contiguous groups of near-equal
/// size; the last group runs on the calling thread. Each group first makes its own scratch
/// state with `init`.
fn run_split_with<T, S, I, F>(mut tasks: Vec<T>, threads: usize, init: I, work: F)
where
    T: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, T) + Sync,
{
    let threads = threads.clamp(1, tasks.len().max(1));
    let run = |group: Vec<T>| {
        let mut state = init();
        group.into_iter().for_each(|task| work(&mut state, task));
    };
    if threads == 1 {
        run(tasks);
        return;
    }
    let mut groups = Vec::with_capacity(threads);
    for g in (1..threads).rev() {
        let at = tasks.len() * g / threads;
        groups.push(tasks.split_off(at));
    }
    let run = &run;
    std::thread::scope(|scope| {
        for group in groups {
            scope.spawn(move || run(group));
        }
        run(tasks);
    });
}
