//! NumPy's legacy `RandomState`, bit-exact.
//!
//! The course's reference numbers come from `np.random.seed(seed)` followed by `np.random.randn`
//! and `np.random.rand`. [`RandomState`] reproduces those streams bit for bit, so a Rust lesson
//! prints exactly what the NumPy notebook printed.
//!
//! # How NumPy's legacy generator works
//!
//! * **Bits.** A 32-bit Mersenne Twister (MT19937). Seeding with an integer runs the reference
//!   `init_genrand(seed)` routine, which is what [`rand_mt::Mt::new`] does (its `SeedableRng`
//!   seeding is a different routine and gives a different stream).
//! * **Uniform doubles** (`rand`, `random_sample`). Two consecutive `u32` draws `a` then `b` give
//!   53 random bits: the top 27 bits of `a` and the top 26 bits of `b`, read as
//!   `(a >> 5) * 2^26 + (b >> 6)` and scaled by `2^-53`. The result lies in `[0, 1)`.
//! * **Standard normals** (`randn`, `standard_normal`). The Marsaglia polar method: draw a point
//!   `(x1, x2)` uniformly in the square `[-1, 1)^2` until it falls strictly inside the unit circle
//!   (and is not the origin). With `r2 = x1^2 + x2^2` and `f = sqrt(-2 ln(r2) / r2)`, both
//!   `f * x1` and `f * x2` are independent standard normals. NumPy returns `f * x2` and keeps
//!   `f * x1` in a one-value cache that the *next* normal draw returns without touching the bits.
//!   The cache lives in the generator, so it carries over between separate `randn` calls and
//!   survives uniform draws in between; only reseeding (here: [`RandomState::new`]) empties it.
//! * **Arrays** are filled one value at a time in C (row-major) order.

use ndarray::{Array, Dimension, ShapeBuilder};
use rand_core::{Infallible, TryRng};
use rand_mt::Mt;

/// NumPy's legacy random generator (`np.random.RandomState`), reproduced bit for bit.
///
/// Holds the MT19937 state plus the cached second value of the last polar-method pair.
/// The same seed and the same sequence of calls give exactly the numbers NumPy gives, e.g.
/// `RandomState::new(42).randn((2, 3))` equals `np.random.RandomState(42).randn(2, 3)`.
///
/// It also implements [`rand_core::TryRng`] (and so [`rand_core::Rng`]), delegating to the
/// underlying MT19937, so the tools of the `rand` crate (shuffles, ranges, ...) can use it. Those
/// raw draws advance the same bit stream but never touch the cached normal, just as NumPy's
/// `random_raw` does not.
///
/// ```
/// use attention::rng::RandomState;
///
/// let x = RandomState::new(42).randn((2, 3));
/// assert_eq!(x.shape(), &[2, 3]);
/// // np.random.RandomState(42).randn(2, 3)[0, 0]
/// assert_eq!(x[[0, 0]], 0.4967141530112327);
/// ```
#[derive(Clone, Debug)]
pub struct RandomState {
    mt: Mt,
    /// The second normal of the last polar pair, not yet handed out.
    cached_normal: Option<f64>,
}

impl RandomState {
    /// A generator in the state of `np.random.RandomState(seed)` (or after `np.random.seed(seed)`):
    /// MT19937 seeded by `init_genrand(seed)`, with no cached normal.
    ///
    /// Every `u32` seed NumPy accepts, `0..=4294967295`, is valid.
    #[must_use]
    pub fn new(seed: u32) -> Self {
        Self {
            mt: Mt::new(seed),
            cached_normal: None,
        }
    }

    /// One uniform double in `[0, 1)`, like `RandomState.random_sample()` with no size.
    ///
    /// Consumes two `u32` draws; leaves the cached normal alone.
    pub fn random_sample(&mut self) -> f64 {
        let a = self.mt.next_u32() >> 5;
        let b = self.mt.next_u32() >> 6;
        (f64::from(a) * 67_108_864.0 + f64::from(b)) / 9_007_199_254_740_992.0
    }

    /// One standard normal (mean 0, variance 1), like `RandomState.standard_normal()` with no
    /// size (NumPy's `legacy_gauss`).
    ///
    /// Returns the cached value if there is one; otherwise runs the polar method, caches one of
    /// the pair and returns the other.
    pub fn standard_normal(&mut self) -> f64 {
        if let Some(x) = self.cached_normal.take() {
            return x;
        }
        let (x1, x2, r2) = loop {
            let x1 = 2.0 * self.random_sample() - 1.0;
            let x2 = 2.0 * self.random_sample() - 1.0;
            let r2 = x1 * x1 + x2 * x2;
            if r2 < 1.0 && r2 != 0.0 {
                break (x1, x2, r2);
            }
        };
        let f = (-2.0 * r2.ln() / r2).sqrt();
        self.cached_normal = Some(f * x1);
        f * x2
    }

