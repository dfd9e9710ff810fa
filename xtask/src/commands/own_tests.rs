//! The solutions' own tests (`reproduces_text` and the like), as `cargo xtask check` runs them.
//!
//! They are built as the README's `cargo test` builds them: over the workspace's default members,
//! with no `-p`, which would resolve the features for one package alone and compile the core, the
//! checks' support and `ndarray` once more for it. After `cargo test` (or its `--no-run`, as CI
//! runs it before `check`) nothing is compiled. Each lesson's executables then run where cargo
//! runs them, in the package's folder. When that build fails (a test that does not compile, a
//! solution that is not a default member), each lesson is tested with `cargo test -p` as before.

use anyhow::{Context as _, Result};
use grader::course::{Course, Lesson, Side};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// One problem per lesson of `lessons` whose own tests fail to build or pass: the failed tests (or
/// the error) and the command that shows them. `course` names every lesson: the build may bring any default
/// member's test targets of the same names up to date, so every solution's build is claimed.
pub fn problems(root: &Path, course: &Course, lessons: &[&Lesson]) -> Result<Vec<String>> {
    let wanted: Vec<(&Lesson, Vec<String>)> = lessons
        .iter()
        .map(|l| (*l, names(root, l)))
        .filter(|(_, names)| !names.is_empty())
        .collect();
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let every: Vec<&Lesson> = course.lessons.iter().collect();
    // Other copies of the course sharing the target folder decide by content too: without the
    // lock, one removed a crate's fingerprints in the middle of the build, or rebuilt an
    // executable under the same name while it ran.
    let _lock = grader::build::claim_solutions(root, &every)?;
    let mut all: Vec<&str> = (wanted.iter())
        .flat_map(|(_, names)| names.iter().map(String::as_str))
        .collect();
    all.sort_unstable();
    all.dedup();
    // When that build fails (a test that does not compile, a solution that is not a default
    // member), each lesson is tested with `-p`, which names its own error.
    let built = build(root, &all)?.unwrap_or_default();
    let mut problems = Vec::new();
    for (lesson, names) in &wanted {
        let dir = lesson.crate_dir(root, Side::Solutions);
        let dir = dir.canonicalize().unwrap_or(dir);
        let exes: Vec<&PathBuf> = (built.iter())
            .filter(|(package, _)| *package == dir)
            .map(|(_, exe)| exe)
            .collect();
        let failed = match exes.is_empty() {
            true => with_cargo(root, lesson, names)?,
            false => run(&dir, &exes)?,
        };
        if let Some(what) = failed {
            let package = lesson.package(Side::Solutions);
            let targets: Vec<String> = names.iter().map(|n| format!("--test {n}")).collect();
            problems.push(format!(
                "{package}: {what}\nsee it with `cargo test -p {package} {}`",
                targets.join(" ")
            ));
        }
    }
    Ok(problems)
}

/// The test targets of `lesson`'s solution crate besides its checks: the `.rs` files of its
/// `tests/` folder, sorted.
fn names(root: &Path, lesson: &Lesson) -> Vec<String> {
    let tests = lesson.crate_dir(root, Side::Solutions).join("tests");
    let mut names: Vec<String> = std::fs::read_dir(&tests)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".rs")?;
            (stem != lesson.check_target() && e.path().is_file()).then(|| stem.to_owned())
        })
        .collect();
    names.sort();
    names
}

/// `cargo test --no-run` of the test targets `names` over the default members: each executable
/// with its package's folder, or `None` when the build fails.
fn build(root: &Path, names: &[&str]) -> Result<Option<Vec<(PathBuf, PathBuf)>>> {
    let mut cmd = grader::build::cargo::command();
    cmd.current_dir(root)
        .args(["test", "--no-run", "--quiet", "--message-format=json"])
        .env_remove("CARGO_PRIMARY_PACKAGE")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    for name in names {
        cmd.args(["--test", name]);
    }
    let out = cmd.output().context("could not run cargo test --no-run")?;
    Ok(out
        .status
        .success()
        .then(|| executables(&String::from_utf8_lossy(&out.stdout))))
}

/// The test executables cargo's JSON messages `messages` name, each with its package's folder.
fn executables(messages: &str) -> Vec<(PathBuf, PathBuf)> {
    messages
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["profile"]["test"] == true)
        .filter_map(|m| {
            let exe = PathBuf::from(m["executable"].as_str()?);
            let manifest = Path::new(m["manifest_path"].as_str()?);
            let dir = manifest.parent()?;
            Some((dir.canonicalize().unwrap_or(dir.to_path_buf()), exe))
        })
        .collect()
}

/// Runs `exes` in `dir`, as `cargo test` runs a package's tests; what failed, if anything.
fn run(dir: &Path, exes: &[&PathBuf]) -> Result<Option<String>> {
    let mut failed = Vec::new();
    for exe in exes {
        let out = Command::new(exe)
            .arg("--quiet")
            .current_dir(dir)
            .env("CARGO_MANIFEST_DIR", dir)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("could not run {}", exe.display()))?;
        if !out.status.success() {
            failed.push(what_failed(&out));
        }
    }
    Ok((!failed.is_empty()).then(|| failed.join("; ")))
}

/// The tests a harness's `--quiet` output names as failed (a `---- NAME stdout ----` section each).
fn failed_tests(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("---- ")?.strip_suffix(" stdout ----"))
        .collect()
}

/// `cargo test -p` of `lesson`'s own tests `names` (a solution that is not a default member);
/// what failed, if anything.
fn with_cargo(root: &Path, lesson: &Lesson, names: &[String]) -> Result<Option<String>> {
    let package = lesson.package(Side::Solutions);
    let mut cmd = grader::build::cargo::command();
    cmd.current_dir(root)
        .args(["test", "--quiet", "-p", &package])
        .env_remove("CARGO_PRIMARY_PACKAGE")
        .stdin(Stdio::null());
    for name in names {
        cmd.args(["--test", name]);
    }
    let out = cmd.output().context("could not run cargo test")?;
    Ok((!out.status.success()).then(|| what_failed(&out)))
}

/// What a failed test run `out` says: the tests its harness names as failed, else the start of
/// its error output (a build or a harness that did not start).
fn what_failed(out: &std::process::Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout);
    let names = failed_tests(&stdout);
    match names.is_empty() {
        true => grader::build::trim_error(&String::from_utf8_lossy(&out.stderr), 12),
        false => format!("failed: {}", names.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_test_executables_are_read_from_cargos_messages_with_their_package() {
        let messages = concat!(
            r#"{"reason":"compiler-artifact","package_id":"x","manifest_path":"/c/solutions/l1/Cargo.toml","target":{"name":"l1","kind":["lib"]},"profile":{"test":false},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","package_id":"x","manifest_path":"/c/solutions/l1/Cargo.toml","target":{"name":"reproduces_text","kind":["test"]},"profile":{"test":true},"executable":"/t/debug/deps/reproduces_text-1"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#,
            "\nnot json\n",
        );
        assert_eq!(
            executables(messages),
            [(
                PathBuf::from("/c/solutions/l1"),
                PathBuf::from("/t/debug/deps/reproduces_text-1")
            )]
        );
    }

    #[test]
    fn failed_tests_are_read_from_the_harness_sections() {
        let stdout = "running 2 tests\n.F\nfailures:\n\n---- text_matches stdout ----\nboom\n\nfailures:\n    text_matches\n";
        assert_eq!(failed_tests(stdout), ["text_matches"]);
        assert!(failed_tests("running 1 test\n.\n").is_empty());
    }
}
