//! Official grading: a student's submission, a whole class, and what instructors take away from
//! it (gradebooks, feedback pages, similarity). Instructors only.

pub mod archive;
pub mod class;
pub mod class_run;
pub mod comments;
pub mod entry;
pub mod gradebook;
pub mod handout;
pub mod late;
pub mod merge;
pub mod pages;
pub mod preflight;
pub mod regrade;
pub mod report_name;
pub mod roster;
pub mod shard;
pub mod similarity;
pub mod stored;
pub mod submission;
