//! Stage 4 of grading, **run**: every check in its own sandboxed process (see [`crate::run::sandbox`]),
//! as many at once as there are cores. A run only *collects* what happened (how the process
//! ended, its output, its observations); judging is [`crate::judge`]'s job.

#[cfg(all(target_os = "linux", feature = "instructor"))]
pub mod builder;
#[cfg(all(target_os = "linux", feature = "instructor"))]
pub mod closed;
#[cfg(all(target_os = "linux", feature = "instructor"))]
pub mod container;
#[cfg(all(target_os = "linux", feature = "instructor"))]
pub mod container_like;
pub mod disk;
pub mod grouped;
pub mod isolation;
#[cfg(all(target_os = "linux", feature = "instructor"))]
pub mod leftovers;
pub mod proc_stat;
pub mod reference;
pub mod relaunch;
pub mod runs;
pub mod sandbox;
pub mod sandbox_paths;
pub mod stateful;

use crate::course::CheckId;
use crate::run::disk::Budget;
use crate::run::sandbox::{Ended, Policy};
use anyhow::{Result, bail};
use check_protocol::observe::{self as protocol, Observation};
pub use isolation::{Isolation, Sandbox};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Output kept per stream; the rest is dropped with a note.
pub const OUTPUT_CAP: usize = 1 << 20;
/// Observations read per check at most.
pub const OBSERVATIONS_CAP: u64 = 8 << 20;
/// Time a check binary may take to list its tests.
const LIST_TIMEOUT: Duration = Duration::from_secs(20);
/// Time allowed after the limit for the sandbox to report before it is killed from outside.
const GRACE: Duration = Duration::from_secs(3);
/// Time limit of a check whose prerequisite ran out of time: it almost surely calls the same
/// endless loop, so it is not waited out again (a course with one loop grades in about one limit).
pub const BLOCKED_LIMIT: Duration = Duration::from_millis(500);

/// Whether a check's process prints a backtrace when it panics.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backtrace {
    /// No backtrace (the usual run).
    Off,
    /// A backtrace, to name the exercise a panic happened in (about 0.15 s a panic).
    On,
}

/// The environment of every check process: nothing inherited, nothing that could change how the
/// harness or insta behave, only what the check needs.
#[derive(Debug, Clone)]
pub struct CheckEnv {
    /// The check's private directory: working directory, `HOME` and `TMPDIR`.
    pub private_dir: PathBuf,
    /// Where the check writes its observations.
    pub observations: PathBuf,
    /// Print a backtrace on a panic (costs about 0.15 s per panic, so only when asked).
    pub backtrace: Backtrace,
    /// What the check is started with beside that.
    pub setting: Setting,
}

/// What a check process is started with beyond its folders: all `None` for a student's checks.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Setting {
    /// The misconception planted into a reference solution (`grade --solutions --plant ID`),
    /// named in [`check_protocol::PLANT_ENV`].
    pub plant: Option<String>,
    /// The seeds of the variant checks ([`check_protocol::VARIANT_ENV`]), given at run time only.
    pub variant_seeds: Option<String>,
    /// A sweep of the variant checks over many seeds ([`check_protocol::variant::SWEEP_ENV`]):
    /// `cargo xtask check`'s fairness proof only.
    pub sweep: Option<String>,
    /// The fitted plant's `record:`/`replay:` file ([`check_protocol::FITTED_ENV`]), else the
    /// grader's own variable is passed through.
    pub fitted: Option<String>,
}

