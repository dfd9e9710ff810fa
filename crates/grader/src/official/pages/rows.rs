//! A class page's rows: each student and what became of their submission.

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
    pub late: Option<crate::official::late::Late>,
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

/// Two submissions found alike: the similarity pass's finding.
pub use crate::official::similarity::Pair as SimilarPair;

/// The file stem of `id`'s pages (`<stem>.html`, `<stem>.md`), as of its JSON report
/// ([`crate::official::report_name::stem`]); none for the stem `index`, whose page would be the
/// class page.
pub fn page_stem(id: &str) -> Option<String> {
    let stem = crate::official::report_name::stem(id);
    (!stem.eq_ignore_ascii_case("index")).then_some(stem)
}
