//! Lesson 5's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson05_solution as lesson05;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, course_check::variant::Body); 6] = [
        ("token_features", variants::token_features_with),
        ("causal_weights", variants::causal_weights_with),
        ("previous_token_head", variants::previous_token_head_with),
        ("same_category_head", variants::same_category_head_with),
        ("run_heads", variants::run_heads_with),
        ("same_category", variants::same_category_with),
    ];
    course_check::variant::assert_reproducible(&bodies, 50);
}
