//! Lesson 1's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson01_solution as lesson01;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, course_check::variant::Body); 7] = [
        ("draw_head", variants::draw_head_with),
        ("attention_weights", variants::attention_weights_with),
        ("max_abs_diff", variants::max_abs_diff_with),
        ("top_focus", variants::top_focus_with),
        ("disagreements", variants::disagreements_with),
        ("row_sums", variants::row_sums_with),
        ("head_output", variants::head_output_with),
    ];
    course_check::variant::assert_reproducible(&bodies, 50);
}
