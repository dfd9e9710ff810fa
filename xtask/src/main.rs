//! The course's command-line tools, run as `cargo xtask <command>`.

//! Where things happen, by file:
//! - a lesson's metadata (exercises, checks, points, hints) is read in `course.rs`;
//! - grading is `grade.rs` running the stages `plan.rs` → `build.rs` → list and run (`run.rs`,
//!   each check in the sandbox of `sandbox.rs`) → `judge.rs` (against `expected.rs`) → `report/`;
//! - a check lists itself in its binary (libtest `--list`), runs in `run.rs`, is judged in
//!   `judge.rs`, and is reported by `report/{human,json,gradescope,junit}`.

mod bless;
mod build;
mod check;
mod course;
mod demo;
mod dist;
mod expected;
mod fsutil;
mod grade;
mod hint;
mod judge;
mod manifest;
mod plan;
mod report;
mod run;
mod sandbox;
mod scaffold;
mod style;
mod submission;
mod verdict;
mod workspace;

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
    /// The course's JSON report (schema_version 1).
    Json,
    /// Gradescope's results.json.
    Gradescope,
    /// JUnit XML for CI systems.
    Junit,
}

#[derive(Subcommand)]
enum Cmd {
    /// Grade the exercises (or the reference solutions): every check runs in its own process.
    ///
    /// Exits 0 only at full marks. Grading never writes or accepts snapshots.
    Grade {
        /// Only this lesson: `lesson01`, `1` or its directory name.
        lesson: Option<String>,
        /// Grade the reference solutions in solutions/ instead of exercises/.
        #[arg(long)]
        solutions: bool,
        /// Seconds one check may run (overrides course.toml), at most one day.
        #[arg(long, value_name = "SECS", value_parser = parse_timeout)]
        timeout: Option<Duration>,
        /// Report format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// With --submission: grade even where student code cannot be sandboxed (the report is
        /// then unofficial).
        #[arg(long, requires = "submission")]
        allow_unsandboxed: bool,
        /// With --submission: keep a copy of the graded sources and the JSON report in DIR.
        #[arg(long, value_name = "DIR", requires = "submission")]
        keep: Option<PathBuf>,
        /// Write the report to FILE; a short summary still goes to the terminal.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Check processes to run at once (default: the number of cores).
        #[arg(long, short, value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
        /// Official grading of a student's handout (or its exercises/ folder) in DIR: only the
        /// student's exercises/*/src is used, with the instructors' checks, snapshots and hidden
        /// checks. DIR is never modified (instructors).
        #[arg(long, value_name = "DIR", conflicts_with = "solutions")]
        submission: Option<PathBuf>,
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
        #[arg(long, short, value_parser = clap::value_parser!(u16).range(1..))]
        jobs: Option<u16>,
    },
    /// Scaffold a new lesson (exercise and solution crates, worked example, course.toml entry,
    /// blessed snapshot) that passes `cargo xtask check` (instructors).
    New {
        /// `lesson07-rope`, or `rope` for the next free number.
        slug: String,
        /// The lesson's title.
        #[arg(long)]
        title: String,
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
    /// List the lessons and exercises with their points.
    List,
    /// Rewrite checks.sha256 from the current checks and snapshots (instructors).
    Manifest,
    /// The sandbox a check process runs in (used by the grader itself).
    #[command(name = "__sandbox", hide = true)]
    Sandbox(sandbox::SandboxArgs),
}

/// `--timeout SECS`: a positive number of seconds, at most a day.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .parse()
        .map_err(|_| format!("`{text}` is not a number of seconds"))?;
    if !(secs > 0.0 && secs <= 86_400.0) {
        return Err(format!(
            "must be more than 0 and at most 86400 seconds (a day), not {text}"
        ));
    }
    Ok(Duration::from_secs_f64(secs))
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    if let Cmd::Sandbox(args) = cli.command {
        return ExitCode::from(sandbox::main(args).clamp(0, 255) as u8);
    }
    match run(cli) {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("error: {msg}");
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

fn run(cli: Cli) -> Result<ExitCode, String> {
    let root = workspace::root()?;
    let course = course::Course::load(&root)?;
    match cli.command {
        Cmd::Grade {
            lesson,
            solutions,
            timeout,
            format,
            output,
            jobs,
            submission,
            allow_unsandboxed,
            keep,
        } => {
            if let Some(path) = &output {
                let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
                if parent.is_some_and(|p| !p.is_dir()) || path.is_dir() {
                    return Err(format!(
                        "--output {}: its folder does not exist (or it is a folder)",
                        path.display()
                    ));
                }
            }
            let opts = grade::Options {
                solutions,
                lesson,
                timeout,
                jobs: jobs
                    .map(usize::from)
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
                progress: std::io::stderr().is_terminal(),
                target_dir: None,
                require_sandbox: false,
                expected_root: None,
                sandboxed_build: false,
            };
            let report = match &submission {
                Some(dir) => submission::grade(
                    &root,
                    &course,
                    dir,
                    &opts,
                    &submission::SubmissionOptions {
                        allow_unsandboxed,
                        keep,
                    },
                )?,
                None => grade::grade(&root, &course, &opts)?,
            };
            let rendered = match format {
                Format::Human if submission.is_some() && !report.modified_files.is_empty() => {
                    let mut text = report::human::render(&report, &style::Style::stdout());
                    text.push_str(
                        "\nFiles the student changed outside exercises/*/src (not used: graded with the instructors' copies):\n",
                    );
                    for f in &report.modified_files {
                        text.push_str(&format!("  {f}\n"));
                    }
                    text
                }
                Format::Human if output.is_some() => {
                    report::human::render(&report, &style::Style::plain())
                }
                Format::Human => report::human::render(&report, &style::Style::stdout()),
                Format::Json => report.to_json(),
                Format::Gradescope => report::gradescope::render(&report),
                Format::Junit => report::junit::render(&report),
            };
            match output {
                Some(path) => {
                    std::fs::write(&path, &rendered)
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
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
            let full = report.score == report.max_score;
            Ok(if full {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(1)
            })
        }
        Cmd::Bless { lesson, check } => {
            Ok(exit(bless::run(&root, &course, lesson.as_deref(), check)?))
        }
        Cmd::Check { lesson, jobs } => {
            let jobs = jobs
                .map(usize::from)
                .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
            Ok(exit(check::run(&root, &course, lesson.as_deref(), jobs)?))
        }
        Cmd::New { slug, title } => {
            scaffold::run(&root, &course, &slug, &title)?;
            Ok(ExitCode::SUCCESS)
        }
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
        Cmd::Demo { lesson, solutions } => {
            let l = course
                .find_lesson(&lesson)
                .ok_or_else(|| format!("no lesson `{lesson}` in course.toml"))?;
            let code = demo::run(&root, l, solutions)?;
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
            for l in &course.lessons {
                println!("{} · {} ({} points)", l.id, l.title, l.max_points());
                for e in &l.exercises {
                    let pts: u32 = e.checks.iter().map(|c| c.points).sum();
                    println!(
                        "  {:24} {:>2} points, {} checks",
                        e.name,
                        pts,
                        e.checks.len()
                    );
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Cmd::Sandbox(_) => unreachable!("handled before the course is read"),
        Cmd::Manifest => {
            std::fs::write(
                root.join(manifest::FILE),
                manifest::generate(&root, &course),
            )
            .map_err(|e| format!("cannot write {}: {e}", manifest::FILE))?;
            println!("wrote {}", manifest::FILE);
            Ok(ExitCode::SUCCESS)
        }
    }
}
