//! Lesson 2's hidden checks: graded officially (in the instructors' workspace and by
//! `cargo xtask grade --submission`), never shipped to students. Shared, like the visible checks,
//! by the solution crate (`solution.rs`) and the exercise crate (`exercise.rs`), under the same
//! test target name `lesson02_hidden`, so both read the snapshots in `snapshots/` next to this file.

use course_check::assert_exact_snapshot;
use lesson02::setup::labelled;
use lesson02::*;

#[test]
fn split_heads_three_heads_of_a_new_shape() {
    let _proof = course_check::proof();
    // (B, T, C) = (3, 5, 12) with h = 3: a shape and head count the visible checks never use.
    assert_exact_snapshot!(
        "split_three_heads",
        split_heads(labelled(3, 5, 12).view(), 3).unwrap(),
        encoding = "b*10000 + t*100 + c"
    );
}