    /// An array of the given shape filled with standard normals in C (row-major) order, like
    /// `RandomState.randn(*shape)`.
    ///
    /// `shape` is anything [`Array::zeros`] accepts: `5` gives shape `(5,)`, `(3, 4)` gives
    /// `(3, 4)`, `[1, 6, 64]` gives `(1, 6, 64)`, `IxDyn(&[..])` a dynamic shape. Values are
    /// assigned in logical row-major order even when a Fortran layout is requested with `.f()`.
    /// The normal cache is shared with every other call, so an odd-sized call leaves one normal
    /// pending for the next call.
    pub fn randn<Sh, D>(&mut self, shape: Sh) -> Array<f64, D>
    where
        Sh: ShapeBuilder<Dim = D>,
        D: Dimension,
    {
        self.fill(shape, Self::standard_normal)
    }

    /// An array of the given shape filled with uniform doubles in `[0, 1)` in C (row-major)
    /// order, like `RandomState.rand(*shape)`.
    ///
    /// Accepts the same shapes as [`RandomState::randn`]; leaves the cached normal alone.
    pub fn rand<Sh, D>(&mut self, shape: Sh) -> Array<f64, D>
    where
        Sh: ShapeBuilder<Dim = D>,
        D: Dimension,
    {
        self.fill(shape, Self::random_sample)
    }

    /// Allocates `shape` and assigns `draw` to each element in logical row-major order.
    fn fill<Sh, D>(&mut self, shape: Sh, mut draw: impl FnMut(&mut Self) -> f64) -> Array<f64, D>
    where
        Sh: ShapeBuilder<Dim = D>,
        D: Dimension,
    {
        let mut out = Array::zeros(shape);
        // `iter_mut` walks in logical (C) order whatever the memory layout.
        for x in out.iter_mut() {
            *x = draw(self);
        }
        out
    }
}

/// Raw MT19937 output for `rand`/`rand_core` consumers; never fails.
///
/// `try_next_u32` is one MT19937 draw; `try_next_u64` and `try_fill_bytes` are [`Mt`]'s own
/// compositions (high word first for `u64`, little-endian words for bytes). None of them touch
/// the cached normal.
impl TryRng for RandomState {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok(self.mt.next_u32())
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.mt.next_u64())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.mt.fill_bytes(dst);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bits(a: &[f64]) -> Vec<u64> {
        a.iter().map(|x| x.to_bits()).collect()
    }

    #[test]
    fn same_seed_gives_same_stream() {
        let mut a = RandomState::new(7);
        let mut b = RandomState::new(7);
        let xa = a.randn(9);
        let xb = b.randn(9);
        assert_eq!(bits(xa.as_slice().unwrap()), bits(xb.as_slice().unwrap()));
        let ua = a.rand((2, 3));
        let ub = b.rand((2, 3));
        assert_eq!(bits(ua.as_slice().unwrap()), bits(ub.as_slice().unwrap()));
        assert_eq!(a.standard_normal().to_bits(), b.standard_normal().to_bits());

        let mut c = RandomState::new(8);
        assert_ne!(RandomState::new(7).random_sample(), c.random_sample());
    }

    #[test]
    fn new_starts_with_empty_cache() {
        let mut rs = RandomState::new(3);
        let first = rs.standard_normal();
        assert!(
            rs.cached_normal.is_some(),
            "odd draw leaves a pending normal"
        );

        // Reseeding replaces the generator: the pending normal is gone and the stream restarts.
        rs = RandomState::new(3);
        assert!(rs.cached_normal.is_none());
        assert_eq!(rs.standard_normal().to_bits(), first.to_bits());
    }

    #[test]
    fn cache_returns_the_other_half_of_the_pair() {
        let mut rs = RandomState::new(11);
        let _ = rs.standard_normal();
        let pending = rs.cached_normal.unwrap();
        let _ = rs.random_sample();
        assert_eq!(rs.standard_normal().to_bits(), pending.to_bits());
        assert!(rs.cached_normal.is_none());
    }

    #[test]
    fn uniforms_lie_in_unit_interval() {
        let u = RandomState::new(0).rand(1000);
        assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
    }
}
