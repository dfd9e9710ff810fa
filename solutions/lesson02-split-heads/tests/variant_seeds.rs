//! Lesson 2's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson02_solution as lesson02;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

use course_check::Variant;
use course_check::variant::take_reports;
use std::collections::BTreeSet;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, fn(&mut Variant)); 4] = [
        ("head_size", variants::head_size_with),
        ("split_heads", variants::split_heads_with),
        ("merge_heads", variants::merge_heads_with),
        ("head_projection", variants::head_projection_with),
    ];
    for (exercise, body) in bodies {
        let mut shapes = BTreeSet::new();
        for seed in 0..50 {
            body(&mut Variant::with_seed(exercise, seed));
            let first = take_reports();
            body(&mut Variant::with_seed(exercise, seed));
            assert_eq!(
                first,
                take_reports(),
                "{exercise}, seed {seed}: not reproducible"
            );
            assert!(
                first.len() >= 2,
                "{exercise}: shapes and at least one output"
            );
            shapes.insert(first[0].1.clone());
        }
        assert!(shapes.len() >= 20, "{exercise}: only {shapes:?}");
        let h1 = shapes
            .iter()
            .filter(|s| s.contains("h=1,") || s.ends_with("h=1\n"));
        assert!(
            h1.count() < shapes.len() / 2,
            "{exercise}: mostly h = 1: {shapes:?}"
        );
    }
}
