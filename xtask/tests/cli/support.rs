//! Scratch copies of the course for the grader's tests.
//!
//! Each test copies the real course (sources, checks, snapshots, lockfile; no `target/`) into a
//! temporary directory, changes what it needs, and runs the real `xtask` binary there with
//! `assert_cmd`. All copies share one target directory (the one `cargo test` builds in, see
//! [`shared_target`]) and keep the files' modification times, so the dependencies, the core and
//! every crate a test leaves alone are compiled once for the whole suite.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The real course root (the parent of `xtask/`).
pub fn course_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The target directory the scratch courses share: the one `cargo test` itself builds in
/// (`$CARGO_TARGET_DIR` when absolute, else the course's `target/`), so their builds reuse every
/// registry crate `cargo test` compiled the same way instead of compiling it again elsewhere.
/// Nothing a scratch course builds replaces what `cargo test` runs: the copies build in the dev
/// profile, whose units of the course's own crates never share a name with the test profile's
/// (`codegen-units` in the root Cargo.toml), and the grader keeps the copies' exercises apart by
/// their contents (`decide_by_content`).
pub fn shared_target() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .filter(|dir| dir.is_absolute())
        .unwrap_or_else(|| course_root().join("target"))
}

/// A pseudo-terminal of 40 rows by 120 columns: a terminal for a child's output, read at its
/// master end.
#[cfg(unix)]
pub fn terminal() -> nix::pty::OpenptyResult {
    let size = nix::pty::Winsize {
        ws_row: 40,
        ws_col: 120,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    nix::pty::openpty(&size, None).unwrap()
}

/// The folder the tests' scratch copies, their output folders and every grader they start keep
/// their temporary files in (the graders as `TMPDIR`): `/dev/shm/course-tests` where that
/// memory-backed folder can be written and has 1 GiB free (a container's is often too small for
/// the suite's files), else the system's temporary folder.
///
/// Two reasons. Speed: the suite creates and deletes tens of thousands of files, and on a disk
/// file system each new file can cost a scan past the ones deleted shortly before
/// (`docs/bench-grade.md`, "Why it is built this way"). And coverage: with the courses beneath
/// `/dev`, every official grade in the suite checks that the sandbox keeps them closed
/// (`crates/grader/src/run/sandbox_paths.rs`).
pub fn temp_root() -> PathBuf {
    static ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    ROOT.get_or_init(|| {
        let shm = Path::new("/dev/shm/course-tests");
        let usable = std::fs::create_dir_all(shm).is_ok()
            && tempfile::tempdir_in(shm).is_ok()
            && free_bytes(shm).is_some_and(|free| free >= 1 << 30);
        if usable {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        }
    })
    .clone()
}

/// The space left on the file system holding `path`, in bytes, as `df -Pk` reports it (`nix`'s
/// `statvfs` needs its `fs` feature, which the grader's build does not otherwise compile).
fn free_bytes(path: &Path) -> Option<u64> {
    let out = std::process::Command::new("df")
        .arg("-Pk")
        .arg(path)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let kib: u64 = text
        .lines()
        .nth(1)?
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()?;
    Some(kib * 1024)
}

/// A scratch copy of the course, deleted on drop.
pub struct Scratch {
    pub root: PathBuf,
    _dir: tempfile::TempDir,
}

/// Copies `from` into `to` (but no `target/` or `.git/`), keeping modification times.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == ".git" {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
            keep_mtime(&src, &dst);
        }
    }
}

/// Gives `dst` the modification time of `src`, as the grader's own copies do: cargo then reuses
/// what an earlier copy built in the shared target folder for every crate the test did not change
/// (the core, the checks' support, the solutions). Crates a test changes are rebuilt by cargo (a
/// newer file) or by the grader (a lesson's sources differ from those of its last build).
pub fn keep_mtime(src: &Path, dst: &Path) {
    set_mtime(dst, std::fs::metadata(src).unwrap().modified().unwrap());
}

fn set_mtime(path: &Path, time: std::time::SystemTime) {
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(time)
        .unwrap();
}

/// The course secret of every scratch copy: fixed, so each id draws the same inputs on every run.
pub const TEST_SECRET: &str = "7e577e577e577e577e577e577e577e577e577e577e577e577e577e577e577e57";