impl CheckEnv {
    /// Applies the environment to `cmd` (cleared first).
    pub fn apply(&self, cmd: &mut Command) {
        cmd.env_clear()
            .current_dir(&self.private_dir)
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .env("HOME", &self.private_dir)
            .env("TMPDIR", &self.private_dir)
            .env(
                "RUST_BACKTRACE",
                match self.backtrace {
                    Backtrace::On => "1",
                    Backtrace::Off => "0",
                },
            )
            .env("NO_COLOR", "1")
            .env("CLICOLOR", "0")
            .env(protocol::OBSERVE_ENV, &self.observations);
        let setting = &self.setting;
        if let Some(id) = &setting.plant {
            cmd.env(check_protocol::PLANT_ENV, id);
            // Only planted runs of the reference solutions see the fitted plant's file.
            let fitted = setting.fitted.clone().map(Into::into);
            if let Some(fitted) = fitted.or_else(|| std::env::var_os(check_protocol::FITTED_ENV)) {
                cmd.env(check_protocol::FITTED_ENV, fitted);
            }
        }
        if let Some(seeds) = &setting.variant_seeds {
            cmd.env(check_protocol::VARIANT_ENV, seeds);
        }
        if let Some(sweep) = &setting.sweep {
            cmd.env(check_protocol::variant::SWEEP_ENV, sweep);
        }
    }
}

/// One check to run.
#[derive(Debug, Clone)]
pub struct CheckRun {
    /// The test executable.
    pub exe: PathBuf,
    /// The check's test function, e.g. `checks::split_heads_moves_data`.
    pub check: CheckId,
    /// Time limit.
    pub timeout: Duration,
    /// Jobs (indices into the same list) that must finish first: the checks of the exercises
    /// this one needs. When one of them timed out, this one runs with [`BLOCKED_LIMIT`].
    pub after: Vec<usize>,
    /// Print a backtrace on a panic: a panic in a library, rerun to find the caller.
    pub backtrace: Backtrace,
}

/// What one check process did.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// How it ended.
    pub ended: Ended,
    /// Its standard output then its standard error, capped.
    pub output: String,
    /// Its observations, in order.
    pub observations: Vec<Observation>,
    /// Wall time.
    pub duration: Duration,
    /// The time limit it ran under (shorter than asked when a prerequisite timed out).
    pub limit: Duration,
}

/// The container mode's folder of check boxes: in the system's temporary folder (the grader's
/// scratch folders are closed to other users), passable by everyone, listable by no one.
fn container_boxes() -> Result<tempfile::TempDir> {
    let boxes = tempfile::Builder::new()
        .prefix("course-checks-")
        .tempdir_in(std::env::temp_dir())?;
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    crate::run::container::pass_through_only(boxes.path())?;
    Ok(boxes)
}

/// A check's box in the container mode: a user of its own, a folder (removed when dropped) that
/// only that user may enter, holding a link to (or a copy of) the check's executable and the
/// private folder only that user may open. Nothing relies on its name being secret (a check can
/// read the others' command lines in `/proc`): no other check's user may pass through it. The
/// box stays the grader's: the user cannot swap the private folder for a link that would make
/// the grader read its observations elsewhere.
struct UserBox {
    uid: u32,
    exe: std::path::PathBuf,
    private: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

/// A [`UserBox`] in `boxes` for `exe`.
#[cfg(all(target_os = "linux", feature = "instructor"))]
fn user_box(boxes: &Path, exe: &Path) -> std::io::Result<UserBox> {
    let uid = crate::run::container::next_user();
    let dir = tempfile::Builder::new()
        .prefix("check-")
        .tempdir_in(boxes)?;
    let name = exe.file_name().unwrap_or(std::ffi::OsStr::new("check"));
    let linked = dir.path().join(name);
    if std::fs::hard_link(exe, &linked).is_err() {
        std::fs::copy(exe, &linked)?;
    }
    let private = dir.path().join("tmp");
    std::fs::create_dir(&private)?;
    crate::run::container::give_to(&private, uid)?;
    crate::run::container::enter_only_as(dir.path(), uid)?;
    Ok(UserBox {
        uid,
        exe: linked,
        private,
        _dir: dir,
    })
}

#[cfg(not(all(target_os = "linux", feature = "instructor")))]
fn user_box(_: &Path, _: &Path) -> std::io::Result<UserBox> {
    Err(std::io::Error::other("the container mode needs Linux"))
}

/// Runs checks in sandboxes under a scratch directory of its own.
#[derive(Debug)]
pub struct Runner {
    scratch: tempfile::TempDir,
    count: AtomicUsize,
    /// Whether a check whose sandbox cannot be enforced is refused (official grading).
    pub sandbox: Sandbox,
    /// The isolation checks run in: enforced, the sandbox (official grading); none, started
    /// directly in a process group of their own, which starts much faster (local grading).
    pub isolation: Isolation,
    /// What every check it runs is started with (a plant and the fitted plant's file: reference
    /// solutions only).
    pub setting: Setting,
    /// In the container mode ([`Isolation::ContainerUid`]): the folder of the checks'
    /// private folders, which every user may pass through but not list.
    boxes: Option<tempfile::TempDir>,
}

impl Runner {
    /// A runner with a fresh scratch directory under the system's temporary directory, its
    /// checks isolated as `isolation` says (as probed for the grade) under the policy `sandbox`.
    pub fn new(isolation: Isolation, sandbox: Sandbox) -> Result<Self> {
        let container = isolation == Isolation::ContainerUid;
        Ok(Self {
            scratch: crate::fsutil::scratch_dir("run")?,
            count: AtomicUsize::new(0),
            sandbox,
            isolation,
            setting: Setting::default(),
            boxes: container.then(container_boxes).transpose()?,
        })
    }

