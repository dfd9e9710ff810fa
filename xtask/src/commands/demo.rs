//! `cargo xtask demo LESSON`: runs the lesson's worked example (`examples/demo.rs`) with the
//! student's code or the reference solution. A demo names a function still at `todo!()` on the
//! line that needs it (the `pictures` crate); a demo that does not go through it stops at its
//! first `todo!()`, whose panic becomes a pointer to the function to implement.

use anyhow::{Context as _, Result};
use grader::course::{Course, Lesson, suggest};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::process::{Command, Stdio};

/// What to run and how.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Run the reference solution instead of the student's code.
    pub solutions: bool,
    /// Draw the reference's figures next to the student's.
    ///
    /// The reference's demo runs first (output discarded) and writes its figures to a temporary
    /// JSON file, which the student's demo reads: the exercise crate never links the solution
    /// crate. In a handout (no `solutions/`) the demo says so and shows the student's heads only.
    pub compare: bool,
    /// Write one SVG per figure into this folder.
    pub svg: Option<PathBuf>,
}

fn cargo_run(root: &Path, lesson: &Lesson, solutions: bool, args: &[String]) -> Command {
    let package = lesson.package(grader::course::Side::from_solutions(solutions));
    let mut cmd = grader::build::cargo::command();
    cmd.current_dir(root)
        .args([
            "run",
            "--quiet",
            "--package",
            &package,
            "--features",
            "demo",
            "--example",
        ])
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

/// `cargo xtask demo LESSON`: runs the lesson's worked example; its exit status is the example's.
pub fn command(root: &Path, course: &Course, lesson: &str, opts: Options) -> Result<ExitCode> {
    let l = course
        .find_lesson(lesson)
        .ok_or_else(|| anyhow::anyhow!(suggest::unknown(course, suggest::Kind::Lesson, lesson)))?;
    let code = run_with(root, l, &opts)?;
    Ok(ExitCode::from(code.clamp(0, 255) as u8))
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
        Some(grader::build::claim_exercise(root, lesson)?)
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
    if let Some(note) = stopped_at_todo(&stderr, &lesson.id) {
        eprintln!("{note}");
        return Ok(1);
    }
    eprint!("{stderr}");
    Ok(output.status.code().unwrap_or(1))
}

/// What to tell the student when a demo ended at a `todo!()` outside the `pictures` crate's
/// steps (its standard error is `stderr`); `None` for any other failure.
fn stopped_at_todo(stderr: &str, lesson: &str) -> Option<String> {
    let (location, message) = grader::judge::verdict::panic_of(stderr)?;
    if !message.starts_with(check_protocol::TODO_PREFIX) {
        return None;
    }
    let what = match check_protocol::todo_function(&message) {
        Some(function) => format!("`{function}`, which is not implemented yet"),
        None => "a `todo!()`".to_owned(),
    };
    Some(format!(
        "\nThe demo stopped at {what} ({}).\nImplement it, then run `cargo xtask demo {lesson}` \
         again, or `cargo xtask grade {lesson}` to check it.",
        grader::judge::verdict::strip_col(&location)
    ))
}

#[cfg(test)]
mod tests {
    use super::stopped_at_todo;

    #[test]
    fn a_demo_stopped_at_a_todo_points_to_the_function() {
        let stderr = "warning: unused variable\n\nthread 'main' panicked at \
             exercises/lesson07-kv-cache/src/exercises.rs:91:9:\n\
             not yet implemented: KvCache::append: write k and v\n\
             note: run with `RUST_BACKTRACE=1`\n";
        let note = stopped_at_todo(stderr, "lesson07").unwrap();
        assert!(
            note.contains(
                "stopped at `KvCache::append`, which is not implemented yet \
                 (exercises/lesson07-kv-cache/src/exercises.rs:91)"
            ),
            "{note}"
        );
        assert!(note.contains("`cargo xtask demo lesson07` again"), "{note}");
        let bare = "thread 'main' panicked at src/lib.rs:3:5:\nnot yet implemented\n";
        assert!(
            stopped_at_todo(bare, "l")
                .unwrap()
                .contains("stopped at a `todo!()` (src/lib.rs:3)")
        );
        let other = "thread 'main' panicked at src/lib.rs:3:5:\nindex out of bounds\n";
        assert_eq!(stopped_at_todo(other, "l"), None);
        assert_eq!(stopped_at_todo("error: could not compile", "l"), None);
    }
}
