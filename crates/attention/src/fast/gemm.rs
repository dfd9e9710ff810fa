//! `c = alpha · a @ b` for `f64` matrices, single-threaded, with an AVX-512 micro-kernel.
//!
//! A classic packed GEMM (Goto / BLIS loop order): `b` is packed into `KC × NR` column panels,
//! `a` into `MR × KC` row panels, and an `MR × NR` micro-kernel keeps its block of `c` in
//! registers while it runs over `KC`. Right operands are packed with [`PackedB`] (the weight
//! matrices once per forward, keys and values once per head) into 64-byte aligned panels; a
//! narrow product reads the rows of `a` in place instead of packing them. The kernel uses
//! `pulp`'s safe 512-bit vector types, picked at run time; on a CPU without AVX-512 (or another
//! architecture) the product falls back to [`ndarray::linalg::general_mat_mul`].
//! (`matrixmultiply`'s own AVX-512 kernel reaches about half the speed of this one on the
//! benchmark machine: ~33 against ~70 GFLOP/s per core.)

use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, s};

/// A right operand `b` `(k, n)`, packed once for repeated products.
pub(crate) struct PackedB<'a> {
    /// The operand itself, for the fallback path.
    b: ArrayView2<'a, f64>,
    /// Its panels (a buffer and the 64-byte aligned offset they start at), when the AVX-512
    /// path is available.
    #[cfg(target_arch = "x86_64")]
    panels: Option<(pulp::x86::V4, Vec<f64>, usize)>,
}

impl<'a> PackedB<'a> {
    /// Packs `b` `(k, n)`, the work split over `threads` threads.
    pub(crate) fn new(b: ArrayView2<'a, f64>, threads: usize) -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            let panels = super::avx512().map(|simd| {
                let (buf, off) = avx512::pack_all(b, threads);
                (simd, buf, off)
            });
            Self { b, panels }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = threads;
            Self { b }
        }
    }

    /// `c = alpha · a @ b`: `a` is `(m, k)`, `c` is `(m, n)` (overwritten).
    pub(crate) fn matmul(&self, alpha: f64, a: ArrayView2<f64>, c: ArrayViewMut2<f64>) {
        debug_assert_eq!((a.ncols(), c.ncols()), self.b.dim());
        self.matmul_prefix(alpha, a, c);
    }

    /// `c = alpha · a @ b[..k', ..n']` with the leading block of `b` only: `a` is `(m, k')`,
    /// `c` is `(m, n')` (overwritten), `k' <= k`, `n' <= n`. (Causal attention multiplies by
    /// the keys and values seen so far.)
    pub(crate) fn matmul_prefix(&self, alpha: f64, a: ArrayView2<f64>, c: ArrayViewMut2<f64>) {
        let (k, n) = (a.ncols(), c.ncols());
        assert!(k <= self.b.nrows() && n <= self.b.ncols() && a.nrows() == c.nrows());
        #[cfg(target_arch = "x86_64")]
        {
            if let Some((simd, buf, off)) = &self.panels
                && avx512::fits(a, c.view())
            {
                let (k_all, n_all) = self.b.dim();
                let panels = &buf[*off..*off + avx512::packed_len(k_all, n_all)];
                // Everything that runs inside `vectorize` must be reached through
                // `#[inline(always)]` calls, never a closure, or it is compiled without AVX-512.
                avx512::with_buffer(|apack| {
                    simd.vectorize(avx512::Gemm {
                        simd: *simd,
                        alpha,
                        a,
                        panels,
                        k_all,
                        n_all,
                        c,
                        apack,
                    })
                });
                return;
            }
        }
        let mut c = c;
        general_mat_mul(alpha, &a, &self.b.slice(s![..k, ..n]), 0.0, &mut c);
    }
}

