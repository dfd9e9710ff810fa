//! `course.toml`: the lessons, their exercises, the graded checks of each exercise, and hints.

pub mod check_id;
pub mod expected;
pub mod layout;
pub mod manifest;
pub mod pristine;
pub mod refused;
pub mod selection;
pub mod side;
pub mod stubs;
pub mod suggest;
pub mod tokens;

pub use check_id::CheckId;
pub use side::Side;

use anyhow::{Context as _, Result};
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
#[derive(Debug, Clone, Deserialize)]
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
    /// The lesson's catalogue of classic wrong answers (`[[lessons.misconceptions]]`), each a real
    /// wrong implementation in `solutions/<dir>/src/misconceptions.rs`, planted into the reference
    /// solution when `grade --solutions --plant <id>` runs its checks (`course_check::plantable!`).
    #[serde(default)]
    pub misconceptions: Vec<Misconception>,
}

/// One named misconception: a classic wrong implementation of one exercise, the checks that
/// catch it, and the words that explain it to a student whose output matches it.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Misconception {
    /// Kebab-case id, e.g. `split-without-transpose`; the solution crate's `plantable!` function
    /// runs the wrong answer when the grader plants this id.
    pub id: String,
    /// The exercise (function) the wrong implementation replaces.
    pub exercise: String,
    /// One line naming the mistake.
    pub title: String,
    /// Two or three sentences that teach what is wrong and how to fix it.
    pub explanation: String,
    /// The checks that fail when the misconception is planted (each a check of this lesson).
    pub checks: Vec<String>,
}

/// One exercise: a function the student implements, graded by its checks.
#[derive(Debug, Clone, Deserialize)]
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
#[derive(Debug, Clone, Deserialize)]
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
    /// A variant check (hidden too): its inputs are drawn from a seed per student and exercise,
    /// and its expected outputs are the reference solution's for that seed, computed when grading
    /// (see `crate::variants`). Its source is `solutions/<dir>/tests/hidden/variants.rs`.
    #[serde(default)]
    pub variant: bool,
    /// Exercises this check relies on besides its own (e.g. a `merge_heads` check that calls
    /// `split_heads`): each an exercise of the same or an earlier lesson. A failing check whose
    /// prerequisite is not passing is blamed on the prerequisite.
    #[serde(default)]
    pub needs: Vec<String>,
}

/// The shortest and longest time limit a check may have, in seconds (as `grade --timeout`).
pub const MIN_TIMEOUT_SECS: f64 = 0.001;
/// See [`MIN_TIMEOUT_SECS`].
pub const MAX_TIMEOUT_SECS: f64 = 86_400.0;

/// What is wrong in `course.toml`, and where: the first line holding `needle` at or after the
/// first line holding `after` (a lesson's `id = "…"`), or the `nth` line holding `needle`.
#[derive(Debug)]
pub struct Problem {
    message: String,
    after: Option<String>,
    needle: String,
    nth: usize,
}

impl Problem {
    fn at(after: Option<String>, needle: &str, message: String) -> Self {
        Problem {
            message,
            after,
            needle: needle.to_owned(),
            nth: 1,
        }
    }

    fn nth(needle: &str, nth: usize, message: String) -> Self {
        Problem {
            message,
            after: None,
            needle: needle.to_owned(),
            nth,
        }
    }

    /// The 1-based line of `text` (the course file) the problem is on, when it can be found.
    pub fn line(&self, text: &str) -> Option<usize> {
        line_of(text, self.after.as_deref(), &self.needle, self.nth)
    }
}

/// The 1-based line of `text` holding `needle` for the `nth` time at or after the first line
/// holding `after` (from the start without it).
pub fn line_of(text: &str, after: Option<&str>, needle: &str, nth: usize) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    let start = match after {
        Some(after) => lines.iter().position(|l| l.contains(after))?,
        None => 0,
    };
    let found = lines[start..]
        .iter()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(nth.checked_sub(1)?)?;
    Some(start + found.0 + 1)
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Problem {}

