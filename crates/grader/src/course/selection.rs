//! What a grade selects of the course: every lesson, one lesson, or one exercise, resolved once
//! from the command line's key where the request is made, and carried as the course's own values.

use crate::course::suggest::{Kind, unknown};
use crate::course::{Course, Exercise, Lesson};
use anyhow::{Result, anyhow};
use std::borrow::Cow;

/// What `grade [KEY]` grades: every lesson, one lesson, or one exercise.
#[derive(Debug, Clone, Default)]
pub enum Selection {
    /// No key: every lesson.
    #[default]
    All,
    /// A lesson (`lesson01`, `1` or its directory): all its exercises.
    Lesson(Lesson),
    /// An exercise (`split_heads`) and its lesson: the lesson is built, and only the exercise's
    /// checks run.
    Exercise(Lesson, Exercise),
}

impl Selection {
    /// Resolves `grade`'s key: a lesson first, then an exercise name; anything else is an error
    /// with a did-you-mean.
    pub fn resolve(course: &Course, key: Option<&str>) -> Result<Self> {
        let Some(key) = key else {
            return Ok(Selection::All);
        };
        if let Some(lesson) = course.find_lesson(key) {
            Ok(Selection::Lesson(lesson.clone()))
        } else if let Some((lesson, exercise)) = course.find_exercise(key) {
            Ok(Selection::Exercise(lesson.clone(), exercise.clone()))
        } else {
            Err(anyhow!(unknown(course, Kind::LessonOrExercise, key)))
        }
    }

    /// Resolves a key that names a lesson only (`check`, `bless`): a lesson, or an error with a
    /// did-you-mean among the lessons.
    pub fn resolve_lesson(course: &Course, key: Option<&str>) -> Result<Self> {
        let Some(key) = key else {
            return Ok(Selection::All);
        };
        Ok(Selection::Lesson(named_lesson(course, key)?.clone()))
    }

    /// The lesson named (of the exercise, for one exercise); `None` for every lesson.
    pub fn lesson(&self) -> Option<&Lesson> {
        match self {
            Selection::All => None,
            Selection::Lesson(lesson) | Selection::Exercise(lesson, _) => Some(lesson),
        }
    }

    /// The lessons to grade, each with only its selected exercises: for one exercise, its lesson
    /// holding just that exercise (so the lesson's points are the exercise's).
    pub fn lessons<'a>(&'a self, course: &'a Course) -> Vec<Cow<'a, Lesson>> {
        match self {
            Selection::All => course.lessons.iter().map(Cow::Borrowed).collect(),
            Selection::Lesson(lesson) => vec![Cow::Borrowed(lesson)],
            Selection::Exercise(lesson, exercise) => vec![Cow::Owned(lesson.only(&exercise.name))],
        }
    }
}

/// The lessons a key selects: all of them, or the one it names (`lesson01`, `1` or its directory).
pub fn select<'c>(course: &'c Course, key: Option<&str>) -> Result<Vec<&'c Lesson>> {
    match key {
        Some(key) => Ok(vec![named_lesson(course, key)?]),
        None => Ok(course.lessons.iter().collect()),
    }
}

/// The lesson `key` names, or an error with a did-you-mean among the lessons.
fn named_lesson<'c>(course: &'c Course, key: &str) -> Result<&'c Lesson> {
    course
        .find_lesson(key)
        .ok_or_else(|| anyhow!(unknown(course, Kind::Lesson, key)))
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
            id = "lesson01"
            dir = "lesson01-why-heads"
            title = "Why"
            [[lessons.exercises]]
            name = "scores"
            checks = [{ name = "s1", points = 1 }]
            [[lessons]]
            id = "lesson02"
            dir = "lesson02-split-heads"
            title = "Split"
            [[lessons.exercises]]
            name = "split_heads"
            checks = [{ name = "c1", points = 2 }]
            [[lessons.exercises]]
            name = "merge_heads"
            checks = [{ name = "c2", points = 3 }]
            "#,
        )
        .unwrap()
    }

    fn ids(selection: &Selection, course: &Course) -> Vec<(String, u32)> {
        selection
            .lessons(course)
            .iter()
            .map(|l| (l.id.clone(), l.max_points()))
            .collect()
    }

    #[test]
    fn a_key_is_resolved_to_the_course_s_lessons_and_exercises() {
        let c = course();
        assert_eq!(
            ids(&Selection::resolve(&c, None).unwrap(), &c),
            [("lesson01".to_owned(), 1), ("lesson02".to_owned(), 5)]
        );
        for key in ["lesson02", "2", "lesson02-split-heads"] {
            let s = Selection::resolve(&c, Some(key)).unwrap();
            assert!(
                matches!(&s, Selection::Lesson(l) if l.id == "lesson02"),
                "{key}"
            );
            assert_eq!(ids(&s, &c), [("lesson02".to_owned(), 5)]);
        }
        let s = Selection::resolve(&c, Some("Heads::merge_heads")).unwrap();
        assert!(
            matches!(&s, Selection::Exercise(l, e) if l.id == "lesson02" && e.name == "merge_heads")
        );
        assert_eq!(s.lesson().map(|l| l.id.as_str()), Some("lesson02"));
        assert_eq!(
            ids(&s, &c),
            [("lesson02".to_owned(), 3)],
            "the exercise's points"
        );
    }

    #[test]
    fn an_unknown_key_says_what_it_could_have_meant() {
        let c = course();
        let wrong = Selection::resolve(&c, Some("split_head")).unwrap_err();
        assert_eq!(
            wrong.to_string(),
            unknown(&c, Kind::LessonOrExercise, "split_head")
        );
        assert!(wrong.to_string().contains("split_heads"), "{wrong}");
        // A key for a lesson only is refused when it names an exercise.
        let lesson_only = Selection::resolve_lesson(&c, Some("split_heads")).unwrap_err();
        assert_eq!(
            lesson_only.to_string(),
            unknown(&c, Kind::Lesson, "split_heads")
        );
        assert!(matches!(
            Selection::resolve_lesson(&c, Some("1")).unwrap(),
            Selection::Lesson(l) if l.id == "lesson01"
        ));
        assert!(matches!(
            Selection::resolve_lesson(&c, None).unwrap(),
            Selection::All
        ));
    }
}
