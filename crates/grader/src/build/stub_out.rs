//! A compile error costs its function, not its lesson: a lesson that does not compile only
//! because of errors inside some of its exercises is built again with those exercises put back
//! to their handed-out stubs (`crate::grade` does it, once). Decided here, from the compiler's
//! messages and the source as it was built: which exercises every error is in
//! ([`broken_exercises`]), and the source with them stubbed out ([`stub_out`]).

use crate::course::Lesson;
use crate::course::stubs::{EXERCISE_FILE, byte_at, fn_range, replace_fn};
use std::collections::HashMap;
use std::ops::Range;

/// Where a compiler error is: its primary span, followed out of macro expansions into the
/// lesson's own sources, as the compiler names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    /// The file, relative to the course built (`exercises/<dir>/src/exercises.rs`).
    pub file: String,
    /// Its first line and column (from 1; columns in characters).
    pub start: (usize, usize),
    /// The line and column just past its end.
    pub end: (usize, usize),
}

/// One error-level message of a lesson's build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// Where it is; `None` when it is in none of the lesson's sources (a check, a dependency, no
    /// place at all).
    pub at: Option<At>,
    /// Its text as a report shows it (trimmed, and only what a submission may see).
    pub text: String,
}

/// An exercise whose function does not compile, with the compiler's first error in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The exercise (its function's name).
    pub name: String,
    /// The compiler's first error inside it.
    pub error: String,
}

/// `exercises/<dir>/src/exercises.rs`, as the compiler names it.
fn exercise_file(lesson: &Lesson) -> String {
    format!("exercises/{}/src/{EXERCISE_FILE}", lesson.dir)
}

/// The exercises of `lesson` that `errors` are in, each with the first error inside it, in
/// course order. `None` unless every error lies inside an exercise's function in `text` (the
/// lesson's `src/exercises.rs` as it was built): an error in a helper function, in a type or
/// `use` the exercises share, in another file or a check, or without a place, leaves the whole
/// lesson a compile error, as does a lesson with no error message at all.
pub fn broken_exercises(
    lesson: &Lesson,
    errors: &[CompileError],
    text: &str,
) -> Option<Vec<Broken>> {
    if errors.is_empty() {
        return None;
    }
    let file = exercise_file(lesson);
    // An exercise whose function cannot be found once (a file that does not parse, two functions
    // of its name) has no range: no error is placed in it.
    let ranges: Vec<(&str, Range<usize>)> = lesson
        .exercises
        .iter()
        .filter_map(|ex| Some((ex.name.as_str(), fn_range(text, &ex.name).ok()??)))
        .collect();
    let mut first: HashMap<&str, &str> = HashMap::new();
    for error in errors {
        let at = error.at.as_ref().filter(|at| at.file == file)?;
        let start = byte_at(text, at.start.0, at.start.1);
        let end = byte_at(text, at.end.0, at.end.1);
        let (name, _) = ranges
            .iter()
            .find(|(_, range)| range.start <= start && end <= range.end)?;
        first.entry(name).or_insert(&error.text);
    }
    let broken = lesson
        .exercises
        .iter()
        .filter_map(|ex| {
            first.get(ex.name.as_str()).map(|error| Broken {
                name: ex.name.clone(),
                error: (*error).to_owned(),
            })
        })
        .collect();
    Some(broken)
}

