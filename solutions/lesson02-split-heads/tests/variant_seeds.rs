//! Lesson 2's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson02_solution as lesson02;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, course_check::variant::Body); 4] = [
        ("head_size", variants::head_size_with),
        ("split_heads", variants::split_heads_with),
        ("merge_heads", variants::merge_heads_with),
        ("head_projection", variants::head_projection_with),
    ];
    course_check::variant::assert_reproducible(&bodies, 50);
}
