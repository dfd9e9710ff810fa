//! The Gradescope autograder bundle: `setup.sh` (run once when Gradescope builds the image),
//! `run_autograder` (run per submission, from `/autograder/submission`, leaving the grade in
//! `/autograder/results/results.json`, a zero-score one with the error when grading cannot run),
//! and the instructors' course with its secret (for Gradescope only, which keeps the bundle from
//! students). For local runs and tests the scripts read `AUTOGRADER_ROOT`,
//! `AUTOGRADER_SKIP_SETUP=1`, `AUTOGRADER_GRADER` and `CARGO_TARGET_DIR` (see [`run_script`]).

use anyhow::{Context as _, Result};
use grader::fsutil;
use std::io::Write;
use std::path::Path;

/// The folder of the bundle holding the course.
pub const COURSE_DIR: &str = "course";

/// True for course files that stay out of the bundle: build output, git, CI, the grader's tests,
/// insta's pending files.
fn left_out(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "target"
        || name == ".git"
        || rel == ".ci"
        || rel == "xtask/tests"
        || rel.starts_with("target-")
        || fsutil::is_scratch_file(rel)
}

/// `setup.sh`: installs the pinned toolchain with rustup, then builds the grader and the
/// dependencies (by grading the pristine handout once) into the target directory
/// `run_autograder` uses.
pub fn setup_script(toolchain: &str) -> String {
    format!(
        r#"#!/usr/bin/env bash
# Gradescope runs this once, when it builds the autograder image.
# AUTOGRADER_SKIP_SETUP=1 skips it (the toolchain is already installed, e.g. in the grader's tests).
set -euo pipefail
if [ "${{AUTOGRADER_SKIP_SETUP:-0}}" = "1" ]; then
  echo "setup.sh: skipped (AUTOGRADER_SKIP_SETUP=1)"
  exit 0
fi
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
COURSE="$ROOT/source/{COURSE_DIR}"
export CARGO_TARGET_DIR="${{CARGO_TARGET_DIR:-$ROOT/source/target}}"

if command -v apt-get >/dev/null; then
  apt-get update -q
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends curl ca-certificates build-essential
fi
if ! command -v rustup >/dev/null && [ ! -x "$HOME/.cargo/bin/rustup" ]; then
  curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --default-toolchain {toolchain}
fi
. "$HOME/.cargo/env"
rustup toolchain install {toolchain} --profile minimal
rustup default {toolchain}

cd "$COURSE"
cargo fetch --locked
cargo build --locked -p xtask
# Grade the pristine handout once: every dependency of the check crates is then built. Its
# folder goes when the script ends, also when `dist` fails and `set -e` stops it there.
SCRATCH="$(mktemp -d)"
trap 'rm -rf "$SCRATCH"' EXIT
"$CARGO_TARGET_DIR/debug/xtask" dist "$SCRATCH/handout"
"$CARGO_TARGET_DIR/debug/xtask" grade --submission "$SCRATCH/handout" --format json --output /dev/null || true
"#
    )
}

