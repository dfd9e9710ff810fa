//! What a student's page says of each failing check, whatever its format (HTML, Markdown): the
//! terminal report's choices and wording (`report::human`), text made readable and cut.

use super::escape::{TEXT_CHARS, cut};
use crate::report::readable::readable;
use crate::report::{Build, CheckReport, Diagnosis, ExerciseReport, LessonReport};
use crate::verdict::Status;

/// One failing check as a page shows it.
pub struct Shown<'a> {
    /// The check.
    pub check: &'a CheckReport,
    /// Its verdict in words, with whom it is blocked by (`wrong, blocked by `split_heads``).
    pub verdict: String,
    /// Its message for people ([`readable`]), cut at [`TEXT_CHARS`]; the student's words.
    pub message: String,
    /// The line saying which exercise to fix first, when it is blocked.
    pub blocked: Option<String>,
    /// The misconception it matches.
    pub diagnosis: Option<&'a Diagnosis>,
}

/// The checks of `ex` a page shows: every failing one, or only the first when the exercise is not
/// started (one line says it, as in the terminal report); none when its lesson did not compile
/// (the compiler's output says it once).
pub fn shown<'a>(lesson: &LessonReport, ex: &'a ExerciseReport) -> Vec<Shown<'a>> {
    let status = ex.status();
    if lesson.build == Build::CompileError || status == Status::Passed {
        return Vec::new();
    }
    let failing = ex.checks.iter().filter(|c| c.status != Status::Passed);
    let take = if status == Status::NotStarted {
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
            message: cut(&readable(&c.message), TEXT_CHARS),
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
