//! `cargo xtask demo LESSON`: runs the lesson's worked example (`examples/demo.rs`) with the
//! student's code or the reference solution.
//!
//! The demos compute every line with the lesson's code and name a function still at `todo!()` on
//! the line that needs it (the `pictures` crate). Options are passed on to the demo:
//!
//! * `--svg DIR`: every figure is also written to `DIR/<id>.svg`;
//! * `--compare`: the reference solution's demo runs first (its output discarded) and writes its
//!   figures to a temporary JSON file; the student's demo then draws each of its heads next to
//!   the reference's. The exercise crate never links the solution crate. In a handout (no
//!   `solutions/` folder) the reference is not available: the demo says so and shows the
//!   student's heads only.
//!
//! A demo that does not use the `pictures` crate (a freshly scaffolded lesson) stops at its first
//! `todo!()`; its panic is turned into a pointer to the function to implement.

use crate::course::Lesson;
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// What to run and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Run the reference solution instead of the student's code.
    pub solutions: bool,
    /// Draw the reference's figures next to the student's.
    pub compare: bool,
    /// Write one SVG per figure into this folder.
    pub svg: Option<PathBuf>,
}

fn cargo_run(root: &Path, lesson: &Lesson, solutions: bool, args: &[String]) -> Command {
    let package = lesson.package(solutions);
    let mut cmd = crate::cargo::command();
    cmd.current_dir(root)
        .args(["run", "--quiet", "--package", &package, "--example"])
        .arg(format!("{package}-demo"))
        .arg("--")
        .args(args)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null());
    cmd
}

/// The reference's figures, computed by running the solution's demo with `--figures FILE`.
fn reference_figures(root: &Path, lesson: &Lesson) -> Result<Option<PathBuf>> {
    if !root.join("solutions").join(&lesson.dir).is_dir() {
        eprintln!(
            "--compare: the reference solution is not available in this copy of the course \
             (there is no solutions/{} folder, as in every student handout), so there is nothing \
             to draw next to your heads. Showing yours only.\n",
            lesson.dir
        );
        return Ok(None);
    }
    let file = std::env::temp_dir().join(format!(
        "course-demo-{}-{}-reference.json",
        lesson.id,
        std::process::id()
    ));
    let output = cargo_run(
        root,
        lesson,
        true,
        &["--figures".to_owned(), file.display().to_string()],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .output()
    .context("could not run cargo")?;
    if !output.status.success() || !file.is_file() {
        eprint!("{}", String::from_utf8_lossy(&output.stderr));
        eprintln!(
            "--compare: the reference demo of {} failed; showing your heads only.\n",
            lesson.id
        );
        return Ok(None);
    }
    Ok(Some(file))
}

/// Runs the demo with `opts`; returns the process exit code to use.
pub fn run_with(root: &Path, lesson: &Lesson, opts: &Options) -> Result<i32> {
    let mut args = Vec::new();
    if let Some(dir) = &opts.svg {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let dir = dir
            .canonicalize()
            .with_context(|| format!("cannot use {}", dir.display()))?;
        args.extend(["--svg".to_owned(), dir.display().to_string()]);
    }
    let reference = if opts.compare && !opts.solutions {
        reference_figures(root, lesson)?
    } else {
        None
    };
    if let Some(file) = &reference {
        args.extend(["--compare".to_owned(), file.display().to_string()]);
    }
    // The student's example is built and run under the build lock.
    let _lock = if opts.solutions {
        None
    } else {
        Some(crate::build::claim_exercise(root, lesson)?)
    };
    let output = cargo_run(root, lesson, opts.solutions, &args)
        .stdout(Stdio::inherit())
        .stderr(Stdio::piped())
        .output();
    if let Some(file) = &reference {
        let _ = std::fs::remove_file(file);
    }
    let output = output.context("could not run cargo")?;
    if output.status.success() {
        return Ok(0);
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    if let Some(pos) = stderr.find("not yet implemented") {
        let location = stderr[..pos]
            .rsplit("panicked at ")
            .next()
            .and_then(|l| l.lines().next())
            .map(|l| l.trim_end_matches(':').to_owned())
            .unwrap_or_default();
        let message = stderr[pos..].lines().next().unwrap_or("");
        let function = message
            .trim_start_matches("not yet implemented")
            .trim_start_matches(':')
            .trim()
            .split(':')
            .next()
            .unwrap_or("")
            .to_owned();
        eprintln!(
            "\nThe demo stopped at `{function}`, which is not implemented yet ({location}).\n\
             Implement it, then run `cargo xtask demo {}` again, or `cargo xtask grade {}` to check it.",
            lesson.id, lesson.id
        );
        return Ok(1);
    }
    eprint!("{stderr}");
    Ok(output.status.code().unwrap_or(1))
}