    /// A runner that starts checks directly, unsandboxed: local grading, and the trusted runs of
    /// the reference solutions.
    pub fn direct() -> Result<Self> {
        Self::new(Isolation::None, Sandbox::Optional)
    }

    /// [`Runner::direct`], every check started with `setting` (the reference solutions' runs).
    pub fn direct_with(setting: Setting) -> Result<Self> {
        Ok(Self {
            setting,
            ..Self::direct()?
        })
    }

    /// Whether checks run in the sandbox.
    pub fn sandboxed(&self) -> bool {
        self.isolation.is_enforced()
    }

    /// The command for `exe args`: through the sandbox's supervisor, or directly in a process
    /// group of its own.
    fn command(&self, policy: &Policy, exe: &Path, args: &[String]) -> std::io::Result<Command> {
        if self.sandboxed() {
            return policy.command(exe, args);
        }
        let mut cmd = Command::new(exe);
        cmd.args(args);
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        Ok(cmd)
    }

    /// Runs `exe args` the way every check process runs: a private directory, the check
    /// environment, the sandbox (when on), the time limit, capped output; then collects how it
    /// ended and its observations, and removes the directory. `disk` is what it may have on disk
    /// at once (sandboxed runs only).
    fn execute(
        &self,
        exe: &Path,
        args: &[&str],
        (timeout, disk): (Duration, Budget),
        backtrace: Backtrace,
    ) -> RunOutput {
        let start = Instant::now();
        let n = self.count.fetch_add(1, Ordering::SeqCst);
        let dir = self.scratch.path().join(format!("check-{n}"));
        let private = dir.join("tmp");
        let env = CheckEnv {
            observations: private.join(".observations"),
            private_dir: private.clone(),
            backtrace,
            setting: self.setting.clone(),
        };
        let failed = |why: String| RunOutput {
            ended: Ended::SetupFailed,
            output: why,
            observations: Vec::new(),
            duration: start.elapsed(),
            limit: timeout,
        };
        if let Err(e) = std::fs::create_dir_all(&private) {
            return failed(format!("cannot create {}: {e}", private.display()));
        }
        // The container mode: the check's own user, its executable and private folder in a box
        // of its own that only it may enter.
        let (exe, env, run_as, _box) = match &self.boxes {
            None => (exe.to_path_buf(), env, None, None),
            Some(boxes) => match user_box(boxes.path(), exe) {
                Ok(user) => (
                    user.exe.clone(),
                    CheckEnv {
                        observations: user.private.join(".observations"),
                        private_dir: user.private.clone(),
                        ..env
                    },
                    Some(user.uid),
                    Some(user),
                ),
                Err(e) => return failed(format!("cannot prepare the check's user: {e}")),
            },
        };
        let exe = exe.as_path();
        let policy = Policy {
            read: vec![exe.to_path_buf()],
            write: vec![env.private_dir.clone()],
            // The executable's folder holds other builds' executables (under a target folder
            // that `--target-dir` may put beneath a system folder).
            hide: exe.parent().map(Path::to_path_buf).into_iter().collect(),
            timeout,
            status_file: dir.join("status"),
            require: self.sandbox == Sandbox::Required,
            network: false,
            check_limits: true,
            run_as,
            disk: Some(disk),
            isolation: self.isolation,
        };
        let args: Vec<String> = args.iter().map(|a| (*a).to_owned()).collect();
        let mut cmd = match self.command(&policy, exe, &args) {
            Ok(cmd) => cmd,
            Err(e) => return failed(format!("cannot find the grader's own executable: {e}")),
        };
        env.apply(&mut cmd);
        // A sandboxed check's supervisor stops it at the limit and reports; a direct one is
        // stopped from here, at the limit itself.
        let grace = if self.sandboxed() {
            GRACE
        } else {
            Duration::ZERO
        };
        let (status, output) = match run_capped(cmd, timeout + grace) {
            Ok(done) => done,
            Err(e) => return failed(format!("could not start {}: {e}", exe.display())),
        };
        let ended = std::fs::read_to_string(&policy.status_file)
            .ok()
            .and_then(|t| Ended::parse(&t))
            .unwrap_or(match status {
                None => Ended::TimedOut,
                Some(_) if self.sandboxed() => Ended::SetupFailed,
                Some(status) => ended_of(status),
            });
        let observations = read_observations(&env.observations);
        let _ = std::fs::remove_dir_all(&dir);
        RunOutput {
            ended,
            output,
            observations,
            duration: start.elapsed(),
            limit: timeout,
        }
    }