/// `run_autograder`: grades `/autograder/submission` (read as `grade --submission` reads any
/// submission: `grader::official::entry::open`) and always leaves a valid `results.json`.
///
/// Environment: `AUTOGRADER_ROOT`, the root instead of `/autograder`; `AUTOGRADER_SKIP_SETUP=1`,
/// `setup.sh` does nothing (the toolchain is installed, the grader is built on the first run);
/// `AUTOGRADER_GRADER`, a grader binary instead of building `xtask`; `CARGO_TARGET_DIR`, where to
/// build (default `$AUTOGRADER_ROOT/source/target`).
pub fn run_script() -> String {
    format!(
        r#"#!/usr/bin/env bash
# Gradescope runs this for every submission: official grading of /autograder/submission into
# /autograder/results/results.json. AUTOGRADER_ROOT overrides /autograder; AUTOGRADER_GRADER names a
# grader binary to use instead of building one; CARGO_TARGET_DIR overrides the build folder.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
COURSE="$ROOT/source/{COURSE_DIR}"
RESULTS="$ROOT/results"
SUB="$ROOT/submission"
mkdir -p "$RESULTS"
rm -f "$RESULTS/results.json"
LOG="$(mktemp)"
trap 'rm -f "$LOG"' EXIT
[ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
export CARGO_TARGET_DIR="${{CARGO_TARGET_DIR:-$ROOT/source/target}}"

json_escape() {{
  LC_ALL=C sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\t/\\t/g' -e 's/\r//g' \
    | LC_ALL=C tr -d '\000-\010\013\014\016-\037' \
    | awk 'BEGIN {{ ORS = "" }} NR > 1 {{ print "\\n" }} {{ print }}'
}}

# A zero-score results.json whose output is the error and the end of the grader's log.
fail() {{
  local text
  text="$( {{ printf 'The autograder could not grade this submission: %s\n\n' "$1"; tail -c 6000 "$LOG"; }} | json_escape)"
  printf '{{"score": 0, "output": "%s", "output_format": "text", "visibility": "visible", "tests": []}}\n' \
    "$text" > "$RESULTS/results.json"
  cat "$LOG"
  exit 0
}}

# The grader reads the submission as a class run reads its entries (a handout, its exercises/
# folder alone, either zipped as a folder one level down).
cd "$COURSE" || fail "the course is missing from the autograder ($COURSE)"
GRADER="${{AUTOGRADER_GRADER:-}}"
if [ -z "$GRADER" ]; then
  cargo build --quiet --locked -p xtask >>"$LOG" 2>&1 || fail "the grader does not build"
  GRADER="$CARGO_TARGET_DIR/debug/xtask"
fi
# The variant checks' inputs are drawn for the student Gradescope names in the metadata.
STUDENT=()
if [ -f "$ROOT/submission_metadata.json" ]; then
  id="$("$GRADER" autograder gradescope-student "$ROOT/submission_metadata.json" 2>>"$LOG")" \
    || fail "the submission's metadata names no student"
  STUDENT=(--student "$id")
fi
"$GRADER" grade --submission "$SUB" "${{STUDENT[@]}}" --format gradescope --output "$RESULTS/results.json" >>"$LOG" 2>&1
code=$?
if [ "$code" -gt 1 ] || [ ! -s "$RESULTS/results.json" ]; then
  fail "grading stopped with exit status $code"
fi
cat "$LOG"
exit 0
"#
    )
}

/// The student id of a submission from Gradescope's `submission_metadata.json`: its users'
/// ids (else e-mails), sorted and joined with `+`, so a group has one id whoever submitted.
pub fn student_id(metadata: &Path) -> Result<String> {
    let text = std::fs::read_to_string(metadata)
        .with_context(|| format!("cannot read {}", metadata.display()))?;
    let value: serde_json::Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not JSON", metadata.display()))?;
    let mut ids: Vec<String> = value["users"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|u| match (&u["id"], &u["email"]) {
            (serde_json::Value::Number(n), _) => Some(n.to_string()),
            (serde_json::Value::String(s), _) if !s.is_empty() => Some(s.clone()),
            (_, serde_json::Value::String(e)) if !e.is_empty() => Some(e.clone()),
            _ => None,
        })
        .collect();
    ids.sort();
    ids.dedup();
    if ids.is_empty() {
        anyhow::bail!(
            "{} names no user (`users[].id` or `email`)",
            metadata.display()
        );
    }
    Ok(ids.join("+"))
}

/// Writes the bundle to `out`; returns the number of files in it.
pub fn bundle(root: &Path, out: &Path) -> Result<usize> {
    grader::course::require_solutions(root)?;
    // Gradescope grades officially: without the secret every submission would get 0.
    grader::variants::secret::load(root)
        .context("the Gradescope bundle needs the course secret")?;
    let files = fsutil::files_under(root, root, &|rel, _| left_out(rel));
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    let file =
        std::fs::File::create(out).with_context(|| format!("cannot write {}", out.display()))?;
    let mut zip = zip::ZipWriter::new(file);
    let exe = zip::write::SimpleFileOptions::default().unix_permissions(0o755);
    let plain = zip::write::SimpleFileOptions::default().unix_permissions(0o644);
    let cannot_write = || format!("cannot write {}", out.display());
    zip.start_file("setup.sh", exe).with_context(cannot_write)?;
    zip.write_all(setup_script(&super::toolchain::toolchain(root)).as_bytes())
        .with_context(cannot_write)?;
    zip.start_file("run_autograder", exe)
        .with_context(cannot_write)?;
    zip.write_all(run_script().as_bytes())
        .with_context(cannot_write)?;
    // The secret stays its owner's in the bundle too: Gradescope keeps the bundle from students.
    let private = zip::write::SimpleFileOptions::default().unix_permissions(0o600);
    for f in &files {
        let bytes = std::fs::read(root.join(f)).with_context(|| format!("cannot read {f}"))?;
        let options = if f == grader::variants::secret::FILE {
            private
        } else {
            plain
        };
        zip.start_file(format!("{COURSE_DIR}/{f}"), options)
            .with_context(cannot_write)?;
        zip.write_all(&bytes).with_context(cannot_write)?;
    }
    zip.finish().with_context(cannot_write)?;
    Ok(files.len() + 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_submissions_student_is_its_users_ids_or_emails() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("submission_metadata.json");
        let id = |json: &str| {
            std::fs::write(&file, json).unwrap();
            student_id(&file).ok()
        };
        assert_eq!(
            id(r#"{"users": [{"id": 42, "email": "a@b"}]}"#).as_deref(),
            Some("42")
        );
        assert_eq!(
            id(r#"{"users": [{"id": "9", "email": "x"}, {"email": "c@d"}, {"id": 12}]}"#)
                .as_deref(),
            Some("12+9+c@d")
        );
        assert_eq!(id(r#"{"users": []}"#), None);
        assert_eq!(id("not json"), None);
    }
}
