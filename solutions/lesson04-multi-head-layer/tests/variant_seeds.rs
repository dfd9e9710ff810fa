//! Lesson 4's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson04_solution as lesson04;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, course_check::variant::Body); 5] = [
        ("concat_and_project", variants::concat_and_project_with),
        ("init_multi_head", variants::init_multi_head_with),
        ("multi_head_forward", variants::multi_head_forward_with),
        ("fused_qkv", variants::fused_qkv_with),
        ("average_over_heads", variants::average_over_heads_with),
    ];
    course_check::variant::assert_reproducible(&bodies, 50);
}
