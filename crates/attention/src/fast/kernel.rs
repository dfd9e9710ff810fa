//! Which SIMD kernels the forward uses: asked for with [`Kernel`], picked at run time.

/// The kernels [`super::mha_forward`] can run its matrix products and softmax with.
///
/// Ask for one in [`super::MhaConfig::kernel`]; [`super::MhaOutput::kernel`] says which one ran.
/// A kernel the CPU lacks is never run: the forward falls back to the next one down the list
/// `Avx512 → Avx2 → Neon → Portable` that it has (see [`Kernel::resolve`]). The SIMD kernels exist
/// only with the crate's `simd` feature (a default feature); without it every kernel resolves to
/// [`Kernel::Portable`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// The fastest kernel this CPU has.
    #[default]
    Auto,
    /// x86-64 with AVX-512 F, BW, CD, DQ and VL (x86-64-v4, `pulp`'s `V4` level): an `8 × 16` micro-kernel on 512-bit vectors.
    Avx512,
    /// x86-64 with AVX2, FMA, BMI1/2 and LZCNT (x86-64-v3, `pulp`'s `V3` level): a `6 × 8` micro-kernel on 256-bit vectors.
    Avx2,
    /// aarch64 with NEON (Advanced SIMD, `pulp`'s `Neon` level): a `6 × 8` micro-kernel on 128-bit vectors.
    Neon,
    /// Any CPU: [`ndarray::linalg::general_mat_mul`] and `f64::exp`.
    Portable,
}

impl Kernel {
    /// The kernels that actually compute (every one but [`Kernel::Auto`]), fastest first.
    pub const ALL: [Kernel; 4] = [Kernel::Avx512, Kernel::Avx2, Kernel::Neon, Kernel::Portable];

    /// Whether this CPU can run the kernel ([`Kernel::Auto`] and [`Kernel::Portable`]: always).
    pub fn is_supported(self) -> bool {
        self.resolve() == self || self == Kernel::Auto
    }

    /// The kernel that runs when `self` is asked for on this CPU: `self` if the CPU has it,
    /// otherwise the next supported one in `Avx512 → Avx2 → Neon → Portable` (`Auto` starts at
    /// the top).
    /// Never [`Kernel::Auto`].
    pub fn resolve(self) -> Kernel {
        Isa::new(self).kernel()
    }

    /// The lower-case name used by the benchmark's `--kernel` option.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Auto => "auto",
            Kernel::Avx512 => "avx512",
            Kernel::Avx2 => "avx2",
            Kernel::Neon => "neon",
            Kernel::Portable => "portable",
        }
    }
}

impl std::fmt::Display for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Kernel {
    type Err = String;

    /// Parses [`Kernel::name`]'s names.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            Kernel::Auto,
            Kernel::Avx512,
            Kernel::Avx2,
            Kernel::Neon,
            Kernel::Portable,
        ]
        .into_iter()
        .find(|k| k.name() == s)
        .ok_or_else(|| format!("unknown kernel {s:?} (auto, avx512, avx2, neon or portable)"))
    }
}

/// A resolved kernel with the proof (`pulp`'s token) that the CPU supports it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Isa {
    /// AVX-512F.
    #[cfg(all(feature = "simd", target_arch = "x86_64"))]
    Avx512(pulp::x86::V4),
    /// AVX2 + FMA.
    #[cfg(all(feature = "simd", target_arch = "x86_64"))]
    Avx2(pulp::x86::V3),
    /// NEON.
    #[cfg(all(feature = "simd", target_arch = "aarch64"))]
    Neon(pulp::aarch64::Neon),
    /// No SIMD kernel.
    Portable,
}

impl Isa {
    /// Detects the best level at or below `asked` that this CPU has.
    pub(crate) fn new(asked: Kernel) -> Isa {
        #[cfg(all(feature = "simd", target_arch = "x86_64"))]
        {
            if matches!(asked, Kernel::Auto | Kernel::Avx512)
                && let Some(simd) = pulp::x86::V4::try_new()
            {
                return Isa::Avx512(simd);
            }
            if matches!(asked, Kernel::Auto | Kernel::Avx512 | Kernel::Avx2)
                && let Some(simd) = pulp::x86::V3::try_new()
            {
                return Isa::Avx2(simd);
            }
        }
        #[cfg(all(feature = "simd", target_arch = "aarch64"))]
        if asked != Kernel::Portable
            && let Some(simd) = pulp::aarch64::Neon::try_new()
        {
            return Isa::Neon(simd);
        }
        let _ = asked;
        Isa::Portable
    }

    /// The public name of this level.
    pub(crate) fn kernel(self) -> Kernel {
        match self {
            #[cfg(all(feature = "simd", target_arch = "x86_64"))]
            Isa::Avx512(_) => Kernel::Avx512,
            #[cfg(all(feature = "simd", target_arch = "x86_64"))]
            Isa::Avx2(_) => Kernel::Avx2,
            #[cfg(all(feature = "simd", target_arch = "aarch64"))]
            Isa::Neon(_) => Kernel::Neon,
            Isa::Portable => Kernel::Portable,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_resolution_never_goes_up() {
        for k in [
            Kernel::Auto,
            Kernel::Avx512,
            Kernel::Avx2,
            Kernel::Neon,
            Kernel::Portable,
        ] {
            assert_eq!(k.name().parse::<Kernel>(), Ok(k));
            assert!(k.is_supported() || k.resolve() != k);
        }
        assert!("avx3".parse::<Kernel>().is_err());
        assert_eq!(Kernel::Portable.resolve(), Kernel::Portable);
        assert_ne!(Kernel::Auto.resolve(), Kernel::Auto);
        // Asking for a level gives it or one below it, and `Auto` the best one there is.
        let rank = |k: Kernel| Kernel::ALL.iter().position(|&x| x == k).unwrap();
        for k in Kernel::ALL {
            assert!(rank(k.resolve()) >= rank(k));
        }
        assert_eq!(
            Kernel::Auto.resolve(),
            *Kernel::ALL.iter().find(|k| k.is_supported()).unwrap()
        );
    }
}
