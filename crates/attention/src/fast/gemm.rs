//! `c = alpha · a @ b` for `f64` matrices, single-threaded, with a SIMD micro-kernel per level.
//!
//! A classic packed GEMM (Goto / BLIS, in [`tiles`]): `b` is packed into `KC × NR` column
//! panels, `a` into `MR × KC` row panels, and an `MR × NR` micro-kernel keeps its block of `c` in
//! registers while it runs over `KC`. Right operands are packed with [`PackedB`] (the weight
//! matrices once per forward, keys and values once per head) into 64-byte aligned panels; a
//! narrow product reads the rows of `a` in place instead of packing them. The kernels use
//! `pulp`'s safe vector types, for the level picked at run time ([`Isa`]):
//!
//! | level | registers | micro-kernel `MR × NR` | `KC`, `MC` |
//! |---|---|---|---|
//! | AVX-512 (`V4`) | 32 × 512 bit | `8 × 16` (16 accumulators, 2 loads, 1 splat) | 512, 256 |
//! | AVX2 + FMA (`V3`) | 16 × 256 bit | `6 × 8` (12 accumulators, 2 loads, 1 splat) | 256, 96 (264 on AMD) |
//! | NEON (aarch64) | 32 × 128 bit | `6 × 8` (24 accumulators, 4 loads, 1 splat) | 256, 96 |
//!
//! Causal attention tells the kernels which register tiles it does not need ([`Skip`]): score
//! tiles wholly above the diagonal are not computed, and `weights @ v` stops each tile's depth
//! at its last row's diagonal.
//!
//! Elsewhere (no SIMD level, another architecture, or [`super::Kernel::Portable`] forced) the
//! product is [`ndarray::linalg::general_mat_mul`]. (`matrixmultiply`'s own AVX-512 kernel
//! reaches about half the speed of the AVX-512 one here on the benchmark machine: ~33 against
//! ~70 GFLOP/s per core.)

use super::kernel::Isa;
use ndarray::linalg::general_mat_mul;
use ndarray::{ArrayView2, ArrayViewMut2, s};

#[cfg(feature = "simd")]
pub(super) mod tiles;

/// The AVX-512 GEMM: `8 × 16` blocks of `c` in sixteen 8-lane accumulators. `KC = 512`
/// keeps the `D = 512` projections in one depth block.
#[cfg(all(feature = "simd", target_arch = "x86_64"))]
type Avx512 = tiles::Tiles<pulp::x86::V4, 8, 2, 16, 512>;
/// The AVX2 GEMM: `6 × 8` blocks of `c` in twelve 4-lane accumulators (with the two `b` vectors
/// and the splat, 15 of the 16 registers: wider tiles such as `4 × 12` spill). `KC = 256`: a
/// `KC × NR` panel of `b` (16 KiB) and the `MR × KC` panel of `a` streaming past it (12 KiB) fit
/// a 32 KiB L1 together, which with 512 (32 + 24 KiB) they did not. Its row block: [`avx2_mc`].
#[cfg(all(feature = "simd", target_arch = "x86_64"))]
type Avx2 = tiles::Tiles<pulp::x86::V3, 6, 2, 8, 256>;

/// Rows of `a` the GEMM of `isa` packs at a time on this CPU (its `MC`): AVX-512 256, AVX2
/// [`avx2_mc`], NEON 96 (unused by the portable path).
fn row_block(isa: Isa) -> usize {
    match isa {
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        Isa::Avx512(_) => 256,
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        Isa::Avx2(_) => avx2_mc(),
        #[cfg(all(feature = "simd", target_arch = "aarch64"))]
        Isa::Neon(_) => 96,
        Isa::Portable => 0,
    }
}

/// Rows of `a` the AVX2 GEMM packs at a time on this CPU: [`avx2_mc_for`] its vendor, read with
/// `cpuid` once per process.
#[cfg(all(feature = "simd", target_arch = "x86_64"))]
fn avx2_mc() -> usize {
    static MC: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *MC.get_or_init(|| {
        let id = std::arch::x86_64::__cpuid(0);
        let mut vendor = [0; 12];
        for (part, r) in vendor.chunks_exact_mut(4).zip([id.ebx, id.edx, id.ecx]) {
            part.copy_from_slice(&r.to_le_bytes());
        }
        avx2_mc_for(&vendor)
    })
}

