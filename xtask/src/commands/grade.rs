//! `cargo xtask grade`: the student's grade, the reference solutions', a submission's or a whole
//! class's.

use crate::cli::{Format, GradeArgs};
use crate::exit_status::exit;
use anyhow::{Context as _, Result, bail};
use grader::course::selection::Selection;
use grader::course::{Course, Side};
use grader::report::{self, Report, style::Style};
use grader::request::{Local, Request};
#[cfg(feature = "instructor")]
use grader::request::{Official, Sandbox};
use grader::{grade, progress};
use std::path::Path;
use std::process::ExitCode;

/// Grades as `args` say and prints (or writes) the report; exit 0 only at full marks.
pub fn run(root: &Path, course: &Course, args: GradeArgs) -> Result<ExitCode> {
    check_outputs(&args)?;
    let local = request(course, &args)?;
    let one_exercise = matches!(local.selection, Selection::Exercise(..));
    if let (Selection::Exercise(l, ex), Some(_)) = (&local.selection, &args.submissions) {
        bail!(
            "--submissions grades whole lessons, not one exercise\n  help: give the lesson of \
             `{}`: `{}`",
            ex.name,
            l.id
        );
    }
    #[cfg(feature = "instructor")]
    if let Some(dir) = args.submissions.clone() {
        return class(root, course, &dir, local, args);
    }
    let report = match &args.submission {
        #[cfg(feature = "instructor")]
        Some(path) => submission(root, course, path, &local, &args)?,
        #[cfg(not(feature = "instructor"))]
        Some(_) => unreachable!("relaunched with the instructor feature"),
        None => grade::grade(root, course, &local)?,
    };
    let mut rendered = render(root, course, &report, &args);
    if args.format == Format::Human
        && args.submission.is_none()
        && let Some(next) = next_exercise(course, &local.selection, &report)
    {
        rendered.push_str(&next);
    }
    match &args.output {
        Some(path) => {
            std::fs::write(path, &rendered)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!(
                "{}/{} points; report written to {}",
                report.score,
                report.max_score,
                path.display()
            );
        }
        None => print!("{rendered}"),
    }
    // A grade of one exercise is not the lesson's progress: `list` keeps the last grade of the
    // whole lesson.
    if !one_exercise {
        progress::record(root, &report)?;
    }
    // An unofficial grade (modified checks or snapshots) never counts as full marks.
    Ok(exit(report.score == report.max_score && report.official))
}

/// Where the results go is checked before any grading: a file in an existing folder, a folder
/// that exists or whose parent does. A class run writes a gradebook and reports, never one report.
fn check_outputs(args: &GradeArgs) -> Result<()> {
    let files = [("--output", &args.output), ("--gradebook", &args.gradebook)];
    let dirs = [("--reports", &args.reports), ("--keep", &args.keep)];
    let all = files
        .iter()
        .map(|(f, p)| (f, p, false))
        .chain(dirs.iter().map(|(f, p)| (f, p, true)));
    for (flag, path, want_dir) in all {
        let Some(path) = path else { continue };
        let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
        let wrong_kind = if want_dir {
            path.exists() && !path.is_dir()
        } else {
            path.is_dir()
        };
        if parent.is_some_and(|p| !p.is_dir()) || wrong_kind {
            bail!(
                "{flag} {}: {}",
                path.display(),
                if want_dir {
                    "the folder it goes in does not exist (or it is a file)"
                } else {
                    "its folder does not exist (or it is a folder)"
                }
            );
        }
    }
    if args.submissions.is_some() && (args.format != Format::Human || args.output.is_some()) {
        bail!(
            "--submissions writes a gradebook and per-student reports, not one report: --format \
             and --output do not apply\n  help: use --gradebook FILE and --reports DIR"
        );
    }
    Ok(())
}

/// The grading request of a local run (a submission or a class turns it into an official one),
/// its key resolved once against `course` (a mistyped one is refused with a did-you-mean).
fn request(course: &Course, args: &GradeArgs) -> Result<Request<Local>> {
    let mode = Local {
        side: Side::from_solutions(args.solutions),
        plant: args.plant.clone(),
        isolate: args.isolate,
    };
    Ok(Request {
        selection: grader::request::resolve_local(course, args.lesson.as_deref(), &mode)?,
        timeout: args.timeout,
        jobs: crate::cli::jobs_or_cores(args.jobs),
        // A bar on a terminal, a line now and then elsewhere (see `grader::grade`).
        progress: true,
        mode,
    })
}

/// The official request of a submission (or of each submission of a class) at `root`, for
/// `student`'s variant inputs.
#[cfg(feature = "instructor")]
fn official(
    root: &Path,
    local: &Request<Local>,
    args: &GradeArgs,
    sandbox: Sandbox,
    student: String,
) -> Request<Official> {
    local.with_mode(Official {
        student,
        sandbox,
        // Probed once per grade (a class run's too), by starting the sandbox for real.
        isolation: grader::run::sandbox::probe(),
        target_dir: grader::official::submission::target_dir(root),
        build_timeout: args.build_timeout,
        build_cache: None,
    })
}

