//! `cargo xtask regrade-diff OLD_RDIR NEW_RDIR`: what a regrade changed, from the JSON reports of
//! two class runs (no grading): whose points changed and by how much, and which checks changed
//! verdict, per student and per check. The class page can show it (`class-page --regrade-from`).

use crate::judge::verdict::Status;
use crate::report::Report;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// A check, named as the reports name it: `(lesson id, exercise, check)`.
pub type CheckKey = (String, String, String);

/// One check whose verdict differs between the two runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckChange {
    /// The check.
    pub check: CheckKey,
    /// Its verdict before (`None`: the old report does not grade it).
    pub old: Option<Status>,
    /// Its verdict after (`None`: the new report does not grade it).
    pub new: Option<Status>,
    /// Points after minus points before.
    pub points: i64,
}

/// A student whose grade changed: their points before and after (`None`: no report in that run)
/// and the checks that changed verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StudentChange {
    /// The student's id.
    pub id: String,
    /// `(points, max)` in the old run.
    pub old: Option<(u32, u32)>,
    /// `(points, max)` in the new run.
    pub new: Option<(u32, u32)>,
    /// The checks whose verdict changed, in course order.
    pub checks: Vec<CheckChange>,
}

impl StudentChange {
    /// New points minus old points (a missing report counts 0).
    pub fn delta(&self) -> i64 {
        let points = |p: Option<(u32, u32)>| p.map_or(0, |(s, _)| i64::from(s));
        points(self.new) - points(self.old)
    }
}

/// A check whose verdict changed the same way for one or more students.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckSummary {
    /// The check.
    pub check: CheckKey,
    /// Its verdict before and after.
    pub old: Option<Status>,
    /// See `old`.
    pub new: Option<Status>,
    /// The students it changed for, by id.
    pub students: Vec<String>,
}

/// What a regrade changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    /// Students whose points or verdicts changed, or who have a report in one run only, by id.
    pub changed: Vec<StudentChange>,
    /// Students graded in both runs with the same points and verdicts.
    pub unchanged: usize,
    /// Per check and change of verdict, the students it changed for; most students first.
    pub by_check: Vec<CheckSummary>,
}

/// Every check of `report` with its verdict and points, in course order.
fn checks(report: &Report) -> Vec<(CheckKey, Status, u32)> {
    let mut out = Vec::new();
    for l in &report.lessons {
        for e in &l.exercises {
            for c in &e.checks {
                let key = (l.id.clone(), e.name.clone(), c.name.clone());
                out.push((key, c.status, c.points));
            }
        }
    }
    out
}

/// The checks whose verdict differs between `old` and `new` (either may be missing), in the
/// order of the new report, then those only the old one grades.
fn check_changes(old: Option<&Report>, new: Option<&Report>) -> Vec<CheckChange> {
    let before: Vec<_> = old.map(checks).unwrap_or_default();
    let after: Vec<_> = new.map(checks).unwrap_or_default();
    let old_of: BTreeMap<&CheckKey, (Status, u32)> =
        before.iter().map(|(k, s, p)| (k, (*s, *p))).collect();
    let new_of: BTreeMap<&CheckKey, (Status, u32)> =
        after.iter().map(|(k, s, p)| (k, (*s, *p))).collect();
    let mut out = Vec::new();
    for (key, status, points) in &after {
        let was = old_of.get(key).copied();
        if was.map(|(s, _)| s) != Some(*status) {
            out.push(CheckChange {
                check: key.clone(),
                old: was.map(|(s, _)| s),
                new: Some(*status),
                points: i64::from(*points) - i64::from(was.map_or(0, |(_, p)| p)),
            });
        }
    }
    for (key, status, points) in &before {
        if !new_of.contains_key(key) {
            out.push(CheckChange {
                check: key.clone(),
                old: Some(*status),
                new: None,
                points: -i64::from(*points),
            });
        }
    }
    out
}

