//! The course's command-line tools, run as `cargo xtask <command>`.

//! Where things happen, by file:
//! - a lesson's metadata (exercises, checks, points, hints) is read in `course.rs`;
//! - grading is `grade.rs` running the stages `plan.rs` → `build.rs` → list and run (`run.rs`,
//!   each check in the sandbox of `sandbox.rs`; locally, `grouped.rs` runs a lesson's checks in
//!   one process first) → `judge.rs` (against `expected.rs` and
//!   `misconception.rs`) → `blame.rs` → `report/`;
//! - a check lists itself in its binary (libtest `--list`), runs in `run.rs`, is judged in
//!   `judge.rs`, and is reported by `report/{human,json,gradescope,junit}`.

// The student build (without the `instructor` feature, see Cargo.toml) leaves out the modules of
// the instructor commands; what only they use would be reported as dead there. The full build,
// which clippy checks with `-D warnings`, still reports real dead code.
#![cfg_attr(not(feature = "instructor"), allow(dead_code))]

#[cfg(feature = "instructor")]
mod archive;
mod autograder;
#[cfg(feature = "instructor")]
mod batch;
mod blame;
#[cfg(feature = "instructor")]
mod bless;
mod build;
mod build_cache;
mod cargo;
#[cfg(feature = "instructor")]
mod check;
#[cfg(all(target_os = "linux", feature = "instructor"))]
mod container;
#[cfg(all(target_os = "linux", feature = "instructor"))]
mod container_like;
mod course;
mod demo;
mod dep_info;
#[cfg(feature = "instructor")]
mod dist;
mod expected;
mod freshness;
mod fsutil;
mod grade;
#[cfg(feature = "instructor")]
mod gradebook;
mod grouped;
mod hint;
mod judge;
mod kept_builds;
mod manifest;
mod misconception;
#[cfg(feature = "instructor")]
mod new_exercise;
mod outside_sources;
#[cfg(feature = "instructor")]
mod pages;
mod plan;
#[cfg(feature = "instructor")]
mod points_kept;
#[cfg(feature = "instructor")]
mod preflight;
mod progress;
mod refused;
mod report;
mod reset;
#[cfg(feature = "instructor")]
mod roster;
mod run;
mod sandbox;
mod sandbox_paths;
#[cfg(feature = "instructor")]
mod scaffold;
#[cfg(feature = "instructor")]
mod similarity;
mod stateful;
mod student_text;
mod style;
#[cfg(feature = "instructor")]
mod submission;
mod suggest;
mod tokens;
mod variants;
mod verdict;
mod watch;
mod workspace;

use anyhow::{Context as _, Result, anyhow, bail};
use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Grader and tools for the multi-head attention course.
#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    version,
    about,
    long_about = None,
    after_help = "The student loop: edit exercises/<lesson>/src/exercises.rs, then\n  \
                  cargo xtask demo 1      the lesson's worked example with your code\n  \
                  cargo xtask grade 1     check by check, what is right and what to do next\n  \
                  cargo xtask grade NAME  only that exercise's checks, e.g. `grade split_heads`\n  \
                  cargo xtask hint NAME   the next hint for an exercise"
)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    /// A table per lesson, for people.
    Human,
    /// The course's JSON report (schema_version 2).
    Json,
    /// Gradescope's results.json.
    Gradescope,
    /// JUnit XML for CI systems.
    Junit,
}

/// The layout of a class run's gradebook (`--gradebook-format`).
#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq)]
enum GradebookFormat {
    /// The course's CSV: every column, with the status and the error of each row.
    #[default]
    Csv,
    /// For Canvas' gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, a Points
    /// Possible line, a column per lesson.
    Canvas,
    /// For Moodle's CSV grade import: the student's email (or username, or ID number), a column
    /// per lesson.
    Moodle,
}