/// Writes a course secret `hex` to `path`, readable by its owner only (as `cargo xtask secret`).
pub fn write_secret(path: &Path, hex: &str) {
    std::fs::write(path, format!("{hex}\n")).unwrap();
    #[cfg(unix)]
    std::fs::set_permissions(path, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
}

impl Scratch {
    /// A fresh copy of the course named `name`.
    pub fn new(name: &str) -> Self {
        Self::copy_of(&course_root(), name)
    }

    /// A copy of this copy as it is now, named `name`.
    pub fn copy(&self, name: &str) -> Self {
        Self::copy_of(&self.root, name)
    }

    /// A copy of the course at `src` named `name`, modification times kept.
    fn copy_of(src: &Path, name: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("course-{name}-"))
            .tempdir_in(temp_root())
            .unwrap();
        let root = dir.path().to_path_buf();
        for item in [
            "Cargo.toml",
            "Cargo.lock",
            "course.toml",
            "checks.sha256",
            ".cargo",
            "crates",
            "exercises",
            "solutions",
            "xtask",
        ] {
            let from = src.join(item);
            if from.is_dir() {
                copy_dir(&from, &root.join(item));
            } else if from.is_file() {
                std::fs::copy(&from, root.join(item)).unwrap();
                keep_mtime(&from, &root.join(item));
            }
        }
        // A clone has no secret (git ignores it), and the course's own is the instructors': a copy
        // of the course gets the tests' own, so official grading runs there (the tests of the
        // secret itself remove it); a copy of a copy keeps that copy's.
        let secret = src.join("course-secret");
        if src != course_root() && secret.is_file() {
            std::fs::copy(&secret, root.join("course-secret")).unwrap();
        } else {
            write_secret(&root.join("course-secret"), TEST_SECRET);
        }
        Scratch { root, _dir: dir }
    }

    /// Overwrites (or creates) a file in the copy.
    pub fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.root.join(rel), text).unwrap();
    }

    /// Reads a file of the copy.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// `cargo xtask ARGS` in the copy, with the shared target directory and no colour.
    pub fn xtask(&self, args: &[&str]) -> assert_cmd::Command {
        xtask_in(&self.root, args)
    }

    /// Every file of the copy with its contents, to prove a command changed nothing.
    pub fn snapshot_tree(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        tree_of(&self.root)
    }
}

/// Parses a finished command's stdout as JSON.
/// A grade report (it has a `schema_version`) is validated against docs/report.schema.json, so
/// every report the tests read is checked against the published schema.
pub fn json_of(out: &std::process::Output) -> serde_json::Value {
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}):\n{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    if value.get("schema_version").is_some() {
        assert_valid_report(&value, "the report");
    }
    value
}

/// Validates `value` against docs/report.schema.json; panics naming every error.
pub fn assert_valid_report(value: &serde_json::Value, what: &str) {
    if let Some(errors) = schema_errors(value) {
        assert!(errors.is_empty(), "{what} breaks the schema: {errors:#?}");
    }
}

/// What breaks docs/report.schema.json in `value` (empty: valid), or `None` when no validator
/// is installed (said once per test binary, loudly).
///
/// The validator is the reference implementation of JSON Schema, Python's `jsonschema` (which
/// `.ci/run` installs with `check-jsonschema`), kept running in one helper process per test
/// binary: a report costs a line on its pipe, and the grader's tests compile no validator of
/// their own (the `jsonschema` crate and its ~40 dependencies were a sixth of their build).
pub fn schema_errors(value: &serde_json::Value) -> Option<Vec<String>> {
    use std::io::{BufRead, Write};
    static VALIDATOR: std::sync::Mutex<Option<Option<Validator>>> = std::sync::Mutex::new(None);
    let mut guard = VALIDATOR.lock().unwrap_or_else(|p| p.into_inner());
    let validator = guard.get_or_insert_with(Validator::start).as_mut()?;
    let mut line = serde_json::to_string(value).unwrap();
    line.push('\n');
    validator.stdin.write_all(line.as_bytes()).unwrap();
    validator.stdin.flush().unwrap();
    let mut answer = String::new();
    validator.stdout.read_line(&mut answer).unwrap();
    Some(
        serde_json::from_str(&answer)
            .unwrap_or_else(|e| panic!("the schema validator answered {answer:?} ({e})")),
    )
}