/// Rows of `a` the AVX2 GEMM packs at a time on a CPU of this `cpuid` vendor (chosen with
/// `profile_blocking` and `scripts/race-forward.sh`; figures in `docs/bench-core.md`):
/// - **AMD (`AuthenticAMD`): 264**, the benchmark's `T = 256` rows in one block, so each panel
///   of the packed `b` is read from L3 once per product, not once per block.
/// - **Intel and any other vendor: 96**: on a Xeon with a 2 MiB L2, one block of 264 rows was
///   slower than blocks of 96.
#[cfg(all(feature = "simd", target_arch = "x86_64"))]
fn avx2_mc_for(vendor: &[u8; 12]) -> usize {
    if vendor == b"AuthenticAMD" { 264 } else { 96 }
}

/// The NEON GEMM: `6 × 8` blocks of `c` in twenty-four 2-lane accumulators (with the four `b`
/// vectors and the splat, 29 of the 32 registers). The blocking follows common aarch64 caches
/// (a `KC × NR` panel of `b`, 16 KiB, in a 64 KiB L1; the `MC × KC` block of `a`, 192 KiB, in L2);
/// it is not tuned: its tests run under an emulator (see `tests/neon_emulated.rs`).
#[cfg(all(feature = "simd", target_arch = "aarch64"))]
type Neon = tiles::Tiles<pulp::aarch64::Neon, 6, 4, 8, 256>;

/// Work a causal product can leave out, in whole register tiles, for rows `i` of `a` and `c`
/// that stand for queries `r0 + i`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Skip {
    /// Compute everything.
    None,
    /// Scores: `c[i, j]` for a key `j > r0 + i` is not needed (it is masked); register tiles
    /// entirely above that diagonal are not computed and those entries of `c` are left as they
    /// were. Entries that are computed may include some above the diagonal.
    MaskedC {
        /// The query of row 0.
        r0: usize,
    },
    /// Weights times values: `a[i, p]` is zero for `p > r0 + i`, so the depth of each register
    /// tile stops after its last row's diagonal (the terms left out are exact zeros).
    ZeroA {
        /// The query of row 0.
        r0: usize,
    },
}

/// A right operand `b` `(k, n)`, packed once for repeated products.
pub(crate) struct PackedB<'a> {
    /// The operand itself, for the fallback path.
    b: ArrayView2<'a, f64>,
    /// The level it is packed for.
    isa: Isa,
    /// Its panels (empty for [`Isa::Portable`]), starting at the 64-byte aligned offset `off`.
    buf: Vec<f64>,
    #[cfg_attr(not(feature = "simd"), allow(dead_code))]
    off: usize,
    /// Rows of `a` the level's GEMM packs at a time ([`row_block`]; the tests set others).
    #[cfg_attr(not(feature = "simd"), allow(dead_code))]
    mc: usize,
}

impl<'a> PackedB<'a> {
    /// Packs `b` `(k, n)` for the kernels of `isa`, the work split over `threads` threads.
    pub(crate) fn new(b: ArrayView2<'a, f64>, threads: usize, isa: Isa) -> Self {
        let (buf, off) = match isa {
            #[cfg(all(feature = "simd", target_arch = "x86_64"))]
            Isa::Avx512(_) => Avx512::pack_all(b, threads),
            #[cfg(all(feature = "simd", target_arch = "x86_64"))]
            Isa::Avx2(_) => Avx2::pack_all(b, threads),
            #[cfg(all(feature = "simd", target_arch = "aarch64"))]
            Isa::Neon(_) => Neon::pack_all(b, threads),
            Isa::Portable => {
                let _ = threads;
                (Vec::new(), 0)
            }
        };
        let mc = row_block(isa);
        Self {
            b,
            isa,
            buf,
            off,
            mc,
        }
    }

    /// The same operand with `a` packed `mc` rows at a time, whatever this CPU's choice: the
    /// tests run every level with each row block any CPU gets.
    #[cfg(test)]
    fn with_row_block(mut self, mc: usize) -> Self {
        self.mc = mc;
        self
    }

    /// `c = alpha · a @ b`: `a` is `(m, k)`, `c` is `(m, n)` (overwritten).
    pub(crate) fn matmul(&self, alpha: f64, a: ArrayView2<f64>, c: ArrayViewMut2<f64>) {
        debug_assert_eq!((a.ncols(), c.ncols()), self.b.dim());
        self.matmul_prefix(alpha, a, c, Skip::None);
    }