#[derive(Subcommand)]
enum Cmd {
    /// Grade the exercises (or the reference solutions), check by check, each judged by the grader.
    ///
    /// Exits 0 only at full marks. Grading never writes or accepts snapshots. A mistyped lesson or
    /// exercise name is refused (exit status 2) with the closest name: `did you mean ...?`.
    #[command(group(clap::ArgGroup::new("official").args(["submission", "submissions"])))]
    Grade {
        /// Only this lesson (`lesson01`, `1` or its directory name), or only this exercise
        /// (`split_heads`, or a method as the table names it, `KvCache::append`): its lesson is
        /// built and only that exercise's checks run.
        #[arg(value_name = "LESSON|EXERCISE")]
        lesson: Option<String>,
        /// Grade the reference solutions in solutions/ instead of exercises/.
        #[arg(long)]
        solutions: bool,
        /// Seconds one check may run (overrides course.toml), at most one day.
        #[arg(
            long,
            value_name = "SECS",
            value_parser = parse_timeout,
            allow_negative_numbers = true
        )]
        timeout: Option<Duration>,
        /// Seconds a submission's build may take (--submission, --submissions; default 600).
        /// Lessons not built by then fail to compile, with a note that says so.
        #[arg(
            long,
            value_name = "SECS",
            value_parser = parse_timeout,
            allow_negative_numbers = true,
            requires = "official"
        )]
        build_timeout: Option<Duration>,
        /// Report format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// With --solutions: plant the misconception ID (course.toml `[[lessons.misconceptions]]`)
        /// into the reference solution and grade its lesson: what a student with that mistake
        /// sees (instructors).
        #[arg(long, value_name = "ID", requires = "solutions")]
        plant: Option<String>,
        /// Human format: one line per exercise and only its first failing check's message
        /// (by default every failing check is shown with its full message).
        #[arg(long)]
        brief: bool,
        /// Run every check in a process of its own, as official grading does. By default local
        /// grading runs the checks of a lesson together and reruns alone any it cannot tell
        /// apart, which gives the same verdicts faster.
        #[arg(long)]
        isolate: bool,
        /// With --submission: grade even where student code cannot be sandboxed (the report is
        /// then unofficial).
        #[arg(long, requires = "submission")]
        allow_unsandboxed: bool,
        /// With --submission: keep a copy of the graded sources and the JSON report in DIR.
        #[arg(long, value_name = "DIR", requires = "submission")]
        keep: Option<PathBuf>,
        /// With --submission: whose submission it is, carried into every report (default: the
        /// folder's or archive's name).
        #[arg(long, value_name = "ID", requires = "submission")]
        student: Option<String>,
        /// Write the report to FILE; a short summary still goes to the terminal.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Check processes to run at once (default: the number of cores).
        #[arg(
            long,
            short,
            value_parser = clap::value_parser!(u16).range(1..),
            allow_negative_numbers = true
        )]
        jobs: Option<u16>,
        /// Official grading of a student's handout (or its exercises/ folder) in DIR: only the
        /// student's exercises/*/src is used, with the instructors' checks, snapshots and hidden
        /// checks, and the variant checks, whose inputs are drawn for the student's id (--student)
        /// from course-secret and judged against the reference solution's outputs (local grading
        /// leaves variant checks out). DIR is never modified (instructors).
        #[arg(long, value_name = "DIR", conflicts_with = "solutions")]
        submission: Option<PathBuf>,
        /// Grade a whole class officially (instructors): every entry of DIR is one student's
        /// handout, exercises/ folder, .zip or .tar.gz. `-j` is then the number of submissions
        /// graded at once.
        #[arg(long, value_name = "DIR", conflicts_with_all = ["solutions", "submission"])]
        submissions: Option<PathBuf>,
        /// With --submissions: write the gradebook (CSV, laid out as --gradebook-format says) to
        /// FILE (default: standard output).
        #[arg(long, value_name = "FILE", requires = "submissions")]
        gradebook: Option<PathBuf>,
        /// With --submissions: the gradebook's layout: `csv` (every column), or a file to upload
        /// to Canvas or Moodle (see docs/class-grading.md).
        #[arg(long, value_enum, value_name = "FORMAT", requires = "submissions")]
        gradebook_format: Option<GradebookFormat>,
        /// With --submissions: the class list, a CSV file with an `id` column (and optionally
        /// `submission`, the file or folder of DIR that is the student's). Every student gets a
        /// row (`missing` without a submission); its other columns go into the gradebook.
        #[arg(long, value_name = "FILE.csv", requires = "submissions")]
        roster: Option<PathBuf>,
        /// With --submissions: write one JSON report per student (`<id>.json`) in DIR, with their
        /// feedback pages (`<id>.html`, `<id>.md`), the class page (`index.html`) and
        /// `similarity.csv`, the pairs of students whose code looks alike (see `similarity`).
        #[arg(long, value_name = "DIR", requires = "submissions")]
        reports: Option<PathBuf>,
        /// With --reports: the score from which a pair goes into similarity.csv (0 to 1; default
        /// 0.5).
        #[arg(long, value_name = "X", value_parser = parse_threshold, requires = "reports")]
        similarity_threshold: Option<f64>,
        /// With --reports: compare only these exercises or lessons in similarity.csv (default:
        /// the graded lessons).
        #[arg(
            long,
            value_name = "NAME,...",
            value_delimiter = ',',
            requires = "reports"
        )]
        similarity_exercises: Option<Vec<String>>,
    },
    /// Regenerate snapshots from the reference solutions, delete orphans, update checks.sha256
    /// (instructors).
    ///
    /// Prints every snapshot added, changed (with a short diff) or removed. A lesson whose solution
    /// fails a check for another reason than a snapshot is refused.
    Bless {
        /// Only this lesson: `lesson01`, `1` or its directory name.
        lesson: Option<String>,
        /// Change nothing; exit 1 naming the snapshots that would change.
        #[arg(long)]
        check: bool,
        /// Change nothing; show what bless would write (the same diffs), and exit 0 unless a
        /// lesson is refused.
        #[arg(long, conflicts_with = "check")]
        dry_run: bool,
    },
    /// Everything to verify before publishing, in one report; exits 1 on any problem
    /// (instructors).
    ///
    /// Solutions at full marks, clippy-clean and formatted; stubs compile without warnings and
    /// grade `not_started` everywhere; snapshots fresh and none orphaned; course.toml agrees with
    /// the checks; the manifest matches.
    Check {
        /// Only this lesson (the manifest is then checked for its files only).
        lesson: Option<String>,
        /// Check processes to run at once (default: the number of cores).
        #[arg(
            long,
            short,
            value_parser = clap::value_parser!(u16).range(1..),
            allow_negative_numbers = true
        )]
        jobs: Option<u16>,
    },
    /// Scaffold a new lesson (exercise and solution crates, worked example, course.toml entry,
    /// blessed snapshot) that passes `cargo xtask check` (instructors).
    New {
        /// `lesson08-rope`, or `rope` for the next free number.
        slug: String,
        /// The lesson's title.
        #[arg(long)]
        title: String,
    },
    /// Add an exercise to a lesson: stub, reference, re-exports, course.toml entry with a hint and
    /// a check, the check and its blessed snapshot (instructors).
    #[command(name = "new-exercise")]
    NewExercise {
        /// The lesson: `lesson08`, `8` or its directory name.
        lesson: String,
        /// The exercise's function name, a snake_case identifier, e.g. `rotate_pairs`.
        name: String,
    },
    /// Write the student handout to OUT_DIR: no solutions, hidden checks or instructor-only files
    /// (instructors).
    Dist {
        /// A new (or empty) directory.
        out_dir: PathBuf,
    },
    /// Run a lesson's worked example with your code (or the reference) and print it like the text.
    Demo {
        /// The lesson: `lesson01`, `1` or its directory name.
        lesson: String,
        /// Run it with the reference solution.
        #[arg(long)]
        solutions: bool,
        /// Draw each of your heads next to the reference solution's (not in a student handout,
        /// which has no reference).
        #[arg(long, conflicts_with = "solutions")]
        compare: bool,
        /// Also write every figure (per-head weights, head averages, masks) as an SVG file in DIR.
        #[arg(long, value_name = "DIR")]
        svg: Option<PathBuf>,
    },
    /// Autograder set-ups for Gradescope and GitHub Classroom (instructors).
    Autograder {
        #[command(subcommand)]
        platform: autograder::Platform,
    },
    /// Show the next hint for an exercise (one level per call).
    Hint {
        /// The exercise (function) name, e.g. `split_heads`.
        exercise: String,
        /// Show every hint level at once.
        #[arg(long)]
        all: bool,
        /// Start again from the first hint.
        #[arg(long)]
        reset: bool,
    },
    /// List the lessons and exercises with their points, and your progress at the last grade
    /// (done, in progress, not started) with the course total.
    List,
    /// Grade a lesson again each time you save one of its files (Ctrl-C to stop).
    ///
    /// One grade at a time; a newer save stops the grade in progress. Without LESSON every lesson
    /// is watched and the one you changed is graded.
    Watch {
        /// Only this lesson: `lesson01`, `1` or its directory name.
        lesson: Option<String>,
        /// Also run the lesson's worked example (`cargo xtask demo`) before its table.
        #[arg(long)]
        demo: bool,
    },
    /// Put one exercise's function (or a whole lesson's src/exercises.rs) back to the handed-out
    /// stub; your version is kept as a backup under target/xtask/backups/.
    Reset {
        /// An exercise (function) name, e.g. `split_heads`, or a lesson: `lesson01`, `1`.
        what: String,
        /// Do not ask before overwriting.
        #[arg(long)]
        yes: bool,
    },
    /// Rewrite checks.sha256 from the current checks and snapshots (instructors).
    Manifest,
    /// Pairs of submissions whose code looks alike, MOSS-style (instructors): a CSV
    /// `a,b,score,exercises`, highest score first.
    ///
    /// Every entry of DIR is one student, as for `grade --submissions`. Renaming, reformatting and
    /// comments do not hide a copy; the handout's code, code shared by more than 30% of the class
    /// and exercises too short to tell never count. A pair is a lead to read both submissions,
    /// never a verdict.
    #[command(
        after_help = "Example:\n  cargo xtask similarity class/ --threshold 0.6 \
                            --exercises split_heads,lesson03 --output similarity.csv"
    )]
    Similarity {
        /// The submissions folder: one handout, exercises/ folder, .zip or .tar.gz per student.
        dir: PathBuf,
        /// Report pairs scoring at least X (more than 0, at most 1).
        #[arg(long, value_name = "X", value_parser = parse_threshold, default_value = "0.5")]
        threshold: f64,
        /// Compare only these exercises, lessons (all their code) or `<lesson>:other` (the code
        /// around a lesson's exercises), comma-separated.
        #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
        exercises: Option<Vec<String>>,
        /// Write the CSV to FILE (default: standard output).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Write the feedback pages again from the JSON reports in RDIR, without grading
    /// (instructors): `<id>.html` and `<id>.md` per student, and the class page `index.html`.
    ///
    /// `grade --submissions DIR --reports RDIR` writes them too.
    #[command(name = "class-page")]
    ClassPage {
        /// The reports folder of `grade --submissions DIR --reports RDIR`.
        #[arg(value_name = "RDIR")]
        dir: PathBuf,
    },
    /// Create the course secret, `course-secret` (instructors): 32 random bytes from which each
    /// student's variant-check inputs are drawn. Keep it with the solutions; never ship it.
    Secret,
    /// The sandbox a check process runs in (used by the grader itself).
    #[command(name = "__sandbox", hide = true)]
    Sandbox(sandbox::SandboxArgs),
    /// Runs a program as in a container without Landlock or namespaces (the grader's tests).
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    #[command(name = "__container-like", hide = true)]
    ContainerLike {
        /// The program and its arguments.
        #[arg(last = true)]
        command: Vec<String>,
    },
}