impl Course {
    /// True for a student's own sources, `rel` being relative to the course root:
    /// `exercises/<lesson dir>/src/**` of a course lesson.
    /// Called for every file of a course copy (a submission's comparison, a class build's key),
    /// so it splits `rel` once instead of formatting a prefix per lesson.
    pub fn is_student_source(&self, rel: &str) -> bool {
        rel.strip_prefix("exercises/")
            .and_then(|rest| rest.split_once('/'))
            .is_some_and(|(dir, inner)| {
                inner.starts_with("src/") && self.lessons.iter().any(|l| l.dir == dir)
            })
    }

    /// Reads and validates `course.toml` at `root`.
    pub fn load(root: &Path) -> Result<Self> {
        let path = root.join("course.toml");
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let course: Course =
            toml::from_str(&text).with_context(|| format!("{} is not valid", path.display()))?;
        course.validate().map_err(|problem| {
            let line = problem
                .line(&text)
                .map_or_else(String::new, |n| format!(":{n}"));
            anyhow::anyhow!("{}{line}: {problem}", path.display())
        })?;
        Ok(course)
    }

    fn validate(&self) -> Result<(), Problem> {
        let in_limits = |secs: f64| (MIN_TIMEOUT_SECS..=MAX_TIMEOUT_SECS).contains(&secs);
        if !in_limits(self.course.default_timeout_secs) {
            return Err(Problem::at(
                None,
                "default_timeout_secs",
                format!(
                    "course.toml: `default_timeout_secs = {}` must be at least {MIN_TIMEOUT_SECS} and \
                     at most {MAX_TIMEOUT_SECS} seconds (every check would stop at once)",
                    self.course.default_timeout_secs
                ),
            ));
        }
        let mut dirs = std::collections::HashSet::new();
        let mut exercise_names = std::collections::HashSet::new();
        for lesson in &self.lessons {
            let here = Some(format!("id = \"{}\"", lesson.id));
            if let Some(secs) = lesson.timeout_secs.filter(|s| !in_limits(*s)) {
                return Err(Problem::at(
                    here,
                    "timeout_secs",
                    format!(
                        "course.toml: lesson `{}` has `timeout_secs = {secs}`, which must be at \
                         least {MIN_TIMEOUT_SECS} and at most {MAX_TIMEOUT_SECS} seconds",
                        lesson.id
                    ),
                ));
            }
            if !dirs.insert(lesson.dir.as_str()) {
                return Err(Problem::at(
                    here,
                    &format!("dir = \"{}\"", lesson.dir),
                    format!(
                        "course.toml: lesson `{}` has the folder `{}` of an earlier lesson",
                        lesson.id, lesson.dir
                    ),
                ));
            }
            for ex in &lesson.exercises {
                if !exercise_names.insert(ex.name.as_str()) {
                    return Err(Problem::at(
                        here,
                        &format!("name = \"{}\"", ex.name),
                        format!(
                            "course.toml: the exercise `{}` appears twice (exercise names are \
                             unique across the course: `hint`, `reset` and `grade` find them by \
                             name)",
                            ex.name
                        ),
                    ));
                }
            }
        }
        self.validate_checks()
    }

