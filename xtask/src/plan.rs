//! Stage 1 of grading, **plan**: which lessons, which crate of each (exercise or solution), their
//! time limits, and everything their checks must observe, read from the instructors' files before
//! anything is built or run.

use crate::course::{Course, Lesson};
use crate::expected::Expected;
use crate::workspace::relative;
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
}

/// The lessons a key selects: all of them, or the one it names.
pub fn select<'c>(course: &'c Course, key: Option<&str>) -> Result<Vec<&'c Lesson>, String> {
    match key {
        Some(key) => Ok(vec![course.find_lesson(key).ok_or_else(|| {
            let known: Vec<&str> = course.lessons.iter().map(|l| l.id.as_str()).collect();
            format!(
                "no lesson `{key}` in course.toml (lessons: {})",
                known.join(", ")
            )
        })?]),
        None => Ok(course.lessons.iter().collect()),
    }
}

/// Plans the grading of `lessons` at `root`; `expected_root` is where the expected observations
/// are read (the instructors' tree, also when a submission is graded in a copy).
pub fn plan<'c>(
    root: &Path,
    expected_root: &Path,
    course: &'c Course,
    lessons: &[&'c Lesson],
    solutions: bool,
    timeout: Option<Duration>,
) -> Result<Vec<LessonPlan<'c>>, String> {
    lessons
        .iter()
        .map(|lesson| {
            let crate_dir = lesson.crate_dir(root, solutions);
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
            })
        })
        .collect()
}
