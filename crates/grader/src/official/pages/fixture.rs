//! Reports for the pages' unit tests.

use crate::judge::verdict::Status;
use crate::report::{
    Build, CheckReport, Diagnosis, ExerciseReport, Graded, LessonReport, Report, SCHEMA_VERSION,
};

/// A check of one point with `status`, matching the misconception `diagnosis` (its title is
/// `title of <id>`).
pub fn check(status: Status, diagnosis: Option<&str>) -> CheckReport {
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
            explanation: format!("explanation of {id}"),
        }),
    }
}

/// A report of one lesson (`lesson01`) whose one exercise (`split`) has `checks`.
pub fn report(build: Build, checks: Vec<CheckReport>) -> Report {
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
        changed_while_grading: vec![],
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
