//! `course.toml`: the lessons, their exercises, the graded checks of each exercise, and hints.

use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The whole course file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Course {
    /// Course-wide settings.
    pub course: CourseInfo,
    /// Lessons in teaching order.
    #[serde(default)]
    pub lessons: Vec<Lesson>,
}

/// Course-wide settings.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CourseInfo {
    /// Shown at the top of reports.
    pub title: String,
    /// Seconds one check may run before it is stopped (default 10).
    #[serde(default = "default_timeout")]
    pub default_timeout_secs: f64,
}

fn default_timeout() -> f64 {
    10.0
}

/// One lesson: an exercise crate `exercises/<dir>` (package `<id>`) and a solution crate
/// `solutions/<dir>` (package `<id>-solution`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// Package name of the exercise crate, e.g. `lesson01`.
    pub id: String,
    /// Directory name under `exercises/` and `solutions/`.
    pub dir: String,
    /// Human title.
    pub title: String,
    /// Overrides the course's check timeout for this lesson.
    pub timeout_secs: Option<f64>,
    /// The exercises, in the order students meet them.
    #[serde(default)]
    pub exercises: Vec<Exercise>,
}

/// One exercise: a function the student implements, graded by its checks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exercise {
    /// The function's name, e.g. `split_heads`.
    pub name: String,
    /// Hint levels, revealed one at a time.
    #[serde(default)]
    pub hints: Vec<String>,
    /// The checks (test functions in the lesson's `tests/checks.rs`).
    #[serde(default)]
    pub checks: Vec<Check>,
}

/// One graded check: a `#[test]` function.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The test function's name (without the `checks::` module).
    pub name: String,
    /// Points earned when it passes.
    pub points: u32,
    /// A hidden check: its source and snapshots live with the solutions
    /// (`solutions/<dir>/tests/hidden/`), it is left out of the student handout, and only official
    /// grading (in the instructors' workspace or `grade --submission`) runs it.
    #[serde(default)]
    pub hidden: bool,
}

impl Course {
    /// Reads and validates `course.toml` at `root`.
    pub fn load(root: &Path) -> Result<Self, String> {
        let path = root.join("course.toml");
        let text = std::fs::read_to_string(&path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let course: Course =
            toml::from_str(&text).map_err(|e| format!("{} is not valid: {e}", path.display()))?;
        course.validate()?;
        Ok(course)
    }

    fn validate(&self) -> Result<(), String> {
        let mut seen = std::collections::HashSet::new();
        for lesson in &self.lessons {
            if !seen.insert(lesson.id.as_str()) {
                return Err(format!("course.toml: lesson `{}` appears twice", lesson.id));
            }
            let mut names = std::collections::HashSet::new();
            for ex in &lesson.exercises {
                for check in &ex.checks {
                    if !names.insert(check.name.as_str()) {
                        return Err(format!(
                            "course.toml: check `{}` is listed twice in {}",
                            check.name, lesson.id
                        ));
                    }
                }
            }
        }
        Ok(())
    }

    /// Finds a lesson by id (`lesson01`), number (`1`, `01`) or directory name.
    pub fn find_lesson(&self, key: &str) -> Option<&Lesson> {
        let digits = key.trim_start_matches("lesson").trim_start_matches('0');
        self.lessons.iter().find(|l| {
            l.id == key
                || l.dir == key
                || (!digits.is_empty()
                    && l.id.trim_start_matches("lesson").trim_start_matches('0') == digits)
        })
    }

    /// Finds an exercise by name across all lessons: `(lesson, exercise)`.
    pub fn find_exercise(&self, name: &str) -> Option<(&Lesson, &Exercise)> {
        self.lessons
            .iter()
            .flat_map(|l| l.exercises.iter().map(move |e| (l, e)))
            .find(|(_, e)| e.name == name)
    }
}

impl Lesson {
    /// The crate directory graded for this lesson.
    pub fn crate_dir(&self, root: &Path, solutions: bool) -> PathBuf {
        root.join(if solutions { "solutions" } else { "exercises" })
            .join(&self.dir)
    }

    /// The package name graded for this lesson.
    pub fn package(&self, solutions: bool) -> String {
        if solutions {
            format!("{}-solution", self.id)
        } else {
            self.id.clone()
        }
    }

    /// The test target holding the lesson's visible checks (`lessonNN`, in both crates).
    pub fn check_target(&self) -> &str {
        &self.id
    }

    /// The test target holding the lesson's hidden checks (`lessonNN_hidden`, in both crates).
    pub fn hidden_target(&self) -> String {
        format!("{}_hidden", self.id)
    }

    /// True when at least one of the lesson's checks is hidden.
    pub fn has_hidden(&self) -> bool {
        self.exercises
            .iter()
            .flat_map(|e| &e.checks)
            .any(|c| c.hidden)
    }

    /// The directory of the hidden checks: `solutions/<dir>/tests/hidden`.
    pub fn hidden_dir(&self, root: &Path) -> PathBuf {
        self.crate_dir(root, true).join("tests").join("hidden")
    }

    /// The directories that hold the lesson's snapshot files: the visible checks' and the hidden
    /// checks'.
    pub fn snapshot_dirs(&self, root: &Path) -> [PathBuf; 2] {
        [
            self.crate_dir(root, false).join("tests").join("snapshots"),
            self.hidden_dir(root).join("snapshots"),
        ]
    }

    /// The lesson's number, from its id (`lesson07` -> 7).
    pub fn number(&self) -> Option<u32> {
        self.id.strip_prefix("lesson")?.parse().ok()
    }

    /// Total points of the lesson.
    pub fn max_points(&self) -> u32 {
        self.exercises
            .iter()
            .flat_map(|e| &e.checks)
            .map(|c| c.points)
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn course() -> Course {
        toml::from_str(
            r#"
            [course]
            title = "t"
            [[lessons]]
            id = "lesson02"
            dir = "lesson02-split-heads"
            title = "Split"
            [[lessons.exercises]]
            name = "split_heads"
            hints = ["a", "b"]
            checks = [{ name = "c1", points = 2 }, { name = "c2", points = 3 }]
            "#,
        )
        .unwrap()
    }

    #[test]
    fn lessons_are_found_by_id_number_or_dir() {
        let c = course();
        for key in ["lesson02", "2", "02", "lesson02-split-heads"] {
            assert_eq!(
                c.find_lesson(key).map(|l| l.id.as_str()),
                Some("lesson02"),
                "{key}"
            );
        }
        assert!(c.find_lesson("3").is_none());
        assert_eq!(c.lessons[0].max_points(), 5);
        assert_eq!(c.course.default_timeout_secs, 10.0);
        assert!(c.find_exercise("split_heads").is_some());
    }

    #[test]
    fn duplicate_checks_are_refused() {
        let mut c = course();
        c.lessons[0].exercises[0].checks[1].name = "c1".into();
        assert!(c.validate().unwrap_err().contains("listed twice"));
    }
}