/// The regrade from the `old` run's reports to the `new` run's, each `(student id, report)`.
pub fn diff(old: &[(String, &Report)], new: &[(String, &Report)]) -> Diff {
    let old_of: BTreeMap<&str, &Report> = old.iter().map(|(id, r)| (id.as_str(), *r)).collect();
    let new_of: BTreeMap<&str, &Report> = new.iter().map(|(id, r)| (id.as_str(), *r)).collect();
    let mut ids: Vec<&str> = old_of.keys().chain(new_of.keys()).copied().collect();
    ids.sort_unstable();
    ids.dedup();
    let mut out = Diff::default();
    let mut by_check: BTreeMap<(CheckKey, Option<Status>, Option<Status>), Vec<String>> =
        BTreeMap::new();
    for id in ids {
        let (was, is) = (old_of.get(id).copied(), new_of.get(id).copied());
        let points = |r: Option<&Report>| r.map(|r| (r.score, r.max_score));
        let change = StudentChange {
            id: id.to_owned(),
            old: points(was),
            new: points(is),
            checks: check_changes(was, is),
        };
        if change.old == change.new && change.checks.is_empty() {
            out.unchanged += 1;
            continue;
        }
        for c in &change.checks {
            by_check
                .entry((c.check.clone(), c.old, c.new))
                .or_default()
                .push(id.to_owned());
        }
        out.changed.push(change);
    }
    out.by_check = by_check
        .into_iter()
        .map(|((check, old, new), students)| CheckSummary {
            check,
            old,
            new,
            students,
        })
        .collect();
    out.by_check
        .sort_by_key(|c| std::cmp::Reverse(c.students.len()));
    out
}

/// A verdict as the diff writes it (`-` when the run does not grade the check).
pub fn verdict(status: Option<Status>) -> String {
    status.map_or_else(|| "-".to_owned(), |s| s.to_string())
}

/// `(points, max)` as the diff writes it (`no report` when the run has none).
pub fn points(p: Option<(u32, u32)>) -> String {
    p.map_or_else(|| "no report".to_owned(), |(s, m)| format!("{s}/{m}"))
}

/// The diff for the terminal: the students who changed, each check that changed for them, then
/// per check how many students it changed for. Ids are the students' words, made inert.
pub fn render(diff: &Diff) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} student(s) changed, {} unchanged.",
        diff.changed.len(),
        diff.unchanged
    );
    for s in &diff.changed {
        let _ = writeln!(
            out,
            "\n{}: {} -> {} ({:+})",
            crate::report::student_text::name(&s.id),
            points(s.old),
            points(s.new),
            s.delta()
        );
        for c in &s.checks {
            let (l, e, n) = &c.check;
            let _ = writeln!(
                out,
                "  {l} / {e} / {n}: {} -> {} ({:+})",
                verdict(c.old),
                verdict(c.new),
                c.points
            );
        }
    }
    if !diff.by_check.is_empty() {
        let _ = writeln!(out, "\nChecks that changed verdict:");
        for c in &diff.by_check {
            let (l, e, n) = &c.check;
            let _ = writeln!(
                out,
                "  {:>4} × {l} / {e} / {n}: {} -> {}",
                c.students.len(),
                verdict(c.old),
                verdict(c.new)
            );
        }
    }
    out
}

/// The diff's tests, and the reports other modules' tests build.
#[cfg(test)]
pub mod tests {
    use super::*;
    use crate::report::{Build, CheckReport, ExerciseReport, Graded, LessonReport};

