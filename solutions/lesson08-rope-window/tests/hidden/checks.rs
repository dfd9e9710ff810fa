//! Lesson 8's hidden checks: graded officially (in the instructors' workspace and by
//! `cargo xtask grade --submission`), never shipped to students. Shared, like the visible checks,
//! by the solution crate (`solution.rs`) and the exercise crate (`exercise.rs`), under the same
//! test target name `lesson08_hidden`, so both read the snapshots in `snapshots/` next to this file.

use course_check::assert_close_snapshot;
use lesson08::*;
use ndarray::Array4;

#[test]
fn rope_scores_far_into_a_long_context() {
    let _proof = course_check::proof();
    // Llama 3's base and positions past 100k, which no visible check uses: the scores are those
    // of the same vectors at positions (0, 0).
    let q = Array4::from_shape_fn((1, 2, 3, 8), |(_, i, t, j)| {
        ((i * 7 + t * 3 + j) % 5) as f64 - 2.0
    });
    let k = Array4::from_shape_fn((1, 2, 4, 8), |(_, i, t, j)| {
        ((i * 3 + t * 5 + j * 2) % 7) as f64 / 2.0 - 1.5
    });
    let scores = rope_scores(q.view(), k.view(), 131_072, 131_070, 500_000.0).unwrap();
    assert_close_snapshot!("far_scores", scores);
}
