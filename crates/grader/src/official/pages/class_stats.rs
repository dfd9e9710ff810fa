//! What the class page counts: the score distribution, each exercise's pass rate, the most
//! frequent misconceptions, compile errors, rows not graded and students missing.

use super::rows::{ClassRow, Standing};
use crate::judge::verdict::Status;
use crate::report::Build;
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
                            graded: 0,
                        });
                        rates.len() - 1
                    }
                };
                rates[at].graded += 1;
                rates[at].passed += usize::from(ex.status() == Status::Passed);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{
        CheckReport, Diagnosis, ExerciseReport, Graded, LessonReport, Report, SCHEMA_VERSION,
    };

    fn check(status: Status, diagnosis: Option<&str>) -> CheckReport {
        CheckReport {
            name: "c".into(),
            status,
            points: u32::from(status == Status::Passed),
            max_points: 1,
            message: String::new(),
            duration_ms: 1,
            hidden: false,
            variant: None,
            blocked_by: None,
            diagnosis: diagnosis.map(|id| Diagnosis {
                id: id.into(),
                title: format!("title of {id}"),
                explanation: String::new(),
            }),
        }
    }

    fn report(build: Build, checks: Vec<CheckReport>) -> Report {
        let score = checks.iter().map(|c| c.points).sum();
        let max = checks.len() as u32;
        Report {
            schema_version: SCHEMA_VERSION,
            course: "c".into(),
            graded: Graded::Submission,
            official: true,
            isolation: crate::run::Isolation::None,
            student: None,
            sources_sha256: None,
            modified_files: vec![],
            score,
            max_score: max,
            execution_time: 0.0,
            lessons: vec![LessonReport {
                id: "lesson01".into(),
                title: "t".into(),
                build,
                compiler_output: None,
                stubbed: vec![],
                score,
                max_score: max,
                exercises: vec![ExerciseReport {
                    name: "split".into(),
                    score,
                    max_score: max,
                    checks,
                }],
            }],
        }
    }

    fn graded(id: &str, r: Report) -> ClassRow {
        ClassRow {
            id: id.into(),
            standing: Standing::Graded(Box::new(r)),
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
            },
            ClassRow {
                id: "fay".into(),
                standing: Standing::Missing,
            },
        ];
        let s = stats(&rows);
        assert_eq!(s.histogram[0], 2, "ann and dan: 0 points");
        assert_eq!(s.histogram[5], 1, "bob: 1 of 2");
        assert_eq!(s.histogram[BINS - 1], 1, "cat: full marks");
        assert_eq!(s.histogram.iter().sum::<usize>(), 4);
        assert_eq!(
            s.pass_rates,
            [PassRate {
                lesson: "lesson01".into(),
                exercise: "split".into(),
                passed: 1,
                graded: 4
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