/// The helper process behind [`schema_errors`].
struct Validator {
    _child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

/// Reads the schema (refusing an invalid one), says `ready`, then answers each report (one JSON
/// line) with the list of its errors (one JSON line).
const VALIDATOR_PY: &str = r#"
import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
print("ready", flush=True)
for line in sys.stdin:
    errors = validator.iter_errors(json.loads(line))
    print(json.dumps(sorted(e.message + " at /" + "/".join(map(str, e.absolute_path)) for e in errors)), flush=True)
"#;

impl Validator {
    fn start() -> Option<Validator> {
        use std::io::BufRead;
        use std::process::{Command, Stdio};
        let schema = course_root().join("docs/report.schema.json");
        let skip = |why: String| {
            eprintln!(
                "\n!!!!!! SKIPPED: {why}, so reports were NOT validated against \
                 docs/report.schema.json (python3 -m pip install jsonschema) !!!!!!\n"
            );
            None
        };
        let mut child = match Command::new("python3")
            .args(["-c", VALIDATOR_PY])
            .arg(&schema)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(e) => return skip(format!("python3 could not be started ({e})")),
        };
        let mut stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        if first.trim() != "ready" {
            let _ = child.wait();
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            assert!(
                err.contains("ModuleNotFoundError"),
                "docs/report.schema.json could not be loaded:\n{err}"
            );
            return skip("Python's jsonschema is not installed".into());
        }
        let stdin = child.stdin.take().unwrap();
        Some(Validator {
            _child: child,
            stdin,
            stdout,
        })
    }
}

/// `check name -> (status, message)` from a JSON report.
pub fn statuses(report: &serde_json::Value) -> BTreeMap<String, (String, String)> {
    let mut out = BTreeMap::new();
    for lesson in report["lessons"].as_array().unwrap() {
        for ex in lesson["exercises"].as_array().unwrap() {
            for c in ex["checks"].as_array().unwrap() {
                out.insert(
                    c["name"].as_str().unwrap().to_owned(),
                    (
                        c["status"].as_str().unwrap().to_owned(),
                        c["message"].as_str().unwrap().to_owned(),
                    ),
                );
            }
        }
    }
    out
}

/// `xtask ARGS` run in any course directory (a handout, a submission), with the shared target
/// directory and no colour.
pub fn xtask_in(dir: &Path, args: &[&str]) -> assert_cmd::Command {
    assert_cmd::Command::from_std(xtask_process(dir, args))
}

/// The same command as [`xtask_in`], as a `std` command, for a test that starts it and goes on
/// while it runs.
///
/// Its local builds write no incremental caches (`CARGO_INCREMENTAL=0`): every scratch copy here is
/// built once or twice from sources at a new path, so the caches would be written for nothing.
/// Official builds clear the environment, so they keep the profile's setting either way.
pub fn xtask_process(dir: &Path, args: &[&str]) -> std::process::Command {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"));
    cmd.current_dir(dir)
        .env("CARGO_TARGET_DIR", shared_target())
        .env("CARGO_INCREMENTAL", "0")
        .env("TMPDIR", temp_root())
        .env_remove("INSTA_UPDATE")
        .env("NO_COLOR", "1")
        .args(args);
    cmd
}

/// Every file under `dir` with its contents, to prove a command changed nothing there.
pub fn tree_of(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    files(dir)
        .into_iter()
        .map(|(rel, path)| (PathBuf::from(rel), std::fs::read(&path).unwrap()))
        .collect()
}

/// Every file under `dir`, sorted: its path relative to `dir` (with `/` separators) and its
/// full path.
pub fn files(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push((rel, p));
            }
        }
    }
    out.sort();
    out
}

/// A directory outside the course for a command's output, deleted on drop.
pub struct OutDir {
    pub path: PathBuf,
    _dir: tempfile::TempDir,
}

impl OutDir {
    /// A fresh path (not created) in a temporary folder of its own.
    pub fn new(name: &str) -> Self {
        let dir = tempfile::Builder::new()
            .prefix(&format!("out-{name}-"))
            .tempdir_in(temp_root())
            .unwrap();
        OutDir {
            path: dir.path().join(name),
            _dir: dir,
        }
    }

    /// The path as a string argument.
    pub fn arg(&self) -> &str {
        self.path.to_str().unwrap()
    }
}

/// True when the machine has the sandbox official grading needs (Linux with Landlock); otherwise
/// says loudly that the test is skipped.
pub fn has_sandbox() -> bool {
    let probe = xtask_in(&course_root(), &["__sandbox", "--probe"])
        .output()
        .unwrap();
    let has = String::from_utf8_lossy(&probe.stdout).trim() != "none";
    if !has {
        eprintln!("\n!!!!!! SKIPPED: no Landlock sandbox on this machine !!!!!!\n");
    }
    has
}