    fn validate_checks(&self) -> Result<(), Problem> {
        let mut seen = std::collections::HashSet::new();
        // Exercises of this lesson and every earlier one: what a check's `needs` may name.
        let mut known_exercises = std::collections::HashSet::new();
        let mut misconception_ids = std::collections::HashSet::new();
        for lesson in &self.lessons {
            let here = Some(format!("id = \"{}\"", lesson.id));
            if !seen.insert(lesson.id.as_str()) {
                return Err(Problem::nth(
                    &format!("id = \"{}\"", lesson.id),
                    2,
                    format!("course.toml: lesson `{}` appears twice", lesson.id),
                ));
            }
            known_exercises.extend(lesson.exercises.iter().map(|e| e.name.as_str()));
            let names = validate_lesson_checks(lesson, &here, &known_exercises)?;
            validate_misconceptions(lesson, &here, &names, &mut misconception_ids)?;
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

    /// Finds an exercise by name across all lessons: `(lesson, exercise)`. A method's exercise is
    /// found by its path too (`KvCache::append` for `append`), the way the grader names what to
    /// implement next.
    pub fn find_exercise(&self, name: &str) -> Option<(&Lesson, &Exercise)> {
        let name = name.rsplit("::").next().unwrap_or(name);
        self.lessons
            .iter()
            .flat_map(|l| l.exercises.iter().map(move |e| (l, e)))
            .find(|(_, e)| e.name == name)
    }
}

impl Lesson {
    /// The crate directory graded for this lesson.
    pub fn crate_dir(&self, root: &Path, side: Side) -> PathBuf {
        root.join(match side {
            Side::Exercises => "exercises",
            Side::Solutions => "solutions",
        })
        .join(&self.dir)
    }

    /// The package name graded for this lesson.
    pub fn package(&self, side: Side) -> String {
        match side {
            Side::Exercises => self.id.clone(),
            Side::Solutions => format!("{}-solution", self.id),
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

    /// The lesson's check targets: [`Self::check_target`], then [`Self::hidden_target`] when it has
    /// hidden checks.
    pub fn check_targets(&self) -> Vec<String> {
        let hidden = self.has_hidden().then(|| self.hidden_target());
        std::iter::once(self.check_target().to_owned())
            .chain(hidden)
            .collect()
    }

    /// True when at least one of the lesson's checks is hidden.
    pub fn has_hidden(&self) -> bool {
        self.exercises
            .iter()
            .flat_map(|e| &e.checks)
            .any(|c| c.hidden)
    }

    /// True when at least one of the lesson's checks is a variant check.
    pub fn has_variants(&self) -> bool {
        self.exercises
            .iter()
            .flat_map(|e| &e.checks)
            .any(|c| c.variant)
    }

    /// The directory of the hidden checks: `solutions/<dir>/tests/hidden`.
    pub fn hidden_dir(&self, root: &Path) -> PathBuf {
        self.crate_dir(root, Side::Solutions)
            .join("tests")
            .join("hidden")
    }

    /// The directories that hold the lesson's snapshot files: the visible checks' and the hidden
    /// checks'.
    pub fn snapshot_dirs(&self, root: &Path) -> [PathBuf; 2] {
        [
            self.crate_dir(root, Side::Exercises)
                .join("tests")
                .join("snapshots"),
            self.hidden_dir(root).join("snapshots"),
        ]
    }

    /// The lesson's number, from its id (`lesson07` -> 7).
    pub fn number(&self) -> Option<u32> {
        self.id.strip_prefix("lesson")?.parse().ok()
    }

    /// This lesson with only the exercise `name` (and its misconceptions): what `grade EXERCISE`
    /// grades, so its points are that exercise's.
    pub fn only(&self, name: &str) -> Lesson {
        Lesson {
            exercises: self
                .exercises
                .iter()
                .filter(|e| e.name == name)
                .cloned()
                .collect(),
            misconceptions: self
                .misconceptions
                .iter()
                .filter(|m| m.exercise == name)
                .cloned()
                .collect(),
            ..self.clone()
        }
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

/// The checks of `lesson`, each named once, variant checks hidden, their `needs` naming another
/// exercise of this lesson or an earlier one (`known_exercises`): their names.
fn validate_lesson_checks<'a>(
    lesson: &'a Lesson,
    here: &Option<String>,
    known_exercises: &std::collections::HashSet<&str>,
) -> Result<std::collections::HashSet<&'a str>, Problem> {
    let mut names = std::collections::HashSet::new();
    for ex in &lesson.exercises {
        for check in &ex.checks {
            let at = format!("name = \"{}\"", check.name);
            if !names.insert(check.name.as_str()) {
                return Err(Problem::nth(
                    &at,
                    2,
                    format!(
                        "course.toml: check `{}` is listed twice in {}",
                        check.name, lesson.id
                    ),
                ));
            }
            if check.variant && !check.hidden {
                return Err(Problem::at(
                    here.clone(),
                    &at,
                    format!(
                        "course.toml: check `{}` is a variant check, which students never \
                         get: add `hidden = true` to it",
                        check.name
                    ),
                ));
            }
            for need in &check.needs {
                if need == &ex.name || !known_exercises.contains(need.as_str()) {
                    return Err(Problem::at(
                        here.clone(),
                        &at,
                        format!(
                            "course.toml: check `{}` needs `{need}`, which is not another \
                             exercise of {} or an earlier lesson",
                            check.name, lesson.id
                        ),
                    ));
                }
            }
        }
    }
    Ok(names)
}

/// The misconceptions of `lesson`: ids unique across the course (`ids`), each about an exercise
/// of the lesson, explained, and caught by visible checks of it (`names`).
fn validate_misconceptions<'a>(
    lesson: &'a Lesson,
    here: &Option<String>,
    names: &std::collections::HashSet<&str>,
    ids: &mut std::collections::HashSet<&'a str>,
) -> Result<(), Problem> {
    for m in &lesson.misconceptions {
        if !ids.insert(m.id.as_str()) {
            return Err(Problem::at(
                here.clone(),
                &format!("id = \"{}\"", m.id),
                format!("course.toml: misconception `{}` appears twice", m.id),
            ));
        }
        if m.id == check_protocol::FITTED_TO_VISIBLE {
            return Err(Problem::at(
                here.clone(),
                &format!("id = \"{}\"", m.id),
                format!(
                    "course.toml: misconception `{}` is the built-in plant of every exercise: choose another id",
                    m.id
                ),
            ));
        }
        if !lesson.exercises.iter().any(|e| e.name == m.exercise) {
            return Err(Problem::at(
                here.clone(),
                &format!("id = \"{}\"", m.id),
                format!(
                    "course.toml: misconception `{}` names `{}`, not an exercise of {}",
                    m.id, m.exercise, lesson.id
                ),
            ));
        }
        if m.title.trim().is_empty() || m.explanation.trim().is_empty() {
            return Err(Problem::at(
                here.clone(),
                &format!("id = \"{}\"", m.id),
                format!(
                    "course.toml: misconception `{}` needs a title and an explanation",
                    m.id
                ),
            ));
        }
        if m.checks.is_empty() {
            return Err(Problem::at(
                here.clone(),
                &format!("id = \"{}\"", m.id),
                format!(
                    "course.toml: misconception `{}` lists no check that catches it",
                    m.id
                ),
            ));
        }
        if let Some(c) = m.checks.iter().find(|c| !names.contains(c.as_str())) {
            return Err(Problem::at(
                here.clone(),
                &format!("id = \"{}\"", m.id),
                format!(
                    "course.toml: misconception `{}` lists `{c}`, not a check of {}",
                    m.id, lesson.id
                ),
            ));
        }
        let hidden = |name: &str| {
            lesson
                .exercises
                .iter()
                .flat_map(|e| &e.checks)
                .any(|c| c.name == name && c.hidden)
        };
        if let Some(c) = m.checks.iter().find(|c| hidden(c)) {
            return Err(Problem::at(
                here.clone(),
                &format!("id = \"{}\"", m.id),
                format!(
                    "course.toml: misconception `{}` lists the hidden check `{c}`: a \
                     handout has no hidden checks, so list only visible ones",
                    m.id
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses to work without the reference solutions (in a student handout).
pub fn require_solutions(root: &std::path::Path) -> anyhow::Result<()> {
    if root.join("solutions").is_dir() {
        Ok(())
    } else {
        anyhow::bail!(
            "this command needs the reference solutions, and solutions/ is missing (is this a student handout?)"
        )
    }
}

/// A two-lesson course for the unit tests.
#[cfg(test)]
pub fn fixture() -> Course {
    toml::from_str(
        r#"
        [course]
        title = "t"
        [[lessons]]
        id = "lesson02"
        dir = "d"
        title = "t"
        [[lessons.exercises]]
        name = "split_heads"
        checks = [{ name = "s1", points = 1 }]
        [[lessons.exercises]]
        name = "merge_heads"
        checks = [{ name = "m1", points = 1, needs = ["split_heads"] }, { name = "m2", points = 1 }]
        [[lessons.exercises]]
        name = "head_projection"
        checks = [{ name = "h1", points = 1, needs = ["merge_heads"] }]
        [[lessons.misconceptions]]
        id = "split-a"
        exercise = "split_heads"
        title = "a"
        explanation = "a"
        checks = ["s1", "m1"]
        [[lessons.misconceptions]]
        id = "split-b"
        exercise = "split_heads"
        title = "b"
        explanation = "b"
        checks = ["s1"]
        [[lessons.misconceptions]]
        id = "merge-a"
        exercise = "merge_heads"
        title = "m"
        explanation = "m"
        checks = ["m1"]
        "#,
    )
    .expect("the fixture parses")
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
    fn only_exercise_sources_belong_to_the_student() {
        let course = course();
        assert!(course.is_student_source("exercises/lesson02-split-heads/src/exercises.rs"));
        assert!(course.is_student_source("exercises/lesson02-split-heads/src/deep/x.rs"));
        assert!(!course.is_student_source("exercises/lesson02-split-heads/tests/checks.rs"));
        assert!(!course.is_student_source("exercises/lesson02-split-heads/Cargo.toml"));
        assert!(!course.is_student_source("exercises/lesson02-split-heads/srcx/a.rs"));
        assert!(!course.is_student_source("exercises/lesson09-other/src/a.rs"));
        assert!(!course.is_student_source("solutions/lesson02-split-heads/src/exercises.rs"));
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
        assert!(c.find_exercise("Heads::split_heads").is_some());
        assert!(c.find_exercise("Heads::merge_heads").is_none());
        assert!(c.find_exercise("split_heads::").is_none());
        let only = c.lessons[0].only("split_heads");
        assert_eq!((only.id.as_str(), only.max_points()), ("lesson02", 5));
        assert!(c.lessons[0].only("merge_heads").exercises.is_empty());
    }

    #[test]
    fn needs_must_name_an_exercise_of_this_or_an_earlier_lesson() {
        let text = r#"
            [course]
            title = "t"
            [[lessons]]
            id = "lesson01"
            dir = "lesson01-a"
            title = "A"
            [[lessons.exercises]]
            name = "head_size"
            checks = [{ name = "a1", points = 1 }]
            [[lessons]]
            id = "lesson02"
            dir = "lesson02-b"
            title = "B"
            [[lessons.exercises]]
            name = "split_heads"
            checks = [{ name = "b1", points = 1, needs = ["head_size"] }]
            [[lessons.exercises]]
            name = "merge_heads"
            checks = [{ name = "b2", points = 1, needs = ["NEED"] }]
        "#;
        let parse = |need: &str| -> Course { toml::from_str(&text.replace("NEED", need)).unwrap() };
        assert!(parse("split_heads").validate().is_ok());
        assert_eq!(
            parse("split_heads").lessons[1].exercises[0].checks[0].needs,
            ["head_size"]
        );
        for bad in ["merge_heads", "fold_heads"] {
            let err = parse(bad).validate().unwrap_err().to_string();
            assert!(err.contains(&format!("needs `{bad}`")), "{err}");
        }
        // A later lesson's exercise is not a prerequisite.
        let later = text.replace(r#"needs = ["head_size"]"#, r#"needs = ["merge_heads"]"#);
        let c: Course = toml::from_str(&later.replace("NEED", "split_heads")).unwrap();
        assert!(c.validate().is_ok(), "same lesson is fine");
        let early: Course = toml::from_str(&text.replace("NEED", "split_heads").replace(
            r#"name = "a1", points = 1"#,
            r#"name = "a1", points = 1, needs = ["split_heads"]"#,
        ))
        .unwrap();
        assert!(
            early
                .validate()
                .unwrap_err()
                .to_string()
                .contains("needs `split_heads`")
        );
    }

    #[test]
    fn misconceptions_must_name_the_lessons_exercise_and_checks() {
        let text = r#"
            [course]
            title = "t"
            [[lessons]]
            id = "lesson02"
            dir = "lesson02-b"
            title = "B"
            [[lessons.exercises]]
            name = "split_heads"
            checks = [{ name = "split_moves", points = 1 }]
            [[lessons.misconceptions]]
            id = "split-without-transpose"
            exercise = "EXERCISE"
            title = "Reshaped straight to (B, h, T, hs)"
            explanation = "The head axis never moved."
            checks = ["CHECK"]
        "#;
        let parse = |ex: &str, check: &str| -> Course {
            toml::from_str(&text.replace("EXERCISE", ex).replace("CHECK", check)).unwrap()
        };
        let ok = parse("split_heads", "split_moves");
        assert!(ok.validate().is_ok());
        assert_eq!(
            ok.lessons[0].misconceptions[0].id,
            "split-without-transpose"
        );
        assert!(
            parse("merge_heads", "split_moves")
                .validate()
                .unwrap_err()
                .to_string()
                .contains("not an exercise")
        );
        assert!(
            parse("split_heads", "nope")
                .validate()
                .unwrap_err()
                .to_string()
                .contains("not a check")
        );
        let fitted: Course = toml::from_str(
            &text
                .replace("EXERCISE", "split_heads")
                .replace("CHECK", "split_moves")
                .replace("split-without-transpose", check_protocol::FITTED_TO_VISIBLE),
        )
        .unwrap();
        assert!(
            fitted
                .validate()
                .unwrap_err()
                .to_string()
                .contains("the built-in plant")
        );
    }

    #[test]
    fn duplicate_checks_are_refused() {
        let mut c = course();
        c.lessons[0].exercises[0].checks[1].name = "c1".into();
        assert!(
            c.validate()
                .unwrap_err()
                .to_string()
                .contains("listed twice")
        );
    }

    #[test]
    fn a_variant_check_must_be_hidden() {
        let mut c = course();
        c.lessons[0].exercises[0].checks[1].variant = true;
        let err = c.validate().unwrap_err().to_string();
        assert!(err.contains("add `hidden = true`"), "{err}");
        c.lessons[0].exercises[0].checks[1].hidden = true;
        assert!(c.validate().is_ok());
        assert!(c.lessons[0].has_variants());
        let plain = crate::variants::without_variants(&c.lessons[0]);
        assert!(!plain.has_variants());
        assert_eq!(
            plain.exercises[0].checks.len() + 1,
            c.lessons[0].exercises[0].checks.len()
        );
    }

    #[test]
    fn limits_folders_and_names_are_checked_and_located() {
        let dir = tempfile::tempdir().unwrap();
        let course = |text: &str| {
            std::fs::write(dir.path().join("course.toml"), text).unwrap();
            Course::load(dir.path())
                .map(|_| ())
                .map_err(|e| e.to_string())
        };
        let lesson = |id: &str, folder: &str, extra: &str| {
            format!(
                "\n[[lessons]]\nid = \"{id}\"\ndir = \"{folder}\"\ntitle = \"t\"\n{extra}\n\
                 [[lessons.exercises]]\nname = \"f_{id}\"\nchecks = [{{ name = \"c_{id}\", points = 1 }}]\n"
            )
        };
        let head = |secs: &str| format!("[course]\ntitle = \"x\"\ndefault_timeout_secs = {secs}\n");
        let ok = format!(
            "{}{}{}",
            head("10"),
            lesson("a", "a-dir", ""),
            lesson("b", "b-dir", "")
        );
        assert_eq!(course(&ok), Ok(()));
        let error = course(&format!("{}{}", head("0"), lesson("a", "a-dir", ""))).unwrap_err();
        assert!(
            error.contains("course.toml:3: course.toml: `default_timeout_secs = 0` must be"),
            "{error}"
        );
        let error = course(&format!(
            "{}{}{}",
            head("10"),
            lesson("a", "a-dir", ""),
            lesson("b", "b-dir", "timeout_secs = -1")
        ))
        .unwrap_err();
        assert!(
            error.contains("course.toml:18: ") && error.contains("`timeout_secs = -1`"),
            "{error}"
        );
        let error = course(&format!(
            "{}{}{}",
            head("10"),
            lesson("a", "a-dir", ""),
            lesson("b", "a-dir", "")
        ))
        .unwrap_err();
        assert!(
            error.contains("course.toml:16: ") && error.contains("folder `a-dir`"),
            "{error}"
        );
        let twice = format!(
            "{}{}{}",
            head("10"),
            lesson("a", "a-dir", ""),
            lesson("b", "b-dir", "")
        )
        .replace("f_b", "f_a");
        let error = course(&twice).unwrap_err();
        assert!(
            error.contains("course.toml:20: ") && error.contains("`f_a` appears twice"),
            "{error}"
        );
        let error = course(&ok.replace(
            "\"c_b\", points = 1",
            "\"c_b\", points = 1, needs = [\"nope\"]",
        ))
        .unwrap_err();
        assert!(
            error.contains("course.toml:21: ") && error.contains("needs `nope`"),
            "{error}"
        );
    }
}
