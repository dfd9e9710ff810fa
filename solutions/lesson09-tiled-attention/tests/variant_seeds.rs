//! Lesson 9's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson09_solution as lesson09;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, course_check::variant::Body); 4] = [
        (
            "online_softmax_update",
            variants::online_softmax_update_with,
        ),
        ("tiled_attention", variants::tiled_attention_with),
        ("attention_backward", variants::attention_backward_with),
        (
            "tiled_attention_backward",
            variants::tiled_attention_backward_with,
        ),
    ];
    course_check::variant::assert_reproducible(&bodies, 50);
}
