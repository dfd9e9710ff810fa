//! The packed GEMM itself, generic over the vector width: [`Tiles`] with an `MR × NR` register
//! block (`NR = NV` vectors of [`Lanes::W`] lanes), instantiated for AVX-512, AVX2+FMA and NEON.
//!
//! Everything here runs inside `pulp`'s `vectorize` (see [`Lanes::vectorize`]) and is reached
//! through `#[inline(always)]` calls only, never a closure, so that it is compiled for the
//! level's instruction set.

use super::Skip;
use ndarray::{ArrayView2, ArrayViewMut2, s};
use pulp::NullaryFnOnce;
use pulp::bytemuck::{Pod, cast_slice, cast_slice_mut};
use std::cell::RefCell;
use std::marker::PhantomData;

/// One SIMD level as the kernel sees it: a vector of `W` `f64` lanes, a splat and a fused
/// multiply-add, plus the cache blocking that suits it.
pub(crate) trait Lanes: Copy {
    /// `W` lanes of `f64`.
    type V: Copy + Pod;
    /// Lanes per vector.
    const W: usize;
    /// `[x; W]`.
    fn splat(self, x: f64) -> Self::V;
    /// `a · b + c`, fused.
    fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// Runs `f` compiled with this level's target features.
    fn vectorize<F: NullaryFnOnce>(self, f: F) -> F::Output;
}