    /// Runs the tests `names` of `exe` in one process, the way every check process runs (the
    /// harness runs them one after another, in the order of their names): local grading's fast
    /// path, see [`crate::run::grouped`].
    pub fn run_tests(&self, exe: &Path, names: &[&str], limit: Duration) -> RunOutput {
        let mut args = vec!["--exact", "--test-threads=1"];
        args.extend_from_slice(names);
        self.execute(exe, &args, (limit, Budget::per_check(1)), Backtrace::Off)
    }

    /// Runs every job, `workers` at a time, each once the jobs it comes `after` have finished;
    /// `on_done(done, total)` is called after each.
    ///
    /// `after` must point only to earlier jobs (so there is always a job ready).
    pub fn run_all(
        &self,
        jobs: &[CheckRun],
        workers: usize,
        on_done: &(dyn Fn(usize, usize) + Sync),
    ) -> Vec<RunOutput> {
        // The submission's disk budget, shared by the checks that run at once.
        let disk = Budget::per_check(workers.max(1).min(jobs.len().max(1)));
        let done = std::sync::atomic::AtomicUsize::new(0);
        crate::fsutil::par_map_after(
            workers,
            jobs,
            &|job| &job.after,
            |job, before: &[&RunOutput]| {
                // A check whose prerequisite timed out is likely to wait for it too.
                let blocked = before.iter().any(|r| r.ended == Ended::TimedOut);
                let limit = if blocked {
                    job.timeout.min(BLOCKED_LIMIT)
                } else {
                    job.timeout
                };
                let args = [job.check.full(), "--exact", "--test-threads=1"];
                let out = self.execute(&job.exe, &args, (limit, disk), job.backtrace);
                let n = done.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                on_done(n, jobs.len());
                out
            },
        )
    }
}

/// The observations a check wrote to `path`, at most [`OBSERVATIONS_CAP`] bytes of them.
fn read_observations(path: &Path) -> Vec<Observation> {
    let mut text = String::new();
    // A file, not a link the check left there to make the grader read another file (every
    // process of the check has ended by now).
    let is_file = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    if let Some(Ok(file)) = is_file.then(|| std::fs::File::open(path)) {
        let _ = file.take(OBSERVATIONS_CAP).read_to_string(&mut text);
    }
    protocol::parse(&text)
}

/// How a process started without the sandbox ended.
fn ended_of(status: std::process::ExitStatus) -> Ended {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = status.signal() {
            return Ended::Signal(sig);
        }
    }
    Ended::Exited(status.code().unwrap_or(1))
}

