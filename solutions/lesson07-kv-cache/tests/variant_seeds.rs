//! Lesson 7's variant checks over fifty seeds, against the reference solution: each draws valid
//! inputs and gives the same outputs twice for one seed (what lets the grader compare a
//! student's run with the reference's), and the shapes drawn vary.
extern crate lesson07_solution as lesson07;

#[allow(dead_code)]
#[path = "hidden/variants.rs"]
mod variants;

#[test]
fn variants_hold_for_fifty_seeds() {
    let bodies: [(&str, course_check::variant::Body); 4] = [
        ("append", variants::append_with),
        ("memory_bytes", variants::memory_bytes_with),
        ("decode_step", variants::decode_step_with),
        ("generate", variants::generate_with),
    ];
    course_check::variant::assert_reproducible(&bodies, 50);
}
