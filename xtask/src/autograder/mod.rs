//! `cargo xtask autograder …`: set-ups for the platforms schools already grade on.
//!
//! * `gradescope OUT.zip`: the bundle Gradescope's autograder image is built from
//!   ([`gradescope`]).
//! * `github OUT_DIR`: the GitHub Classroom workflow `.github/workflows/classroom.yml`
//!   ([`github`]), and `classroom-result REPORT.json`, which that workflow runs to turn the JSON
//!   report into the points GitHub Classroom reads.

pub mod github;
#[cfg(feature = "instructor")]
pub mod gradescope;

use crate::course::Course;
use anyhow::Result;
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
    /// Write the GitHub Classroom workflow to OUT_DIR/.github/workflows/classroom.yml.
    Github {
        /// The student template repository (or any folder) to write the workflow into.
        out_dir: PathBuf,
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
    matches!(platform, Platform::Gradescope { .. })
}

/// Runs an autograder command.
pub fn run(root: &Path, course: &Course, platform: Platform) -> Result<ExitCode> {
    match platform {
        #[cfg(not(feature = "instructor"))]
        Platform::Gradescope { .. } => unreachable!("relaunched with the instructor feature"),
        #[cfg(feature = "instructor")]
        Platform::Gradescope { out } => {
            let n = gradescope::bundle(root, course, &out)?;
            println!(
                "wrote the Gradescope autograder to {} ({n} files; Rust {})",
                out.display(),
                toolchain(root)
            );
        }
        Platform::Github { out_dir } => {
            let path = github::write(root, course, &out_dir)?;
            println!("wrote the GitHub Classroom workflow to {}", path.display());
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