    /// A report of one lesson `lesson01` with one exercise `split` whose checks are `checks`
    /// (`(name, status)`, 2 points each, earned when passed).
    pub fn report(checks: &[(&str, Status)]) -> Report {
        let checks: Vec<CheckReport> = checks
            .iter()
            .map(|(name, status)| CheckReport {
                name: (*name).to_owned(),
                status: *status,
                points: if *status == Status::Passed { 2 } else { 0 },
                max_points: 2,
                message: String::new(),
                duration_ms: 1,
                hidden: false,
                blocked_by: None,
                diagnosis: None,
                variant: None,
            })
            .collect();
        let score = checks.iter().map(|c| c.points).sum();
        let max = checks.iter().map(|c| c.max_points).sum();
        Report {
            schema_version: crate::report::SCHEMA_VERSION,
            course: "Attention".into(),
            graded: Graded::Submission,
            official: true,
            isolation: crate::run::Isolation::None,
            student: None,
            sources_sha256: None,
            modified_files: vec![],
            changed_while_grading: vec![],
            score,
            max_score: max,
            execution_time: 1.0,
            lessons: vec![LessonReport {
                id: "lesson01".into(),
                title: "One".into(),
                build: Build::Ok,
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

    use Status::{NotStarted, Passed, Wrong};

    #[test]
    fn a_regrade_names_whose_points_changed_by_how_much_and_which_checks() {
        let (a0, a1) = (
            report(&[("shape", Passed), ("values", Wrong)]),
            report(&[("shape", Passed), ("values", Passed)]),
        );
        let (b0, b1) = (
            report(&[("shape", Passed), ("values", Wrong)]),
            report(&[("shape", Wrong), ("values", Passed)]),
        );
        let same = report(&[("shape", Passed), ("values", NotStarted)]);
        let gone = report(&[("shape", Passed)]);
        let old = [
            ("alice".to_owned(), &a0),
            ("bob".to_owned(), &b0),
            ("carol".to_owned(), &same),
            ("dan".to_owned(), &gone),
        ];
        let new = [
            ("alice".to_owned(), &a1),
            ("bob".to_owned(), &b1),
            ("carol".to_owned(), &same),
            ("erin".to_owned(), &a1),
        ];
        let d = diff(&old, &new);
        assert_eq!(d.unchanged, 1);
        let ids: Vec<&str> = d.changed.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["alice", "bob", "dan", "erin"]);
        let deltas: Vec<i64> = d.changed.iter().map(StudentChange::delta).collect();
        assert_eq!(deltas, [2, 0, -2, 4]);
        // Bob's points did not move, but two verdicts did: he is listed with both.
        let bob = &d.changed[1];
        assert_eq!((bob.old, bob.new), (Some((2, 4)), Some((2, 4))));
        let bob_checks: Vec<(&str, Option<Status>, Option<Status>, i64)> = bob
            .checks
            .iter()
            .map(|c| (c.check.2.as_str(), c.old, c.new, c.points))
            .collect();
        assert_eq!(
            bob_checks,
            [
                ("shape", Some(Passed), Some(Wrong), -2),
                ("values", Some(Wrong), Some(Passed), 2)
            ]
        );
        assert_eq!((d.changed[2].new, d.changed[3].old), (None, None));
        // `values` went from wrong to passed for alice and bob: one line for both, first.
        let first = &d.by_check[0];
        assert_eq!(first.check.2, "values");
        assert_eq!((first.old, first.new), (Some(Wrong), Some(Passed)));
        assert_eq!(first.students, ["alice", "bob"]);
        let text = render(&d);
        assert!(
            text.starts_with("4 student(s) changed, 1 unchanged."),
            "{text}"
        );
        assert!(text.contains("\nalice: 2/4 -> 4/4 (+2)\n"), "{text}");
        assert!(
            text.contains("  lesson01 / split / values: wrong -> passed (+2)\n"),
            "{text}"
        );
        assert!(text.contains("\ndan: 2/2 -> no report (-2)\n"), "{text}");
        assert!(
            text.contains("     2 × lesson01 / split / values: wrong -> passed\n"),
            "{text}"
        );
    }

    #[test]
    fn the_same_reports_change_nothing() {
        let r = report(&[("shape", Passed), ("values", Wrong)]);
        let run = [("alice".to_owned(), &r), ("bob".to_owned(), &r)];
        let d = diff(&run, &run);
        assert_eq!(d.unchanged, 2);
        assert!(d.changed.is_empty() && d.by_check.is_empty());
        assert_eq!(render(&d), "0 student(s) changed, 2 unchanged.\n");
    }
}
