//! `cargo xtask autograder …`: set-ups for the platforms schools already grade on: the Gradescope
//! bundle ([`gradescope`]), and GitHub Classroom's workflows ([`github`]) with the two commands
//! they run, `classroom-result` (a JSON report as the points Classroom reads) and
//! `classroom-feedback` (a student's feedback, posted by the grading workflow).

pub mod github;
#[cfg(feature = "instructor")]
pub mod gradescope;

use anyhow::Result;
use grader::course::Course;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The platform commands.
#[derive(clap::Subcommand)]
pub enum Platform {
    /// Write the Gradescope autograder bundle (setup.sh, run_autograder and the instructors'
    /// course) to OUT.zip.
    Gradescope {
        /// The zip file to write.
        out: PathBuf,
    },
    /// Print the student id of a Gradescope submission from its `submission_metadata.json`: the
    /// submitters' Gradescope ids (else e-mails), sorted and joined with `+` (`run_autograder`
    /// grades with it as `--student`, from which the variant checks' inputs are drawn).
    #[command(hide = true)]
    GradescopeStudent {
        /// The submission's metadata file.
        metadata: PathBuf,
    },
    /// Write the GitHub Classroom workflows: OUT_DIR/template/ for the students' template
    /// repository (feedback points from the visible checks, nothing secret) and OUT_DIR/grading/
    /// for the instructors' repository (official grading of every student repository).
    Github {
        /// The folder to write `template/` and `grading/` into.
        out_dir: PathBuf,
        /// The assignment's deadline, ISO 8601 (e.g. 2026-12-20T23:59:00+01:00): the default of
        /// the grading workflow's `deadline` input.
        #[arg(long, value_name = "DATE", value_parser = github::parse_deadline)]
        deadline: Option<String>,
    },
    /// Print a JSON report (or, when it is missing or unreadable, a zero-point error) as GitHub
    /// Classroom's runner result: `result=<base64 JSON>`, for `$GITHUB_OUTPUT`.
    ClassroomResult {
        /// The report `grade --format json --output` wrote.
        report: PathBuf,
        /// Text to show when the report is missing (e.g. the grader's error output).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
    },
    /// Print a student's feedback from their JSON report as Markdown (for an issue in their
    /// repository): points per lesson and every check that did not pass, hidden checks without
    /// their message.
    ClassroomFeedback {
        /// The student's report (`grade --submissions --reports DIR` wrote DIR/<id>.json).
        report: PathBuf,
    },
}

/// The Rust toolchain the platforms install: `rust-toolchain.toml`'s channel when the course has
/// one, else the version of the `rustc` on this machine (e.g. `1.95.0`), else `stable`.
pub fn toolchain(root: &Path) -> String {
    let pinned = std::fs::read_to_string(root.join("rust-toolchain.toml"))
        .ok()
        .and_then(|t| t.parse::<toml::Table>().ok())
        .and_then(|t| {
            t.get("toolchain")?
                .get("channel")?
                .as_str()
                .map(str::to_owned)
        });
    pinned.unwrap_or_else(|| {
        std::process::Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
            .arg("--version")
            .output()
            .ok()
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .split_whitespace()
                    .nth(1)
                    .map(str::to_owned)
            })
            .unwrap_or_else(|| "stable".to_owned())
    })
}

/// True for the commands that need the full grader (the `instructor` feature): the Gradescope
/// bundle. The GitHub workflow and `classroom-result` (run in students' CI) need no more than the
/// student build.
#[cfg(not(feature = "instructor"))]
pub fn needs_instructor(platform: &Platform) -> bool {
    matches!(
        platform,
        Platform::Gradescope { .. } | Platform::GradescopeStudent { .. }
    )
}

/// Runs an autograder command.
pub fn run(root: &Path, course: &Course, platform: Platform) -> Result<ExitCode> {
    match platform {
        #[cfg(not(feature = "instructor"))]
        Platform::Gradescope { .. } | Platform::GradescopeStudent { .. } => {
            unreachable!("relaunched with the instructor feature")
        }
        #[cfg(feature = "instructor")]
        Platform::Gradescope { out } => {
            let n = gradescope::bundle(root, &out)?;
            println!(
                "wrote the Gradescope autograder to {} ({n} files; Rust {})",
                out.display(),
                toolchain(root)
            );
        }
        #[cfg(feature = "instructor")]
        Platform::GradescopeStudent { metadata } => {
            println!("{}", gradescope::student_id(&metadata)?);
        }
        Platform::Github { out_dir, deadline } => {
            let written = github::write(root, course, &out_dir, deadline.as_deref())?;
            println!(
                "wrote the students' template workflow to {}\n\
                 wrote the instructors' grading workflow to {}",
                written.template.display(),
                written.grading.display()
            );
        }
        Platform::ClassroomFeedback { report } => {
            print!("{}", github::classroom_feedback(&report)?);
        }
        Platform::ClassroomResult { report, log } => {
            let log = log.and_then(|p| std::fs::read_to_string(p).ok());
            println!(
                "result={}",
                github::classroom_result(course, &report, log.as_deref())
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
