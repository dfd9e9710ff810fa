//! Row softmax with a vectorised `exp`, same contract as [`crate::softmax::softmax_row`].
//!
//! With a SIMD level (AVX-512 or AVX2 + FMA) the row runs through a polynomial `exp` (range
//! reduction by `ln 2`, degree-13 Taylor polynomial, exponent bits set directly) that LLVM turns
//! into 8- or 4-lane code; it is within a few ulp of `f64::exp`. With the portable kernels this
//! is the reference softmax with `f64::exp`.

use super::kernel::Isa;
use ndarray::ArrayViewMut2;

/// Softmax of every row of `rows`, in place, with the kernels of `isa`; a row that is all `-inf`
/// becomes all zeros.
///
/// With `causal = Some(r0)`, `rows` holds the scores of queries `r0, r0 + 1, ...` against keys
/// `0..`: row `i` (query `r0 + i`) is soft-maxed over its first `r0 + i + 1` entries and the
/// rest of it is set to zero.
pub(crate) fn softmax_rows(rows: ArrayViewMut2<f64>, causal: Option<usize>, isa: Isa) {
    match isa {
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        Isa::Avx512(simd) => simd.vectorize(Rows { rows, causal }),
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        Isa::Avx2(simd) => simd.vectorize(Rows { rows, causal }),
        #[cfg(all(feature = "simd", target_arch = "aarch64"))]
        Isa::Neon(simd) => simd.vectorize(Rows { rows, causal }),
        Isa::Portable => softmax_rows_impl::<false>(rows, causal),
    }
}

/// All the rows, run inside `vectorize` so that the loops are compiled for the SIMD level.
#[cfg(all(feature = "simd", any(target_arch = "x86_64", target_arch = "aarch64")))]
struct Rows<'a> {
    rows: ArrayViewMut2<'a, f64>,
    causal: Option<usize>,
}

#[cfg(all(feature = "simd", any(target_arch = "x86_64", target_arch = "aarch64")))]
impl pulp::NullaryFnOnce for Rows<'_> {
    type Output = ();

    #[inline(always)]
    fn call(self) {
        softmax_rows_impl::<true>(self.rows, self.causal);
    }
}

#[inline(always)]
fn softmax_rows_impl<const POLY: bool>(mut rows: ArrayViewMut2<f64>, causal: Option<usize>) {
    for (i, mut row) in rows.rows_mut().into_iter().enumerate() {
        let row = row.as_slice_mut().expect("rows are contiguous");
        match causal {
            None => softmax_impl::<POLY>(row),
            Some(r0) => {
                let (seen, masked) = row.split_at_mut((r0 + i + 1).min(row.len()));
                softmax_impl::<POLY>(seen);
                masked.fill(0.0);
            }
        }
    }
}

/// Independent partial maxima and sums: four 8-lane vectors, so that the reductions are not one
/// long dependency chain.
const L: usize = 32;

#[inline(always)]
fn softmax_impl<const POLY: bool>(row: &mut [f64]) {
    let mut lane_max = [f64::NEG_INFINITY; L];
    let (chunks, rest) = row.as_chunks::<L>();
    // Not `f64::max`: its NaN rule costs a compare and a blend per vector.
    let larger = |a: f64, b: f64| if b > a { b } else { a };
    for chunk in chunks {
        for j in 0..L {
            lane_max[j] = larger(lane_max[j], chunk[j]);
        }
    }
    // The rest (up to L - 1 values: causal rows have any length) four lanes at a time, then
    // one by one.
    let (quads, rest) = rest.as_chunks::<4>();
    for quad in quads {
        for j in 0..4 {
            lane_max[j] = larger(lane_max[j], quad[j]);
        }
    }
    let mut max = fold_lanes(lane_max, larger);
    for &v in rest {
        max = max.max(v);
    }
    if max == f64::NEG_INFINITY {
        row.fill(0.0);
        return;
    }
    // Separate passes keep each loop simple enough for LLVM to vectorise: a plain map, then a
    // sum over independent lanes.
    for v in row.iter_mut() {
        *v = exp_shifted::<POLY>(*v - max);
    }
    let mut lane_sum = [0.0; L];
    let (chunks, rest) = row.as_chunks::<L>();
    for chunk in chunks {
        for j in 0..L {
            lane_sum[j] += chunk[j];
        }
    }
    let (quads, rest) = rest.as_chunks::<4>();
    for quad in quads {
        for j in 0..4 {
            lane_sum[j] += quad[j];
        }
    }
    let sum = rest.iter().sum::<f64>() + fold_lanes(lane_sum, |a, b| a + b);
    let inv = 1.0 / sum;
    for v in row.iter_mut() {
        *v *= inv;
    }
}