/// `--timeout SECS`: a number of seconds from a millisecond to a day (a smaller one would round
/// to no time at all).
///
/// Stays on `String`: clap's value parser shows it inside its own `invalid value` line.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(0.001..=86_400.0).contains(&secs) {
        return Err(format!(
            "must be at least 0.001 and at most 86400 seconds (a day), not {text}"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

/// `--threshold X`: a score above 0 and at most 1 (0 would report every pair).
fn parse_threshold(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if x > 0.0 && x <= 1.0 => Ok(x),
        _ => Err(format!(
            "must be a number above 0 and at most 1, not {text}"
        )),
    }
}

/// A usage error found by clap, in the form of the grader's own errors: one `error:` line (with
/// what clap lists under it, e.g. the missing arguments) and at most one `  help:` line (clap's
/// tip, or else the usage).
fn usage_error(e: &clap::Error) -> String {
    let text = e.render().to_string();
    let mut lines = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("For more information"));
    let mut error = lines
        .next()
        .unwrap_or("error: invalid arguments")
        .to_owned();
    let (mut tip, mut usage) = (None, None);
    for line in lines {
        if let Some(t) = line.strip_prefix("tip: ") {
            tip.get_or_insert(t.to_owned());
        } else if let Some(u) = line.strip_prefix("Usage: ") {
            usage.get_or_insert(format!("usage: {u}"));
        } else {
            error.push(' ');
            error.push_str(line);
        }
    }
    match tip.or(usage) {
        Some(help) => format!("{error}\n  help: {help}"),
        None => error,
    }
}

