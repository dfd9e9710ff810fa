//! The checks of lesson 9, shared by the exercise crate (`lesson09`) and the reference solution.
//! Each `#[test]` is one graded check; `course.toml` says which exercise it belongs to and its points.

use course_check::assert_exact_snapshot;
use lesson09::setup::N;
use lesson09::*;

#[test]
fn placeholder_matches_snapshot() {
    let _proof = course_check::proof();
    assert_exact_snapshot!("placeholder", placeholder(N));
}