impl Drop for PackedB<'_> {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        if let Some((_, buf, _)) = self.panels.take() {
            crate::fast::pool::give(buf);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use ndarray::{ArrayView2, ArrayViewMut2, s};
    use pulp::f64x8;
    use pulp::x86::V4;
    use std::cell::RefCell;

    /// Rows of `c` per micro-kernel call.
    const MR: usize = 8;
    /// 8-lane vectors per row of the micro-kernel's block.
    const NV: usize = 2;
    /// Columns of `c` per micro-kernel call.
    const NR: usize = 8 * NV;
    /// Depth of one packed block (512 measured a little faster than 256 for the `D = 512`
    /// projections: one pass over `c` instead of two).
    const KC: usize = 512;
    /// Rows of `a` per packed block (fits the L2 cache with `KC`).
    const MC: usize = 256;
    /// Widest product whose left operand is read in place rather than packed.
    const UNPACKED_A_MAX_N: usize = 4 * NR;

    thread_local! {
        /// Per-thread packing buffer for `a`, reused across calls.
        static APACK: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    }

    /// Runs `f` with this thread's packing buffer for `a`.
    pub(super) fn with_buffer(f: impl FnOnce(&mut Vec<f64>)) {
        APACK.with(|apack| f(&mut apack.borrow_mut()));
    }

    /// Whether the fast path applies: a non-empty depth and contiguous rows of `c`.
    pub(super) fn fits(a: ArrayView2<f64>, c: ArrayView2<f64>) -> bool {
        a.ncols() > 0 && (c.ncols() <= 1 || c.strides()[1] == 1)
    }

    /// The whole product, run inside [`V4::vectorize`] so the kernel is compiled for AVX-512.
    pub(super) struct Gemm<'a> {
        pub(super) simd: V4,
        pub(super) alpha: f64,
        pub(super) a: ArrayView2<'a, f64>,
        /// The panels of the whole right operand `(k_all, n_all)`.
        pub(super) panels: &'a [f64],
        pub(super) k_all: usize,
        pub(super) n_all: usize,
        pub(super) c: ArrayViewMut2<'a, f64>,
        pub(super) apack: &'a mut Vec<f64>,
    }

    impl pulp::NullaryFnOnce for Gemm<'_> {
        type Output = ();

        #[inline(always)]
        fn call(self) {
            let Gemm {
                simd,
                alpha,
                a,
                panels,
                k_all,
                n_all,
                mut c,
                apack,
            } = self;
            // Only the first `k` rows and `c.ncols()` columns of the operand are used: whole
            // depth blocks, then a prefix of the last one, of the leading panels.
            let k = a.ncols();
            let per_row = packed_len(1, n_all);
            for pc in (0..k).step_by(KC) {
                let stride = KC.min(k_all - pc);
                let kc = KC.min(k - pc);
                let bb = &panels[pc * per_row..(pc + stride) * per_row];
                block(
                    simd,
                    alpha,
                    a.slice(s![.., pc..pc + kc]),
                    (pulp::bytemuck::cast_slice(bb), stride),
                    c.view_mut(),
                    pc > 0,
                    apack,
                );
            }
        }
    }

    /// Length in `f64` of `b` `(k, n)` once packed: `ceil(n / NR)` panels of `k × NR`.
    pub(super) fn packed_len(k: usize, n: usize) -> usize {
        n.div_ceil(NR) * NR * k
    }

    /// Packs a whole right operand, one block of panels per `KC` rows in order, the panels of
    /// each block shared out over `threads` threads. Returns the buffer and the offset of the
    /// (64-byte aligned) packed data in it.
    pub(super) fn pack_all(b: ArrayView2<f64>, threads: usize) -> (Vec<f64>, usize) {
        let (k, n) = b.dim();
        let panels = n.div_ceil(NR);
        let mut buf = crate::fast::pool::take(packed_len(k, n) + 8);
        let off = buf.as_ptr().align_offset(64);
        let mut rest = &mut buf[off..off + packed_len(k, n)];
        let per_task = panels.div_ceil(threads.max(1)).max(1);
        let mut tasks = Vec::new();
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            let (block, tail) = std::mem::take(&mut rest).split_at_mut(packed_len(kc, n));
            rest = tail;
            for (t, part) in block.chunks_mut(per_task * NR * kc).enumerate() {
                let j0 = t * per_task * NR;
                let j1 = (j0 + per_task * NR).min(n);
                tasks.push((b.slice(s![pc..pc + kc, j0..j1]), part));
            }
        }
        crate::fast::run_split_with(tasks, threads, || (), |(), (bb, part)| pack_b(bb, part));
        (buf, off)
    }

    #[inline(always)]
    fn zero() -> f64x8 {
        pulp::cast([0.0f64; 8])
    }

    /// `c (+)= alpha · a @ b` for one depth block: `a` is `(m, kc)`, `bpack` holds `b`'s panels
    /// of `stride >= kc` rows each (only the first `kc` are used), at least `ceil(n / NR)` of
    /// them.
    ///
    /// A narrow product whose left operand has contiguous rows reads them in place (eight row
    /// streams); otherwise `a` is packed too.
    #[inline(always)]
    fn block(
        simd: V4,
        alpha: f64,
        a: ArrayView2<f64>,
        (bpack, stride): (&[f64x8], usize),
        mut c: ArrayViewMut2<f64>,
        accumulate: bool,
        apack: &mut Vec<f64>,
    ) {
        let (m, kc) = a.dim();
        let n = c.ncols();
        let b_panels = bpack
            .chunks_exact(NV * stride)
            .map(|panel| &panel[..NV * kc])
            .take(n.div_ceil(NR));
        let mut c_rows: Vec<&mut [f64]> = c
            .rows_mut()
            .into_iter()
            .map(|row| row.into_slice().expect("c rows are contiguous"))
            .collect();
        // Packing `a` pays off when each of its panels meets many panels of `b`; a narrow
        // product (`weights @ v`) reads contiguous rows of `a` in place instead.
        if n <= UNPACKED_A_MAX_N && (a.strides()[1] == 1 || kc == 1) {
            let a_rows: Vec<&[f64]> = a
                .rows()
                .into_iter()
                .map(|row| row.to_slice().expect("a rows are contiguous"))
                .collect();
            for (jp, bpanel) in b_panels.clone().enumerate() {
                let j0 = jp * NR;
                let w = NR.min(n - j0);
                for i0 in (0..m).step_by(MR) {
                    // Rows past the end repeat the last row; their results are not stored.
                    let rows: [&[f64]; MR] =
                        std::array::from_fn(|i| &a_rows[(i0 + i).min(m - 1)][..kc]);
                    let acc = kernel_rows(simd, rows, bpanel);
                    let end = (i0 + MR).min(m);
                    store(alpha, &acc, &mut c_rows[i0..end], j0, w, accumulate);
                }
            }
            return;
        }
        for ic in (0..m).step_by(MC) {
            let mc = MC.min(m - ic);
            apack.resize(mc.div_ceil(MR) * kc * MR, 0.0);
            pack_a(a.slice(s![ic..ic + mc, ..]), apack);
            for (jp, bpanel) in b_panels.clone().enumerate() {
                let j0 = jp * NR;
                let w = NR.min(n - j0);
                for (ip, apanel) in apack.chunks_exact(MR * kc).enumerate() {
                    let i0 = ic + ip * MR;
                    let acc = kernel(simd, apanel, bpanel);
                    let end = (i0 + MR).min(ic + mc);
                    store(alpha, &acc, &mut c_rows[i0..end], j0, w, accumulate);
                }
            }
        }
    }

    /// `MR × NR` block of `A_panel @ B_panel` over the packed depth.
    #[inline(always)]
    fn kernel(simd: V4, apanel: &[f64], bpanel: &[f64x8]) -> [[f64x8; NV]; MR] {
        let mut acc = [[zero(); NV]; MR];
        let (ap, _) = apanel.as_chunks::<MR>();
        let (bp, _) = bpanel.as_chunks::<NV>();
        for (ap, bv) in ap.iter().zip(bp) {
            for i in 0..MR {
                let ai = simd.splat_f64x8(ap[i]);
                for v in 0..NV {
                    acc[i][v] = simd.mul_add_f64x8(ai, bv[v], acc[i][v]);
                }
            }
        }
        acc
    }

    /// Same as [`kernel`], reading `MR` rows of `a` (each of the packed depth) in place.
    #[inline(always)]
    fn kernel_rows(simd: V4, rows: [&[f64]; MR], bpanel: &[f64x8]) -> [[f64x8; NV]; MR] {
        let mut acc = [[zero(); NV]; MR];
        let (bp, _) = bpanel.as_chunks::<NV>();
        let kc = bp.len();
        let rows = rows.map(|row| &row[..kc]);
        for (p, bv) in bp.iter().enumerate() {
            for i in 0..MR {
                let ai = simd.splat_f64x8(rows[i][p]);
                for v in 0..NV {
                    acc[i][v] = simd.mul_add_f64x8(ai, bv[v], acc[i][v]);
                }
            }
        }
        acc
    }

    /// Columns `j0..j0 + w` of `c_rows` (at most `MR` rows) `= alpha · acc`, or `+=` when
    /// `accumulate`.
    #[inline(always)]
    fn store(
        alpha: f64,
        acc: &[[f64x8; NV]; MR],
        c_rows: &mut [&mut [f64]],
        j0: usize,
        w: usize,
        accumulate: bool,
    ) {
        for (row, acc_row) in c_rows.iter_mut().zip(acc) {
            let vals: [f64; NR] = pulp::cast(*acc_row);
            let row = &mut row[j0..j0 + w];
            if accumulate {
                for (d, v) in row.iter_mut().zip(&vals) {
                    *d += alpha * v;
                }
            } else {
                for (d, v) in row.iter_mut().zip(&vals) {
                    *d = alpha * v;
                }
            }
        }
    }

    /// Interleaves up to `W` equally long lines into `dst` (`len · W` values):
    /// `dst[p · W + r] = lines[r][p]`. Lanes past the last line are left as they are.
    #[inline(always)]
    fn interleave<const W: usize>(lines: &[&[f64]], dst: &mut [f64]) {
        let (dst, _) = dst.as_chunks_mut::<W>();
        let len = dst.len();
        if let Ok(lines) = <&[&[f64]; W]>::try_from(lines) {
            let lines: [&[f64]; W] = std::array::from_fn(|r| &lines[r][..len]);
            for (p, d) in dst.iter_mut().enumerate() {
                for r in 0..W {
                    d[r] = lines[r][p];
                }
            }
        } else {
            for (r, line) in lines.iter().enumerate() {
                for (d, &v) in dst.iter_mut().zip(line.iter()) {
                    d[r] = v;
                }
            }
        }
    }

    /// Packs `b` `(kc, n)` into `ceil(n / NR)` panels, each `kc` rows of `NR` values, zero-padded
    /// on the right. `out` has exactly that length.
    #[inline(always)]
    fn pack_b(b: ArrayView2<f64>, flat: &mut [f64]) {
        let (kc, n) = b.dim();
        if n % NR != 0 {
            flat[(n / NR) * kc * NR..].fill(0.0);
        }
        if b.strides()[1] == 1 || n == 1 {
            for (p, row) in b.rows().into_iter().enumerate() {
                let row = row.to_slice().expect("unit column stride");
                let (full, tail) = row.as_chunks::<NR>();
                for (jp, chunk) in full.iter().enumerate() {
                    let at = (jp * kc + p) * NR;
                    flat[at..at + NR].copy_from_slice(chunk);
                }
                if !tail.is_empty() {
                    let at = (full.len() * kc + p) * NR;
                    flat[at..at + tail.len()].copy_from_slice(tail);
                }
            }
        } else if b.strides()[0] == 1 {
            let cols: Vec<&[f64]> = b
                .columns()
                .into_iter()
                .map(|col| col.to_slice().expect("unit row stride"))
                .collect();
            for (jp, group) in cols.chunks(NR).enumerate() {
                interleave::<NR>(group, &mut flat[jp * kc * NR..(jp + 1) * kc * NR]);
            }
        } else {
            for ((p, j), &v) in b.indexed_iter() {
                flat[((j / NR) * kc + p) * NR + j % NR] = v;
            }
        }
    }

    /// Packs `a` `(mc, kc)` into `ceil(mc / MR)` panels, each `kc` columns of `MR` values,
    /// zero-padded at the bottom. `out` has exactly that length.
    #[inline(always)]
    fn pack_a(a: ArrayView2<f64>, out: &mut [f64]) {
        let (mc, kc) = a.dim();
        if mc % MR != 0 {
            out[(mc / MR) * kc * MR..].fill(0.0);
        }
        if a.strides()[1] == 1 || kc == 1 {
            let rows: Vec<&[f64]> = a
                .rows()
                .into_iter()
                .map(|row| row.to_slice().expect("unit column stride"))
                .collect();
            for (ip, group) in rows.chunks(MR).enumerate() {
                interleave::<MR>(group, &mut out[ip * kc * MR..(ip + 1) * kc * MR]);
            }
        } else if a.strides()[0] == 1 {
            for (p, col) in a.columns().into_iter().enumerate() {
                let col = col.to_slice().expect("unit row stride");
                let (full, tail) = col.as_chunks::<MR>();
                for (ip, chunk) in full.iter().enumerate() {
                    let at = (ip * kc + p) * MR;
                    out[at..at + MR].copy_from_slice(chunk);
                }
                if !tail.is_empty() {
                    let at = (full.len() * kc + p) * MR;
                    out[at..at + tail.len()].copy_from_slice(tail);
                }
            }
        } else {
            for ((i, p), &v) in a.indexed_iter() {
                out[((i / MR) * kc + p) * MR + i % MR] = v;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndarray::{Array2, s};

    fn ramp(shape: (usize, usize), seed: usize) -> Array2<f64> {
        Array2::from_shape_fn(shape, |(i, j)| {
            ((i * 31 + j * 17 + seed) % 23) as f64 / 7.0 - 1.5
        })
    }

    fn reference(alpha: f64, a: ArrayView2<f64>, b: ArrayView2<f64>) -> Array2<f64> {
        let mut c = Array2::zeros((a.nrows(), b.ncols()));
        general_mat_mul(alpha, &a, &b, 0.0, &mut c);
        c
    }

    fn assert_close(got: &Array2<f64>, want: &Array2<f64>, case: &str) {
        let diff = got
            .iter()
            .zip(want)
            .fold(0.0f64, |m, (x, y)| m.max((x - y).abs()));
        assert!(diff < 1e-11, "{case}: max diff {diff:e}");
    }

    #[test]
    fn matches_general_mat_mul_on_edges_strides_and_depth_blocks() {
        // Odd sizes (partial 8-row and 16-column tiles), depth over one 256 block, narrow and
        // wide products, and operands that are transposed or strided.
        for &(m, k, n) in &[
            (1, 1, 1),
            (5, 3, 7),
            (8, 16, 16),
            (13, 300, 21),
            (70, 64, 33),
            (9, 520, 130),
        ] {
            let a = ramp((m, k), 1);
            let b = ramp((k, n), 2);
            let want = reference(0.7, a.view(), b.view());
            let case = format!("({m}, {k}) @ ({k}, {n})");
            let mut c = Array2::from_elem((m, n), f64::NAN);
            PackedB::new(b.view(), 1).matmul(0.7, a.view(), c.view_mut());
            assert_close(&c, &want, &case);

            let (at, bt) = (a.t().to_owned(), b.t().to_owned());
            let mut c = Array2::from_elem((m, n), f64::NAN);
            PackedB::new(bt.t(), 1).matmul(0.7, at.t(), c.view_mut());
            assert_close(&c, &want, &format!("{case}, transposed operands"));

            let (a2, b2) = (ramp((2 * m, 2 * k), 1), ramp((2 * k, 2 * n), 2));
            let (sa, sb) = (a2.slice(s![..;2, ..;2]), b2.slice(s![..;2, ..;2]));
            let mut wide = Array2::from_elem((m, n + 5), f64::NAN);
            PackedB::new(sb, 1).matmul(0.7, sa, wide.slice_mut(s![.., 2..n + 2]));
            assert_close(
                &wide.slice(s![.., 2..n + 2]).to_owned(),
                &reference(0.7, sa, sb),
                &format!("{case}, strided"),
            );
            assert!(
                wide.slice(s![.., ..2]).iter().all(|v| v.is_nan()),
                "{case}: wrote outside c"
            );

            for threads in [1, 2, 3] {
                let packed = PackedB::new(b.view(), threads);
                let mut c = Array2::from_elem((m, n), f64::NAN);
                packed.matmul(0.7, a.view(), c.view_mut());
                assert_close(&c, &want, &format!("{case}, packed over {threads} threads"));
            }
        }
    }

    #[test]
    fn prefix_products_use_the_leading_block() {
        let b = ramp((520, 45), 3);
        let packed = PackedB::new(b.view(), 2);
        for &(k, n) in &[(520, 45), (300, 17), (256, 16), (257, 1), (7, 44), (1, 45)] {
            let a = ramp((11, k), 4);
            let want = reference(1.3, a.view(), b.slice(s![..k, ..n]));
            let mut c = Array2::from_elem((11, n), f64::NAN);
            packed.matmul_prefix(1.3, a.view(), c.view_mut());
            assert_close(&c, &want, &format!("prefix ({k}, {n})"));
        }
    }
}
