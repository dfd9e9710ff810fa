//! A class page's rows: each student and what became of their submission.

use crate::official::class_run::Row;
use crate::official::roster::Enrolment;
use crate::report::Report;

/// One student of the class page.
#[derive(Debug, Clone)]
pub struct ClassRow {
    /// The student's id (their submission's name, or the roster's).
    pub id: String,
    /// Their submission's fate.
    pub standing: Standing,
    /// Whether the roster lists them (`NoRoster` when the class had none).
    pub enrolment: Enrolment,
    /// Their submission's lateness, when a late policy was applied.
    pub late: Option<crate::official::late::lateness::Late>,
}

/// What became of a student's submission.
#[derive(Debug, Clone)]
pub enum Standing {
    /// Graded: the report.
    Graded(Box<Report>),
    /// Handed in but not graded: why.
    NotGraded(String),
    /// On the roster, with no submission.
    Missing,
}

impl ClassRow {
    /// A gradebook row as the class page shows it.
    pub fn of(r: &Row) -> ClassRow {
        ClassRow {
            id: r.id.clone(),
            standing: match (&r.report, &r.error, &r.submission) {
                (Some(report), _, _) => Standing::Graded(Box::new(report.clone())),
                (None, None, None) => Standing::Missing,
                (None, error, _) => Standing::NotGraded(error.clone().unwrap_or_default()),
            },
            enrolment: r.enrolment,
            late: r.late.clone(),
        }
    }
}

/// Two submissions found alike: the similarity pass's finding.
pub use crate::official::similarity::Pair as SimilarPair;

/// The file stem of `id`'s pages (`<stem>.html`, `<stem>.md`), as of its JSON report
/// ([`crate::official::report_name::stem`]); none for the stem `index`, whose page would be the
/// class page.
pub fn page_stem(id: &str) -> Option<String> {
    let stem = crate::official::report_name::stem(id);
    (!stem.eq_ignore_ascii_case("index")).then_some(stem)
}