/// Folds the `L` lanes with `f` as a tree (8-lane vector steps first), not as one long chain.
#[inline(always)]
fn fold_lanes(lanes: [f64; L], f: impl Fn(f64, f64) -> f64) -> f64 {
    let mut width = L;
    let mut lanes = lanes;
    while width > 1 {
        width /= 2;
        for j in 0..width {
            lanes[j] = f(lanes[j], lanes[j + width]);
        }
    }
    lanes[0]
}

/// `exp(x)` for `x <= 0` (a score minus its row maximum). With `POLY`, a branch-free polynomial
/// that returns `0.0` below `-708` (where `exp` is under `3.4e-308` anyway) and for `-inf`.
#[inline(always)]
fn exp_shifted<const POLY: bool>(x: f64) -> f64 {
    if !POLY {
        return x.exp();
    }
    // ln 2 split so that n · LN2_HI is exact (fdlibm's constants).
    const LN2_HI: f64 = f64::from_bits(0x3FE6_2E42_FEE0_0000); // 6.93147180369123816490e-1
    const LN2_LO: f64 = f64::from_bits(0x3DEA_39EF_3579_3C76); // 1.90821492927058770002e-10
    const INV_FACT: [f64; 14] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40320.0,
        1.0 / 362_880.0,
        1.0 / 3_628_800.0,
        1.0 / 39_916_800.0,
        1.0 / 479_001_600.0,
        1.0 / 6_227_020_800.0,
    ];
    // 1.5 · 2^52: adding it rounds to an integer held in the low mantissa bits.
    const SHIFT: f64 = 6_755_399_441_055_744.0;
    let low = x < -708.0;
    let xc = if low { 0.0 } else { x };
    let t = xc.mul_add(std::f64::consts::LOG2_E, SHIFT);
    let n = t - SHIFT; // round(x / ln 2), in -1022..=0
    let r = n.mul_add(-LN2_LO, n.mul_add(-LN2_HI, xc));
    let mut p = INV_FACT[13];
    for &c in INV_FACT[..13].iter().rev() {
        p = p.mul_add(r, c);
    }
    // 2^n: the low bits of `t` are n (two's complement); add the bias and move them up.
    let two_n = f64::from_bits(t.to_bits().wrapping_add(1023) << 52);
    if low { 0.0 } else { p * two_n }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn polynomial_exp_is_within_a_few_ulp() {
        let mut x = 0.0;
        while x > -750.0 {
            let (got, want) = (exp_shifted::<true>(x), x.exp());
            if x < -708.0 {
                assert_eq!(got, 0.0);
            } else {
                assert!(
                    (got - want).abs() <= 4.0 * f64::EPSILON * want,
                    "exp({x}) = {got}, want {want}"
                );
            }
            x -= 0.0137;
        }
        assert_eq!(exp_shifted::<true>(f64::NEG_INFINITY), 0.0);
    }

    #[test]
    fn every_level_matches_the_reference_softmax() {
        for asked in crate::fast::Kernel::ALL {
            let isa = Isa::new(asked);
            let mut row: Vec<f64> = (0..37).map(|i| ((i * 7 % 11) as f64 - 5.0) * 1.3).collect();
            let mut want = row.clone();
            crate::softmax::softmax_row(&mut want);
            softmax_rows(
                ArrayViewMut2::from_shape((1, 37), &mut row).unwrap(),
                None,
                isa,
            );
            for (a, b) in row.iter().zip(&want) {
                assert!((a - b).abs() < 1e-15, "{asked:?}: {a} against {b}");
            }
            let mut masked = [f64::NEG_INFINITY; 3];
            softmax_rows(
                ArrayViewMut2::from_shape((1, 3), &mut masked).unwrap(),
                None,
                isa,
            );
            assert_eq!(masked, [0.0; 3]);
            // Causal rows from query 1 on: row 0 sees keys 0..=1, row 1 keys 0..=2.
            let mut two = [0.0, 0.0, 5.0, 1.0, 1.0, 1.0];
            softmax_rows(
                ArrayViewMut2::from_shape((2, 3), &mut two).unwrap(),
                Some(1),
                isa,
            );
            assert_eq!(two[..3], [0.5, 0.5, 0.0]);
            assert!(two[3..].iter().all(|v| (v - 1.0 / 3.0).abs() < 1e-15));
        }
    }
}
