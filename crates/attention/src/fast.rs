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
//!   `r0..r1` only need keys `0..r1`), and so are the register tiles of the diagonal block that
//!   lie wholly above the diagonal (`gemm::Skip`);
//! * the work is split over the machine's cores with [`std::thread::scope`], the threads taking
//!   tasks one at a time from a shared queue (a core busy with other work does fewer). With at least as
//!   many batch elements as cores, each thread runs whole batch elements, `(T, D) @ (D, 3D)`,
//!   attention, `(T, D) @ (D, D)`, through `(T, 3D)` and `(T, D)` scratch buffers that stay in
//!   cache (this measured faster than one `(B·T, D) @ (D, 3D)` product through a `(B·T, 3D)`
//!   buffer); otherwise each phase is split: rows of the `(B·T, D)` products, `(batch, head)`
//!   pairs of the attention;
//! * matrix products use a packed GEMM with a micro-kernel for the CPU's SIMD level, picked at
//!   run time (see `fast/gemm.rs`, written with `pulp`'s safe SIMD types): AVX-512 (`8 × 16`
//!   blocks),
//!   AVX2 + FMA (`6 × 8` blocks) or, on aarch64, NEON (`6 × 8` blocks of 128-bit vectors, tested
//!   under an emulator: `tests/neon_emulated.rs`), with the weight matrices packed once per call
//!   and shared by the threads. Without either (or with [`Kernel::Portable`] asked for) they fall back to
//!   [`ndarray::linalg::general_mat_mul`] and `f64::exp`. [`MhaConfig::kernel`] picks a kernel,
//!   [`MhaOutput::kernel`] says which one ran. The SIMD kernels need the crate's `simd` feature
//!   (on by default); without it only the portable kernel is compiled, and `pulp` is not built
//!   (the lessons' checks, which call [`mha_forward`] on tiny inputs, build the crate that way);
//! * packed weights, scratch buffers and the returned arrays come from a small process-wide pool
//!   (at most sixteen buffers and 256 MiB) so that repeated calls do not fault in fresh pages: a
//!   dropped [`MhaOutput`] gives its arrays back (`docs/bench-core.md` gives the measurements
//!   behind each of these choices).

use crate::error::{Result, ShapeError};
use gemm::{PackedB, Skip};
use kernel::Isa;
pub use kernel::Kernel;
use ndarray::{Array3, Array4, ArrayView2, ArrayView3, ArrayViewMut2, ArrayViewMut3, Axis, s};
use scratch::{Scratch, blocks};
use softmax::softmax_rows;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

mod gemm;
mod kernel;
mod pool;
#[cfg(all(test, feature = "profile"))]
mod profile;
mod scratch;
mod softmax;

/// The settings of one [`mha_forward`]: number of heads, causal mask, kernel.
///
/// ```
/// use attention::fast::{Kernel, MhaConfig};
///
/// let config = MhaConfig::new(8).with_causal(true);
/// assert_eq!((config.heads, config.causal, config.kernel), (8, true, Kernel::Auto));
/// assert_eq!(config.with_kernel(Kernel::Avx2).kernel, Kernel::Avx2);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MhaConfig {
    /// Number of heads `h`; the width `D` must be divisible by it, head size `hs = D / h`.
    pub heads: usize,
    /// When `true`, query `i` attends to keys `0..=i` only.
    pub causal: bool,
    /// The SIMD kernels to use ([`Kernel::Auto`]: the fastest this CPU has).
    pub kernel: Kernel,
}

impl MhaConfig {
    /// `heads` heads, no mask, [`Kernel::Auto`].
    pub fn new(heads: usize) -> Self {
        Self {
            heads,
            causal: false,
            kernel: Kernel::Auto,
        }
    }

    /// The same settings with the causal mask on or off.
    pub fn with_causal(self, causal: bool) -> Self {
        Self { causal, ..self }
    }

    /// The same settings asking for `kernel` (see [`Kernel::resolve`] for a CPU that lacks it).
    pub fn with_kernel(self, kernel: Kernel) -> Self {
        Self { kernel, ..self }
    }
}

/// What [`mha_forward`] returns.
#[derive(Clone, Debug)]
pub struct MhaOutput {
    /// `(B, T, D)`: `merge_heads(weights @ v) @ w_o`.
    pub output: Array3<f64>,
    /// `(B, h, T, T)`: `weights[b, i] = softmax(q_i k_iᵀ / √hs)`, masked entries exactly `0.0`.
    pub weights: Array4<f64>,
    /// The kernel that ran: [`MhaConfig::kernel`] if the CPU has it, else the one it fell back
    /// to ([`Kernel::resolve`]); never [`Kernel::Auto`].
    pub kernel: Kernel,
}

