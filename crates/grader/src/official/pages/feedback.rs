//! What a student's page says of each failing check, whatever its format (HTML, Markdown): the
//! terminal report's choices and wording (`report::human`), text made readable and cut.

use super::escape::{TEXT_CHARS, cut};
use crate::judge::verdict::Status;
use crate::report::readable::readable;
use crate::report::{Build, CheckReport, Diagnosis, ExerciseReport, LessonReport};

/// One failing check as a page shows it.
pub struct Shown<'a> {
    /// The check.
    pub check: &'a CheckReport,
    /// Its verdict in words, with whom it is blocked by (`wrong, blocked by `split_heads``).
    pub verdict: String,
    /// Its message for people ([`readable`]), cut at [`TEXT_CHARS`]; the student's words. Empty
    /// for a hidden check, whose message can hold the expected values it hides (as in the GitHub
    /// Classroom feedback, `autograder::github`).
    pub message: String,
    /// The line saying which exercise to fix first, when it is blocked.
    pub blocked: Option<String>,
    /// The misconception it matches.
    pub diagnosis: Option<&'a Diagnosis>,
}

/// The checks of `ex` a page shows: every failing one, or only the first when the exercise is not
/// started or was stubbed out for its compile error (one says it, as in the terminal report); none
/// when its lesson did not compile (the compiler's output says it once).
pub fn shown<'a>(lesson: &LessonReport, ex: &'a ExerciseReport) -> Vec<Shown<'a>> {
    let status = ex.status();
    if lesson.build == Build::CompileError || status == Status::Passed {
        return Vec::new();
    }
    let failing = ex.checks.iter().filter(|c| c.status != Status::Passed);
    let take = if status == Status::NotStarted || status == Status::CompileError {
        1
    } else {
        usize::MAX
    };
    failing
        .take(take)
        .map(|c| Shown {
            check: c,
            verdict: match &c.blocked_by {
                Some(b) => format!("{}, blocked by `{b}`", c.status.label()),
                None => c.status.label().to_owned(),
            },
            message: if c.hidden {
                String::new()
            } else {
                cut(&readable(&c.message), TEXT_CHARS)
            },
            blocked: c
                .blocked_by
                .as_deref()
                .map(|b| crate::report::explain("", Some(b), None)),
            diagnosis: c.diagnosis.as_ref(),
        })
        .collect()
}

/// `score` of `max` in whole percent, rounded down (100 when nothing was to earn).
pub fn percent(score: u32, max: u32) -> u32 {
    if max == 0 {
        100
    } else {
        (u64::from(score) * 100 / u64::from(max)) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Build;

    fn check(name: &str, status: Status, hidden: bool) -> CheckReport {
        CheckReport {
            name: name.into(),
            status,
            points: 0,
            max_points: 1,
            message: format!("expected 42 in {name}"),
            duration_ms: 1,
            hidden,
            variant: None,
            blocked_by: None,
            diagnosis: None,
        }
    }

    #[test]
    fn a_hidden_checks_message_is_not_shown_and_a_stub_says_it_once() {
        let lesson = |build| LessonReport {
            id: "lesson01".into(),
            title: "t".into(),
            build,
            compiler_output: None,
            stubbed: vec![],
            score: 0,
            max_score: 2,
            exercises: vec![],
        };
        let ex = ExerciseReport {
            name: "split".into(),
            score: 0,
            max_score: 2,
            checks: vec![
                check("passes", Status::Passed, false),
                check("visible", Status::Wrong, false),
                check("secret", Status::Wrong, true),
            ],
        };
        let shown_of = |l: &LessonReport| {
            shown(l, &ex)
                .iter()
                .map(|s| (s.check.name.clone(), s.message.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            shown_of(&lesson(Build::Ok)),
            [
                ("visible".to_owned(), "expected 42 in visible".to_owned()),
                ("secret".to_owned(), String::new())
            ]
        );
        assert!(shown_of(&lesson(Build::CompileError)).is_empty());
        let stub = ExerciseReport {
            checks: vec![
                check("a", Status::NotStarted, false),
                check("b", Status::NotStarted, false),
            ],
            ..ex.clone()
        };
        assert_eq!(shown(&lesson(Build::Ok), &stub).len(), 1);
        let stubbed_out = ExerciseReport {
            checks: vec![
                check("a", Status::CompileError, false),
                check("b", Status::CompileError, false),
            ],
            ..ex.clone()
        };
        assert_eq!(shown(&lesson(Build::Stubbed), &stubbed_out).len(), 1);
    }
}