/// `text` with each function of `broken` replaced by its handed-out version in `stub`; `None`
/// when one cannot be (it is not in both once).
pub fn stub_out(text: &str, stub: &str, broken: &[Broken]) -> Option<String> {
    broken.iter().try_fold(text.to_owned(), |text, ex| {
        match replace_fn(&text, stub, &ex.name).ok()? {
            (replaced, false) => Some(replaced),
            (_, true) => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lesson 2's stub, as handed out.
    const STUB: &str = include_str!("../../../../exercises/lesson02-split-heads/src/exercises.rs");
    /// Lesson 2's reference solution.
    const SOLVED: &str =
        include_str!("../../../../solutions/lesson02-split-heads/src/exercises.rs");

    fn lesson() -> Lesson {
        let course = crate::course::Course::load(
            &std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        )
        .unwrap();
        course.find_lesson("lesson02").unwrap().clone()
    }

    /// The 1-based line and column of the first `needle` in `text`, and of the place after it.
    fn span_of(text: &str, needle: &str) -> ((usize, usize), (usize, usize)) {
        let at = text.find(needle).unwrap_or_else(|| panic!("no {needle:?}"));
        let place = |offset: usize| {
            let before = &text[..offset];
            let line = before.matches('\n').count() + 1;
            let column = before[before.rfind('\n').map_or(0, |n| n + 1)..]
                .chars()
                .count()
                + 1;
            (line, column)
        };
        (place(at), place(at + needle.len()))
    }

    fn error_at(lesson: &Lesson, text: &str, needle: &str, message: &str) -> CompileError {
        let (start, end) = span_of(text, needle);
        CompileError {
            at: Some(At {
                file: exercise_file(lesson),
                start,
                end,
            }),
            text: message.to_owned(),
        }
    }

    /// The reference solution with `merge_heads` returning a number: a type error inside it.
    fn merge_returns_a_number() -> String {
        let broken = SOLVED.replacen(
            "pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {\n",
            "pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {\n    return 1;\n",
            1,
        );
        assert_ne!(
            broken, SOLVED,
            "the lesson 2 solution changed: update this test"
        );
        broken
    }

    #[test]
    fn errors_inside_exercises_name_them_with_their_first_error_in_course_order() {
        let lesson = lesson();
        let text = merge_returns_a_number();
        let errors = [
            error_at(
                &lesson,
                &text,
                "return 1;",
                "error[E0308]: mismatched types",
            ),
            error_at(&lesson, &text, "return 1", "a second error in merge_heads"),
        ];
        let broken = broken_exercises(&lesson, &errors, &text).unwrap();
        assert_eq!(
            broken,
            [Broken {
                name: "merge_heads".into(),
                error: "error[E0308]: mismatched types".into()
            }]
        );
        // Two functions: each with its own first error, in the course's order.
        let text = text.replacen("fn split_heads(", "fn split_heads(y: u8, ", 1);
        let errors = [
            error_at(&lesson, &text, "return 1;", "in merge"),
            error_at(&lesson, &text, "y: u8", "in split"),
        ];
        let names: Vec<(String, String)> = broken_exercises(&lesson, &errors, &text)
            .unwrap()
            .into_iter()
            .map(|b| (b.name, b.error))
            .collect();
        assert_eq!(
            names,
            [
                ("split_heads".into(), "in split".into()),
                ("merge_heads".into(), "in merge".into())
            ]
        );
    }

    #[test]
    fn an_error_outside_every_exercise_fails_the_lesson() {
        let lesson = lesson();
        let text = format!(
            "{}\nfn helper() -> u32 {{\n    \"not a number\"\n}}\n",
            merge_returns_a_number()
        );
        let inside = error_at(&lesson, &text, "return 1;", "in merge");
        let isolated = |errors: &[CompileError]| broken_exercises(&lesson, errors, &text);
        assert!(isolated(std::slice::from_ref(&inside)).is_some());
        // In a helper, in a `use`, with no place, in another file of the lesson: the lesson fails.
        for outside in [
            error_at(&lesson, &text, "\"not a number\"", "in helper"),
            error_at(&lesson, &text, "use attention", "in a use"),
            CompileError {
                at: None,
                text: "no place".into(),
            },
            CompileError {
                at: Some(At {
                    file: format!("exercises/{}/src/lib.rs", lesson.dir),
                    ..inside.at.clone().unwrap()
                }),
                text: "same place, another file".into(),
            },
        ] {
            assert_eq!(
                isolated(&[inside.clone(), outside.clone()]),
                None,
                "{}",
                outside.text
            );
        }
        // A span that starts inside an exercise and ends past it is not inside it either.
        let mut across = inside.clone();
        across.at.as_mut().unwrap().end = span_of(&text, "\"not a number\"").1;
        assert_eq!(isolated(&[across]), None);
        assert_eq!(isolated(&[]), None, "no error message, nothing to isolate");
    }

    #[test]
    fn a_byte_order_mark_and_windows_line_ends_keep_errors_in_place() {
        let lesson = lesson();
        let text = merge_returns_a_number();
        let error = error_at(&lesson, &text, "return 1;", "in merge");
        let crlf = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        let broken = broken_exercises(&lesson, &[error], &crlf).unwrap();
        assert_eq!(broken[0].name, "merge_heads");
    }

    #[test]
    fn stubbing_out_puts_back_only_the_broken_functions() {
        let lesson = lesson();
        let text = merge_returns_a_number();
        let error = error_at(&lesson, &text, "return 1;", "in merge");
        let broken = broken_exercises(&lesson, &[error], &text).unwrap();
        let out = stub_out(&text, STUB, &broken).unwrap();
        let range = |t: &str, name: &str| t[fn_range(t, name).unwrap().unwrap()].to_owned();
        assert_eq!(range(&out, "merge_heads"), range(STUB, "merge_heads"));
        for kept in ["head_size", "split_heads", "head_projection"] {
            assert_eq!(range(&out, kept), range(SOLVED, kept), "{kept}");
        }
        // A function the stub does not have is not put back.
        let missing = [Broken {
            name: "not_in_the_stub".into(),
            error: String::new(),
        }];
        assert_eq!(stub_out(&text, STUB, &missing), None);
    }
}
