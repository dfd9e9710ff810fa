//! Stage 1 of grading, **plan**: which lessons (or which one exercise), which crate of each
//! (exercise or solution), their time limits, and everything their checks must observe, read from
//! the instructors' files before anything is built or run.

use crate::course::expected::Expected;
pub use crate::course::selection::{Selection, select};
use crate::course::{Course, Lesson, Side};
use crate::fsutil::relative;
use crate::judge::misconception::{self, Record};
use anyhow::Result;
use std::path::Path;
use std::time::Duration;

/// One lesson to grade.
#[derive(Debug)]
pub struct LessonPlan<'c> {
    /// The lesson in course.toml.
    pub lesson: &'c Lesson,
    /// Its sources, relative to the root (`exercises/<dir>/src`), to recognise the student's panics.
    pub student_src: String,
    /// Time limit of each check.
    pub timeout: Duration,
    /// What its checks (visible and hidden) must observe.
    pub expected: Expected,
    /// What its misconceptions' checks observe (see [`crate::judge::misconception`]).
    pub misconceptions: Vec<Record>,
}

/// Plans the grading of `lessons` at `root`; `expected_root` is where the expected observations
/// are read (the instructors' tree, also when a submission is graded in a copy).
pub fn plan<'c>(
    root: &Path,
    expected_root: &Path,
    course: &'c Course,
    lessons: &[&'c Lesson],
    side: Side,
    timeout: Option<Duration>,
) -> Result<Vec<LessonPlan<'c>>> {
    lessons
        .iter()
        .map(|lesson| {
            let crate_dir = lesson.crate_dir(root, side);
            let [visible, hidden] = lesson.snapshot_dirs(expected_root);
            let mut expected = Expected::load(&visible)?;
            expected.extend(Expected::load(&hidden)?);
            Ok(LessonPlan {
                lesson,
                student_src: relative(root, &crate_dir.join("src")),
                timeout: timeout.unwrap_or_else(|| {
                    Duration::from_secs_f64(
                        lesson
                            .timeout_secs
                            .unwrap_or(course.course.default_timeout_secs),
                    )
                }),
                expected,
                misconceptions: misconception::load(&visible)?,
            })
        })
        .collect()
}