/// The causal path's blocks of query rows `r0..r1` covering `0..t`: a block of queries scores
/// only keys `0..r1`. Each block but the last is a multiple of the micro-kernel's rows (8 with
/// AVX-512, 6 with AVX2 and NEON) and of its columns (16, 8, 8): 64 rows, or 48.
fn causal_blocks(t: usize, isa: Isa) -> impl Iterator<Item = (usize, usize)> {
    let block = match isa {
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        Isa::Avx2(_) => 48,
        #[cfg(all(feature = "simd", target_arch = "aarch64"))]
        Isa::Neon(_) => 48,
        _ => 64,
    };
    (0..t)
        .step_by(block)
        .map(move |r0| (r0, (r0 + block).min(t)))
}

/// Below this many floating-point operations the forward runs on the calling thread only.
const MIN_PARALLEL_FLOPS: usize = 1 << 22;

/// Multi-head self-attention forward pass.
///
/// * `x`: `(B, T, D)` inputs.
/// * `w_qkv`: `(D, 3D)` fused projection; columns `0..D` give the queries, `D..2D` the keys,
///   `2D..3D` the values.
/// * `w_o`: `(D, D)` output projection.
/// * `config`: heads `h` (`D` divisible by it, head size `hs = D / h`), causal mask, kernel.
///
/// Returns an [`MhaOutput`]: `output (B, T, D)`, `weights (B, h, T, T)` with
/// `weights[b, i] = softmax(q_i kᵢᵀ / √hs)` (masked entries exactly `0.0`) and
/// `output = merge_heads(weights @ v) @ w_o`, and the kernel that ran.
///
/// Fails with a [`ShapeError`] when `heads == 0`, `D % heads != 0`, `w_qkv` is not `(D, 3D)` or
/// `w_o` is not `(D, D)`.
///
/// ```
/// use attention::fast::{MhaConfig, mha_forward};
/// use ndarray::{Array2, Array3};
///
/// let x = Array3::<f64>::ones((2, 3, 4)); // (B, T, D)
/// let config = MhaConfig::new(2).with_causal(true);
/// let w_qkv = Array2::<f64>::eye(4).to_shape((2, 8)).unwrap().to_owned(); // wrong shape
/// assert!(mha_forward(x.view(), w_qkv.view(), Array2::eye(4).view(), config).is_err());
///
/// let w_qkv = ndarray::concatenate![ndarray::Axis(1), Array2::eye(4), Array2::eye(4), Array2::eye(4)];
/// let out = mha_forward(x.view(), w_qkv.view(), Array2::eye(4).view(), config).unwrap();
/// assert_eq!(out.output.dim(), (2, 3, 4)); // (B, T, D)
/// assert_eq!(out.weights.dim(), (2, 2, 3, 3)); // (B, h, T, T)
/// assert_eq!(out.weights[[0, 0, 0, 1]], 0.0); // query 0 cannot see key 1
/// assert!((out.weights[[0, 0, 2, 0]] - 1.0 / 3.0).abs() < 1e-15); // equal scores: uniform over 0..=2
/// ```
pub fn mha_forward(
    x: ArrayView3<f64>,
    w_qkv: ArrayView2<f64>,
    w_o: ArrayView2<f64>,
    config: MhaConfig,
) -> Result<MhaOutput> {
    let op = "mha_forward";
    let MhaConfig {
        heads,
        causal,
        kernel,
    } = config;
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
    let isa = Isa::new(kernel);
    let shape = Shape {
        t,
        d,
        hs,
        causal,
        isa,
    };
    // From the pool (see `Drop for MhaOutput`), so their contents are unspecified: every entry
    // is written below, the causal mask's zeros included.
    let mut out = Array3::from_shape_vec((b, t, d), pool::take(b * t * d))
        .expect("the pool gives the length asked for");
    let mut weights = Array4::from_shape_vec((b, heads, t, t), pool::take(b * heads * t * t))
        .expect("the pool gives the length asked for");
    // The weight matrices are packed for the GEMM kernel once, then shared by all threads.
    let (w_qkv, w_o) = (
        PackedB::new(w_qkv, threads, isa),
        PackedB::new(w_o, threads, isa),
    );
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
            || Scratch::new(t, d),
            |scratch, ((xb, wb), ob)| {
                let (mut qkv, mut merged) = scratch.views();
                w_qkv.matmul(1.0, xb, qkv.view_mut());
                shape.attend_heads(qkv.view(), wb, merged.view_mut());
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
        let mut scratch = Scratch::new(n, d);
        let (mut qkv, mut merged) = scratch.views();
        par_matmul(x2.view(), &w_qkv, qkv.view_mut(), threads);
        let w_views = weights
            .view_mut()
            .into_shape_with_order((b * heads, t, t))
            .expect("standard layout")
            .into_outer_iter_mut();
        let o_views =
            blocks(merged.view_mut(), Axis(0), t, b).flat_map(|ob| blocks(ob, Axis(1), hs, heads));
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
    Ok(MhaOutput {
        output: out,
        weights,
        kernel: isa.kernel(),
    })
}

impl MhaOutput {
    /// The output `(B, T, D)` and the weights `(B, h, T, T)`, taken out of the struct (which
    /// otherwise gives them back to the forward's buffer pool when dropped).
    pub fn into_parts(mut self) -> (Array3<f64>, Array4<f64>) {
        (
            std::mem::take(&mut self.output),
            std::mem::take(&mut self.weights),
        )
    }
}

/// Dropping an output gives its arrays back to the pool that [`mha_forward`] takes its buffers
/// from, so a loop of forwards reuses pages already faulted in instead of asking the OS for 40 MiB
/// of fresh ones per call (at `B = 8, T = 256, D = 512`). Arrays taken out with
/// [`MhaOutput::into_parts`] are the caller's and are freed as usual.
impl Drop for MhaOutput {
    fn drop(&mut self) {
        pool::give(std::mem::take(&mut self.output).into_raw_vec_and_offset().0);
        pool::give(
            std::mem::take(&mut self.weights)
                .into_raw_vec_and_offset()
                .0,
        );
    }
}

/// The sizes every head needs.
#[derive(Clone, Copy)]
struct Shape {
    t: usize,
    d: usize,
    hs: usize,
    causal: bool,
    /// The kernels to run.
    isa: Isa,
}

impl Shape {
    /// Every head of one batch element: `qkv` `(T, 3D)` holds its `[q | k | v]`, `w` receives its
    /// `(h, T, T)` weights and `merged` `(T, D)` its heads' outputs side by side.
    fn attend_heads(
        &self,
        qkv: ArrayView2<f64>,
        w: ArrayViewMut3<f64>,
        merged: ArrayViewMut2<f64>,
    ) {
        let heads = w.len_of(Axis(0));
        let outputs = blocks(merged, Axis(1), self.hs, heads);
        w.into_outer_iter_mut()
            .zip(outputs)
            .enumerate()
            .for_each(|(hi, (w, o))| self.head(qkv, 0, hi, w, o).attend(self));
    }

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
        let (kt, v) = (
            PackedB::new(self.k.t(), 1, shape.isa),
            PackedB::new(self.v, 1, shape.isa),
        );
        if !shape.causal {
            kt.matmul(scale, self.q, self.w.view_mut());
            softmax_rows(self.w.view_mut(), None, shape.isa);
            v.matmul(1.0, self.w.view(), self.o.view_mut());
            return;
        }
        for (r0, r1) in causal_blocks(t, shape.isa) {
            let q = self.q.slice(s![r0..r1, ..]);
            kt.matmul_prefix(
                scale,
                q,
                self.w.slice_mut(s![r0..r1, ..r1]),
                Skip::MaskedC { r0 },
            );
            // Over whole rows: the softmax zeroes everything after each query's own key, so the
            // keys `r1..` that this block never computes are zeroed too (in one contiguous fill
            // per row; the buffer may be a recycled one).
            softmax_rows(self.w.slice_mut(s![r0..r1, ..]), Some(r0), shape.isa);
            let o = self.o.slice_mut(s![r0..r1, ..]);
            v.matmul_prefix(1.0, self.w.slice(s![r0..r1, ..r1]), o, Skip::ZeroA { r0 });
        }
    }
}

