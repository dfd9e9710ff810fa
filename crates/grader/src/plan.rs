//! Stage 1 of grading, **plan**: which lessons (or which one exercise), which crate of each
//! (exercise or solution), their time limits, and everything their checks must observe, read from
//! the instructors' files before anything is built or run.

use crate::course::expected::Expected;
use crate::course::suggest::{Kind, unknown};
use crate::course::{Course, Exercise, Lesson, Side};
use crate::fsutil::relative;
use crate::judge::misconception::{self, Record};
use anyhow::{Result, anyhow};
use std::borrow::Cow;
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

/// The lessons a key selects: all of them, or the one it names (`lesson01`, `1` or its directory).
pub fn select<'c>(course: &'c Course, key: Option<&str>) -> Result<Vec<&'c Lesson>> {
    match key {
        Some(key) => {
            Ok(vec![course.find_lesson(key).ok_or_else(|| {
                anyhow!(unknown(course, Kind::Lesson, key))
            })?])
        }
        None => Ok(course.lessons.iter().collect()),
    }
}

/// What `grade [KEY]` grades: every lesson, one lesson, or one exercise.
#[derive(Debug, Clone, Copy)]
pub enum Selection<'c> {
    /// No key: every lesson.
    All,
    /// A lesson (`lesson01`, `1` or its directory): all its exercises.
    Lesson(&'c Lesson),
    /// An exercise (`split_heads`): its lesson is built, and only its checks run.
    Exercise(&'c Lesson, &'c Exercise),
}

impl<'c> Selection<'c> {
    /// Resolves `grade`'s key: a lesson first, then an exercise name; anything else is an error
    /// with a did-you-mean.
    pub fn resolve(course: &'c Course, key: Option<&str>) -> Result<Self> {
        let Some(key) = key else {
            return Ok(Selection::All);
        };
        if let Some(lesson) = course.find_lesson(key) {
            Ok(Selection::Lesson(lesson))
        } else if let Some((lesson, exercise)) = course.find_exercise(key) {
            Ok(Selection::Exercise(lesson, exercise))
        } else {
            Err(anyhow!(unknown(course, Kind::LessonOrExercise, key)))
        }
    }

    /// The lessons to grade, each with only its selected exercises: for one exercise, its lesson
    /// holding just that exercise (so the lesson's points are the exercise's).
    pub fn lessons(self, course: &'c Course) -> Vec<Cow<'c, Lesson>> {
        match self {
            Selection::All => course.lessons.iter().map(Cow::Borrowed).collect(),
            Selection::Lesson(lesson) => vec![Cow::Borrowed(lesson)],
            Selection::Exercise(lesson, exercise) => vec![Cow::Owned(lesson.only(&exercise.name))],
        }
    }
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
