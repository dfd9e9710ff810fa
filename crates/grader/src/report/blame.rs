//! Blame where the bug is: a failing check whose prerequisite exercise (course.toml `needs`) is
//! not passing is marked `blocked_by` that exercise, followed back to the first exercise that
//! fails on its own, so a wrong `split_heads` is not reported as a wrong `merge_heads` too; a
//! failure that matches only misconceptions of its own exercise stays its own. Each failure that
//! matches a misconception the lesson shows names it. The rules are
//! [`crate::judge::diagnosis`]'s; this fills them into the lessons' reports as they are judged.

use crate::course::Course;
use crate::judge::diagnosis::{Graded, Seen};
use crate::judge::verdict::Status;
use crate::report::{Diagnosis, LessonReport};
use std::collections::HashMap;

/// Per (lesson id, check name): what the check's run said of the misconceptions recorded for it.
pub type Evidence = HashMap<(String, String), Seen>;

/// Fills `blocked_by` and `diagnosis` on every failing check of the `lessons` graded together
/// (one report's).
pub fn blame(lessons: &mut [LessonReport], course: &Course, evidence: &Evidence) {
    // Exercises graded in this report: whether every check passed. An exercise not graded here
    // (another lesson, or `grade EXERCISE`) is unknown and blocks nothing.
    let passing: HashMap<String, bool> = lessons
        .iter()
        .flat_map(|l| &l.exercises)
        .map(|e| (e.name.clone(), e.status() == Status::Passed))
        .collect();
    let passing = |e: &str| passing.get(e).copied();
    for lesson in lessons.iter_mut() {
        let Some(course_lesson) = course.find_lesson(&lesson.id) else {
            continue;
        };
        let keys: Vec<(String, String)> = (lesson.exercises.iter())
            .flat_map(|e| &e.checks)
            .map(|c| (lesson.id.clone(), c.name.clone()))
            .collect();
        let graded: HashMap<&str, Graded> = (lesson.exercises.iter())
            .flat_map(|e| &e.checks)
            .zip(&keys)
            .map(|(c, key)| {
                let seen = evidence.get(key);
                (
                    c.name.as_str(),
                    Graded {
                        status: c.status,
                        seen,
                    },
                )
            })
            .collect();
        let mut blamed = crate::judge::diagnosis::blame(course_lesson, &graded, &passing);
        for check in lesson.exercises.iter_mut().flat_map(|e| &mut e.checks) {
            let b = blamed.remove(&check.name).unwrap_or_default();
            check.blocked_by = b.blocked_by;
            check.diagnosis = b.diagnosis.map(|m| Diagnosis {
                id: m.id.clone(),
                title: m.title.clone(),
                explanation: m.explanation.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Build, CheckReport, ExerciseReport, Graded, Report};

    fn check(name: &str, status: Status) -> CheckReport {
        CheckReport {
            name: name.into(),
            status,
            points: 0,
            max_points: 1,
            message: String::new(),
            duration_ms: 0,
            hidden: false,
            blocked_by: None,
            diagnosis: None,
            variant: None,
        }
    }

    fn report(s1: Status, m2: Status) -> Report {
        let ex = |name: &str, checks: Vec<CheckReport>| ExerciseReport {
            name: name.into(),
            score: 0,
            max_score: 1,
            checks,
        };
        Report {
            schema_version: 2,
            course: "t".into(),
            graded: Graded::Exercises,
            official: true,
            isolation: crate::run::Isolation::None,
            student: None,
            sources_sha256: None,
            modified_files: vec![],
            changed_while_grading: vec![],
            score: 0,
            max_score: 4,
            execution_time: 0.0,
            lessons: vec![LessonReport {
                id: "lesson02".into(),
                title: "t".into(),
                build: Build::Ok,
                compiler_output: None,
                stubbed: vec![],
                score: 0,
                max_score: 4,
                exercises: vec![
                    ex("split_heads", vec![check("s1", s1)]),
                    ex(
                        "merge_heads",
                        vec![check("m1", Status::Wrong), check("m2", m2)],
                    ),
                    ex("head_projection", vec![check("h1", Status::Wrong)]),
                ],
            }],
        }
    }

    fn blocked(r: &Report) -> Vec<Option<&str>> {
        r.checks()
            .map(|(_, _, c)| c.blocked_by.as_deref())
            .collect()
    }

    #[test]
    fn failures_are_blamed_on_the_first_exercise_that_fails_on_its_own() {
        let course = crate::course::fixture();
        // split_heads fails on its own; merge_heads only through it; head_projection through
        // merge_heads, so back to split_heads.
        let mut r = report(Status::Wrong, Status::Passed);
        blame(&mut r.lessons, &course, &Evidence::new());
        assert_eq!(
            blocked(&r),
            [None, Some("split_heads"), None, Some("split_heads")]
        );
        // merge_heads also fails a check of its own: head_projection is blamed on merge_heads.
        let mut r = report(Status::Wrong, Status::Wrong);
        blame(&mut r.lessons, &course, &Evidence::new());
        assert_eq!(
            blocked(&r),
            [None, Some("split_heads"), None, Some("merge_heads")]
        );
        // A passing prerequisite blocks nothing.
        let mut r = report(Status::Passed, Status::Passed);
        blame(&mut r.lessons, &course, &Evidence::new());
        assert_eq!(blocked(&r), [None, None, None, Some("merge_heads")]);
    }
}
