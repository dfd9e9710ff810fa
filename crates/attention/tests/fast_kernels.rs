//! The fast forward with each kernel forced (`MhaConfig::kernel`), checked against the reference
//! composition of `reference/mod.rs` (a module of this test, whose own tests run here too). A
//! kernel this CPU lacks is skipped with a note, after checking that asking for it falls back to
//! a kernel the CPU has.

#[path = "reference/mod.rs"]
mod shared;

use attention::fast::Kernel;

/// Runs the shared checks with `kernel` forced; returns `false` (and prints why) when the CPU
/// lacks it.
fn check_kernel(kernel: Kernel) -> bool {
    if !kernel.is_supported() {
        let ran = shared::check_with(kernel, 0, 2, 5, 8, 2);
        assert_ne!(ran, kernel);
        assert!(ran.is_supported());
        eprintln!("skipped: this CPU has no {kernel} kernel (asking for it ran {ran})");
        return false;
    }
    // One batch element per core and more (both ways of splitting the work), T > 64 for several
    // causal blocks, D > 256 and > 512 to split the projections' depth, odd head sizes for
    // partial register tiles.
    for (seed, b, t, d, heads) in [
        (3, 1, 70, 24, 3),
        (4, 4, 130, 32, 4),
        (5, 1, 70, 528, 4),
        (6, 3, 33, 80, 5),
        (7, 2, 9, 300, 6),
    ] {
        assert_eq!(shared::check_with(kernel, seed, b, t, d, heads), kernel);
    }
    true
}

#[test]
fn portable_kernels_match_the_reference() {
    assert!(check_kernel(Kernel::Portable));
}

#[test]
fn avx2_kernels_match_the_reference() {
    check_kernel(Kernel::Avx2);
}

#[test]
fn avx512_kernels_match_the_reference() {
    check_kernel(Kernel::Avx512);
}

/// Runs on aarch64 (`tests/neon_emulated.rs` runs this file there under an emulator).
#[test]
fn neon_kernels_match_the_reference() {
    check_kernel(Kernel::Neon);
}

/// The best kernel by `std`'s feature detection: x86-64-v4 or v3, the levels of `pulp`'s `V4`
/// and `V3` tokens. Without the `simd` feature there are no SIMD kernels to pick.
#[cfg(all(feature = "simd", target_arch = "x86_64"))]
fn best_by_std() -> Kernel {
    use std::is_x86_feature_detected as has;
    let v3 = has!("avx2") && has!("fma") && has!("bmi1") && has!("bmi2") && has!("lzcnt");
    let v4 = v3
        && has!("avx512f")
        && has!("avx512bw")
        && has!("avx512cd")
        && has!("avx512dq")
        && has!("avx512vl");
    if v4 {
        Kernel::Avx512
    } else if v3 {
        Kernel::Avx2
    } else {
        Kernel::Portable
    }
}

/// On aarch64: NEON, `pulp`'s `Neon` level.
#[cfg(all(feature = "simd", target_arch = "aarch64"))]
fn best_by_std() -> Kernel {
    if std::arch::is_aarch64_feature_detected!("neon") {
        Kernel::Neon
    } else {
        Kernel::Portable
    }
}

#[cfg(not(all(feature = "simd", any(target_arch = "x86_64", target_arch = "aarch64"))))]
fn best_by_std() -> Kernel {
    Kernel::Portable
}

#[test]
fn auto_runs_the_best_kernel_the_cpu_has() {
    let best = best_by_std();
    assert_eq!(Kernel::Auto.resolve(), best);
    assert_eq!(shared::check_with(Kernel::Auto, 8, 2, 5, 8, 2), best);
}