    /// `c = alpha · a @ b[..k', ..n']` with the leading block of `b` only: `a` is `(m, k')`,
    /// `c` is `(m, n')` (overwritten), `k' <= k`, `n' <= n`. (Causal attention multiplies by
    /// the keys and values seen so far.) `skip` tells the SIMD kernels which register tiles of
    /// a causal product they can leave out (the portable path computes everything).
    pub(crate) fn matmul_prefix(
        &self,
        alpha: f64,
        a: ArrayView2<f64>,
        c: ArrayViewMut2<f64>,
        skip: Skip,
    ) {
        let (k, n) = (a.ncols(), c.ncols());
        assert!(k <= self.b.nrows() && n <= self.b.ncols() && a.nrows() == c.nrows());
        match self.isa {
            #[cfg(all(feature = "simd", target_arch = "x86_64"))]
            Isa::Avx512(simd) if tiles::fits(a, c.view()) => {
                let dim = self.b.dim();
                let panels = &self.buf[self.off..self.off + Avx512::packed_len(dim.0, dim.1)];
                return Avx512::matmul(simd, alpha, a, panels, dim, c, skip, self.mc);
            }
            #[cfg(all(feature = "simd", target_arch = "x86_64"))]
            Isa::Avx2(simd) if tiles::fits(a, c.view()) => {
                let dim = self.b.dim();
                let panels = &self.buf[self.off..self.off + Avx2::packed_len(dim.0, dim.1)];
                return Avx2::matmul(simd, alpha, a, panels, dim, c, skip, self.mc);
            }
            #[cfg(all(feature = "simd", target_arch = "aarch64"))]
            Isa::Neon(simd) if tiles::fits(a, c.view()) => {
                let dim = self.b.dim();
                let panels = &self.buf[self.off..self.off + Neon::packed_len(dim.0, dim.1)];
                return Neon::matmul(simd, alpha, a, panels, dim, c, skip, self.mc);
            }
            // The portable path computes every tile; `skip` only saves work.
            _ => {
                let _ = skip;
            }
        }
        let mut c = c;
        general_mat_mul(alpha, &a, &self.b.slice(s![..k, ..n]), 0.0, &mut c);
    }
}

