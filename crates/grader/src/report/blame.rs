//! Blame where the bug is: a failing check whose prerequisite exercise (course.toml `needs`) is
//! not passing is marked `blocked_by` that exercise, followed back to the first exercise that
//! fails on its own, so a wrong `split_heads` is not reported as a wrong `merge_heads` too. Then
//! each failure that matches misconceptions names the one where the bug is (see
//! [`crate::judge::misconception::choose`]).

use crate::course::Course;
use crate::judge::misconception::choose;
use crate::judge::verdict::Status;
use crate::report::{Diagnosis, Report};
use std::collections::{HashMap, HashSet};

/// Per (lesson id, check name): the misconceptions (ids) a failing check's observations match.
pub type Candidates = HashMap<(String, String), Vec<String>>;

/// Fills `blocked_by` and `diagnosis` on every failing check of `report`.
pub fn blame(report: &mut Report, course: &Course, candidates: &Candidates) {
    // Exercises graded in this report: whether every check passed. An exercise not graded here
    // (another lesson, or `grade EXERCISE`) is unknown and blocks nothing.
    let passing: HashMap<String, bool> = report
        .lessons
        .iter()
        .flat_map(|l| &l.exercises)
        .map(|e| (e.name.clone(), e.status() == Status::Passed))
        .collect();
    let needs = |lesson: &str, check: &str| -> Vec<String> {
        course
            .find_lesson(lesson)
            .into_iter()
            .flat_map(|l| &l.exercises)
            .flat_map(|e| &e.checks)
            .find(|c| c.name == check)
            .map(|c| c.needs.clone())
            .unwrap_or_default()
    };
    // The first prerequisite of each failing check that is not passing.
    let mut direct: HashMap<(String, String), String> = HashMap::new();
    for (lesson, _, check) in report.checks() {
        if check.status == Status::Passed {
            continue;
        }
        if let Some(first) = needs(&lesson.id, &check.name)
            .into_iter()
            .find(|n| passing.get(n) == Some(&false))
        {
            direct.insert((lesson.id.clone(), check.name.clone()), first);
        }
    }
    // An exercise all of whose failures are blocked hands the blame on to its own blocker.
    let mut handed_on: HashMap<String, String> = HashMap::new();
    for (_, exercise, _) in report.checks() {
        if handed_on.contains_key(&exercise.name) {
            continue;
        }
        let lesson = report
            .lessons
            .iter()
            .find(|l| l.exercises.iter().any(|e| e.name == exercise.name));
        let Some(lesson) = lesson else { continue };
        let blockers: Vec<Option<&String>> = exercise
            .checks
            .iter()
            .filter(|c| c.status != Status::Passed)
            .map(|c| direct.get(&(lesson.id.clone(), c.name.clone())))
            .collect();
        if let Some(Some(first)) = blockers.first()
            && blockers.iter().all(Option::is_some)
        {
            handed_on.insert(exercise.name.clone(), (*first).clone());
        }
    }
    let root_of = |start: &String| -> String {
        let mut at = start.clone();
        let mut seen = HashSet::new();
        while let Some(next) = handed_on.get(&at) {
            if !seen.insert(at.clone()) {
                break;
            }
            at = next.clone();
        }
        at
    };
    let is_passing = |e: &str| passing.get(e) == Some(&true);
    for lesson in &mut report.lessons {
        let course_lesson = course.find_lesson(&lesson.id);
        for exercise in &mut lesson.exercises {
            for check in &mut exercise.checks {
                let key = (lesson.id.clone(), check.name.clone());
                // Blamed back on its own exercise: it fails on its own.
                check.blocked_by = direct
                    .get(&key)
                    .map(&root_of)
                    .filter(|b| *b != exercise.name);
                check.diagnosis = course_lesson
                    .zip(candidates.get(&key))
                    .and_then(|(l, ids)| {
                        choose(
                            l,
                            ids,
                            &exercise.name,
                            check.blocked_by.as_deref(),
                            &is_passing,
                        )
                    })
                    .map(|m| Diagnosis {
                        id: m.id.clone(),
                        title: m.title.clone(),
                        explanation: m.explanation.clone(),
                    });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::{Build, CheckReport, ExerciseReport, Graded, LessonReport};

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
        blame(&mut r, &course, &Candidates::new());
        assert_eq!(
            blocked(&r),
            [None, Some("split_heads"), None, Some("split_heads")]
        );
        // merge_heads also fails a check of its own: head_projection is blamed on merge_heads.
        let mut r = report(Status::Wrong, Status::Wrong);
        blame(&mut r, &course, &Candidates::new());
        assert_eq!(
            blocked(&r),
            [None, Some("split_heads"), None, Some("merge_heads")]
        );
        // A passing prerequisite blocks nothing.
        let mut r = report(Status::Passed, Status::Passed);
        blame(&mut r, &course, &Candidates::new());
        assert_eq!(blocked(&r), [None, None, None, Some("merge_heads")]);
    }
}
