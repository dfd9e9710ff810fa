//! What the class page counts: the score distribution, each exercise's attempt and pass rates, the
//! most frequent misconceptions, compile errors, rows not graded, students missing and students
//! not on the roster.

use super::rows::{ClassRow, Standing};
use crate::judge::verdict::Status;
use crate::official::roster::Enrolment;
use crate::report::{Build, Diagnosis, Report};
use std::collections::BTreeMap;

/// Bins of the score histogram: 0–9 %, 10–19 %, …, 90–99 %, and full marks.
pub const BINS: usize = 11;

/// An exercise's pass rate over the students whose report grades its lesson.
#[derive(Debug, Clone, PartialEq)]
pub struct PassRate {
    /// The lesson's id.
    pub lesson: String,
    /// The exercise's name.
    pub exercise: String,
    /// Students at full marks on it.
    pub passed: usize,
    /// Students who attempted it: graded on it and not `not_started` (a stub left as handed
    /// out is no failed attempt).
    pub attempted: usize,
    /// Students graded on it.
    pub graded: usize,
}

/// A misconception named on the pages of one or more students.
#[derive(Debug, Clone, PartialEq)]
pub struct Frequent {
    /// Its id.
    pub id: String,
    /// Its title.
    pub title: String,
    /// The students (ids) whose report names it, each once.
    pub students: Vec<String>,
}

/// The class in numbers.
#[derive(Debug, Clone, Default)]
pub struct Stats {
    /// Graded students per score bin ([`BINS`], [`bin`]).
    pub histogram: [usize; BINS],
    /// Per exercise, in course order.
    pub pass_rates: Vec<PassRate>,
    /// Misconceptions, most students first.
    pub diagnoses: Vec<Frequent>,
    /// Students with a lesson that does not compile: id and lesson ids.
    pub compile_errors: Vec<(String, Vec<String>)>,
    /// Submissions that could not be graded: id and why.
    pub not_graded: Vec<(String, String)>,
    /// Students on the roster with no submission.
    pub missing: Vec<String>,
    /// Submissions whose student the roster does not list.
    pub not_listed: Vec<String>,
}

/// The histogram bin of `score` out of `max`.
pub fn bin(score: u32, max: u32) -> usize {
    if max == 0 || score >= max {
        BINS - 1
    } else {
        (u64::from(score) * 10 / u64::from(max)) as usize
    }
}

/// The class's numbers from its rows.
pub fn stats(rows: &[ClassRow]) -> Stats {
    let mut s = Stats::default();
    let mut rates: Vec<PassRate> = Vec::new();
    let mut named: BTreeMap<String, Frequent> = BTreeMap::new();
    for row in rows {
        if row.enrolment == Enrolment::NotListed {
            s.not_listed.push(row.id.clone());
        }
        let report = match &row.standing {
            Standing::Graded(report) => report,
            Standing::NotGraded(why) => {
                s.not_graded.push((row.id.clone(), why.clone()));
                continue;
            }
            Standing::Missing => {
                s.missing.push(row.id.clone());
                continue;
            }
        };
        s.histogram[bin(report.score, report.max_score)] += 1;
        let broken: Vec<String> = report
            .lessons
            .iter()
            .filter(|l| l.build == Build::CompileError)
            .map(|l| l.id.clone())
            .collect();
        if !broken.is_empty() {
            s.compile_errors.push((row.id.clone(), broken));
        }
        for lesson in &report.lessons {
            for ex in &lesson.exercises {
                let at = match rates
                    .iter()
                    .position(|r| r.lesson == lesson.id && r.exercise == ex.name)
                {
                    Some(at) => at,
                    None => {
                        rates.push(PassRate {
                            lesson: lesson.id.clone(),
                            exercise: ex.name.clone(),
                            passed: 0,
                            attempted: 0,
                            graded: 0,
                        });
                        rates.len() - 1
                    }
                };
                let status = ex.status();
                rates[at].graded += 1;
                rates[at].attempted += usize::from(status != Status::NotStarted);
                rates[at].passed += usize::from(status == Status::Passed);
            }
        }
        for (_, _, c) in report.checks() {
            let Some(d) = &c.diagnosis else { continue };
            let slot = named.entry(d.id.clone()).or_insert_with(|| Frequent {
                id: d.id.clone(),
                title: d.title.clone(),
                students: Vec::new(),
            });
            if slot.students.last() != Some(&row.id) {
                slot.students.push(row.id.clone());
            }
        }
    }
    s.pass_rates = rates;
    s.diagnoses = named.into_values().collect();
    s.diagnoses.sort_by(|a, b| {
        b.students
            .len()
            .cmp(&a.students.len())
            .then(a.id.cmp(&b.id))
    });
    s
}