/// `--submissions DIR`: the whole class, its gradebook and reports.
#[cfg(feature = "instructor")]
fn class(
    root: &Path,
    course: &Course,
    dir: &Path,
    local: Request<Local>,
    args: GradeArgs,
) -> Result<ExitCode> {
    use grader::official::{class, similarity};
    // Each submission is graded for its own student's id, never without a sandbox.
    let student = grader::variants::LOCAL_ID.to_owned();
    let request = official(root, &local, &args, Sandbox::Required, student);
    // Checked before grading: a mistyped name must not wait for the whole class.
    let only = args
        .similarity_exercises
        .or_else(|| request.selection.lesson().map(|l| vec![l.id.clone()]));
    let similar = similarity::Options::new(
        course,
        args.similarity_threshold
            .unwrap_or(similarity::DEFAULT_THRESHOLD),
        only.as_deref(),
    )?;
    let mut batch = class::options(
        request,
        args.jobs.map(usize::from),
        (args.gradebook, args.reports, args.roster),
        gradebook_options(
            args.gradebook_format.unwrap_or_default(),
            args.missing.unwrap_or_default(),
        ),
        similar,
    );
    batch.shard = args
        .shard
        .as_deref()
        .map(grader::official::shard::Shard::parse)
        .transpose()?;
    batch.late = args.late;
    Ok(exit(class::run(root, course, dir, &batch)?))
}

/// The gradebook's layout and missing students' points, as the command line names them.
#[cfg(feature = "instructor")]
pub fn gradebook_options(
    f: crate::cli::args::GradebookFormat,
    missing: crate::cli::args::MissingPoints,
) -> grader::official::gradebook::Options {
    use crate::cli::args::{GradebookFormat as G, MissingPoints as M};
    use grader::official::gradebook::{Format, Missing, Options};
    Options {
        format: match f {
            G::Csv => Format::Csv,
            G::Canvas => Format::Canvas,
            G::Moodle => Format::Moodle,
        },
        missing: match missing {
            M::Zero => Missing::Zero,
            M::Blank => Missing::Blank,
        },
    }
}

/// `--submission PATH`: one student's handout, folder or archive, graded officially.
#[cfg(feature = "instructor")]
fn submission(
    root: &Path,
    course: &Course,
    path: &Path,
    local: &Request<Local>,
    args: &GradeArgs,
) -> Result<Report> {
    use grader::official::{preflight, submission};
    // As a class run reads its entries: an archive, a handout or its `exercises/` folder, one
    // folder down or not. A path that is no submission is named before the course is checked.
    let (_unpacked, dir) = grader::official::entry::open(path, course)?;
    preflight::check(root, course)?;
    let student = args
        .student
        .clone()
        .or_else(|| submission::default_id(path));
    let variant_id = student
        .clone()
        .unwrap_or(grader::variants::LOCAL_ID.to_owned());
    let sandbox = if args.allow_unsandboxed {
        Sandbox::Optional
    } else {
        Sandbox::Required
    };
    let request = official(root, local, args, sandbox, variant_id);
    let mut report = submission::grade(root, course, &dir, &request, args.keep.as_deref())?;
    report.student = student;
    Ok(report)
}

/// The report in `--format`; the human one without colour when it goes to a file.
fn render(root: &Path, course: &Course, report: &Report, args: &GradeArgs) -> String {
    let detail = if args.brief {
        report::human::Detail::Brief
    } else {
        report::human::Detail::Full
    };
    let style = if args.output.is_some() {
        Style::plain()
    } else {
        Style::stdout()
    };
    match args.format {
        Format::Human => {
            // A local grade says how to get changed course files back where it runs.
            let restore = (report.graded != report::Graded::Submission)
                .then(|| grader::course::pristine::Restore::at(root));
            report::human::render_for(report, &style, detail, restore)
        }
        Format::Json => report.to_json(),
        Format::Gradescope => report::gradescope::render(report),
        #[cfg(feature = "instructor")]
        Format::Junit => report::junit::render(report, course),
        #[cfg(not(feature = "instructor"))]
        Format::Junit => {
            let _ = course;
            unreachable!("relaunched with the instructor feature")
        }
    }
}

/// After a grade of the student's code at full marks, the line after the human report's "Full
/// marks.": the next exercise after `grade EXERCISE` (or the whole course), the next lesson
/// after a lesson's.
fn next_exercise(course: &Course, selection: &Selection, report: &Report) -> Option<String> {
    let Selection::Exercise(lesson, done) = selection else {
        return report::human::next_lesson(course, report);
    };
    let full = report.score == report.max_score && report.official;
    if !full || report.graded != report::Graded::Exercises {
        return None;
    }
    let next = course
        .lessons
        .iter()
        .flat_map(|l| l.exercises.iter().map(move |e| (l, e)))
        .skip_while(|(_, e)| e.name != done.name)
        .nth(1);
    Some(match next {
        Some((l, e)) if l.id == lesson.id => format!(
            "Next: `cargo xtask grade {}`, or `cargo xtask grade {}` for the whole lesson\n",
            e.name, lesson.id
        ),
        Some((l, e)) => format!(
            "`{}` was the last exercise of {}: `cargo xtask grade {}` for the whole lesson, then \
             `{}` of {}\n",
            done.name, lesson.id, lesson.id, e.name, l.id
        ),
        None => format!(
            "`{}` was the course's last exercise: `cargo xtask grade` grades everything\n",
            done.name
        ),
    })
}