fn main() -> ExitCode {
    // Before anything can start a child: no handle of the caller's reaches a build or a check.
    sandbox::close_inherited();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // --help, --version, and the help shown for a bare `cargo xtask`, as clap prints them.
        Err(e)
            if !e.use_stderr()
                || e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            e.exit()
        }
        Err(e) => {
            eprintln!("{}", usage_error(&e));
            return ExitCode::from(2);
        }
    };
    if let Cmd::Sandbox(args) = cli.command {
        return ExitCode::from(sandbox::main(args).clamp(0, 255) as u8);
    }
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    if let Cmd::ContainerLike { command } = &cli.command {
        return ExitCode::from(container_like::main(command).clamp(0, 255) as u8);
    }
    match run(cli) {
        Ok(code) => code,
        // `{:#}`: the message, then each cause after a `: `, on one line (a did-you-mean's
        // `  help:` line is part of its message). Causes may quote a student's file names:
        // written so that none can move the cursor or clear the screen.
        Err(e) => {
            eprintln!("error: {}", report::readable::printable(&format!("{e:#}")));
            ExitCode::from(2)
        }
    }
}

fn exit(ok: bool) -> ExitCode {
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// After `grade EXERCISE` of the student's code at full marks, the human report's "Full marks."
/// is that exercise's: the line that follows names the next exercise (or the whole course).
fn next_exercise(
    course: &course::Course,
    selection: plan::Selection,
    report: &report::Report,
) -> Option<String> {
    let plan::Selection::Exercise(lesson, done) = selection else {
        return None;
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

/// Commands the student build of the grader (without the `instructor` feature) leaves to the
/// full one: everything that needs the instructor-only modules and crates.
#[cfg(not(feature = "instructor"))]
fn needs_instructor(command: &Cmd) -> bool {
    match command {
        Cmd::Grade {
            format,
            submission,
            submissions,
            ..
        } => submission.is_some() || submissions.is_some() || *format == Format::Junit,
        Cmd::Bless { .. }
        | Cmd::Check { .. }
        | Cmd::New { .. }
        | Cmd::NewExercise { .. }
        | Cmd::Dist { .. }
        | Cmd::ClassPage { .. }
        | Cmd::Secret
        | Cmd::Similarity { .. } => true,
        Cmd::Autograder { platform } => autograder::needs_instructor(platform),
        _ => false,
    }
}

/// Runs this command line again with the full grader, `cargo run --features instructor`: the
/// first time, cargo builds it (instructors only ever wait for that once). Cargo's own output is
/// quiet, as with `cargo xtask`; the exit status is the full grader's.
#[cfg(not(feature = "instructor"))]
fn relaunch(root: &std::path::Path) -> Result<ExitCode> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = std::process::Command::new(cargo);
    command
        .args([
            "run",
            "--quiet",
            "--package",
            "xtask",
            "--features",
            "instructor",
        ])
        .arg("--manifest-path")
        .arg(root.join("Cargo.toml"))
        .arg("--")
        .args(std::env::args_os().skip(1));
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt as _;
        let e = command.exec();
        Err(e).context("cannot start `cargo run --features instructor`")
    }
    #[cfg(not(unix))]
    {
        let status = command
            .status()
            .context("cannot start `cargo run --features instructor`")?;
        Ok(ExitCode::from(
            status.code().unwrap_or(2).clamp(0, 255) as u8
        ))
    }
}

fn run(cli: Cli) -> Result<ExitCode> {
    let root = workspace::root()?;
    #[cfg(not(feature = "instructor"))]
    if needs_instructor(&cli.command) {
        return relaunch(&root);
    }
    let course = course::Course::load(&root)?;
    match cli.command {
        Cmd::Grade {
            lesson,
            solutions,
            timeout,
            build_timeout,
            format,
            plant,
            brief,
            isolate,
            output,
            jobs,
            submission,
            allow_unsandboxed,
            keep,
            student,
            submissions,
            gradebook,
            gradebook_format,
            roster,
            reports,
            similarity_threshold,
            similarity_exercises,
        } => {
            // Where the results go is checked before any grading: a file in an existing folder, a
            // folder that exists or whose parent does.
            let files = [("--output", &output), ("--gradebook", &gradebook)];
            let dirs = [("--reports", &reports), ("--keep", &keep)];
            for (flag, path, want_dir) in files
                .iter()
                .map(|(f, p)| (f, p, false))
                .chain(dirs.iter().map(|(f, p)| (f, p, true)))
            {
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
            // A class run writes a gradebook and one JSON report per student, never one report.
            if submissions.is_some() && (format != Format::Human || output.is_some()) {
                bail!(
                    "--submissions writes a gradebook and per-student reports, not one report: \
                     --format and --output do not apply\n  help: use --gradebook FILE and \
                     --reports DIR"
                );
            }
            let selection = plan::Selection::resolve(&course, lesson.as_deref())?;
            let one_exercise = matches!(selection, plan::Selection::Exercise(..));
            if let (plan::Selection::Exercise(l, ex), Some(_)) = (selection, &submissions) {
                bail!(
                    "--submissions grades whole lessons, not one exercise\n  help: give the \
                     lesson of `{}`: `{}`",
                    ex.name,
                    l.id
                );
            }
            // Only the full grader's submission grading reads these.
            #[cfg(not(feature = "instructor"))]
            let _ = (
                allow_unsandboxed,
                keep,
                gradebook,
                reports,
                &student,
                roster,
                gradebook_format,
                similarity_threshold,
                &similarity_exercises,
            );
            let opts = grade::Options {
                solutions,
                lesson,
                timeout,
                build_timeout,
                jobs: jobs
                    .map(usize::from)
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
                progress: std::io::stderr().is_terminal(),
                target_dir: None,
                require_sandbox: false,
                expected_root: None,
                sandboxed_build: false,
                plant,
                isolate,
                build_cache: None,
                // The reference solutions prove their variant checks; exercises graded locally
                // leave them out (official grading gives each student's id below).
                variants: solutions.then(|| variants::LOCAL_ID.to_owned()),
            };
            #[cfg(feature = "instructor")]
            if let Some(dir) = submissions {
                // Checked before grading: a mistyped name must not wait for the whole class.
                let only = similarity_exercises.or_else(|| opts.lesson.clone().map(|l| vec![l]));
                let similar = similarity::Options::new(
                    &course,
                    similarity_threshold.unwrap_or(similarity::DEFAULT_THRESHOLD),
                    only.as_deref(),
                )?;
                let batch = batch::options(
                    opts,
                    jobs.map(usize::from),
                    (gradebook, reports, roster),
                    gradebook_format.unwrap_or_default(),
                    similar,
                );
                return Ok(exit(batch::run(&root, &course, &dir, &batch)?));
            }
            let detail = if brief {
                report::human::Detail::Brief
            } else {
                report::human::Detail::Full
            };
            let report = match &submission {
                #[cfg(feature = "instructor")]
                Some(path) => {
                    preflight::check(&root, &course)?;
                    // As a class run reads its entries: an archive, a handout or its
                    // `exercises/` folder, one folder down or not.
                    let (_unpacked, dir) = batch::open(path, &course)?;
                    let student = student.or_else(|| submission::default_id(path));
                    let opts = grade::Options {
                        variants: Some(student.clone().unwrap_or(variants::LOCAL_ID.to_owned())),
                        ..opts
                    };
                    let mut report = submission::grade(
                        &root,
                        &course,
                        &dir,
                        &opts,
                        &submission::SubmissionOptions {
                            allow_unsandboxed,
                            keep,
                        },
                    )?;
                    report.student = student;
                    report
                }
                #[cfg(not(feature = "instructor"))]
                Some(_) => unreachable!("relaunched with the instructor feature"),
                None => grade::grade(&root, &course, &opts)?,
            };
            let mut rendered = match format {
                Format::Human if submission.is_some() && !report.modified_files.is_empty() => {
                    // Written to --output: no colour codes in the file.
                    let style = if output.is_some() {
                        style::Style::plain()
                    } else {
                        style::Style::stdout()
                    };
                    let mut text = report::human::render(&report, &style, detail);
                    text.push_str(
                        "\nFiles the student changed outside exercises/*/src (not used: graded with the instructors' copies):\n",
                    );
                    for f in &report.modified_files {
                        text.push_str(&format!("  {}\n", student_text::name(f)));
                    }
                    text
                }
                Format::Human if output.is_some() => {
                    report::human::render(&report, &style::Style::plain(), detail)
                }
                Format::Human => report::human::render(&report, &style::Style::stdout(), detail),
                Format::Json => report.to_json(),
                Format::Gradescope => report::gradescope::render(&report),
                #[cfg(feature = "instructor")]
                Format::Junit => report::junit::render(&report, &course),
                #[cfg(not(feature = "instructor"))]
                Format::Junit => unreachable!("relaunched with the instructor feature"),
            };
            if format == Format::Human
                && submission.is_none()
                && let Some(next) = next_exercise(&course, selection, &report)
            {
                rendered.push_str(&next);
            }
            match output {
                Some(path) => {
                    std::fs::write(&path, &rendered)
                        .with_context(|| format!("cannot write {}", path.display()))?;
                    {
                        println!(
                            "{}/{} points; report written to {}",
                            report.score,
                            report.max_score,
                            path.display()
                        );
                    }
                }
                None => print!("{rendered}"),
            }
            // A grade of one exercise is not the lesson's progress: `list` keeps the last grade
            // of the whole lesson.
            if !one_exercise {
                progress::record(&root, &report)?;
            }
            // An unofficial grade (modified checks or snapshots) never counts as full marks.
            let full = report.score == report.max_score && report.official;
            Ok(if full {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        #[cfg(feature = "instructor")]
        Cmd::Bless {
            lesson,
            check,
            dry_run,
        } => Ok(exit(bless::run(
            &root,
            &course,
            lesson.as_deref(),
            check,
            dry_run,
        )?)),
        #[cfg(feature = "instructor")]
        Cmd::Check { lesson, jobs } => {
            let jobs = jobs
                .map(usize::from)
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
            Ok(exit(check::run(&root, &course, lesson.as_deref(), jobs)?))
        }
        #[cfg(feature = "instructor")]
        Cmd::New { slug, title } => {
            scaffold::run(&root, &course, &slug, &title)?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "instructor")]
        Cmd::NewExercise { lesson, name } => {
            new_exercise::run(&root, &course, &lesson, &name)?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "instructor")]
        Cmd::ClassPage { dir } => {
            pages::run(&dir)?;
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "instructor")]
        Cmd::Dist { out_dir } => {
            let summary = dist::make(&root, &course, &out_dir)?;
            println!(
                "wrote the handout to {} ({} files)",
                out_dir.display(),
                summary.files.len()
            );
            println!(
                "left out: {} and {} hidden check(s){}",
                dist::INSTRUCTOR_ONLY.join(", "),
                summary.hidden_checks.len(),
                if summary.hidden_checks.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", summary.hidden_checks.join(", "))
                }
            );
            println!("{} lists the shipped checks and snapshots.", manifest::FILE);
            Ok(ExitCode::SUCCESS)
        }
        #[cfg(feature = "instructor")]
        Cmd::Secret => {
            let path = variants::secret::create(&root)?;
            println!(
                "wrote {}: keep it with the solutions (never in a handout); every student's \
                 variant inputs are drawn from it",
                path.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Demo {
            lesson,
            solutions,
            compare,
            svg,
        } => {
            let l = course.find_lesson(&lesson).ok_or_else(|| {
                anyhow!(suggest::unknown(&course, suggest::Kind::Lesson, &lesson))
            })?;
            let opts = demo::Options {
                solutions,
                compare,
                svg,
            };
            let code = demo::run_with(&root, l, &opts)?;
            Ok(ExitCode::from(code.clamp(0, 255) as u8))
        }
        Cmd::Hint {
            exercise,
            all,
            reset,
        } => {
            print!("{}", hint::hint(&root, &course, &exercise, all, reset)?);
            Ok(ExitCode::SUCCESS)
        }
        Cmd::List => {
            print!(
                "{}",
                progress::list(&root, &course, &style::Style::stdout())
            );
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Watch { lesson, demo } => Ok(ExitCode::from(watch::run(
            &root,
            &course,
            &watch::Options { lesson, demo },
        )?)),
        Cmd::Reset { what, yes } => Ok(ExitCode::from(reset::run(&root, &course, &what, yes)?)),
        Cmd::Autograder { platform } => autograder::run(&root, &course, platform),
        Cmd::Sandbox(_) => unreachable!("handled before the course is read"),
        #[cfg(all(target_os = "linux", feature = "instructor"))]
        Cmd::ContainerLike { .. } => unreachable!("handled before the course is read"),
        #[cfg(not(feature = "instructor"))]
        Cmd::Bless { .. }
        | Cmd::Check { .. }
        | Cmd::New { .. }
        | Cmd::NewExercise { .. }
        | Cmd::Dist { .. }
        | Cmd::ClassPage { .. }
        | Cmd::Secret
        | Cmd::Similarity { .. } => {
            unreachable!("relaunched with the instructor feature")
        }
        #[cfg(feature = "instructor")]
        Cmd::Similarity {
            dir,
            threshold,
            exercises,
            output,
        } => {
            if let Some(path) = &output
                && (path.is_dir()
                    || path
                        .parent()
                        .is_some_and(|p| !p.as_os_str().is_empty() && !p.is_dir()))
            {
                bail!(
                    "--output {}: its folder does not exist (or it is a folder)",
                    path.display()
                );
            }
            let opts = similarity::Options::new(&course, threshold, exercises.as_deref())?;
            similarity::run(&root, &course, &dir, &opts, output.as_deref())?;
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Manifest => {
            std::fs::write(
                root.join(manifest::FILE),
                manifest::generate(&root, &course),
            )
            .with_context(|| format!("cannot write {}", manifest::FILE))?;
            println!("wrote {}", manifest::FILE);
            Ok(ExitCode::SUCCESS)
        }
    }
}
