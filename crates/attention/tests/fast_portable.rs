//! The fast forward with its portable kernels forced (`general_mat_mul`, `f64::exp`): the path a
//! machine without AVX-512 takes, checked against the same reference composition. The shared
//! checks of `fast_matches_reference.rs` are included; the flag is process-wide and only ever
//! switched on here, so whichever kernels a concurrently running shared check picks must match.

#[path = "fast_matches_reference.rs"]
mod shared;

#[test]
fn portable_kernels_match_the_reference() {
    attention::fast::force_portable_kernels(true);
    // One batch element per core and more: both ways of splitting the work.
    shared::check(3, 1, 70, 24, 3);
    shared::check(4, 4, 130, 32, 4);
}
