//! The course's command-line tools, run as `cargo xtask <command>`.

mod bless;
mod check;
mod compile;
mod course;
mod demo;
mod dist;
mod fsutil;
mod grade;
mod hint;
mod manifest;
mod report;
mod runner;
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
        /// Seconds one check may run (overrides course.toml).
        #[arg(long, value_name = "SECS")]
        timeout: Option<f64>,
        /// Report format.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
        /// Write the report to FILE; a short summary still goes to the terminal.
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Check processes to run at once (default: the number of cores).
        #[arg(long, short)]
        jobs: Option<usize>,
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
        #[arg(long, short)]
        jobs: Option<usize>,
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
}

fn main() -> ExitCode {
    let cli = Cli::parse();
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
        } => {
            if let Some(t) = timeout
                && !(t > 0.0 && t.is_finite())
            {
                return Err(format!(
                    "--timeout must be a positive number of seconds, not {t}"
                ));
            }
            let opts = grade::Options {
                solutions,
                lesson,
                timeout: timeout.map(Duration::from_secs_f64),
                jobs: jobs
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
                progress: std::io::stderr().is_terminal(),
                target_dir: None,
            };
            let report = match &submission {
                Some(dir) => submission::grade(&root, &course, dir, &opts)?,
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
                Format::Human => report::human::render(&report, &style::Style::stdout()),
                Format::Json => report.to_json(),
                Format::Gradescope => report::gradescope::render(&report),
                Format::Junit => report::junit::render(&report),
            };
            match output {
                Some(path) => {
                    std::fs::write(&path, &rendered)
                        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
                    if format == Format::Human {
                        print!("{rendered}");
                    } else {
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
            let jobs =
                jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
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
