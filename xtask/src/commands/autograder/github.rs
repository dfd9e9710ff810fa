//! GitHub Classroom: `cargo xtask autograder github OUT_DIR` writes two workflows, one per threat.
//! [`TEMPLATE`] goes into the students' template repository, which they can edit, so it holds no
//! secret: it grades the visible checks as feedback. [`GRADING`] goes into the instructors'
//! private repository: run by hand, it grades every student repository at its last commit before
//! the deadline with `grade --submissions` and is the only source of official grades.

use anyhow::{Context as _, Result, bail};
use grader::course::Course;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// The folder under `OUT_DIR` with what goes into the students' template repository.
pub const TEMPLATE: &str = "template";

/// Where the feedback workflow goes in the template (and so in every student's) repository.
pub const WORKFLOW: &str = ".github/workflows/classroom.yml";

/// The folder under `OUT_DIR` with what goes into the instructors' course repository.
pub const GRADING: &str = "grading";

pub use grader::course::layout::GRADING_WORKFLOW;

/// The runner id of the grading step (the reporter reads `GRADER_RESULTS`).
pub const RUNNER: &str = "grader";

/// The paths [`write`] wrote.
pub struct Written {
    /// The template's feedback workflow.
    pub template: PathBuf,
    /// The instructors' grading workflow.
    pub grading: PathBuf,
}

/// The feedback workflow of the template repository for the course at `root`. It runs in the
/// student's repository (a handout, `cargo xtask dist`), so it names no secret or variable.
pub fn workflow(root: &Path) -> String {
    TEMPLATE_YAML
        .replace("@TOOLCHAIN@", &super::toolchain::toolchain(root))
        .replace("@RUNNER@", RUNNER)
        .replace("@ENV@", &RUNNER.to_uppercase())
}

const TEMPLATE_YAML: &str = r#"# GitHub Classroom feedback for this handout, written by `cargo xtask autograder github`.
#
# These points are feedback, not the official grade. This workflow runs in the student's own
# repository, which the student can edit, so it holds nothing secret: it grades the handout's
# visible checks with the handout's grader. The official grade comes from the instructors' own
# workflow, which grades every repository at the deadline with the hidden checks too.
name: Autograding Tests
"on":
  - push
  - repository_dispatch
  - workflow_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    if: github.actor != 'github-classroom[bot]'
    timeout-minutes: 30
    env:
      CARGO_TERM_COLOR: never
      NO_COLOR: "1"
    steps:
      - name: Check out the handout
        uses: actions/checkout@v4
      - name: Install Rust @TOOLCHAIN@
        run: |
          rustup toolchain install @TOOLCHAIN@ --profile minimal
          rustup default @TOOLCHAIN@
      - name: Cache the dependencies and the grader
        uses: actions/cache@v4
        with:
          path: |
            ~/.cargo/registry
            ~/.cargo/git
            target
          key: handout-grader-@TOOLCHAIN@-${{ hashFiles('Cargo.lock') }}
          restore-keys: handout-grader-@TOOLCHAIN@-
      - name: Grade the visible checks (feedback)
        run: |
          cargo xtask grade --format json --output report.json 2> grader.log || true
          cat grader.log
      - name: Points for GitHub Classroom (feedback, not the official grade)
        id: @RUNNER@
        run: cargo xtask autograder classroom-result report.json --log grader.log >> "$GITHUB_OUTPUT"
      - name: Upload the report
        if: always()
        uses: actions/upload-artifact@v4
        with:
          name: feedback-report
          path: |
            report.json
            grader.log
          if-no-files-found: warn
      - name: Autograding Reporter
        uses: classroom-resources/autograding-grading-reporter@v1
        env:
          @ENV@_RESULTS: "${{ steps.@RUNNER@.outputs.result }}"
        with:
          runners: @RUNNER@
"#;

/// The official grading workflow of the instructors' course repository for the course at `root`;
/// `deadline` (checked by [`crate::cli::values::parse_deadline`]) becomes the default of its `deadline`
/// input. It grades the class in `shards` parts (at least 1), one job each, then merges them.
pub fn grading_workflow(root: &Path, deadline: Option<&str>, shards: u16) -> String {
    let default = match deadline {
        Some(d) => format!("\n        default: \"{d}\""),
        None => String::new(),
    };
    let list: Vec<String> = (1..=shards.max(1)).map(|k| k.to_string()).collect();
    GRADING_YAML
        .replace("@TOOLCHAIN@", &super::toolchain::toolchain(root))
        .replace("@DEADLINE_DEFAULT@", &default)
        .replace("@SHARD_LIST@", &list.join(", "))
        .replace("@SHARDS@", &shards.max(1).to_string())
}

