//! Did-you-mean for mistyped names: `grade split-heads` finds `split_heads`, `hint max_abs_dif`
//! finds `max_abs_diff`, `grade lesson-02` finds `lesson02`.
//!
//! Every command that takes a lesson or an exercise by name reports a name it does not know with
//! [`unknown`]: one `error:` line, then one `help:` line with the closest name, or (when nothing is
//! close) what exists.

use crate::course::Course;

/// What a command takes by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A lesson: `lesson01`, `1` or its directory (`demo`, `watch`, `bless`, `check`).
    Lesson,
    /// An exercise (function) name (`hint`).
    Exercise,
    /// Either (`grade`, `reset`).
    LessonOrExercise,
}

/// The error for `input`, which names no [`Kind`] of `course`: what was not found, and on a second
/// line a `help:` with the name that was probably meant, or what exists.
///
/// ```text
/// no lesson or exercise named `split-heads`
///   help: did you mean `split_heads`?
/// ```
pub fn unknown(course: &Course, kind: Kind, input: &str) -> String {
    let what = match kind {
        Kind::Lesson => "lesson",
        Kind::Exercise => "exercise",
        Kind::LessonOrExercise => "lesson or exercise",
    };
    format!(
        "no {what} named `{input}`\n  help: {}",
        help(course, kind, input)
    )
}

/// The `help:` text of [`unknown`].
fn help(course: &Course, kind: Kind, input: &str) -> String {
    let lessons = || {
        course
            .lessons
            .iter()
            .flat_map(|l| [l.id.as_str(), l.dir.as_str()])
    };
    let exercises = || {
        course
            .lessons
            .iter()
            .flat_map(|l| &l.exercises)
            .map(|e| e.name.as_str())
    };
    // A lesson's number (`lesson-02`, `lesson99`, `12`): edit distances mean nothing for numbers.
    if kind != Kind::Exercise
        && let Some(digits) = lesson_digits(input)
    {
        let number = digits.trim_start_matches('0');
        return match course
            .lessons
            .iter()
            .find(|l| l.number().is_some_and(|n| n.to_string() == number))
        {
            Some(l) => format!("did you mean `{}`?", l.id),
            None => format!("the lessons are {}", lesson_range(course)),
        };
    }
    let suggestion = match kind {
        Kind::Lesson => did_you_mean(input, lessons()),
        Kind::Exercise => did_you_mean(input, exercises()),
        Kind::LessonOrExercise => did_you_mean(input, lessons().chain(exercises())),
    };
    if let Some(name) = suggestion {
        return format!("did you mean `{name}`?");
    }
    // A name of the other kind: say what this command takes instead.
    match kind {
        Kind::Lesson => {
            let exercise = course
                .find_exercise(input)
                .or_else(|| did_you_mean(input, exercises()).and_then(|e| course.find_exercise(e)));
            if let Some((lesson, ex)) = exercise {
                return format!(
                    "`{}` is an exercise of {}: did you mean `{}`?",
                    ex.name, lesson.id, lesson.id
                );
            }
            format!("the lessons are {}", lesson_range(course))
        }
        Kind::Exercise => {
            let lesson = course
                .find_lesson(input)
                .or_else(|| did_you_mean(input, lessons()).and_then(|l| course.find_lesson(l)));
            if let Some(lesson) = lesson {
                let names: Vec<String> = lesson
                    .exercises
                    .iter()
                    .map(|e| format!("`{}`", e.name))
                    .collect();
                return format!(
                    "`{}` is a lesson; its exercises are {}",
                    lesson.id,
                    names.join(", ")
                );
            }
            format!(
                "{}; `cargo xtask list` shows them all",
                some_exercises(course)
            )
        }
        Kind::LessonOrExercise => format!(
            "the lessons are {}; {}; `cargo xtask list` shows them all",
            lesson_range(course),
            some_exercises(course)
        ),
    }
}

/// The digits of a key that is a lesson number: `7`, `lesson99`, `Lesson-02`, `lesson_2`.
fn lesson_digits(input: &str) -> Option<String> {
    let name = normalise(input);
    let digits = name
        .strip_prefix("lesson")
        .map_or(name.as_str(), |rest| rest.trim_start_matches('_'));
    (!digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())).then(|| digits.to_owned())
}