/// Reads at most [`OUTPUT_CAP`] bytes of `stream`, then drains and drops the rest.
fn read_capped(mut stream: impl Read) -> (Vec<u8>, usize) {
    let mut kept = Vec::new();
    let mut dropped = 0usize;
    let mut buf = [0u8; 64 * 1024];
    loop {
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = OUTPUT_CAP.saturating_sub(kept.len());
                kept.extend_from_slice(&buf[..n.min(room)]);
                dropped += n.saturating_sub(room);
            }
        }
    }
    (kept, dropped)
}

/// Runs `cmd` with piped, capped output until it exits or `limit` passes (then it and its process
/// group are killed). Reading never outlasts the limit: a grandchild that keeps the pipes open
/// after the process ended is not waited for. Returns the exit status (`None`: killed at the
/// limit) and the output.
pub fn run_capped(
    mut cmd: Command,
    limit: Duration,
) -> std::io::Result<(Option<std::process::ExitStatus>, String)> {
    let start = Instant::now();
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let (tx, rx) = std::sync::mpsc::channel();
    for (i, stream) in [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn Read + Send>),
    ]
    .into_iter()
    .enumerate()
    {
        if let Some(stream) = stream {
            let tx = tx.clone();
            std::thread::spawn(move || {
                let _ = tx.send((i, read_capped(stream)));
            });
        }
    }
    drop(tx);
    let deadline = start + limit;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) if Instant::now() >= deadline => {
                kill_group(child.id());
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break None,
        }
    };
    kill_group(child.id());
    let mut parts: [(Vec<u8>, usize); 2] = Default::default();
    let wait_until = Instant::now() + Duration::from_millis(500);
    for _ in 0..2 {
        let left = wait_until.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok((i, part)) => parts[i] = part,
            Err(_) => break,
        }
    }
    let mut output = String::new();
    for (i, (bytes, dropped)) in parts.iter().enumerate() {
        output.push_str(&String::from_utf8_lossy(bytes));
        if *dropped > 0 {
            let which = if i == 0 { "output" } else { "error output" };
            output.push_str(&format!(
                "\n[grader: {dropped} more bytes of {which} dropped]\n"
            ));
        }
    }
    Ok((status, output))
}

/// Kills the process group led by `pid` (the sandbox supervisor starts one).
fn kill_group(pid: u32) {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::signal::{Signal, killpg};
        let _ = killpg(nix::unistd::Pid::from_raw(pid as i32), Signal::SIGKILL);
    }
    #[cfg(not(target_os = "linux"))]
    let _ = pid;
}

/// Lists the tests in a check executable (`checks::name` for each), in a sandbox like a check.
pub fn list_tests(runner: &Runner, exe: &Path) -> Result<Vec<CheckId>> {
    let limits = (LIST_TIMEOUT, Budget::per_check(1));
    let out = runner.execute(
        exe,
        &["--list", "--format", "terse"],
        limits,
        Backtrace::Off,
    );
    if out.ended == Ended::SetupFailed {
        bail!(
            "could not list the checks in {}: {}",
            exe.display(),
            out.output.trim()
        );
    }
    Ok(out
        .output
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(CheckId::new)
        .collect())
}

/// A shell script `text` written as the executable `name` in `dir`, standing in for a check
/// executable in the unit tests.
#[cfg(all(test, unix))]
pub fn script_exe(dir: &Path, name: &str, text: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let exe = dir.join(name);
    std::fs::write(&exe, text).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    exe
}