/// `c = a @ b`, the rows of `a` and `c` split into chunks that `threads` threads share out.
fn par_matmul(a: ArrayView2<f64>, b: &PackedB, c: ArrayViewMut2<f64>, threads: usize) {
    // About four chunks per thread (so that a thread slowed down by other work on the machine
    // leaves its share to the others), each a multiple of 24 rows, whole register tiles of both
    // SIMD levels (6 and 8 rows).
    let chunk = a
        .nrows()
        .div_ceil(4 * threads.max(1))
        .next_multiple_of(24)
        .max(24);
    let tasks: Vec<_> = a
        .axis_chunks_iter(Axis(0), chunk)
        .zip(c.into_axis_chunks_iter_mut(Axis(0), chunk))
        .collect();
    run_split_with(tasks, threads, || (), |(), (a, c)| b.matmul(1.0, a, c));
}

/// Runs `work` on every task on `threads` threads (the calling thread is one of them). The
/// threads take the tasks one at a time, in order, as they become free, so a thread that other
/// processes slow down does fewer of them. Each thread first makes its own scratch state with
/// `init`.
fn run_split_with<T, S, I, F>(tasks: Vec<T>, threads: usize, init: I, work: F)
where
    T: Send,
    I: Fn() -> S + Sync,
    F: Fn(&mut S, T) + Sync,
{
    let threads = threads.clamp(1, tasks.len().max(1));
    if threads == 1 {
        let mut state = init();
        tasks.into_iter().for_each(|task| work(&mut state, task));
        return;
    }
    let tasks: Vec<Mutex<Option<T>>> = tasks.into_iter().map(|t| Mutex::new(Some(t))).collect();
    let next = AtomicUsize::new(0);
    let run = || {
        let mut state = init();
        while let Some(slot) = tasks.get(next.fetch_add(1, Ordering::Relaxed)) {
            let task = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
            if let Some(task) = task {
                work(&mut state, task);
            }
        }
    };
    let run = &run;
    std::thread::scope(|scope| {
        for _ in 1..threads {
            scope.spawn(run);
        }
        run();
    });
}
