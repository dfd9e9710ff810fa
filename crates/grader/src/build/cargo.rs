//! The one builder of every `cargo` process the grader starts (builds, clippy, fmt, demos,
//! planted misconceptions): the `cargo` that started `cargo xtask` (so the pinned toolchain),
//! else the one on `PATH`. Check processes are started by [`crate::run`] instead.

use std::process::Command;

use anyhow::{Context as _, Result};
use std::path::Path;
use std::path::PathBuf;

/// A `cargo` command with no arguments yet.
pub fn command() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned()))
}

/// A submission's build in the sandbox: how this machine isolates it (as probed for the grade)
/// and how long it may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sandboxed {
    /// The isolation probed for the grade (enforced: an unsandboxed build has no `Sandboxed`).
    pub isolation: crate::run::Isolation,
    /// Stopped after this long; the lessons it had not built by then fail with a note saying so.
    pub limit: std::time::Duration,
}

impl Sandboxed {
    /// Whether the build runs as the builder's user (the container mode, see
    /// [`crate::run::builder`]).
    pub fn as_builder(self) -> bool {
        self.isolation == crate::run::Isolation::ContainerUid
    }
}

/// A `cargo build` of a student's submission that cannot read what it must not: it runs in the
/// sandbox (see [`crate::run::sandbox`]) with read access to the grading copy `root`, the toolchain and
/// the registry only (so `include_str!`, `#[path]` and friends cannot reach the instructors' tree),
/// offline, with a scrubbed environment, the target directory given as an argument (never in the
/// environment, where `env!` could read it).
pub(crate) fn sandboxed(
    root: &Path,
    target: &Path,
    args: &[String],
    sandbox: Sandboxed,
) -> Result<(Command, BuildDirs)> {
    let scratch = crate::fsutil::scratch_dir("build")?;
    // The container mode builds as the builder's user, in a home of its own.
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    let (run_as, home) = match sandbox.as_builder() {
        true => (
            Some(crate::run::builder::BUILDER),
            Some(crate::run::builder::home()?),
        ),
        false => (None, None),
    };
    #[cfg(not(all(target_os = "linux", feature = "instructor")))]
    let (run_as, home): (Option<u32>, Option<crate::fsutil::TempDir>) = (None, None);
    let home_dir = home
        .as_ref()
        .map_or(scratch.path(), |h| h.path())
        .to_path_buf();
    let (cargo_home, rustup_home) = toolchain_homes();
    let program = std::env::var_os("CARGO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("cargo"));
    let mut read = vec![root.to_path_buf(), rustup_home.clone()];
    if program.is_absolute() {
        read.push(program.clone());
    }
    let policy = crate::run::sandbox::Policy {
        read,
        write: vec![target.to_path_buf(), cargo_home.clone(), home_dir.clone()],
        hide: Vec::new(),
        timeout: sandbox.limit,
        status_file: scratch.path().join("status"),
        require: true,
        network: false,
        check_limits: false,
        run_as,
        disk: None,
        isolation: sandbox.isolation,
    };
    let mut all: Vec<String> = args.to_vec();
    all.extend([
        "--offline".to_owned(),
        "--target-dir".to_owned(),
        target.to_string_lossy().into_owned(),
    ]);
    let mut cmd = policy
        .command(&program, &all)
        .context("cannot find the grader's own executable")?;
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home_dir)
        .env("TMPDIR", &home_dir)
        .env("CARGO_HOME", &cargo_home)
        .env("RUSTUP_HOME", &rustup_home)
        // No incremental caches: a lesson is only rebuilt when its sources changed, and then
        // its caches were taken aside with the rest of the earlier build (`cargo_state`), so
        // they were written for nothing (docs/bench-class.md).
        .env("CARGO_INCREMENTAL", "0");
    if let Some(t) = std::env::var_os("RUSTUP_TOOLCHAIN") {
        cmd.env("RUSTUP_TOOLCHAIN", t);
    }
    Ok((
        cmd,
        BuildDirs {
            scratch,
            _home: home,
        },
    ))
}

/// A sandboxed build's folders, kept until its outcome is read: the grader's scratch folder
/// (the supervisor's status file; the build's home too, but for the builder's, `home`).
pub(crate) struct BuildDirs {
    pub scratch: crate::fsutil::TempDir,
    pub _home: Option<crate::fsutil::TempDir>,
}

/// `$CARGO_HOME` and `$RUSTUP_HOME`, or their defaults under `$HOME`.
pub fn toolchain_homes() -> (PathBuf, PathBuf) {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    let from = |var: &str, default: &str| {
        std::env::var_os(var).map_or_else(|| home.join(default), PathBuf::from)
    };
    (from("CARGO_HOME", ".cargo"), from("RUSTUP_HOME", ".rustup"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submissions_build_writes_no_incremental_caches() {
        let dir = tempfile::tempdir().unwrap();
        let (cmd, _dirs) = sandboxed(
            dir.path(),
            &dir.path().join("target"),
            &["build".to_owned()],
            Sandboxed {
                isolation: crate::run::Isolation::Landlock { abi: 1 },
                limit: std::time::Duration::from_secs(1),
            },
        )
        .unwrap();
        let incremental = cmd
            .get_envs()
            .find(|(key, _)| *key == "CARGO_INCREMENTAL")
            .and_then(|(_, value)| value);
        assert_eq!(incremental, Some(std::ffi::OsStr::new("0")));
    }
}