/// The misconceptions `report` names, each once, in the order its checks name them.
pub fn named(report: &Report) -> Vec<&Diagnosis> {
    let mut out: Vec<&Diagnosis> = Vec::new();
    for (_, _, c) in report.checks() {
        if let Some(d) = &c.diagnosis
            && !out.iter().any(|o| o.id == d.id)
        {
            out.push(d);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::official::pages::fixture::{check, report};

    fn graded(id: &str, r: Report) -> ClassRow {
        ClassRow {
            id: id.into(),
            standing: Standing::Graded(Box::new(r)),
            enrolment: Enrolment::NoRoster,
            late: None,
        }
    }

    #[test]
    fn the_class_is_counted_once_per_student() {
        let rows = vec![
            graded(
                "ann",
                report(
                    Build::Ok,
                    vec![
                        check(Status::Wrong, Some("m1")),
                        check(Status::Wrong, Some("m1")),
                    ],
                ),
            ),
            graded(
                "bob",
                report(
                    Build::Ok,
                    vec![
                        check(Status::Wrong, Some("m1")),
                        check(Status::Passed, None),
                    ],
                ),
            ),
            graded(
                "cat",
                report(
                    Build::Ok,
                    vec![check(Status::Passed, None), check(Status::Passed, None)],
                ),
            ),
            graded(
                "dan",
                report(Build::CompileError, vec![check(Status::CompileError, None)]),
            ),
            ClassRow {
                id: "eve".into(),
                standing: Standing::NotGraded("bad zip".into()),
                enrolment: Enrolment::NotListed,
                late: None,
            },
            ClassRow {
                id: "fay".into(),
                standing: Standing::Missing,
                enrolment: Enrolment::Listed(0),
                late: None,
            },
            graded(
                "gus",
                report(
                    Build::Ok,
                    vec![
                        check(Status::NotStarted, None),
                        check(Status::NotStarted, None),
                    ],
                ),
            ),
        ];
        let s = stats(&rows);
        assert_eq!(s.histogram[0], 3, "ann, dan and gus: 0 points");
        assert_eq!(s.histogram[5], 1, "bob: 1 of 2");
        assert_eq!(s.histogram[BINS - 1], 1, "cat: full marks");
        assert_eq!(s.histogram.iter().sum::<usize>(), 5);
        // gus left the stub: graded on it, but no failed attempt; dan's did not compile.
        assert_eq!(
            s.pass_rates,
            [PassRate {
                lesson: "lesson01".into(),
                exercise: "split".into(),
                passed: 1,
                attempted: 4,
                graded: 5
            }]
        );
        assert_eq!(s.diagnoses.len(), 1);
        assert_eq!(s.diagnoses[0].students, ["ann", "bob"]);
        assert_eq!(s.diagnoses[0].title, "title of m1");
        assert_eq!(
            s.compile_errors,
            [("dan".to_owned(), vec!["lesson01".to_owned()])]
        );
        assert_eq!(s.not_graded, [("eve".to_owned(), "bad zip".to_owned())]);
        assert_eq!(s.missing, ["fay"]);
        assert_eq!(s.not_listed, ["eve"]);
        let ids = |r: &ClassRow| match &r.standing {
            Standing::Graded(report) => named(report).iter().map(|d| d.id.clone()).collect(),
            _ => Vec::<String>::new(),
        };
        assert_eq!(ids(&rows[0]), ["m1"], "named twice, listed once");
        assert!(ids(&rows[2]).is_empty());
    }

    #[test]
    fn scores_fall_in_their_bins() {
        assert_eq!(bin(0, 20), 0);
        assert_eq!(bin(1, 20), 0);
        assert_eq!(bin(2, 20), 1);
        assert_eq!(bin(19, 20), 9);
        assert_eq!(bin(20, 20), 10);
        assert_eq!(bin(0, 0), 10);
    }
}
