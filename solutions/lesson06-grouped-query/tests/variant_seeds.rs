//! Lesson 6's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson06_solution as lesson06;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, course_check::variant::Body); 6] = [
        ("n_rep", variants::n_rep_with),
        ("repeat_kv", variants::repeat_kv_with),
        ("grouped_attention", variants::grouped_attention_with),
        ("merge_and_project", variants::merge_and_project_with),
        ("gqa_forward", variants::gqa_forward_with),
        ("kv_cache_bytes", variants::kv_cache_bytes_with),
    ];
    course_check::variant::assert_reproducible(&bodies, 50);
}
