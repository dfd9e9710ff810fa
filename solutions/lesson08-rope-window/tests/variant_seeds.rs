//! Lesson 8's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson08_solution as lesson08;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, course_check::variant::Body); 10] = [
        ("rope_frequencies", variants::rope_frequencies_with),
        ("apply_rope", variants::apply_rope_with),
        (
            "apply_rope_interleaved",
            variants::apply_rope_interleaved_with,
        ),
        ("interleaved_to_half", variants::interleaved_to_half_with),
        ("rope_scores", variants::rope_scores_with),
        ("rope_decode_step", variants::rope_decode_step_with),
        ("window_mask", variants::window_mask_with),
        ("ring_in_time_order", variants::ring_in_time_order_with),
        ("window_decode_step", variants::window_decode_step_with),
        ("window_cache_bytes", variants::window_cache_bytes_with),
    ];
    course_check::variant::assert_reproducible(&bodies, 50);
}
