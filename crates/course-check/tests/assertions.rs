//! The course's assertion macros behave like std's under `cargo test` (no grader around).
use course_check::{assert, assert_eq, assert_ne};

#[test]
fn holding_assertions_pass() {
    assert!(1 + 1 == 2);
    assert!(true, "with a message {}", 1);
    assert_eq!(vec![1, 2], [1, 2]);
    assert_eq!(3, 3, "h = {}", 3);
    assert_ne!("a", "b");
}

#[test]
#[should_panic(expected = "assertion `left == right` failed: h = 4\n  left: 1\n right: 2")]
fn a_failed_assert_eq_panics_like_std() {
    assert_eq!(1, 2, "h = {}", 4);
}

#[test]
#[should_panic(expected = "assertion `left != right` failed\n  left: 5\n right: 5")]
fn a_failed_assert_ne_panics_like_std() {
    assert_ne!(5, 5);
}

#[test]
#[should_panic(expected = "assertion failed: 1 > 2")]
fn a_failed_assert_names_its_expression() {
    assert!(1 > 2);
}