const GRADING_YAML: &str = r#"# Official grading of a GitHub Classroom assignment, written by `cargo xtask autograder github`.
#
# It belongs in the instructors' private course repository, the only place its token
# CLASSROOM_TOKEN lives: students never run it nor see the course it checks out. It grades every
# student repository of the assignment at its last commit before the deadline with the
# instructors' checks (hidden ones included), in @SHARDS@ parts on as many runners, puts the parts
# together, uploads the gradebook and the reports, and can post each student's feedback as an
# issue in their repository. See docs/class-grading.md.
name: Grade the classroom
"on":
  workflow_dispatch:
    inputs:
      organisation:
        description: The classroom's GitHub organisation
        required: true
        type: string
      prefix:
        description: The assignment's repository prefix (the student repositories are PREFIX-username)
        required: true
        type: string
      deadline:
        description: The deadline, ISO 8601 (e.g. 2026-12-20T23:59:00+01:00)
        required: true
        type: string@DEADLINE_DEFAULT@
      post_feedback:
        description: Post each student's feedback as an issue in their repository
        required: false
        type: boolean
        default: false
  # A scheduled run has no inputs: it reads the repository variables CLASSROOM_ORGANISATION,
  # CLASSROOM_PREFIX and CLASSROOM_DEADLINE and posts no feedback. Uncomment to grade, e.g., at
  # 00:30 UTC every day:
  # schedule:
  #   - cron: "30 0 * * *"
permissions:
  contents: read
concurrency:
  group: grade-classroom
  cancel-in-progress: false
env:
  CARGO_TERM_COLOR: never
  NO_COLOR: "1"
  # Inputs reach the scripts through the environment, never pasted into them.
  ORGANISATION: ${{ inputs.organisation || vars.CLASSROOM_ORGANISATION }}
  PREFIX: ${{ inputs.prefix || vars.CLASSROOM_PREFIX }}
  DEADLINE: ${{ inputs.deadline || vars.CLASSROOM_DEADLINE }}