/// The lessons, briefly: `` `lesson01` … `lesson07` (or 1 … 7) ``.
fn lesson_range(course: &Course) -> String {
    let (Some(first), Some(last)) = (course.lessons.first(), course.lessons.last()) else {
        return "none yet (course.toml lists no lesson)".to_owned();
    };
    if course.lessons.len() == 1 {
        return format!("only `{}`", first.id);
    }
    match (first.number(), last.number()) {
        (Some(a), Some(b)) => format!("`{}` … `{}` (or {a} … {b})", first.id, last.id),
        _ => {
            let ids: Vec<String> = course
                .lessons
                .iter()
                .map(|l| format!("`{}`", l.id))
                .collect();
            ids.join(", ")
        }
    }
}

/// What an exercise name looks like, with an example or two from the course.
fn some_exercises(course: &Course) -> String {
    let examples: Vec<String> = course
        .lessons
        .iter()
        .filter_map(|l| l.exercises.first())
        .take(2)
        .map(|e| format!("`{}`", e.name))
        .collect();
    if examples.is_empty() {
        "the course has no exercises yet".to_owned()
    } else {
        format!(
            "exercises are function names such as {}",
            examples.join(" or ")
        )
    }
}

/// Names are compared after lower-casing and writing `-` as `_`, so `split-heads`,
/// `Split_Heads` and `split_heads` are the same name.
fn normalise(name: &str) -> String {
    name.trim().to_lowercase().replace('-', "_")
}

