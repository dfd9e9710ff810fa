//! `cargo xtask grade`: build the lessons, run every check in its own process, assemble the report.

use crate::compile::{Built, build_lessons};
use crate::course::{Course, Lesson};
use crate::report::{CheckReport, ExerciseReport, LessonReport, Report, SCHEMA_VERSION};
use crate::runner::{Job, list_tests, run_all};
use crate::verdict::Status;
use crate::workspace::relative;
use std::path::Path;
use std::time::{Duration, Instant};

/// What to grade and how.
#[derive(Debug, Clone)]
pub struct Options {
    /// Grade `solutions/` instead of `exercises/`.
    pub solutions: bool,
    /// Only this lesson (id, number or directory).
    pub lesson: Option<String>,
    /// Overrides every time limit.
    pub timeout: Option<Duration>,
    /// Parallel check processes.
    pub jobs: usize,
    /// Print progress to stderr.
    pub progress: bool,
}

/// Prints a one-line progress indicator on stderr (only when it is a terminal).
fn progress(enabled: bool, text: &str) {
    use std::io::Write;
    if enabled {
        let mut err = std::io::stderr();
        let _ = write!(err, "\r\x1b[2K{text}");
        let _ = err.flush();
    }
}

/// Grades the course at `root`.
pub fn grade(root: &Path, course: &Course, opts: &Options) -> Result<Report, String> {
    let started = Instant::now();
    let lessons: Vec<&Lesson> = match &opts.lesson {
        Some(key) => vec![course.find_lesson(key).ok_or_else(|| {
            let known: Vec<&str> = course.lessons.iter().map(|l| l.id.as_str()).collect();
            format!(
                "no lesson `{key}` in course.toml (lessons: {})",
                known.join(", ")
            )
        })?],
        None => course.lessons.iter().collect(),
    };
    let modified_files = crate::manifest::differences(root, course);

    progress(
        opts.progress,
        &format!("Building {} lesson(s)…", lessons.len()),
    );
    let built = build_lessons(root, &lessons, opts.solutions)?;

    // Every check of every lesson that built becomes one job.
    struct Slot {
        lesson: usize,
        exercise: usize,
        check: usize,
    }
    let mut jobs = Vec::new();
    let mut slots = Vec::new();
    let mut reports: Vec<LessonReport> = Vec::new();
    for (li, lesson) in lessons.iter().enumerate() {
        let crate_dir = lesson.crate_dir(root, opts.solutions);
        let student_src = relative(root, &crate_dir.join("src"));
        let timeout = opts.timeout.unwrap_or_else(|| {
            Duration::from_secs_f64(
                lesson
                    .timeout_secs
                    .unwrap_or(course.course.default_timeout_secs),
            )
        });
        let (build, compiler_output, listed) = match &built[&lesson.id] {
            Built::Ok(exe) => {
                let listed = list_tests(exe, &crate_dir)?;
                ("ok", None, Some((exe.clone(), listed)))
            }
            Built::Failed(err) => ("compile_error", Some(err.clone()), None),
        };
        let mut exercises = Vec::new();
        for (ei, ex) in lesson.exercises.iter().enumerate() {
            let mut checks = Vec::new();
            for (ci, check) in ex.checks.iter().enumerate() {
                let mut report = CheckReport {
                    name: check.name.clone(),
                    status: Status::CompileError,
                    points: 0,
                    max_points: check.points,
                    message: String::new(),
                    duration_ms: 0,
                };
                match &listed {
                    None => report.message = "the lesson's crate does not compile".into(),
                    Some((exe, names)) => {
                        let full = names
                            .iter()
                            .find(|n| n.rsplit("::").next() == Some(check.name.as_str()));
                        match full {
                            Some(full) => {
                                jobs.push(Job {
                                    exe: exe.clone(),
                                    crate_dir: crate_dir.clone(),
                                    test_name: full.clone(),
                                    student_src: student_src.clone(),
                                    timeout,
                                });
                                slots.push(Slot {
                                    lesson: li,
                                    exercise: ei,
                                    check: ci,
                                });
                            }
                            None => {
                                report.status = Status::Wrong;
                                report.message = format!(
                                    "no test function `{}` in the lesson's checks (was tests/checks.rs edited?)",
                                    check.name
                                );
                            }
                        }
                    }
                }
                checks.push(report);
            }
            exercises.push(ExerciseReport {
                name: ex.name.clone(),
                score: 0,
                max_score: ex.checks.iter().map(|c| c.points).sum(),
                checks,
            });
        }
        reports.push(LessonReport {
            id: lesson.id.clone(),
            title: lesson.title.clone(),
            build,
            compiler_output,
            score: 0,
            max_score: lesson.max_points(),
            exercises,
        });
    }

    let show = opts.progress;
    let outcomes = run_all(&jobs, root, opts.jobs, &|done, total| {
        progress(show, &format!("Running checks {done}/{total}…"));
    });
    progress(opts.progress, "");

    for ((slot, outcome), job) in slots.iter().zip(outcomes).zip(&jobs) {
        let check = &mut reports[slot.lesson].exercises[slot.exercise].checks[slot.check];
        check.status = outcome.verdict.status;
        check.message = outcome.verdict.message;
        check.duration_ms = outcome.duration.as_millis() as u64;
        if check.status == Status::TimedOut {
            check.message = format!(
                "{} (stopped after {:.0} s)",
                check.message,
                job.timeout.as_secs_f64()
            );
        }
        if check.status == Status::Passed {
            check.points = check.max_points;
        }
    }
    for lesson in &mut reports {
        for ex in &mut lesson.exercises {
            ex.score = ex.checks.iter().map(|c| c.points).sum();
        }
        lesson.score = lesson.exercises.iter().map(|e| e.score).sum();
    }
    Ok(Report {
        schema_version: SCHEMA_VERSION,
        course: course.course.title.clone(),
        graded: if opts.solutions {
            "solutions"
        } else {
            "exercises"
        },
        official: modified_files.is_empty(),
        modified_files,
        score: reports.iter().map(|l| l.score).sum(),
        max_score: reports.iter().map(|l| l.max_score).sum(),
        execution_time: started.elapsed().as_secs_f64(),
        lessons: reports,
    })
}