/// `impl Lanes` for a `pulp` level: its vector type, lane count, splat and fused multiply-add.
macro_rules! lanes {
    ($(#[$meta:meta])* $level:ty, $vector:ty, $w:literal, $splat:ident, $mul_add:ident) => {
        $(#[$meta])*
        impl Lanes for $level {
            type V = $vector;
            const W: usize = $w;
            #[inline(always)]
            fn splat(self, x: f64) -> Self::V {
                self.$splat(x)
            }
            #[inline(always)]
            fn mul_add(self, a: Self::V, b: Self::V, c: Self::V) -> Self::V {
                self.$mul_add(a, b, c)
            }
            fn vectorize<F: NullaryFnOnce>(self, f: F) -> F::Output {
                <$level>::vectorize(self, f)
            }
        }
    };
}

lanes!(
    /// AVX-512: 32 registers of 512 bits.
    #[cfg(all(feature = "simd", target_arch = "x86_64"))]
    pulp::x86::V4, pulp::f64x8, 8, splat_f64x8, mul_add_f64x8
);
lanes!(
    /// AVX2 + FMA: 16 registers of 256 bits.
    #[cfg(all(feature = "simd", target_arch = "x86_64"))]
    pulp::x86::V3, pulp::f64x4, 4, splat_f64x4, mul_add_f64x4
);
lanes!(
    /// NEON: 32 registers of 128 bits.
    #[cfg(all(feature = "simd", target_arch = "aarch64"))]
    pulp::aarch64::Neon, pulp::f64x2, 2, splat_f64x2, mul_add_f64x2
);

/// A packed GEMM whose micro-kernel keeps an `MR × NR` block of `c` in `MR · NV` vector
/// registers (`NR = NV · W`), over depth blocks of `KC` rows of `b` and row blocks of `mc` rows
/// of `a` (a run-time argument of [`Tiles::matmul`]: the `mc × KC` values of `a` stay in the L2
/// cache, and which `mc` is fastest differs between CPUs of one level).
pub(crate) struct Tiles<S, const MR: usize, const NV: usize, const NR: usize, const KC: usize>(
    PhantomData<S>,
);

thread_local! {
    /// Per-thread packing buffer for `a`, reused across calls.
    static APACK: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Whether the packed path applies: a non-empty depth and contiguous rows of `c`.
pub(crate) fn fits(a: ArrayView2<f64>, c: ArrayView2<f64>) -> bool {
    a.ncols() > 0 && (c.ncols() <= 1 || c.strides()[1] == 1)
}

impl<S: Lanes, const MR: usize, const NV: usize, const NR: usize, const KC: usize>
    Tiles<S, MR, NV, NR, KC>
{
    /// Checked at compile time for every instantiation.
    const SHAPE_OK: () = assert!(NR == NV * S::W && MR > 0 && NV > 0 && KC > 0);
    /// Widest product whose left operand is read in place rather than packed (`weights @ v`
    /// with heads of up to 64 values).
    const UNPACKED_A_MAX_N: usize = 64;

    /// Length in `f64` of `b` `(k, n)` once packed: `ceil(n / NR)` panels of `k × NR`.
    pub(crate) fn packed_len(k: usize, n: usize) -> usize {
        n.div_ceil(NR) * NR * k
    }

    /// Packs a whole right operand `b` `(k, n)`, one block of panels per `KC` rows in order, the
    /// panels of each block shared out over `threads` threads. Returns the buffer and the offset
    /// of the (64-byte aligned) packed data in it.
    pub(crate) fn pack_all(b: ArrayView2<f64>, threads: usize) -> (Vec<f64>, usize) {
        let () = Self::SHAPE_OK;
        let (k, n) = b.dim();
        let panels = n.div_ceil(NR);
        let len = Self::packed_len(k, n);
        let mut buf = crate::fast::pool::take(len + crate::fast::pool::ALIGN_SPARE);
        let off = crate::fast::pool::aligned_offset(&buf);
        let mut rest = &mut buf[off..off + len];
        let per_task = panels.div_ceil(threads.max(1)).max(1);
        let mut tasks = Vec::new();
        for pc in (0..k).step_by(KC) {
            let kc = KC.min(k - pc);
            let (block, tail) = std::mem::take(&mut rest).split_at_mut(Self::packed_len(kc, n));
            rest = tail;
            for (t, part) in block.chunks_mut(per_task * NR * kc).enumerate() {
                let j0 = t * per_task * NR;
                let j1 = (j0 + per_task * NR).min(n);
                tasks.push((b.slice(s![pc..pc + kc, j0..j1]), part));
            }
        }
        crate::fast::run_split_with(
            tasks,
            threads,
            || (),
            |(), (bb, part)| Self::pack_b(bb, part),
        );
        (buf, off)
    }

    /// `c = alpha · a @ b[..k, ..n]` where `panels` holds the whole packed `b` `(k_all, n_all)`,
    /// `a` is `(m, k)` and `c` `(m, n)` (overwritten), `a` packed `mc > 0` rows at a time. The
    /// caller checked [`fits`].
    #[allow(clippy::too_many_arguments)] // the operands, what to skip and the row block
    pub(crate) fn matmul(
        simd: S,
        alpha: f64,
        a: ArrayView2<f64>,
        panels: &[f64],
        (k_all, n_all): (usize, usize),
        c: ArrayViewMut2<f64>,
        skip: Skip,
        mc: usize,
    ) {
        assert!(mc > 0, "a row block of a GEMM has at least one row");
        APACK.with(|apack| {
            simd.vectorize(Gemm::<S, MR, NV, NR, KC> {
                simd,
                alpha,
                a,
                panels,
                k_all,
                n_all,
                c,
                skip,
                mc,
                apack: &mut apack.borrow_mut(),
            })
        });
    }

    /// `c = alpha · a @ b`, `a` `(m, k)`, over the depth blocks of `b` (`depth[i]` holds block
    /// `i`'s panels, of `stride >= kc` rows each, at least `ceil(n / NR)` of them).
    ///
    /// Loop order: for each block of `mc` rows of `a` (packed whole, every depth block), for each
    /// column panel `jp` of `b`, for each depth block, for each row panel of `a`. A depth slice
    /// of a `b` panel (`KC × NR`) stays in the L1 cache while the row panels of `a` stream from
    /// L2, and the `mc × NR` column of `c` that the depth blocks add into stays in L1 too when
    /// the rows of `c` do not all map to the same cache sets (rows a multiple of 4 KiB apart do:
    /// the forward pads its own buffers' rows, see `fast/scratch.rs`).
    #[allow(clippy::too_many_arguments)] // as `matmul`, and the buffer `a` is packed into
    #[inline(always)]
    fn packed(
        simd: S,
        alpha: f64,
        a: ArrayView2<f64>,
        depth: &[DepthBlock<'_, S::V>],
        c_rows: &mut [&mut [f64]],
        skip: Skip,
        block_rows: usize,
        apack: &mut Vec<f64>,
    ) {
        let (m, k) = a.dim();
        let n = c_rows.first().map_or(0, |row| row.len());
        for ic in (0..m).step_by(block_rows) {
            let mc = block_rows.min(m - ic);
            // Row panels of `MR` rows, depth block by depth block: block `pc` of row panel `ip`
            // is `apack[rows · pc + ip · MR · kc..][..MR · kc]`.
            let rows = mc.div_ceil(MR) * MR;
            apack.resize(rows * k, 0.0);
            for blk in depth {
                let at = rows * blk.pc;
                Self::pack_a(
                    a.slice(s![ic..ic + mc, blk.pc..blk.pc + blk.kc]),
                    &mut apack[at..at + rows * blk.kc],
                );
            }
            for j0 in (0..n).step_by(NR) {
                let jp = j0 / NR;
                let w = NR.min(n - j0);
                for blk in depth {
                    let bpanel = &blk.panels[jp * NV * blk.stride..][..NV * blk.kc];
                    let ablock = &apack[rows * blk.pc..rows * (blk.pc + blk.kc)];
                    for (ip, apanel) in ablock.chunks_exact(MR * blk.kc).enumerate() {
                        let i0 = ic + ip * MR;
                        let end = (i0 + MR).min(ic + mc);
                        let Some(kc) = skip.depth(i0..end, j0, blk) else {
                            continue;
                        };
                        let acc = Self::kernel(simd, &apanel[..MR * kc], &bpanel[..NV * kc]);
                        Self::store(simd, alpha, &acc, &mut c_rows[i0..end], j0, w, blk.pc > 0);
                    }
                }
            }
        }
    }

    /// `c (+)= alpha · a @ b` for one depth block `blk`, reading the (contiguous) rows of `a`
    /// `(m, kc)` in place: `MR` row streams, for narrow products (`weights @ v`), where packing
    /// `a` would not pay off.
    #[inline(always)]
    fn unpacked(
        simd: S,
        alpha: f64,
        a: ArrayView2<f64>,
        blk: &DepthBlock<'_, S::V>,
        c_rows: &mut [&mut [f64]],
        skip: Skip,
    ) {
        let (m, kc) = a.dim();
        let n = c_rows.first().map_or(0, |row| row.len());
        let a_rows: Vec<&[f64]> = a
            .rows()
            .into_iter()
            .map(|row| row.to_slice().expect("a rows are contiguous"))
            .collect();
        for j0 in (0..n).step_by(NR) {
            let jp = j0 / NR;
            let w = NR.min(n - j0);
            let bpanel = &blk.panels[jp * NV * blk.stride..][..NV * kc];
            for i0 in (0..m).step_by(MR) {
                let end = (i0 + MR).min(m);
                let Some(kc) = skip.depth(i0..end, j0, blk) else {
                    continue;
                };
                // Rows past the end repeat the last row; their results are not stored.
                let rows: [&[f64]; MR] =
                    std::array::from_fn(|i| &a_rows[(i0 + i).min(m - 1)][..kc]);
                let acc = Self::kernel_rows(simd, rows, &bpanel[..NV * kc]);
                Self::store(simd, alpha, &acc, &mut c_rows[i0..end], j0, w, blk.pc > 0);
            }
        }
    }

    #[inline(always)]
    fn zero() -> S::V {
        pulp::bytemuck::Zeroable::zeroed()
    }

    /// `MR × NR` block of `A_panel @ B_panel` over the packed depth, four depth steps per loop
    /// iteration (fewer loop branches per FMA; faster than one step with both kernels).
    #[inline(always)]
    fn kernel(simd: S, apanel: &[f64], bpanel: &[S::V]) -> [[S::V; NV]; MR] {
        let mut acc = [[Self::zero(); NV]; MR];
        let (ap, _) = apanel.as_chunks::<MR>();
        let (bp, _) = bpanel.as_chunks::<NV>();
        let steps = ap.len().min(bp.len());
        let (ap4, ap_rest) = ap[..steps].as_chunks::<4>();
        let (bp4, bp_rest) = bp[..steps].as_chunks::<4>();
        for (ap, bv) in ap4.iter().zip(bp4) {
            for u in 0..4 {
                Self::step(simd, &mut acc, &ap[u], &bv[u]);
            }
        }
        for (ap, bv) in ap_rest.iter().zip(bp_rest) {
            Self::step(simd, &mut acc, ap, bv);
        }
        acc
    }

    /// One depth step: `acc[i] += a[i] · b` for the `MR` rows.
    #[inline(always)]
    fn step(simd: S, acc: &mut [[S::V; NV]; MR], a: &[f64; MR], b: &[S::V; NV]) {
        for i in 0..MR {
            let ai = simd.splat(a[i]);
            for v in 0..NV {
                acc[i][v] = simd.mul_add(ai, b[v], acc[i][v]);
            }
        }
    }

    /// Same as [`Self::kernel`], reading `MR` rows of `a` (each of the packed depth) in place.
    #[inline(always)]
    fn kernel_rows(simd: S, rows: [&[f64]; MR], bpanel: &[S::V]) -> [[S::V; NV]; MR] {
        let mut acc = [[Self::zero(); NV]; MR];
        let (bp, _) = bpanel.as_chunks::<NV>();
        let kc = bp.len();
        let rows = rows.map(|row| &row[..kc]);
        for (p, bv) in bp.iter().enumerate() {
            for i in 0..MR {
                let ai = simd.splat(rows[i][p]);
                for v in 0..NV {
                    acc[i][v] = simd.mul_add(ai, bv[v], acc[i][v]);
                }
            }
        }
        acc
    }

    /// Columns `j0..j0 + w` of `c_rows` (at most `MR` rows) `= alpha · acc`, or `+=` when
    /// `accumulate`.
    #[inline(always)]
    fn store(
        simd: S,
        alpha: f64,
        acc: &[[S::V; NV]; MR],
        c_rows: &mut [&mut [f64]],
        j0: usize,
        w: usize,
        accumulate: bool,
    ) {
        let alpha_v = simd.splat(alpha);
        // `alpha · x + (-0.0)` is `alpha · x` exactly, the sign of a zero product included.
        let neg_zero = simd.splat(-0.0);
        for (row, acc_row) in c_rows.iter_mut().zip(acc) {
            // A whole tile row as `NV` vectors of `c` (unaligned: `pulp`'s vectors align to an
            // `f64`): plain vector moves, where the loop below (any width) compiles to masked
            // loads and stores (`vmaskmovpd`, microcoded on some AMD cores).
            if w == NR
                && let Some(whole) = row[j0..].first_chunk_mut::<NR>()
            {
                let c: &mut [S::V] = cast_slice_mut(&mut whole[..]);
                for (c, a) in c.iter_mut().zip(acc_row) {
                    *c = simd.mul_add(alpha_v, *a, if accumulate { *c } else { neg_zero });
                }
                continue;
            }
            let vals: &[f64] = cast_slice(&acc_row[..]);
            let row = &mut row[j0..j0 + w];
            if accumulate {
                for (d, v) in row.iter_mut().zip(vals) {
                    *d += alpha * v;
                }
            } else {
                for (d, v) in row.iter_mut().zip(vals) {
                    *d = alpha * v;
                }
            }
        }
    }

    /// Packs `b` `(kc, n)` into `ceil(n / NR)` panels, each `kc` rows of `NR` values,
    /// zero-padded on the right. `flat` has exactly that length.
    fn pack_b(b: ArrayView2<f64>, flat: &mut [f64]) {
        let (kc, n) = b.dim();
        if n % NR != 0 {
            flat[(n / NR) * kc * NR..].fill(0.0);
        }
        if b.strides()[1] == 1 || n == 1 {
            // A few rows at a time, panel by panel: the writes go to a short contiguous run of
            // each panel, instead of one row across every panel (a page apart for wide `b`).
            const ROWS: usize = 16;
            let rows: Vec<&[f64]> = b
                .rows()
                .into_iter()
                .map(|row| row.to_slice().expect("unit column stride"))
                .collect();
            for (g, group) in rows.chunks(ROWS).enumerate() {
                let p0 = g * ROWS;
                // Panel `jp`'s rows `p0..p0 + group.len()`.
                let span = |jp: usize| (jp * kc + p0) * NR..(jp * kc + p0 + group.len()) * NR;
                // Whole panels with fixed-size copies (inlined moves, where one loop with the
                // partial panel's variable length became a `memcpy` call per row).
                for jp in 0..n / NR {
                    let (out, _) = flat[span(jp)].as_chunks_mut::<NR>();
                    for (d, row) in out.iter_mut().zip(group) {
                        let (src, _) = row[jp * NR..]
                            .split_first_chunk::<NR>()
                            .expect("whole panel");
                        *d = *src;
                    }
                }
                if n % NR != 0 {
                    let (jp, w) = (n / NR, n % NR);
                    let (out, _) = flat[span(jp)].as_chunks_mut::<NR>();
                    for (d, row) in out.iter_mut().zip(group) {
                        d[..w].copy_from_slice(&row[jp * NR..]);
                    }
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

/// The whole product, run inside [`Lanes::vectorize`] so the kernel is compiled for the level.
struct Gemm<'a, S, const MR: usize, const NV: usize, const NR: usize, const KC: usize> {
    simd: S,
    alpha: f64,
    a: ArrayView2<'a, f64>,
    /// The panels of the whole right operand `(k_all, n_all)`.
    panels: &'a [f64],
    k_all: usize,
    n_all: usize,
    c: ArrayViewMut2<'a, f64>,
    skip: Skip,
    /// Rows of `a` packed at a time.
    mc: usize,
    apack: &'a mut Vec<f64>,
}

impl<S: Lanes, const MR: usize, const NV: usize, const NR: usize, const KC: usize> NullaryFnOnce
    for Gemm<'_, S, MR, NV, NR, KC>
{
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
            skip,
            mc,
            apack,
        } = self;
        // Only the first `k` rows and `c.ncols()` columns of the operand are used: whole depth
        // blocks, then a prefix of the last one, of the leading panels.
        let ((m, k), n) = (a.dim(), c.ncols());
        if m == 0 || n == 0 {
            return;
        }
        let per_row = Tiles::<S, MR, NV, NR, KC>::packed_len(1, n_all);
        let depth: Vec<DepthBlock<'_, S::V>> = (0..k)
            .step_by(KC)
            .map(|pc| {
                let stride = KC.min(k_all - pc);
                DepthBlock {
                    pc,
                    kc: KC.min(k - pc),
                    stride,
                    panels: cast_slice(&panels[pc * per_row..(pc + stride) * per_row]),
                }
            })
            .collect();
        let mut c_rows: Vec<&mut [f64]> = c
            .rows_mut()
            .into_iter()
            .map(|row| row.into_slice().expect("c rows are contiguous"))
            .collect();
        // Packing `a` pays off when each of its panels meets many panels of `b`; a narrow
        // product (`weights @ v`) reads contiguous rows of `a` in place instead.
        if n <= Tiles::<S, MR, NV, NR, KC>::UNPACKED_A_MAX_N && (a.strides()[1] == 1 || k == 1) {
            for blk in &depth {
                let ab = a.slice(s![.., blk.pc..blk.pc + blk.kc]);
                Tiles::<S, MR, NV, NR, KC>::unpacked(simd, alpha, ab, blk, &mut c_rows, skip);
            }
        } else {
            Tiles::<S, MR, NV, NR, KC>::packed(
                simd,
                alpha,
                a,
                &depth,
                &mut c_rows,
                skip,
                mc,
                apack,
            );
        }
    }
}

impl Skip {
    /// How much of depth block `blk` the register tile of rows `rows` (non-empty) and columns
    /// from `j0` needs: `None` to leave the tile out of this block, else its depth `1..=blk.kc`.
    /// A tile left out of a block after the first keeps what the earlier blocks stored.
    #[inline(always)]
    fn depth<V>(
        self,
        rows: std::ops::Range<usize>,
        j0: usize,
        blk: &DepthBlock<'_, V>,
    ) -> Option<usize> {
        // The last query of the tile.
        let last = |r0: usize| r0 + rows.end - 1;
        match self {
            Skip::None => Some(blk.kc),
            Skip::MaskedC { r0 } => (j0 <= last(r0)).then_some(blk.kc),
            Skip::ZeroA { r0 } => {
                let kc = (last(r0) + 1).saturating_sub(blk.pc).min(blk.kc);
                (kc > 0).then_some(kc)
            }
        }
    }
}

/// One depth block of a packed right operand: rows `pc..pc + kc` of it are used, out of panels
/// of `stride` rows.
struct DepthBlock<'a, V> {
    pc: usize,
    kc: usize,
    stride: usize,
    panels: &'a [V],
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
