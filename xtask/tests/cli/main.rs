//! The grader's end-to-end tests: the real `xtask` binary run with `assert_cmd` on scratch copies
//! of the course and on fixture submissions.
//!
//! One test executable, one module per subject. `cargo test` runs test executables one after the
//! other, each with a thread per core; as one executable the long tests of one subject (a class
//! run, a handout's own `cargo test`, hostile code waited out) overlap with those of the others
//! instead of leaving a core idle at the end of every file, and the shared helpers and the
//! dependencies are compiled and linked once, not once per file.
//!
//! Run one subject with `cargo test -p xtask --test cli class_cli::`.

mod junit_xsd;
mod support;

mod archives_cli;
mod bad_input_cli;
mod beside_watch;
mod class_cli;
mod class_modes_cli;
mod demo_cli;
mod feedback_cli;
mod find_your_way;
#[cfg(target_os = "linux")]
mod first_grade;
mod grade_cli;
mod handles_links_cli;
mod hostile_cli;
mod instructor_cli;
mod misconceptions_cli;
mod pages_cli;
mod properties_cli;
mod roster_cli;
mod shared_build;
mod similarity_cli;
mod student_loop;
mod variants_cli;
