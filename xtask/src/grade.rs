//! `cargo xtask grade`: build the lessons, run every check in its own process, assemble the report.

use crate::compile::{Built, build};
use crate::course::{Course, Lesson};
use crate::report::{CheckReport, ExerciseReport, LessonReport, Report, SCHEMA_VERSION};
use crate::runner::{Job, list_tests, run_all};
use crate::verdict::Status;
use crate::workspace::relative;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
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
    /// Build in this target directory instead of cargo's default.
    pub target_dir: Option<PathBuf>,
}

/// A grading run with what the build said on the side (for `cargo xtask check`).
#[derive(Debug, Clone)]
pub struct Graded {
    /// The report.
    pub report: Report,
    /// Per lesson id: the compiler's warnings for the graded crate.
    pub warnings: HashMap<String, Vec<String>>,
    /// Per lesson id: the test functions of each check binary, `(hidden, full names)`.
    pub tests: HashMap<String, Vec<(bool, Vec<String>)>>,
}

/// The lessons a key selects: all of them, or the one it names.
pub fn select<'c>(course: &'c Course, key: Option<&str>) -> Result<Vec<&'c Lesson>, String> {
    match key {
        Some(key) => Ok(vec![course.find_lesson(key).ok_or_else(|| {
            let known: Vec<&str> = course.lessons.iter().map(|l| l.id.as_str()).collect();
            format!(
                "no lesson `{key}` in course.toml (lessons: {})",
                known.join(", ")
            )
        })?]),
        None => Ok(course.lessons.iter().collect()),
    }
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
    Ok(grade_detailed(root, course, opts)?.report)
}

/// Grades the course at `root` and keeps the build's warnings and test lists.
///
/// Hidden checks (`hidden = true` in course.toml) are looked up in the lesson's hidden-check
/// binary (test target `lessonNN_hidden`), visible checks in the visible one (`lessonNN`).
pub fn grade_detailed(root: &Path, course: &Course, opts: &Options) -> Result<Graded, String> {
    let started = Instant::now();
    let lessons = select(course, opts.lesson.as_deref())?;
    let modified_files = crate::manifest::differences(root, course);

    progress(
        opts.progress,
        &format!("Building {} lesson(s)…", lessons.len()),
    );
    let output = build(root, &lessons, opts.solutions, opts.target_dir.as_deref())?;
    let built = &output.lessons;
    let mut tests: HashMap<String, Vec<(bool, Vec<String>)>> = HashMap::new();

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
            Built::Ok(bins) => {
                let mut listed = Vec::new();
                for bin in bins {
                    let names = list_tests(&bin.exe, &crate_dir)?;
                    tests
                        .entry(lesson.id.clone())
                        .or_default()
                        .push((bin.hidden, names.clone()));
                    listed.push((bin.hidden, bin.exe.clone(), names));
                }
                ("ok", None, Some(listed))
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
                    hidden: check.hidden,
                };
                match &listed {
                    None => report.message = "the lesson's crate does not compile".into(),
                    Some(listed) => {
                        let full = listed
                            .iter()
                            .filter(|(hidden, _, _)| *hidden == check.hidden)
                            .find_map(|(_, exe, names)| {
                                names
                                    .iter()
                                    .find(|n| n.rsplit("::").next() == Some(check.name.as_str()))
                                    .map(|n| (exe, n))
                            });
                        match full {
                            Some((exe, full)) => {
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
                            None if check.hidden => {
                                report.status = Status::Wrong;
                                report.message = format!(
                                    "no hidden test function `{}` in the lesson's hidden checks (test target `{}`)",
                                    check.name,
                                    lesson.hidden_target()
                                );
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
        let exercise = &mut reports[slot.lesson].exercises[slot.exercise];
        let exercise_name = exercise.name.clone();
        let check = &mut exercise.checks[slot.check];
        check.status = outcome.verdict.status;
        check.message = outcome.verdict.message;
        check.duration_ms = outcome.duration.as_millis() as u64;
        if check.status == Status::TimedOut {
            check.message = format!(
                "stopped after {} s while checking `{exercise_name}`: look for a loop that never ends",
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
    let report = Report {
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
    };
    Ok(Graded {
        report,
        warnings: output.warnings,
        tests,
    })
}
