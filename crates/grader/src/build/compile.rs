//! One `cargo build --keep-going --message-format=json` of the check targets of some lessons.

use crate::build::messages::Reader;
use crate::build::output::Compiled;
use crate::build::units::{self, Observer};
use crate::course::{Lesson, Side};
use anyhow::{Context as _, Result};
use std::io::Read as _;
use std::path::Path;
use std::process::{Command, Output, Stdio};

/// The `cargo build` of `lessons` in the course at `root` (the grading copy's fixed copy for a
/// sandboxed build) into `target`; `sandbox`: in the sandbox. A local
/// build tells `observer` how far it is as it runs.
pub(crate) fn cargo_build(
    root: &Path,
    target: &Path,
    lessons: &[&Lesson],
    side: Side,
    target_dir: Option<&Path>,
    sandbox: Option<crate::build::cargo::Sandboxed>,
    observer: Option<&dyn Observer>,
) -> Result<Compiled> {
    let mut args: Vec<String> = ["build", "--keep-going", "--message-format=json"]
        .map(str::to_owned)
        .to_vec();
    for lesson in lessons {
        args.extend(["-p".to_owned(), lesson.package(side)]);
    }
    // Only the check binaries (a solution crate has other test targets, e.g. `reproduces_text`).
    for target in lessons.iter().flat_map(|lesson| lesson.check_targets()) {
        args.extend(["--test".to_owned(), target]);
    }
    // The sandboxed build's scratch folder (its HOME, and the supervisor's status file), kept
    // until the build's outcome is read.
    let mut build_home = None;
    let mut cmd = if let Some(sandbox) = sandbox {
        let (cmd, dirs) = crate::build::cargo::sandboxed(root, target, &args, sandbox)?;
        build_home = Some(dirs);
        cmd
    } else {
        let mut cmd = crate::build::cargo::command();
        cmd.args(&args).env_remove("RUSTFLAGS");
        if observer.is_some() {
            cmd.args(units::CARGO_ARGS);
        }
        if let Some(dir) = target_dir {
            cmd.env("CARGO_TARGET_DIR", dir);
        }
        cmd
    };
    cmd.current_dir(root)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let out = match observer.filter(|_| sandbox.is_none()) {
        Some(observer) => observed(cmd, observer)?,
        None => cmd.output().context("could not run cargo")?,
    };
    // The supervisor's word on how the sandboxed build ended (the build can write that folder,
    // but the supervisor writes the file last; it only chooses a message for unbuilt lessons).
    let timed_out = sandbox.map(|s| s.limit).filter(|_| {
        build_home
            .as_ref()
            .is_some_and(|dirs: &crate::build::cargo::BuildDirs| {
                std::fs::read_to_string(dirs.scratch.path().join("status"))
                    .ok()
                    .and_then(|line| crate::run::sandbox::Ended::parse(&line))
                    == Some(crate::run::sandbox::Ended::TimedOut)
            })
    });
    let reader = Reader {
        root,
        lessons,
        side,
        sandboxed: sandbox.is_some(),
        timed_out,
    };
    Ok(reader.read(&String::from_utf8_lossy(&out.stdout), &out.stderr))
}

/// Runs the build `cmd`, its progress lines passed to `observer` as they come and kept out of its
/// stderr.
fn observed(mut cmd: Command, observer: &dyn Observer) -> Result<Output> {
    let mut child = cmd.spawn().context("could not run cargo")?;
    let (Some(mut stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        anyhow::bail!("cargo's output is not piped");
    };
    let (out, err) = std::thread::scope(|scope| {
        let err = scope.spawn(|| units::split(stderr, observer));
        let mut out = Vec::new();
        let read = stdout.read_to_end(&mut out);
        (read.map(|_| out), err.join().unwrap_or_default())
    });
    let status = child.wait().context("could not run cargo")?;
    Ok(Output {
        status,
        stdout: out.context("could not read cargo's output")?,
        stderr: err,
    })
}
