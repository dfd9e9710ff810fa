//! Running checks: one process per check, a time limit, a locked-down environment, and as many
//! processes at once as the machine has cores.

use crate::verdict::{Ending, Verdict, classify};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Environment variables removed from every check process: anything that would let insta write,
/// accept or skip snapshots, filter tests, or change how panics print.
const SCRUBBED: &[&str] = &[
    "INSTA_FORCE_PASS",
    "INSTA_FORCE_UPDATE",
    "INSTA_FORCE_UPDATE_SNAPSHOTS",
    "INSTA_GLOB_FILTER",
    "INSTA_GLOB_FAIL_FAST",
    "INSTA_PENDING_DIR",
    "INSTA_SNAPSHOT_REFERENCES_FILE",
    "INSTA_WARNINGS_FILE",
    "INSTA_REQUIRE_FULL_MATCH",
    "INSTA_TEST_RUNNER",
    "RUST_TEST_THREADS",
    "RUST_TEST_NOCAPTURE",
    "RUST_TEST_SHUFFLE",
    "RUST_TEST_TIME_UNIT",
    "RUST_MIN_STACK",
];

/// One check to run.
#[derive(Debug, Clone)]
pub struct Job {
    /// The test executable.
    pub exe: PathBuf,
    /// The crate directory (the test's working directory).
    pub crate_dir: PathBuf,
    /// The full harness name, e.g. `checks::split_heads_moves_data`.
    pub test_name: String,
    /// A path fragment identifying the student's sources, for locating panics.
    pub student_src: String,
    /// Time limit.
    pub timeout: Duration,
}

/// A finished check.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The verdict.
    pub verdict: Verdict,
    /// Wall time of the process.
    pub duration: Duration,
}

/// Runs one check in its own process under the time limit and classifies it.
pub fn run(job: &Job, root: &Path) -> Outcome {
    let start = Instant::now();
    let mut cmd = Command::new(&job.exe);
    for var in SCRUBBED {
        cmd.env_remove(var);
    }
    cmd.args([&job.test_name, "--exact", "--test-threads=1"])
        .current_dir(&job.crate_dir)
        .env("INSTA_UPDATE", "no")
        .env("INSTA_FORCE_PASS", "0")
        .env("INSTA_REQUIRE_FULL_MATCH", "0")
        .env("INSTA_OUTPUT", "diff")
        .env("INSTA_WORKSPACE_ROOT", root)
        .env("RUST_BACKTRACE", "0")
        .env("NO_COLOR", "1")
        .env("CLICOLOR", "0")
        .env(crate::verdict::PROOF_ENV, "1");
    let token = proof_token();
    let (ending, output) = match run_limited(cmd, job.timeout, Some(&format!("{token}\n"))) {
        Ok(done) => done,
        Err(e) => {
            return Outcome {
                verdict: Verdict {
                    status: crate::verdict::Status::Crashed,
                    message: format!("could not start {}: {e}", job.exe.display()),
                },
                duration: start.elapsed(),
            };
        }
    };
    let duration = start.elapsed();
    Outcome {
        verdict: classify(ending, &output, &job.student_src, &token),
        duration,
    }
}

/// A fresh unpredictable token for one check run (std's randomly keyed SipHash over the time).
fn proof_token() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    format!("{:016x}", h.finish())
}

/// Runs `cmd` (stdout and stderr are piped here) until it ends or `timeout` passes, when it is
/// killed; `input`, when given, is written to its standard input. Returns how it ended and its
/// stdout followed by its stderr.
pub fn run_limited(
    mut cmd: Command,
    timeout: Duration,
    input: Option<&str>,
) -> std::io::Result<(Ending, String)> {
    let start = Instant::now();
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    if let (Some(text), Some(mut stdin)) = (input, child.stdin.take()) {
        // A short line fits the pipe's buffer; a check that never reads it is no problem.
        let _ = stdin.write_all(text.as_bytes());
    }
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr.read_to_end(&mut buf);
        buf
    });
    let deadline = start + timeout;
    let ending = loop {
        match child.try_wait() {
            Ok(Some(status)) => break ending_of(status),
            Ok(None) if Instant::now() >= deadline => {
                let _ = child.kill();
                let _ = child.wait();
                break Ending::TimedOut;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(2)),
            Err(_) => break Ending::Signal(0),
        }
    };
    let mut output = String::from_utf8_lossy(&out_reader.join().unwrap_or_default()).into_owned();
    output.push_str(&String::from_utf8_lossy(
        &err_reader.join().unwrap_or_default(),
    ));
    Ok((ending, output))
}

#[cfg(unix)]
fn ending_of(status: std::process::ExitStatus) -> Ending {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Exited(code),
        (None, Some(sig)) => Ending::Signal(sig),
        (None, None) => Ending::Signal(0),
    }
}

#[cfg(not(unix))]
fn ending_of(status: std::process::ExitStatus) -> Ending {
    Ending::Exited(status.code().unwrap_or(-1))
}

/// Runs every job, `workers` at a time; `on_done(done, total)` is called after each.
pub fn run_all(
    jobs: &[Job],
    root: &Path,
    workers: usize,
    on_done: &(dyn Fn(usize, usize) + Sync),
) -> Vec<Outcome> {
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Outcome>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|s| {
        for _ in 0..workers.max(1).min(jobs.len().max(1)) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    let outcome = run(job, root);
                    results.lock().expect("no panics while holding the lock")[i] = Some(outcome);
                    on_done(done.fetch_add(1, Ordering::SeqCst) + 1, jobs.len());
                }
            });
        }
    });
    results
        .into_inner()
        .expect("workers finished")
        .into_iter()
        .map(|o| o.expect("every job ran"))
        .collect()
}

/// Lists the tests in a check executable (`checks::name` for each).
pub fn list_tests(exe: &Path, crate_dir: &Path) -> Result<Vec<String>, String> {
    let out = Command::new(exe)
        .args(["--list", "--format", "terse"])
        .current_dir(crate_dir)
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("could not list the checks in {}: {e}", exe.display()))?;
    Ok(String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(str::to_owned)
        .collect())
}