/// The candidate closest to `input`, when it is close enough to be what was meant.
///
/// A candidate equal to `input` after normalising (`-` as `_`, case ignored) wins outright.
/// Otherwise the closest candidate by Damerau–Levenshtein distance (a swap of two neighbouring
/// letters counts as one edit) is returned when the distance is at most a third of the longer
/// name (at least 1, at most 3 edits), or when one name is a prefix of the other and the prefix
/// holds at least 4 characters (`max_abs` for `max_abs_diff`). Ties go to the first candidate.
/// `None` when nothing is that close.
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let wanted = normalise(input);
    if wanted.is_empty() {
        return None;
    }
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let name = normalise(candidate);
        if name == wanted {
            return Some(candidate);
        }
        let longer = wanted.chars().count().max(name.chars().count());
        let limit = (longer / 3).clamp(1, 3);
        let distance = strsim::damerau_levenshtein(&wanted, &name);
        let prefix = wanted.chars().count().min(name.chars().count()) >= 4
            && (name.starts_with(&wanted) || wanted.starts_with(&name));
        let score = if distance <= limit {
            distance
        } else if prefix {
            // A prefix is a fair guess, but any near-spelling beats it.
            limit + 1
        } else {
            continue;
        };
        if best.is_none_or(|(s, _)| score < s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXERCISES: [&str; 8] = [
        "split_heads",
        "merge_heads",
        "head_size",
        "max_abs_diff",
        "fold_heads",
        "repeat_kv",
        "n_rep",
        "attention_scores",
    ];

    #[test]
    fn dashes_and_case_are_the_same_name() {
        assert_eq!(did_you_mean("split-heads", EXERCISES), Some("split_heads"));
        assert_eq!(did_you_mean("Merge_Heads", EXERCISES), Some("merge_heads"));
        assert_eq!(did_you_mean("repeat-kv", EXERCISES), Some("repeat_kv"));
    }

    #[test]
    fn typos_find_the_closest_name() {
        assert_eq!(did_you_mean("max_abs_dif", EXERCISES), Some("max_abs_diff"));
        assert_eq!(
            did_you_mean("atention_scores", EXERCISES),
            Some("attention_scores")
        );
        assert_eq!(
            did_you_mean("fodl_heads", EXERCISES),
            Some("fold_heads"),
            "a swap is one edit"
        );
        assert_eq!(did_you_mean("nrep", EXERCISES), Some("n_rep"));
        assert_eq!(did_you_mean("split_head", EXERCISES), Some("split_heads"));
    }

    #[test]
    fn prefixes_are_suggested_only_when_nothing_is_spelled_closer() {
        assert_eq!(did_you_mean("max_abs", EXERCISES), Some("max_abs_diff"));
        assert_eq!(
            did_you_mean("attention", EXERCISES),
            Some("attention_scores")
        );
        assert_eq!(
            did_you_mean("kv", EXERCISES),
            None,
            "too short to be a prefix"
        );
    }

    #[test]
    fn far_names_get_no_suggestion() {
        assert_eq!(did_you_mean("softmax", EXERCISES), None);
        assert_eq!(did_you_mean("", EXERCISES), None);
        assert_eq!(did_you_mean("   ", EXERCISES), None);
        assert_eq!(did_you_mean("xyz", []), None);
    }

    #[test]
    fn lessons_are_found_by_their_ids_and_directories() {
        let lessons = [
            "lesson01",
            "lesson02",
            "lesson02-split-heads",
            "lesson03-parallel-attention",
        ];
        assert_eq!(did_you_mean("lesson2", lessons), Some("lesson02"));
        assert_eq!(
            did_you_mean("lesson02_split_heads", lessons),
            Some("lesson02-split-heads")
        );
        assert_eq!(
            did_you_mean("lesson03-paralel-attention", lessons),
            Some("lesson03-parallel-attention")
        );
    }

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
            name = "max_abs_diff"
            [[lessons]]
            id = "lesson02"
            dir = "lesson02-split-heads"
            title = "Split"
            [[lessons.exercises]]
            name = "head_size"
            [[lessons.exercises]]
            name = "split_heads"
            "#,
        )
        .unwrap()
    }

    #[test]
    fn unknown_names_get_one_error_line_and_one_help_line() {
        let c = course();
        let both = Kind::LessonOrExercise;
        assert_eq!(
            unknown(&c, both, "split-heads"),
            "no lesson or exercise named `split-heads`\n  help: did you mean `split_heads`?"
        );
        assert_eq!(
            unknown(&c, Kind::Exercise, "max_abs_dif"),
            "no exercise named `max_abs_dif`\n  help: did you mean `max_abs_diff`?"
        );
        assert_eq!(
            unknown(&c, Kind::Lesson, "lesson02-split-head"),
            "no lesson named `lesson02-split-head`\n  help: did you mean `lesson02-split-heads`?"
        );
    }

    #[test]
    fn lesson_numbers_are_matched_by_number_not_by_spelling() {
        let c = course();
        for key in ["lesson-02", "Lesson_2", "LESSON02"] {
            assert!(
                unknown(&c, Kind::LessonOrExercise, key).ends_with("did you mean `lesson02`?"),
                "{key}"
            );
        }
        for key in ["lesson99", "lesson03", "0", "12"] {
            let err = unknown(&c, Kind::Lesson, key);
            assert!(
                err.ends_with("help: the lessons are `lesson01` … `lesson02` (or 1 … 2)"),
                "{key}: {err}"
            );
        }
    }

    #[test]
    fn far_names_list_what_exists() {
        let c = course();
        assert_eq!(
            unknown(&c, Kind::LessonOrExercise, "softmax"),
            "no lesson or exercise named `softmax`\n  help: the lessons are `lesson01` … \
             `lesson02` (or 1 … 2); exercises are function names such as `max_abs_diff` or \
             `head_size`; `cargo xtask list` shows them all"
        );
        assert_eq!(
            unknown(&c, Kind::Exercise, "lesson02"),
            "no exercise named `lesson02`\n  help: `lesson02` is a lesson; its exercises are \
             `head_size`, `split_heads`"
        );
        assert_eq!(
            unknown(&c, Kind::Lesson, "split-heads"),
            "no lesson named `split-heads`\n  help: `split_heads` is an exercise of lesson02: \
             did you mean `lesson02`?"
        );
    }

    #[test]
    fn the_returned_name_is_the_candidate_as_written() {
        let names = ["Split_Heads"];
        assert_eq!(did_you_mean("split-heads", names), Some("Split_Heads"));
    }
}
