//! A graded class: one row per student. Shared by the class run that fills it and by what is
//! written from it (gradebooks, class page), so those need not depend on the run itself.

use crate::official::roster::{Enrolment, Roster};
use crate::report::Report;
use std::collections::BTreeMap;

/// One student's line of the gradebook.
#[derive(Debug, Clone)]
pub struct Row {
    /// The student's id: the roster's, else the entry's name without archive extension.
    pub id: String,
    /// Whether the roster lists the student.
    pub enrolment: Enrolment,
    /// The entry graded (its file name); `None` for a roster's student who handed nothing in.
    pub submission: Option<String>,
    /// Points earned (0 when the submission could not be graded or is missing).
    pub score: u32,
    /// Points available.
    pub max: u32,
    /// Per graded lesson id: points earned.
    pub lessons: BTreeMap<String, u32>,
    /// The grade is official (no instructors' file differs).
    pub official: bool,
    /// Files the student changed outside their sources.
    pub modified: usize,
    /// How student code was isolated (the report's `isolation`, else `none`).
    pub isolation: crate::run::Isolation,
    /// Why the submission could not be graded.
    pub error: Option<String>,
    /// Wall time of this submission, seconds.
    pub seconds: f64,
    /// When it was handed in (RFC 3339), when known.
    pub submitted_at: Option<String>,
    /// Its lateness, once a late policy is applied ([`crate::official::late::apply`]).
    pub late: Option<crate::official::late::lateness::Late>,
    /// The full report, when graded.
    pub report: Option<Report>,
}

/// A graded class.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The graded lessons, in course order: `(id, max points)`.
    pub lessons: Vec<(String, u32)>,
    /// The class list, when given.
    pub roster: Option<Roster>,
    /// One row per student, sorted by id.
    pub rows: Vec<Row>,
    /// Wall time of the first submission (which also builds the dependencies), seconds.
    pub first_seconds: f64,
    /// Wall time of the whole batch, seconds.
    pub total_seconds: f64,
    /// Submissions graded at once.
    pub parallel: usize,
    /// The late policy's curve, once applied to the rows.
    pub late: Option<crate::official::late::curve::Curve>,
    /// Lesson builds run, and lesson builds reused from a submission with the same sources
    /// (see [`crate::build::reuse`]).
    pub builds: (usize, usize),
    /// CPU time (user and system) of the grader and every process it waited for, seconds: once
    /// the first submission was graded, and at the end; `None` where it cannot be read.
    pub cpu_seconds: Option<(f64, f64)>,
}

impl Row {
    /// The row of the student `who` (`(id, enrolment, entry graded)`, the entry `None` when
    /// nothing was handed in), from its `outcome` (a report, or why it could not be graded;
    /// `None`: nothing to grade), out of `max` points, graded in `seconds`.
    pub fn new(
        who: (&str, Enrolment, Option<String>),
        outcome: Option<std::result::Result<Report, String>>,
        max: u32,
        seconds: f64,
    ) -> Row {
        let (id, enrolment, submission) = who;
        let blank = Row {
            id: id.to_owned(),
            enrolment,
            submission,
            score: 0,
            max,
            lessons: BTreeMap::new(),
            official: false,
            modified: 0,
            isolation: crate::run::Isolation::None,
            error: None,
            seconds,
            submitted_at: None,
            late: None,
            report: None,
        };
        match outcome {
            None => blank,
            Some(Ok(report)) => Row {
                score: report.score,
                max: report.max_score,
                lessons: report
                    .lessons
                    .iter()
                    .map(|l| (l.id.clone(), l.score))
                    .collect(),
                official: report.official,
                modified: report.listed_files().len(),
                isolation: report.isolation,
                report: Some(report),
                ..blank
            },
            Some(Err(error)) => Row {
                error: Some(error),
                ..blank
            },
        }
    }
}

impl Batch {
    /// Wall time per submission after the first: `(total - first) / (n - 1)`.
    pub fn marginal_seconds(&self) -> Option<f64> {
        let n = self.submitted().count();
        (n > 1).then(|| (self.total_seconds - self.first_seconds) / (n - 1) as f64)
    }

    /// CPU time per submission after the first, as [`Batch::marginal_seconds`] for wall time:
    /// unlike wall time, it hardly depends on what else the machine runs.
    pub fn marginal_cpu_seconds(&self) -> Option<f64> {
        let n = self.submitted().count();
        let (first, total) = self.cpu_seconds?;
        (n > 1).then(|| (total - first) / (n - 1) as f64)
    }

    /// The rows of a submission (all but a roster's students who handed nothing in).
    pub fn submitted(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.submission.is_some())
    }
}