impl Drop for PackedB<'_> {
    fn drop(&mut self) {
        if self.buf.capacity() > 0 {
            crate::fast::pool::give(std::mem::take(&mut self.buf));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::Kernel;
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

    /// Every level this CPU can run.
    fn levels() -> Vec<Isa> {
        let isas: Vec<Isa> = Kernel::ALL.into_iter().map(Isa::new).collect();
        Kernel::ALL
            .into_iter()
            .zip(isas)
            .filter(|(k, isa)| isa.kernel() == *k)
            .map(|(_, isa)| isa)
            .collect()
    }

    /// Row blocks to test every level with: each one a level uses on some CPU (AVX2: 96, or 264
    /// on AMD; AVX-512: 256), and a small one that is not a multiple of any level's `MR`.
    const ROW_BLOCKS: [usize; 4] = [7, 96, 256, 264];

    /// Each level with each of [`ROW_BLOCKS`].
    fn with_row_blocks(levels: Vec<Isa>) -> impl Iterator<Item = (Isa, usize)> {
        levels
            .into_iter()
            .flat_map(|isa| ROW_BLOCKS.map(|mc| (isa, mc)))
    }

    #[cfg(all(feature = "simd", target_arch = "x86_64"))]
    #[test]
    fn the_avx2_row_block_follows_the_vendor() {
        assert_eq!(avx2_mc_for(b"AuthenticAMD"), 264);
        assert_eq!(avx2_mc_for(b"GenuineIntel"), 96);
        assert_eq!(avx2_mc_for(b"HygonGenuine"), 96);
        // This CPU gets one of the row blocks the GEMM tests run every level with.
        assert!(ROW_BLOCKS.contains(&avx2_mc()));
    }

    /// `b` packed for `isa` with row block `mc`.
    fn packed(b: ArrayView2<'_, f64>, threads: usize, isa: Isa, mc: usize) -> PackedB<'_> {
        PackedB::new(b, threads, isa).with_row_block(mc)
    }

    fn assert_close(got: &Array2<f64>, want: &Array2<f64>, case: &str) {
        // A NaN (an entry left unwritten) counts as an infinite difference.
        let diff = got.iter().zip(want).fold(0.0f64, |m, (x, y)| {
            let d = (x - y).abs();
            if d.is_nan() { f64::INFINITY } else { m.max(d) }
        });
        assert!(diff < 1e-11, "{case}: max diff {diff:e}");
    }

    #[test]
    fn every_level_matches_general_mat_mul_on_edges_strides_and_depth_blocks() {
        // Odd sizes (partial row and column tiles of both levels), depths over one 256 and one
        // 512 block, more rows than one row block of any level (96, 256, 264), narrow and wide
        // products, and operands that are transposed or strided.
        let levels = levels();
        assert!(levels.iter().any(|isa| matches!(isa, Isa::Portable)));
        for (isa, mc) in with_row_blocks(levels) {
            for &(m, k, n) in &[
                (1, 1, 1),
                (5, 3, 7),
                (8, 16, 16),
                (13, 300, 21),
                (70, 64, 33),
                (9, 520, 130),
                (150, 260, 70),
                (301, 40, 70),
            ] {
                let a = ramp((m, k), 1);
                let b = ramp((k, n), 2);
                let want = reference(0.7, a.view(), b.view());
                let case = format!("{:?}, mc {mc}: ({m}, {k}) @ ({k}, {n})", isa.kernel());
                let mut c = Array2::from_elem((m, n), f64::NAN);
                packed(b.view(), 1, isa, mc).matmul(0.7, a.view(), c.view_mut());
                assert_close(&c, &want, &case);

                let (at, bt) = (a.t().to_owned(), b.t().to_owned());
                let mut c = Array2::from_elem((m, n), f64::NAN);
                packed(bt.t(), 1, isa, mc).matmul(0.7, at.t(), c.view_mut());
                assert_close(&c, &want, &format!("{case}, transposed operands"));

                let (a2, b2) = (ramp((2 * m, 2 * k), 1), ramp((2 * k, 2 * n), 2));
                let (sa, sb) = (a2.slice(s![..;2, ..;2]), b2.slice(s![..;2, ..;2]));
                let mut wide = Array2::from_elem((m, n + 5), f64::NAN);
                packed(sb, 1, isa, mc).matmul(0.7, sa, wide.slice_mut(s![.., 2..n + 2]));
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
                    let mut c = Array2::from_elem((m, n), f64::NAN);
                    packed(b.view(), threads, isa, mc).matmul(0.7, a.view(), c.view_mut());
                    assert_close(&c, &want, &format!("{case}, packed over {threads} threads"));
                }
            }
        }
    }

    #[test]
    fn prefix_products_use_the_leading_block() {
        let b = ramp((520, 45), 3);
        for isa in levels() {
            let packed = PackedB::new(b.view(), 2, isa);
            for &(k, n) in &[(520, 45), (300, 17), (256, 16), (257, 1), (7, 44), (1, 45)] {
                let a = ramp((11, k), 4);
                let want = reference(1.3, a.view(), b.slice(s![..k, ..n]));
                let mut c = Array2::from_elem((11, n), f64::NAN);
                packed.matmul_prefix(1.3, a.view(), c.view_mut(), Skip::None);
                assert_close(&c, &want, &format!("{:?}: prefix ({k}, {n})", isa.kernel()));
            }
        }
    }

    #[test]
    fn causal_skips_leave_out_only_masked_or_zero_work() {
        // Row `i` of `a` and `c` is query `r0 + i`. Sizes: partial tiles, narrow (rows of `a`
        // read in place) and wide products, a strided `a` (packed even when narrow), and a depth
        // over one 512 block; row blocks that split the rows.
        for (isa, mc) in with_row_blocks(levels()) {
            for &(r0, m, k, n) in &[
                (0, 13, 13, 40),
                (5, 11, 16, 21),
                (64, 64, 128, 70),
                (48, 48, 96, 96),
                (500, 30, 530, 17),
                (0, 40, 40, 9),
                (1, 24, 32, 40),
                (2, 30, 40, 48),
            ] {
                let case = format!(
                    "{:?}, mc {mc}: r0 {r0}, ({m}, {k}) @ ({k}, {n})",
                    isa.kernel()
                );
                // Scores: only entries (i, j) with j <= r0 + i are compared.
                let (a, b) = (ramp((m, k), 5), ramp((k, n), 6));
                let want = reference(0.5, a.view(), b.view());
                let mut c = Array2::from_elem((m, n), f64::NAN);
                let skip = Skip::MaskedC { r0 };
                packed(b.view(), 1, isa, mc).matmul_prefix(0.5, a.view(), c.view_mut(), skip);
                let mut seen = c.clone();
                seen.indexed_iter_mut()
                    .filter(|((i, j), _)| *j > r0 + i)
                    .for_each(|(ij, v)| *v = want[ij]);
                assert_close(&seen, &want, &format!("{case}, masked c"));

                // Weights times values: `a` is zero above the diagonal.
                let mut a = ramp((m, k), 7);
                a.indexed_iter_mut()
                    .filter(|((i, p), _)| *p > r0 + i)
                    .for_each(|(_, v)| *v = 0.0);
                let want = reference(1.0, a.view(), b.view());
                let at = a.t().to_owned();
                for a in [a.view(), at.t()] {
                    let mut c = Array2::from_elem((m, n), f64::NAN);
                    let skip = Skip::ZeroA { r0 };
                    packed(b.view(), 1, isa, mc).matmul_prefix(1.0, a, c.view_mut(), skip);
                    assert_close(&c, &want, &format!("{case}, zero a"));
                }
            }
        }
    }
}
