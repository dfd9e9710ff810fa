//! The course's command-line tools, run as `cargo xtask <command>`.

mod compile;
mod course;
mod demo;
mod grade;
mod hint;
mod manifest;
mod report;
mod runner;
mod style;
mod verdict;
mod workspace;

use clap::{Parser, Subcommand, ValueEnum};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Grader and tools for the multi-head attention course.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask", version, about, long_about = None)]
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
        } => {
            if let Some(t) = timeout {
                if !(t > 0.0 && t.is_finite()) {
                    return Err(format!(
                        "--timeout must be a positive number of seconds, not {t}"
                    ));
                }
            }
            let opts = grade::Options {
                solutions,
                lesson,
                timeout: timeout.map(Duration::from_secs_f64),
                jobs: jobs
                    .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get())),
                progress: std::io::stderr().is_terminal(),
            };
            let report = grade::grade(&root, &course, &opts)?;
            let rendered = match format {
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