/// The first `tool` on `PATH`, if any: optional outside validators (`xmllint`,
/// `check-jsonschema`) the tests use when installed.
pub fn which(tool: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(tool))
            .find(|p| p.is_file())
    })
}

/// Every check of a JSON report as written, but for its time: verdict, points, message, blame,
/// diagnosis; with the score and whether the grade is official.
pub fn verdicts(report: &serde_json::Value) -> Vec<serde_json::Value> {
    let mut out = vec![report["score"].clone(), report["official"].clone()];
    for lesson in report["lessons"].as_array().unwrap() {
        out.push(lesson["build"].clone());
        for ex in lesson["exercises"].as_array().unwrap() {
            for c in ex["checks"].as_array().unwrap() {
                let mut c = c.clone();
                c.as_object_mut().unwrap().remove("duration_ms");
                out.push(c);
            }
        }
    }
    out
}

/// Local grading runs a lesson's checks in one process and reruns alone those it cannot tell
/// apart: graded again with `--isolate` (the JSON written with `--output`, which must follow the
/// schema too), every verdict and message of `grouped`, a JSON report of `args`, is the same.
pub fn assert_isolated_grading_agrees(s: &Scratch, args: &[&str], grouped: &serde_json::Value) {
    let written = OutDir::new("isolated.json");
    s.xtask(&[args, &["--isolate", "--output", written.arg()]].concat())
        .assert()
        .stdout(predicates::str::contains("report written to"));
    let isolated = serde_json::from_str(&std::fs::read_to_string(&written.path).unwrap()).unwrap();
    assert_valid_report(&isolated, "a JSON report written with --output");
    let (grouped, isolated) = (verdicts(grouped), verdicts(&isolated));
    assert!(grouped.len() > 20);
    for (g, i) in grouped.iter().zip(&isolated) {
        assert_eq!(g, i, "grouped (left) and isolated (right) grading disagree");
    }
    assert_eq!(grouped.len(), isolated.len());
}

/// The reference solution of a lesson (`lesson_dir`, e.g. `lesson02-split-heads`) with `from`
/// replaced by `to`: a planted mistake. `from` must occur exactly once, so a change to the
/// reference cannot silently plant nothing or the wrong thing.
pub fn planted(lesson_dir: &str, from: &str, to: &str) -> String {
    let path = course_root()
        .join("solutions")
        .join(lesson_dir)
        .join("src/exercises.rs");
    let text = std::fs::read_to_string(path).unwrap();
    assert_eq!(
        text.matches(from).count(),
        1,
        "the reference solution changed: {from}"
    );
    text.replacen(from, to, 1)
}

/// Every check of a JSON report, by name.
pub fn checks(report: &serde_json::Value) -> BTreeMap<String, serde_json::Value> {
    let mut out = BTreeMap::new();
    for l in report["lessons"].as_array().unwrap() {
        for e in l["exercises"].as_array().unwrap() {
            for c in e["checks"].as_array().unwrap() {
                out.insert(c["name"].as_str().unwrap().to_owned(), c.clone());
            }
        }
    }
    out
}

/// For each file or folder a build could not make (cargo's lines "failed to write \`PATH\`",
/// "failed to create directory \`PATH\`"): the owner, mode and change time of it and of its
/// folder, so that a container-mode build that failed with `Permission denied` names who made what
/// its builder could not write.
pub fn denied_paths(output: &str) -> String {
    use std::os::unix::fs::MetadataExt as _;
    let mut out = String::new();
    let denied =
        |l: &&str| l.contains("failed to write") || l.contains("failed to create directory");
    for line in output.lines().filter(denied) {
        let Some(path) = line.split('`').nth(1).map(Path::new) else {
            continue;
        };
        for p in [Some(path), path.parent()].into_iter().flatten() {
            let about = match std::fs::symlink_metadata(p) {
                Ok(m) => format!(
                    "uid {} gid {} mode {:o} changed {}",
                    m.uid(),
                    m.gid(),
                    m.mode(),
                    m.ctime()
                ),
                Err(e) => e.to_string(),
            };
            out.push_str(&format!("\n  {}: {about}", p.display()));
        }
    }
    out
}