jobs:
  fetch:
    runs-on: ubuntu-latest
    timeout-minutes: 120
    steps:
      - name: Check the inputs
        run: |
          for v in ORGANISATION PREFIX DEADLINE; do
            if [ -z "${!v}" ]; then
              echo "::error::$v is empty: give it as an input (or as a repository variable for a scheduled run)"
              exit 1
            fi
          done
          date -d "$DEADLINE" > /dev/null || { echo "::error::the deadline $DEADLINE is not a date"; exit 1; }
      - name: Fetch each submission at its last commit before the deadline
        env:
          GH_TOKEN: ${{ secrets.CLASSROOM_TOKEN }}
        run: |
          mkdir -p repos class
          echo "repository,commit,committed" > submissions.csv
          gh repo list "$ORGANISATION" --limit 10000 --json name --jq '.[].name' | sort > repositories.txt
          while read -r name; do
            case "$name" in "$PREFIX"-*) ;; *) continue ;; esac
            gh repo clone "$ORGANISATION/$name" "repos/$name" -- --quiet
            commit=$(git -C "repos/$name" rev-list -n 1 --before="$DEADLINE" HEAD || true)
            if [ -z "$commit" ]; then
              echo "$name,,no commit before the deadline" >> submissions.csv
              continue
            fi
            # The tree only: no .git (and so no credentials) in what the grader reads.
            mkdir "class/$name"
            git -C "repos/$name" archive "$commit" | tar -x -C "class/$name"
            echo "$name,$commit,$(git -C "repos/$name" show -s --format=%cI "$commit")" >> submissions.csv
          done < repositories.txt
          rm -rf repos
          echo "$(ls class | wc -l) submission(s) of $PREFIX in $ORGANISATION before $DEADLINE"
      - name: Upload the class
        uses: actions/upload-artifact@v4
        with:
          name: class
          path: |
            class/
            submissions.csv
          if-no-files-found: error
          retention-days: 7
  grade:
    # Each job grades one part of the class (`--shard K/N`: the students in id order, cut into
    # N runs); the merge job puts the parts together.
    needs: fetch
    runs-on: ubuntu-latest
    timeout-minutes: 360
    strategy:
      fail-fast: false
      matrix:
        shard: [@SHARD_LIST@]
    steps:
      - name: Check out the course (this repository)
        uses: actions/checkout@v4
        with:
          path: course
      - name: Write the course secret
        # The repository holds no secret (git ignores it): it comes from the Actions secret
        # COURSE_SECRET, set once with `gh secret set COURSE_SECRET < course-secret`.
        env:
          COURSE_SECRET: ${{ secrets.COURSE_SECRET }}
        run: |
          if [ -z "$COURSE_SECRET" ]; then
            echo "::error::the Actions secret COURSE_SECRET is not set: store the course's course-secret there with gh secret set COURSE_SECRET < course-secret (see docs/class-grading.md)"
            exit 1
          fi
          umask 077
          printf '%s\n' "$COURSE_SECRET" > course/course-secret
      - name: Install Rust @TOOLCHAIN@
        run: |
          rustup toolchain install @TOOLCHAIN@ --profile minimal
          rustup default @TOOLCHAIN@
      - name: Cache the dependencies and the grader
        uses: actions/cache@v4
        with:
          path: |
            ~/.cargo/registry
            ~/.cargo/git
            course/target
          key: course-grader-@TOOLCHAIN@-${{ hashFiles('course/Cargo.lock') }}
          restore-keys: course-grader-@TOOLCHAIN@-
      - name: Build the grader
        working-directory: course
        run: cargo build --locked -p xtask
      - name: Download the class
        uses: actions/download-artifact@v4
        with:
          name: class
      - name: Grade part ${{ matrix.shard }} of @SHARDS@ (official)
        working-directory: course
        env:
          SHARD: ${{ matrix.shard }}
        run: cargo run --quiet --locked -p xtask -- grade --submissions ../class --shard "$SHARD/@SHARDS@" --gradebook "../grades-$SHARD.csv" --reports "../reports-$SHARD"
      - name: Upload this part's reports
        if: ${{ !cancelled() }}
        uses: actions/upload-artifact@v4
        with:
          name: reports-${{ matrix.shard }}
          path: reports-${{ matrix.shard }}/
          if-no-files-found: error
          retention-days: 7
  merge:
    # Runs when a part has a submission it could not grade too (its job then fails); a part
    # with no reports at all makes the merge refuse, naming it.
    needs: [fetch, grade]
    if: ${{ !cancelled() && needs.fetch.result == 'success' }}
    runs-on: ubuntu-latest
    timeout-minutes: 60
    steps:
      - name: Check out the course (this repository)
        uses: actions/checkout@v4
        with:
          path: course
      - name: Install Rust @TOOLCHAIN@
        run: |
          rustup toolchain install @TOOLCHAIN@ --profile minimal
          rustup default @TOOLCHAIN@
      - name: Cache the dependencies and the grader
        uses: actions/cache@v4
        with:
          path: |
            ~/.cargo/registry
            ~/.cargo/git
            course/target
          key: course-grader-@TOOLCHAIN@-${{ hashFiles('course/Cargo.lock') }}
          restore-keys: course-grader-@TOOLCHAIN@-
      - name: Download the class
        uses: actions/download-artifact@v4
        with:
          name: class
      - name: Download the parts' reports
        uses: actions/download-artifact@v4
        with:
          pattern: reports-*
          path: parts
      - name: Merge the parts (gradebook, reports, pages, similarity over the whole class)
        working-directory: course
        run: |
          parts=$(ls -d ../parts/reports-* | paste -sd, -)
          cargo run --quiet --locked -p xtask -- class-page ../reports --merge "$parts" --submissions ../class
          cargo run --quiet --locked -p xtask -- gradebook ../reports --output ../grades.csv
      - name: Upload the gradebook and the reports
        if: ${{ !cancelled() }}
        uses: actions/upload-artifact@v4
        with:
          name: grades
          path: |
            grades.csv
            submissions.csv
            reports/
          if-no-files-found: error
      - name: Post each student's feedback
        if: ${{ !cancelled() && inputs.post_feedback }}
        working-directory: course
        env:
          GH_TOKEN: ${{ secrets.CLASSROOM_TOKEN }}
        run: |
          mkdir -p ../feedback
          for report in ../reports/*.json; do
            [ -e "$report" ] || continue
            name=$(basename "$report" .json)
            # The class run's record, not a student's report.
            [ "$name" = class-run ] && continue
            # The class run's record, no student's report.
            if [ "$name" = class-run ]; then continue; fi
            commit=$(awk -F, -v n="$name" '$1 == n { print $2 }' ../submissions.csv)
            {
              echo "Graded at commit $commit, the last one before $DEADLINE."
              echo
              cargo run --quiet --locked -p xtask -- autograder classroom-feedback "$report"
            } > "../feedback/$name.md"
            gh issue create --repo "$ORGANISATION/$name" --title "Grade: $PREFIX" --body-file "../feedback/$name.md" \
              || echo "::warning::no issue opened in $ORGANISATION/$name (are its issues turned off?)"
          done
"#;

/// Writes the template's workflow under `OUT_DIR/template` and the grading workflow (grading in
/// `shards` parts) under `OUT_DIR/grading`.
pub fn write(
    root: &Path,
    _course: &Course,
    out_dir: &Path,
    deadline: Option<&str>,
    shards: u16,
) -> Result<Written> {
    let template = out_dir.join(TEMPLATE).join(WORKFLOW);
    grader::fsutil::write(&template, &workflow(root))?;
    let grading = out_dir.join(GRADING).join(GRADING_WORKFLOW);
    grader::fsutil::write(&grading, &grading_workflow(root, deadline, shards))?;
    Ok(Written { template, grading })
}

/// The longest text of a GitHub issue is 65,536 characters; the feedback stops well before.
const FEEDBACK_LIMIT: usize = 60_000;

/// A student's feedback from their JSON report (`grade --submissions --reports`), as Markdown for
/// an issue in their repository: the total, a line per lesson, each lesson that does not compile
/// with its compiler output, and each check that did not pass with its verdict and points. A
/// hidden check's message is left out: it can hold the expected values the check hides.
pub fn classroom_feedback(report: &Path) -> Result<String> {
    let text = std::fs::read_to_string(report)
        .with_context(|| format!("cannot read {}", report.display()))?;
    let v: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON report", report.display()))?;
    let Some(lessons) = v["lessons"].as_array() else {
        bail!(
            "{} is not a JSON report: it has no lessons",
            report.display()
        );
    };
    let points = |v: &Value, key: &str| v[key].as_u64().unwrap_or(0);
    let mut out = format!(
        "## {}: {}/{} points\n\n",
        v["course"].as_str().unwrap_or("Grade"),
        points(&v, "score"),
        points(&v, "max_score")
    );
    if v["official"] == false {
        out.push_str("This grade is not official: the grader says so in its report.\n\n");
    }
    out.push_str("| Lesson | Points |\n|---|---|\n");
    for l in lessons {
        out.push_str(&format!(
            "| {} {} | {}/{} |\n",
            l["id"].as_str().unwrap_or("?"),
            table_cell(l["title"].as_str().unwrap_or("")),
            points(l, "score"),
            points(l, "max_score")
        ));
    }
    for l in lessons {
        let id = l["id"].as_str().unwrap_or("?");
        if l["build"] == "compile_error" {
            out.push_str(&format!("\n### {id} does not compile\n\n"));
            out.push_str(&fenced(l["compiler_output"].as_str().unwrap_or("")));
        }
        for ex in l["exercises"].as_array().into_iter().flatten() {
            for c in ex["checks"].as_array().into_iter().flatten() {
                let status = c["status"].as_str().unwrap_or("wrong");
                if status == "passed" {
                    continue;
                }
                let hidden = c["hidden"] == true;
                out.push_str(&format!(
                    "\n**{id} / {} / {}**{}: {status} ({}/{})\n\n",
                    ex["name"].as_str().unwrap_or("?"),
                    c["name"].as_str().unwrap_or("?"),
                    if hidden { " (hidden check)" } else { "" },
                    points(c, "points"),
                    points(c, "max_points")
                ));
                if !hidden {
                    out.push_str(&fenced(&check_message(status, c)));
                }
            }
        }
    }
    if out.len() > FEEDBACK_LIMIT {
        let mut cut = FEEDBACK_LIMIT;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("\n\n(cut here: the rest is in the instructors' report)\n");
    }
    Ok(out)
}

/// `text` in a Markdown code block whose fence is longer than any run of backticks in it, so the
/// student's text (a panic message, a name) is shown as written and cannot mention anyone.
fn fenced(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}text\n{}\n{fence}\n", text.trim_end())
}

/// `text` for a Markdown table cell: a `|` would end the cell.
fn table_cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// A check's message for the runner's log: the verdict, the message, whom it is blocked by and
/// the misconception it matches (the JSON report's fields of the same names).
fn check_message(status: &str, c: &serde_json::Value) -> String {
    let message = format!("{status}: {}", c["message"].as_str().unwrap_or(""));
    let diagnosis = c["diagnosis"]["title"]
        .as_str()
        .zip(c["diagnosis"]["explanation"].as_str());
    grader::report::explain(
        message.trim_end_matches(": "),
        c["blocked_by"].as_str(),
        diagnosis,
    )
}

/// The runner result (see the module's documentation) for a JSON report: one test per check,
/// one failing test per lesson that does not compile. When the report cannot be read, one
/// `error` test with zero of the course's points, whose message is `log` (or the read error).
///
/// GitHub Classroom's reporter (`classroom-resources/autograding-grading-reporter`) reads, for every
/// runner id of its `runners` input, `<RUNNER ID>_RESULTS`: this object, base64-encoded
/// (`{ "version": 1, "status": "pass" | "fail" | "error", "max_score": N, "tests": [ { "name",
/// "status", "score", "message", … } ] }`, as `autograding-command-grader` writes it), and adds up
/// `max_score` and every test's `score`. The workflow must be named `Autograding Tests` with one
/// job `run-autograding-tests`.
pub fn classroom_value(course: &Course, report: &Path, log: Option<&str>) -> Value {
    let parsed = std::fs::read_to_string(report)
        .with_context(|| format!("no report at {}", report.display()))
        .and_then(|t| serde_json::from_str::<Value>(&t).context("bad report"));
    let report = match parsed {
        Ok(v) if v.get("lessons").is_some_and(Value::is_array) => v,
        Ok(_) | Err(_) => {
            let why = match parsed {
                Err(e) => format!("{e:#}"),
                Ok(_) => "the report has no lessons".to_owned(),
            };
            let max: u32 = course.lessons.iter().map(|l| l.max_points()).sum();
            let message = match log.map(str::trim).filter(|l| !l.is_empty()) {
                Some(log) => format!("grading could not run: {why}\n{log}"),
                None => format!("grading could not run: {why}"),
            };
            return json!({
                "version": 1,
                "status": "error",
                "max_score": max,
                "tests": [{ "name": "grading", "status": "error", "score": 0,
                            "message": message, "line_no": 0, "test_code": "" }],
            });
        }
    };
    let mut tests = Vec::new();
    let mut any_error = false;
    let mut any_fail = false;
    for lesson in report["lessons"].as_array().into_iter().flatten() {
        let id = lesson["id"].as_str().unwrap_or("?");
        if lesson["build"] == "compile_error" {
            any_error = true;
            tests.push(json!({
                "name": format!("{id} builds"),
                "status": "error",
                "score": 0,
                "message": lesson["compiler_output"].as_str().unwrap_or("does not compile"),
                "line_no": 0, "test_code": "",
            }));
        }
        for ex in lesson["exercises"].as_array().into_iter().flatten() {
            for c in ex["checks"].as_array().into_iter().flatten() {
                let status = c["status"].as_str().unwrap_or("wrong");
                let state = match status {
                    "passed" => "pass",
                    "crashed" | "timed_out" | "wrote_too_much" | "compile_error"
                    | "exited_early" => "error",
                    _ => "fail",
                };
                any_fail |= state == "fail";
                any_error |= state == "error";
                tests.push(json!({
                    "name": format!("{id} / {} / {}", ex["name"].as_str().unwrap_or("?"),
                                    c["name"].as_str().unwrap_or("?")),
                    "status": state,
                    "score": c["points"].as_u64().unwrap_or(0),
                    "message": check_message(status, c),
                    "line_no": 0, "test_code": "",
                }));
            }
        }
    }
    json!({
        "version": 1,
        "status": if any_fail { "fail" } else if any_error { "error" } else { "pass" },
        "max_score": report["max_score"].as_u64().unwrap_or(0),
        "tests": tests,
    })
}

/// [`classroom_value`] as the reporter reads it: compact JSON, base64-encoded.
pub fn classroom_result(course: &Course, report: &Path, log: Option<&str>) -> String {
    base64(classroom_value(course, report, log).to_string().as_bytes())
}

/// Standard base64 (RFC 4648, with padding).
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ABC[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_deadline_is_an_iso_8601_date_and_nothing_else() {
        for good in [
            "2026-12-20",
            "2026-12-20T23:59",
            "2026-12-20T23:59:00",
            "2026-12-20T23:59:00Z",
            "2026-12-20T23:59:00+01:00",
            "2026-12-20T23:59-05:00",
        ] {
            assert_eq!(
                crate::cli::values::parse_deadline(good).as_deref(),
                Ok(good)
            );
        }
        for bad in [
            "",
            "tomorrow",
            "2026-12-20T",
            "2026-12-2",
            "2026-12-20 23:59",
            "2026-12-20T23:59:00+0100",
            "2026-12-20T23:59:00Zx",
            "2026-12-20\"\n  x: y",
            "2026-12-20-01",
        ] {
            assert!(
                crate::cli::values::parse_deadline(bad).is_err(),
                "{bad:?} was taken"
            );
        }
    }

    /// A report with a failing visible check, a failing hidden check whose message holds the
    /// expected value, and a lesson that does not compile.
    fn report() -> serde_json::Value {
        let check = |name: &str, status: &str, hidden: bool, message: &str| {
            json!({ "name": name, "status": status, "points": 0, "max_points": 2,
                    "message": message, "duration_ms": 1, "hidden": hidden,
                    "blocked_by": null, "diagnosis": null })
        };
        json!({
            "course": "Attention", "official": true, "score": 2, "max_score": 8,
            "lessons": [
                { "id": "lesson01", "title": "Why | heads", "build": "ok", "compiler_output": null,
                  "score": 2, "max_score": 6, "exercises": [{ "name": "split_heads", "score": 2,
                  "max_score": 6, "checks": [
                    { "name": "shape", "status": "passed", "points": 2, "max_points": 2,
                      "message": "", "duration_ms": 1, "hidden": false, "blocked_by": null,
                      "diagnosis": null },
                    check("values", "wrong", false, "got 1.0, ```@someone"),
                    check("secret", "wrong", true, "expected 0.4242"),
                  ]}] },
                { "id": "lesson02", "title": "Masks", "build": "compile_error",
                  "compiler_output": "error[E0308]: mismatched types", "score": 0,
                  "max_score": 2, "exercises": [] },
            ],
        })
    }

    #[test]
    fn feedback_shows_points_and_failures_but_no_hidden_message() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("alice.json");
        std::fs::write(&path, report().to_string()).unwrap();
        let md = super::classroom_feedback(&path).unwrap();
        assert!(md.starts_with("## Attention: 2/8 points\n"), "{md}");
        assert!(md.contains("| lesson01 Why \\| heads | 2/6 |"), "{md}");
        assert!(md.contains("| lesson02 Masks | 0/2 |"), "{md}");
        assert!(md.contains("### lesson02 does not compile"), "{md}");
        assert!(md.contains("error[E0308]: mismatched types"), "{md}");
        assert!(
            md.contains("**lesson01 / split_heads / values**: wrong (0/2)"),
            "{md}"
        );
        assert!(!md.contains("/ shape**"), "a passed check is listed:\n{md}");
        // The student's own backticks stay inside a longer fence.
        assert!(
            md.contains("````text\nwrong: got 1.0, ```@someone\n````"),
            "{md}"
        );
        assert!(md.contains("**lesson01 / split_heads / secret** (hidden check): wrong (0/2)"));
        assert!(
            !md.contains("0.4242"),
            "a hidden check's message is shown:\n{md}"
        );
        // Not a report: an error, not an empty issue.
        std::fs::write(&path, "{}").unwrap();
        assert!(super::classroom_feedback(&path).is_err());
    }

    #[test]
    fn base64_matches_rfc_4648() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(plain.as_bytes()), coded);
        }
    }
}
