//! A whole class: `grade --submissions` row by row, the Gradescope bundle's `run_autograder`
//! against a scratch `/autograder`, the GitHub Classroom workflows (the students' template and its
//! points, the instructors' grading) and every JSON report against `docs/report.schema.json`
//! (JUnit reports: `grade_cli`).
//!
//! To keep the suite short, the class is graded on lesson 1 only (`grade --submissions DIR 1`).

use crate::support::{self, OutDir, Scratch, assert_valid_report, shared_target, which, xtask_in};

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};

const HOSTILE_L1: &str = include_str!("../fixtures/hostile/lesson01_exercises.rs");
const L1: &str = "lesson01-why-heads";
const L3: &str = "lesson03-parallel-attention";

/// `dir` zipped, every entry under `prefix`.
pub(crate) fn zip_dir(dir: &Path, prefix: &str, out: &Path) {
    let mut z = zip::ZipWriter::new(std::fs::File::create(out).unwrap());
    for (rel, p) in support::files(dir) {
        z.start_file(
            format!("{prefix}{rel}"),
            zip::write::SimpleFileOptions::default(),
        )
        .unwrap();
        z.write_all(&std::fs::read(p).unwrap()).unwrap();
    }
    z.finish().unwrap();
}

/// `dir` as a gzipped tarball, every entry under `prefix`.
fn tar_dir(dir: &Path, prefix: &str, out: &Path) {
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(out).unwrap(),
        flate2::Compression::fast(),
    );
    let mut t = tar::Builder::new(gz);
    for (rel, p) in support::files(dir) {
        t.append_path_with_name(&p, format!("{prefix}{rel}"))
            .unwrap();
    }
    t.into_inner().unwrap().finish().unwrap();
}

/// A tarball with one entry whose raw name is `name` (the tar crate refuses to write `..`).
fn evil_tar(name: &str, link_to: Option<&str>, out: &Path) {
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(out).unwrap(),
        flate2::Compression::fast(),
    );
    let mut t = tar::Builder::new(gz);
    let mut h = tar::Header::new_gnu();
    {
        let raw = h.as_old_mut();
        raw.name[..name.len()].copy_from_slice(name.as_bytes());
    }
    match link_to {
        Some(target) => {
            h.set_entry_type(tar::EntryType::Symlink);
            h.set_link_name(target).unwrap();
            h.set_size(0);
            h.set_cksum();
            t.append(&h, std::io::empty()).unwrap();
        }
        None => {
            h.set_size(4);
            h.set_mode(0o644);
            h.set_cksum();
            t.append(&h, &b"evil"[..]).unwrap();
        }
    }
    t.into_inner().unwrap().finish().unwrap();
}

/// A student handout of the scratch course (what `dist` makes).
pub(crate) fn handout(course: &Scratch, out: &Path) {
    xtask_in(&course.root, &["dist", out.to_str().unwrap()])
        .assert()
        .success();
}

/// The reference solution's exercise file of lesson 1 copied over a handout's stubs (the rest of
/// a solution crate's `src/` is the instructors': its planting machinery needs `course-check`).
pub(crate) fn solve_lesson01(course: &Scratch, exercises: &Path) {
    let file = Path::new("src").join("exercises.rs");
    std::fs::copy(
        course.root.join("solutions").join(L1).join(&file),
        exercises.join(L1).join(&file),
    )
    .unwrap();
}

pub(crate) fn read_csv(path: &Path) -> Vec<BTreeMap<String, String>> {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers = r.headers().unwrap().clone();
    r.records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .zip(rec.iter())
                .map(|(h, v)| (h.to_owned(), v.to_owned()))
                .collect()
        })
        .collect()
}

/// `grade --submissions CLASS 1` in the scratch course with the gradebook and the reports
/// written under `work` (and `extra` arguments): the output, the gradebook, the reports' folder.
fn grade_class(
    course: &Scratch,
    class: &Path,
    work: &Path,
    extra: &[&str],
) -> (std::process::Output, PathBuf, PathBuf) {
    let gradebook = work.join("gradebook.csv");
    let reports = work.join("reports");
    let mut args = vec!["grade", "--submissions", class.to_str().unwrap(), "1"];
    args.extend_from_slice(extra);
    args.extend([
        "--gradebook",
        gradebook.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ]);
    let out = xtask_in(&course.root, &args).output().unwrap();
    (out, gradebook, reports)
}

/// A student's report in `reports`, lesson 1: score, build, then every check's status, points
/// and message (what must not change between submissions graded with one build).
fn graded_checks(reports: &Path, id: &str) -> Vec<serde_json::Value> {
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join(format!("{id}.json"))).unwrap())
            .unwrap();
    let mut out = vec![v["score"].clone(), v["lessons"][0]["build"].clone()];
    for ex in v["lessons"][0]["exercises"].as_array().unwrap() {
        for c in ex["checks"].as_array().unwrap() {
            out.extend([
                c["status"].clone(),
                c["points"].clone(),
                c["message"].clone(),
            ]);
        }
    }
    out
}

#[test]
fn a_class_is_graded_row_by_row() {
    let course = Scratch::new("class");
    let work = OutDir::new("class");
    let class = work.path.join("submissions");
    std::fs::create_dir_all(&class).unwrap();
    let pristine = work.path.join("pristine");
    handout(&course, &pristine);

    // Folders: a handout of stubs, an exercises/ folder, full marks, hostile code, a lesson that
    // does not compile.
    support::copy_dir(&pristine, &class.join("stubs"));
    support::copy_dir(&pristine.join("exercises"), &class.join("exercises-only"));
    support::copy_dir(&pristine, &class.join("full"));
    solve_lesson01(&course, &class.join("full/exercises"));
    support::copy_dir(&pristine, &class.join("hostile"));
    std::fs::write(
        class
            .join("hostile/exercises")
            .join(L1)
            .join("src/exercises.rs"),
        HOSTILE_L1,
    )
    .unwrap();
    support::copy_dir(&pristine, &class.join("broken"));
    let f = class
        .join("broken/exercises")
        .join(L1)
        .join("src/exercises.rs");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{text}\npub fn broken() -> u32 {{ \"no\" }}\n")).unwrap();

    // Archives: a zipped handout, a zipped folder holding the full solution (nested), a nested
    // tarball of an exercises/ folder.
    zip_dir(&pristine, "", &class.join("zipped.zip"));
    let solved = work.path.join("solved");
    support::copy_dir(&pristine, &solved);
    solve_lesson01(&course, &solved.join("exercises"));
    zip_dir(&solved, "my-work/", &class.join("nested-zip.zip"));
    tar_dir(
        &pristine.join("exercises"),
        "handin/exercises/",
        &class.join("nested-tar.tar.gz"),
    );

    // What cannot be graded: path traversal, an absolute path, a link out (in an archive and in
    // a folder), a corrupt archive, a folder that is no course, a stray file.
    evil_tar("../../escaped.txt", None, &class.join("traversal.tar.gz"));
    evil_tar("/tmp/absolute.txt", None, &class.join("absolute.tgz"));
    evil_tar(
        "exercises/link",
        Some("../../../etc"),
        &class.join("link-tar.tar.gz"),
    );
    support::copy_dir(&pristine.join("exercises"), &class.join("link-folder"));
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        "/etc/passwd",
        class.join("link-folder").join(L1).join("src/secret.rs"),
    )
    .unwrap();
    std::fs::write(class.join("corrupt.zip"), b"PK\x03\x04 not really a zip").unwrap();
    std::fs::create_dir_all(class.join("not-a-course/src")).unwrap();
    std::fs::write(class.join("not-a-course/src/main.rs"), "fn main() {}\n").unwrap();
    std::fs::write(class.join("notes.txt"), "hello\n").unwrap();
    // A name a spreadsheet would run as a formula, were its gradebook cell not marked as text.
    std::fs::write(class.join("=HYPERLINK(\"http:x\",\"A+\")"), "hi\n").unwrap();

    // The hostile student's endless loop is stopped at the limit: 3 s keeps the test quick.
    let (out, gradebook, reports) =
        grade_class(&course, &class, &work.path, &["-j", "2", "--timeout", "3"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "some rows have errors\n{stdout}\n{stderr}"
    );
    assert!(!Path::new("/tmp/absolute.txt").exists() || !work.path.join("escaped.txt").exists());

    let rows = read_csv(&gradebook);
    let by_id: BTreeMap<&str, &BTreeMap<String, String>> =
        rows.iter().map(|r| (r["id"].as_str(), r)).collect();
    let ids: BTreeSet<&str> = by_id.keys().copied().collect();
    let expected: BTreeSet<&str> = [
        "absolute",
        "broken",
        "corrupt",
        "exercises-only",
        "full",
        "hostile",
        "link-folder",
        "link-tar",
        "nested-tar",
        "nested-zip",
        "not-a-course",
        "notes.txt",
        "stubs",
        "traversal",
        "zipped",
        "'=HYPERLINK(\"http:x\",\"A+\")",
    ]
    .into();
    assert_eq!(ids, expected, "{stdout}\n{stderr}");
    let header: Vec<&str> = rows[0].keys().map(String::as_str).collect();
    for col in [
        "id",
        "total",
        "max",
        "lesson01",
        "official",
        "modified_files",
        "isolation",
        "error",
    ] {
        assert!(header.contains(&col), "missing column {col}");
    }
    let max: u32 = by_id["full"]["max"].parse().unwrap();
    assert!(max > 0);
    let num = |id: &str, col: &str| by_id[id][col].parse::<u32>().unwrap();
    for id in &ids {
        assert_eq!(num(id, "max"), max, "{id}: every row has the lesson's max");
        assert!(!by_id[id]["isolation"].is_empty());
    }
    // Graded rows.
    for id in ["stubs", "exercises-only", "zipped", "nested-tar", "broken"] {
        assert_eq!(by_id[id]["error"], "", "{id}");
        assert_eq!(num(id, "total"), 0, "{id}\n{stderr}");
    }
    for id in ["full", "nested-zip"] {
        assert_eq!(by_id[id]["error"], "", "{id}");
        assert_eq!(num(id, "total"), max, "{id}");
        assert_eq!(num(id, "lesson01"), max, "{id}");
    }
    let hostile = num("hostile", "total");
    assert!(hostile > 0 && hostile < max, "hostile scored {hostile}");
    assert_eq!(by_id["stubs"]["modified_files"], "0");
    assert_eq!(by_id["exercises-only"]["modified_files"], "0");
    assert_eq!(by_id["nested-tar"]["modified_files"], "0");
    // Rows with an error: zero points, the reason.
    let errors = [
        ("traversal", "path traversal"),
        ("absolute", "absolute path"),
        ("link-tar", "symbolic link out"),
        ("link-folder", "symbolic link out"),
        ("corrupt", "not a valid zip"),
        ("not-a-course", "not a submission of this course"),
        ("notes.txt", "not a folder"),
        ("'=HYPERLINK(\"http:x\",\"A+\")", "not a folder"),
    ];
    for (id, why) in errors {
        assert!(
            by_id[id]["error"].contains(why),
            "{id}: {}",
            by_id[id]["error"]
        );
        assert_eq!(num(id, "total"), 0, "{id}");
        assert_eq!(by_id[id]["official"], "false", "{id}");
        assert_eq!(by_id[id]["status"], "error", "{id}");
    }
    // What the status column says of the others, and each lesson's maximum beside its points.
    assert_eq!(by_id["broken"]["status"], "compile_error (lesson01)");
    assert_eq!(by_id["full"]["status"], "ok");
    assert_eq!(by_id["full"]["lesson01 max"], by_id["full"]["max"]);

    // One report per graded student, each valid against the published schema, with its
    // feedback pages beside it (pages_cli tests what they say).
    let all: BTreeSet<String> = std::fs::read_dir(&reports)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name != "similarity.csv" && name != "class-run.json")
        .collect();
    // The class run's record, for `gradebook` and `class-page` (pages_cli reads it back).
    assert!(reports.join("class-run.json").is_file());
    let written: BTreeSet<String> = all
        .iter()
        .filter(|n| n.ends_with(".json"))
        .cloned()
        .collect();
    assert_eq!(written.len(), 8, "{written:?}");
    assert_eq!(all.len(), 3 * 8 + 1, "{all:?}");
    assert!(all.contains("index.html"), "{all:?}");
    for name in &written {
        let v: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(reports.join(name)).unwrap()).unwrap();
        assert_valid_report(&v, name);
        assert_eq!(v["graded"], "submission");
    }
    // Beside them, the pairs of similar code, on the graded lesson: the two reference solutions,
    // and each with the hostile copy (the reference with some functions broken); the handed-out
    // stubs, however many, never pair.
    let similar = read_csv(&reports.join("similarity.csv"));
    let pairs: Vec<[&str; 2]> = similar
        .iter()
        .map(|r| [r["a"].as_str(), r["b"].as_str()])
        .collect();
    assert_eq!(
        pairs,
        [
            ["full", "nested-zip"],
            ["full", "hostile"],
            ["hostile", "nested-zip"]
        ]
    );
    let scores: Vec<f64> = similar
        .iter()
        .map(|r| r["score"].parse().unwrap())
        .collect();
    assert!(
        scores[0] == 1.0 && scores[1] == scores[2] && (0.5..1.0).contains(&scores[1]),
        "{similar:?}"
    );
    assert!(
        similar[0]["exercises"].ends_with(";lesson01:other"),
        "{similar:?}"
    );
    let broken: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(reports.join("broken.json")).unwrap())
            .unwrap();
    assert_eq!(broken["lessons"][0]["build"], "compile_error");
    // Submissions with the same sources share one build (the class's stubs, the two full ones):
    // their checks get the verdicts, points and messages of the one that was built.
    for group in [
        &["stubs", "exercises-only", "zipped", "nested-tar"][..],
        &["full", "nested-zip"],
    ] {
        for id in &group[1..] {
            assert_eq!(
                graded_checks(&reports, id),
                graded_checks(&reports, group[0]),
                "{id} against {}",
                group[0]
            );
        }
    }
    let builds = stdout
        .lines()
        .find_map(|l| l.strip_prefix("Lesson builds: "))
        .unwrap_or_else(|| panic!("no line on builds:\n{stdout}"));
    let count = |what: &str| -> usize {
        builds
            .split(", ")
            .find_map(|part| part.strip_suffix(what))
            .and_then(|n| n.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{builds}"))
    };
    let (built, reused) = (
        count(" run"),
        count(" reused from a submission with the same sources"),
    );
    assert_eq!(built + reused, 8, "{builds}");
    // Four distinct sources (stubs, full, hostile, broken); two submissions taken at once can
    // both build one of them before either is kept.
    assert!(reused >= 2, "{builds}");

    // The summary.
    assert!(stdout.contains("Scores per lesson"), "{stdout}");
    assert!(stdout.contains("Most common failing checks"), "{stdout}");
    assert!(stdout.contains("Marginal cost:"), "{stdout}");

    // GitHub Classroom's points for a graded report: the sum of the check points.
    let full = reports.join("full.json");
    let out = xtask_in(
        &course.root,
        &["autograder", "classroom-result", full.to_str().unwrap()],
    )
    .output()
    .unwrap();
    let line = String::from_utf8(out.stdout).unwrap();
    let result = decode_result(&line);
    assert_eq!(result["status"], "pass");
    assert_eq!(result["max_score"].as_u64(), Some(u64::from(max)));
    let points: u64 = result["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["score"].as_u64().unwrap())
        .sum();
    assert_eq!(points, u64::from(max));
}

/// Decodes `result=<base64>` into JSON.
fn decode_result(line: &str) -> serde_json::Value {
    let b64 = line.trim().strip_prefix("result=").expect("result=…");
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in b64.bytes().filter(|&c| c != b'=') {
        bits = (bits << 6) | ABC.iter().position(|&a| a == c).expect("base64") as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
        }
    }
    serde_json::from_slice(&out).expect("JSON")
}

/// Unpacks the Gradescope bundle into `<root>/source` as Gradescope does.
fn gradescope_root(course: &Scratch, root: &Path) {
    let bundle = root.join("autograder.zip");
    std::fs::create_dir_all(root).unwrap();
    xtask_in(
        &course.root,
        &["autograder", "gradescope", bundle.to_str().unwrap()],
    )
    .assert()
    .success();
    let mut z = zip::ZipArchive::new(std::fs::File::open(&bundle).unwrap()).unwrap();
    let names: Vec<String> = z.file_names().map(|n| n.unwrap().into_owned()).collect();
    assert!(names.contains(&"setup.sh".to_owned()));
    assert!(names.contains(&"run_autograder".to_owned()));
    assert!(names.iter().any(|n| n == "course/course.toml"));
    assert!(names.iter().any(|n| n.starts_with("course/solutions/")));
    // The variant checks' secret goes with the grader (the checks still cannot read it), for
    // its owner only; Gradescope keeps the bundle from students.
    assert!(names.iter().any(|n| n == "course/course-secret"));
    let mode = z.by_name("course/course-secret").unwrap().unix_mode();
    assert_eq!(mode.map(|m| m & 0o777), Some(0o600));
    assert!(!names.iter().any(|n| n.contains("/target/")));
    z.extract(root.join("source")).unwrap();
    // The course's files keep their modification times, as the tests' scratch copies do: with
    // new ones, its builds in the shared target folder would replace the core's and the
    // solutions' (cargo keys a workspace member by its path inside the workspace), and every
    // later grade of another copy would compile them again.
    let bundled = root.join("source/course");
    for (rel, path) in support::files(&bundled) {
        let original = course.root.join(&rel);
        if std::fs::read(&original).is_ok_and(|bytes| bytes == std::fs::read(&path).unwrap()) {
            support::keep_mtime(&original, &path);
        }
    }
    // Gradescope copies run_autograder to the root.
    std::fs::copy(
        root.join("source/run_autograder"),
        root.join("run_autograder"),
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for f in ["run_autograder", "source/setup.sh"] {
            std::fs::set_permissions(root.join(f), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
    }
}

fn run_autograder(root: &Path) -> serde_json::Value {
    run_autograder_in(root, &support::temp_root())
}

/// [`run_autograder`] with `TMPDIR` set to `tmp`.
fn run_autograder_in(root: &Path, tmp: &Path) -> serde_json::Value {
    run_autograder_with(
        std::process::Command::new(root.join("run_autograder")),
        root,
        tmp,
    )
}

/// `run_autograder` (started by `command`) in the Gradescope root `root`, with `TMPDIR` set to
/// `tmp`: its `results.json`.
fn run_autograder_with(
    mut command: std::process::Command,
    root: &Path,
    tmp: &Path,
) -> serde_json::Value {
    let status = command
        .current_dir(root)
        .env("TMPDIR", tmp)
        .env("AUTOGRADER_ROOT", root)
        .env("AUTOGRADER_GRADER", env!("CARGO_BIN_EXE_xtask"))
        .env("CARGO_TARGET_DIR", shared_target())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(
        status.status.success(),
        "run_autograder exits 0 whatever happens"
    );
    let text = std::fs::read_to_string(root.join("results/results.json")).unwrap_or_else(|e| {
        panic!(
            "no results.json ({e}):\n{}\n{}",
            String::from_utf8_lossy(&status.stdout),
            String::from_utf8_lossy(&status.stderr)
        )
    });
    serde_json::from_str(&text).expect("results.json is JSON")
}

fn assert_gradescope_shape(r: &serde_json::Value) {
    const VISIBILITY: [&str; 4] = ["hidden", "after_due_date", "after_published", "visible"];
    const FORMATS: [&str; 5] = ["text", "html", "simple_format", "md", "ansi"];
    assert!(r["score"].is_number());
    assert!(
        FORMATS.contains(&r["output_format"].as_str().unwrap()),
        "{r}"
    );
    for t in r["tests"].as_array().unwrap() {
        assert!(
            FORMATS.contains(&t["output_format"].as_str().unwrap()),
            "{t}"
        );
        assert!(
            VISIBILITY.contains(&t["visibility"].as_str().unwrap()),
            "{t}"
        );
        assert!(t["name"].is_string() && t["output"].is_string());
        assert!(t["score"].as_u64().unwrap() <= t["max_score"].as_u64().unwrap());
    }
}

#[test]
fn the_gradescope_bundle_grades_a_nested_submission_and_reports_errors() {
    let course = Scratch::new("gradescope");
    let work = OutDir::new("gradescope");
    let root = work.path.join("autograder");
    gradescope_root(&course, &root);

    // setup.sh with the documented flag does nothing (the toolchain is already here).
    let setup = std::process::Command::new(root.join("source/setup.sh"))
        .env("AUTOGRADER_ROOT", &root)
        .env("AUTOGRADER_SKIP_SETUP", "1")
        .output()
        .unwrap();
    assert!(setup.status.success());
    assert!(String::from_utf8_lossy(&setup.stdout).contains("skipped"));

    // Not a course: a valid zero-score results.json with the error as output. The script's log
    // (a temporary file) is gone afterwards.
    std::fs::create_dir_all(root.join("submission/stray")).unwrap();
    std::fs::write(root.join("submission/stray/readme.txt"), "hi").unwrap();
    let tmp = tempfile::tempdir_in(support::temp_root()).unwrap();
    let r = run_autograder_in(&root, tmp.path());
    let left: Vec<_> = walkdir::WalkDir::new(tmp.path())
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().to_owned())
        .collect();
    assert!(left.is_empty(), "run_autograder left {left:?}");
    assert_gradescope_shape(&r);
    assert_eq!(r["score"].as_u64(), Some(0));
    let output = r["output"].as_str().unwrap();
    assert!(output.contains("could not grade"), "{output}");
    assert!(
        output.contains("not a submission of this course"),
        "{output}"
    );

    // A handout zipped as a folder (nested one level), lesson 1 solved, lesson 3 broken.
    std::fs::remove_dir_all(root.join("submission")).unwrap();
    let inner = root.join("submission/my-handout");
    handout(&course, &inner);
    solve_lesson01(&course, &inner.join("exercises"));
    let f = inner.join("exercises").join(L3).join("src/exercises.rs");
    let text = std::fs::read_to_string(&f).unwrap();
    std::fs::write(&f, format!("{text}\npub fn broken() -> u32 {{ \"no\" }}\n")).unwrap();
    // Gradescope names the student: the variant checks draw their inputs for that id.
    let metadata = r#"{"users": [{"id": 4242, "email": "ada@example.org"}]}"#;
    std::fs::write(root.join("submission_metadata.json"), metadata).unwrap();
    let r = run_autograder_as_in_a_container(&root);
    assert_gradescope_shape(&r);
    // The bundle's copy of the course makes the handout the student got: nothing is listed as
    // changed outside the sources (the upload shapes themselves: `official::entry`'s tests).
    let output = r["output"].as_str().unwrap();
    assert!(!output.contains("outside exercises/*/src"), "{output}");
    let tests = r["tests"].as_array().unwrap();
    let split_variant = tests
        .iter()
        .find(|t| t["name"].as_str().unwrap().ends_with("split_heads_variant"))
        .expect("lesson 2's variant of split_heads");
    // Only lesson 3 is broken: another lesson's build test says why it did not build.
    let builds: Vec<&serde_json::Value> = (tests.iter())
        .filter(|t| t["name"].as_str().unwrap().ends_with(" / build"))
        .collect();
    assert!(
        split_variant["output"]
            .as_str()
            .unwrap()
            .contains(&format!("(seed {}).", variant_seed(&course, "4242"))),
        "{split_variant}\nthe build tests: {builds:#?}{}",
        builds
            .iter()
            .filter_map(|b| b["output"].as_str())
            .map(support::denied_paths)
            .collect::<String>()
    );
    let build = tests
        .iter()
        .find(|t| t["name"] == "lesson03 / build")
        .expect("lesson 3's build failure is its own test");
    assert_eq!(build["status"], "failed");
    assert_eq!(build["visibility"], "visible");
    assert!(build["output"].as_str().unwrap().contains("error"));
    let l1: u64 = tests
        .iter()
        .filter(|t| t["name"].as_str().unwrap().starts_with("lesson01 /"))
        .map(|t| t["score"].as_u64().unwrap())
        .sum();
    let l1_max: u64 = tests
        .iter()
        .filter(|t| t["name"].as_str().unwrap().starts_with("lesson01 /"))
        .map(|t| t["max_score"].as_u64().unwrap())
        .sum();
    assert!(l1_max > 0);
    assert_eq!(l1, l1_max, "lesson 1 is solved");
    assert_eq!(r["score"].as_u64(), Some(l1), "only lesson 1 earns points");
}

/// `run_autograder` in the Gradescope root `root` as Gradescope's containers run it, which may
/// have neither Landlock nor user namespaces: under a seccomp filter like a default container
/// runtime's, so the grader grades in the container mode, officially (it gave every student 0
/// before). Where this machine cannot enter the container mode, with Landlock. The one grade of
/// the upload: its points are those the Landlock mode gives (lesson 1 solved, the rest not),
/// which the caller asserts.
fn run_autograder_as_in_a_container(root: &Path) -> serde_json::Value {
    if !crate::hostile_cli::Mode::Container.available() {
        return run_autograder(root);
    }
    let mut contained = std::process::Command::new(env!("CARGO_BIN_EXE_xtask"));
    contained
        .args(["__container-like", "--"])
        .arg(root.join("run_autograder"));
    let r = run_autograder_with(contained, root, &support::temp_root());
    let output = r["output"].as_str().unwrap_or_default();
    assert!(!output.contains("needs a sandbox"), "{output}");
    r
}

/// The seed of lesson 2's `split_heads` variant for `student`, from the course's secret.
fn variant_seed(course: &Scratch, student: &str) -> u64 {
    let hex = course.read("course-secret");
    let secret: Vec<u8> = (0..32)
        .map(|i| u8::from_str_radix(&hex.trim()[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    let message = format!("lesson02\0split_heads\0{student}\0");
    let mac = hmac_sha256::HMAC::mac(message.as_bytes(), &secret);
    u64::from_le_bytes(mac[..8].try_into().unwrap())
}

/// Validates a workflow against GitHub's schema with `check-jsonschema`, or says loudly that it
/// could not.
fn assert_valid_workflow(file: &Path) {
    match which("check-jsonschema") {
        Some(tool) => {
            let res = std::process::Command::new(tool)
                .args(["--builtin-schema", "vendor.github-workflows"])
                .arg(file)
                .output()
                .unwrap();
            assert!(
                res.status.success(),
                "{} breaks GitHub's schema:\n{}{}",
                file.display(),
                String::from_utf8_lossy(&res.stdout),
                String::from_utf8_lossy(&res.stderr)
            );
        }
        None => eprintln!(
            "\n!!!!!! SKIPPED: check-jsonschema is not on PATH, so {} was NOT validated against \
             GitHub's schema (pip install check-jsonschema) !!!!!!\n",
            file.display()
        ),
    }
}

/// Every grader command line in a workflow's steps (`cargo xtask ARGS` or `cargo run … -p xtask --
/// ARGS`; comments are not steps): its arguments up to the first shell operator or redirection.
fn grader_invocations(workflow: &str) -> Vec<Vec<String>> {
    let mut found = Vec::new();
    for line in workflow
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
    {
        let Some(args) = ["cargo xtask ", "-p xtask -- "]
            .iter()
            .find_map(|start| line.split_once(start).map(|(_, rest)| rest))
        else {
            continue;
        };
        let args: Vec<String> = args
            .split_whitespace()
            .take_while(|w| {
                !["|", "||", "&&", ";"].contains(w) && !w.starts_with('>') && !w.starts_with("2>")
            })
            .map(str::to_owned)
            .collect();
        found.push(args);
    }
    found
}

/// The subcommand of a grader command line (`grade`, `autograder classroom-result`) and its
/// flags (`--name`, `-j`).
fn subcommand_and_flags(args: &[String]) -> (Vec<String>, Vec<String>) {
    let depth = if args[0] == "autograder" { 2 } else { 1 };
    let flags = args[depth..]
        .iter()
        .filter(|a| a.starts_with('-'))
        .map(|a| a.split('=').next().unwrap().to_owned())
        .collect();
    (args[..depth].to_vec(), flags)
}

/// Every flag of every grader command line in `workflow` is one its subcommand's `--help` lists.
fn assert_flags_exist(course: &Scratch, workflow: &str, calls: &[Vec<String>]) {
    for call in calls {
        let (sub, flags) = subcommand_and_flags(call);
        let mut help_args: Vec<&str> = sub.iter().map(String::as_str).collect();
        help_args.push("--help");
        let help = xtask_in(&course.root, &help_args).output().unwrap();
        assert!(help.status.success(), "`{}` has no help", sub.join(" "));
        let help = String::from_utf8(help.stdout).unwrap();
        let listed: BTreeSet<&str> = help
            .split_whitespace()
            .map(|w| w.trim_end_matches(','))
            .filter(|w| w.starts_with('-'))
            .collect();
        for flag in flags {
            assert!(
                listed.contains(flag.as_str()),
                "the workflow gives `{} {flag}`, which the grader does not have:\n{workflow}",
                sub.join(" ")
            );
        }
    }
}

#[test]
fn the_github_classroom_workflows_are_valid_and_only_the_instructors_one_holds_a_secret() {
    let course = Scratch::new("github");
    let out = OutDir::new("github");
    let deadline = "2026-12-20T23:59:00+01:00";
    xtask_in(
        &course.root,
        &["autograder", "github", out.arg(), "--deadline", deadline],
    )
    .assert()
    .success();
    // Only the two workflows: nothing else lands in the students' template.
    let written: Vec<String> = support::files(&out.path)
        .into_iter()
        .map(|(r, _)| r)
        .collect();
    assert_eq!(
        written,
        [
            "grading/.github/workflows/grade-classroom.yml",
            "template/.github/workflows/classroom.yml"
        ]
    );
    let template_file = out.path.join("template/.github/workflows/classroom.yml");
    let grading_file = out
        .path
        .join("grading/.github/workflows/grade-classroom.yml");
    let template = std::fs::read_to_string(&template_file).unwrap();
    let grading = std::fs::read_to_string(&grading_file).unwrap();
    assert_valid_workflow(&template_file);
    assert_valid_workflow(&grading_file);

    // The template runs in students' repositories: GitHub Classroom's names, nothing secret.
    assert!(template.contains("name: Autograding Tests"));
    assert!(template.contains("run-autograding-tests:"));
    for step in [
        "actions/checkout@v4",
        "actions/cache@v4",
        "cargo xtask grade --format json --output report.json",
        "cargo xtask autograder classroom-result report.json --log grader.log >> \"$GITHUB_OUTPUT\"",
        "actions/upload-artifact@v4",
        "classroom-resources/autograding-grading-reporter@v1",
        "GRADER_RESULTS: \"${{ steps.grader.outputs.result }}\"",
        "runners: grader",
        "feedback, not the official grade",
    ] {
        assert!(template.contains(step), "the template lacks `{step}`");
    }
    for private in [
        "secrets.",
        "COURSE_TOKEN",
        "CLASSROOM_TOKEN",
        "vars.",
        "repository:",
        "token:",
        "--submission",
    ] {
        assert!(
            !template.contains(private),
            "the students' template names `{private}`:\n{template}"
        );
    }

    // The grading workflow runs in the instructors' repository, by hand or on a schedule.
    for step in [
        "name: Grade the classroom",
        "workflow_dispatch:",
        "organisation:",
        "prefix:",
        "post_feedback:",
        &format!("default: \"{deadline}\""),
        "GH_TOKEN: ${{ secrets.CLASSROOM_TOKEN }}",
        "gh repo list \"$ORGANISATION\"",
        "rev-list -n 1 --before=\"$DEADLINE\" HEAD",
        "actions/upload-artifact@v4",
        "gh issue create --repo \"$ORGANISATION/$name\"",
        "if: ${{ !cancelled() && inputs.post_feedback }}",
        // A matrix of 4 parts by default, each grading its shard, and one job merging them.
        "shard: [1, 2, 3, 4]",
        "--shard \"$SHARD/4\"",
        "needs: [fetch, grade]",
        "pattern: reports-*",
        "class-page ../reports --merge \"$parts\" --submissions ../class\n",
        "gradebook ../reports --output ../grades.csv",
    ] {
        assert!(
            grading.contains(step),
            "the grading workflow lacks `{step}`"
        );
    }
    assert!(!grading.contains("COURSE_TOKEN"));
    // The repository holds no course secret: the grading workflow writes it from the Actions
    // secret before grading, and the template never names it.
    let written = grading
        .find("> course/course-secret")
        .expect("the secret is written");
    assert!(grading.contains("COURSE_SECRET: ${{ secrets.COURSE_SECRET }}"));
    assert!(written < grading.find("grade --submissions").unwrap());
    assert!(!template.contains("COURSE_SECRET") && !template.contains("course-secret"));

    // Every grader command either workflow runs is one the grader has, with flags it has.
    let template_calls = grader_invocations(&template);
    let grading_calls = grader_invocations(&grading);
    assert_eq!(template_calls.len(), 2, "{template_calls:?}");
    assert!(
        grading_calls.iter().any(|c| c[0] == "grade"
            && ["--submissions", "--gradebook", "--reports"]
                .iter()
                .all(|f| c.iter().any(|a| a == f))),
        "{grading_calls:?}"
    );
    assert!(
        grading_calls
            .iter()
            .any(|c| c[..2] == ["autograder", "classroom-feedback"]),
        "{grading_calls:?}"
    );
    assert_flags_exist(&course, &template, &template_calls);
    assert_flags_exist(&course, &grading, &grading_calls);
    // ... and that check can fail: a flag the grader lacks is caught.
    let made_up = vec![vec!["grade".to_owned(), "--no-such-flag".to_owned()]];
    let caught = std::panic::catch_unwind(|| assert_flags_exist(&course, "", &made_up));
    assert!(caught.is_err(), "a made-up flag passed the check");

    // Without --deadline the input has no default; a deadline that is no date is refused.
    let plain = OutDir::new("github-plain");
    xtask_in(&course.root, &["autograder", "github", plain.arg()])
        .assert()
        .success();
    let text = std::fs::read_to_string(
        plain
            .path
            .join("grading/.github/workflows/grade-classroom.yml"),
    )
    .unwrap();
    assert!(!text.contains("default: \"20"), "{text}");
    // --shards N: a matrix of N jobs; still a valid workflow.
    let three = OutDir::new("github-three");
    xtask_in(
        &course.root,
        &["autograder", "github", three.arg(), "--shards", "3"],
    )
    .assert()
    .success();
    let three_file = three
        .path
        .join("grading/.github/workflows/grade-classroom.yml");
    let text = std::fs::read_to_string(&three_file).unwrap();
    assert!(text.contains("shard: [1, 2, 3]") && text.contains("--shard \"$SHARD/3\""));
    assert_valid_workflow(&three_file);
    let bad = OutDir::new("github-bad");
    xtask_in(
        &course.root,
        &[
            "autograder",
            "github",
            bad.arg(),
            "--deadline",
            "tomorrow\"\n  x: y",
        ],
    )
    .assert()
    .code(2)
    .stderr(predicates::str::contains("not an ISO 8601 date"));
    assert!(!bad.path.exists());

    // Points when grading could not run: an error worth zero of the course's points.
    let missing = out.path.join("missing.json");
    let log = out.path.join("grader.log");
    std::fs::write(&log, "error: the submission is not a course").unwrap();
    let res = xtask_in(
        &course.root,
        &[
            "autograder",
            "classroom-result",
            missing.to_str().unwrap(),
            "--log",
            log.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    assert!(res.status.success());
    let v = decode_result(&String::from_utf8(res.stdout).unwrap());
    assert_eq!(v["status"], "error");
    assert!(v["max_score"].as_u64().unwrap() > 0);
    assert_eq!(v["tests"][0]["score"], 0);
    assert!(
        v["tests"][0]["message"]
            .as_str()
            .unwrap()
            .contains("not a course")
    );
}

/// Runs the template workflow's two grader commands in `handout`, as its steps do (the grade's
/// standard error to `grader.log`), and returns the JSON report and the points reported.
fn run_template_steps(
    handout: &Path,
    calls: &[Vec<String>],
) -> (serde_json::Value, serde_json::Value) {
    let args = |i: usize| calls[i].iter().map(String::as_str).collect::<Vec<_>>();
    let grade = xtask_in(handout, &args(0)).output().unwrap();
    std::fs::write(handout.join("grader.log"), &grade.stderr).unwrap();
    let report: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(handout.join("report.json")).unwrap_or_else(|e| {
            panic!(
                "no report.json ({e}):\n{}",
                String::from_utf8_lossy(&grade.stderr)
            )
        }),
    )
    .unwrap();
    let points = xtask_in(handout, &args(1)).output().unwrap();
    assert!(points.status.success());
    let line = String::from_utf8(points.stdout).unwrap();
    (report, decode_result(&line))
}

#[test]
fn the_github_classroom_template_reports_the_handouts_visible_points() {
    let course = Scratch::new("github-template");
    let out = OutDir::new("github-template");
    xtask_in(&course.root, &["autograder", "github", out.arg()])
        .assert()
        .success();
    let template =
        std::fs::read_to_string(out.path.join("template/.github/workflows/classroom.yml")).unwrap();
    let calls = grader_invocations(&template);
    assert_eq!(calls[0][0], "grade", "{calls:?}");
    assert_eq!(
        calls[1][..2],
        ["autograder", "classroom-result"],
        "{calls:?}"
    );

    // A student's repository: the handout, with no solutions, hidden checks or secret.
    let work = OutDir::new("github-student");
    let student = work.path.join("student");
    handout(&course, &student);
    assert!(!student.join("solutions").exists());

    let total = |v: &serde_json::Value| -> u64 {
        v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["score"].as_u64().unwrap())
            .sum()
    };
    // The stubs: no points, out of the handout's visible points.
    let (report, points) = run_template_steps(&student, &calls);
    assert_valid_report(&report, "the template's report");
    assert_eq!(report["score"], 0);
    assert!(report["max_score"].as_u64().unwrap() > 0);
    assert_eq!(total(&points), 0);
    assert_eq!(points["max_score"], report["max_score"]);
    assert!(
        !report.to_string().contains("\"hidden\":true"),
        "the handout graded a hidden check"
    );

    // Lesson 1 solved: its visible points, and only those.
    solve_lesson01(&course, &student.join("exercises"));
    let (report, points) = run_template_steps(&student, &calls);
    let l1 = report["lessons"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["id"] == "lesson01")
        .unwrap();
    assert!(l1["max_score"].as_u64().unwrap() > 0);
    assert_eq!(l1["score"], l1["max_score"], "lesson 1 is solved");
    assert_eq!(report["score"], l1["score"]);
    assert_eq!(total(&points), report["score"].as_u64().unwrap());
    assert_eq!(points["max_score"], report["max_score"]);

    // The grading workflow's feedback reads a real report the same way: its totals, per lesson.
    let feedback = xtask_in(
        &student,
        &["autograder", "classroom-feedback", "report.json"],
    )
    .output()
    .unwrap();
    assert!(feedback.status.success());
    let md = String::from_utf8(feedback.stdout).unwrap();
    assert!(
        md.contains(&format!(
            ": {}/{} points\n",
            report["score"], report["max_score"]
        )),
        "{md}"
    );
    assert!(
        md.contains(&format!(" | {}/{} |\n", l1["score"], l1["max_score"])),
        "{md}"
    );
}

/// Lesson 1's reference solution, except that `draw_head` (which most checks call) first copies
/// its own check executable over every file of every class-run build cache it can find under the
/// grader's scratch folder `grader_tmp`: if that worked, the next student whose lesson 1 has the
/// same sources as an earlier one would be graded with this student's code.
fn poisoning_lesson01(course: &Scratch, grader_tmp: &Path) -> String {
    let solution = std::fs::read_to_string(
        course
            .root
            .join("solutions")
            .join(L1)
            .join("src/exercises.rs"),
    )
    .unwrap();
    let renamed = solution.replacen("pub fn draw_head(", "fn draw_head_honest(", 1);
    assert_ne!(
        renamed, solution,
        "the lesson 1 solution changed: update this attack"
    );
    format!(
        r#"{renamed}
pub fn draw_head(rng: &mut RandomState, c: usize, hs: usize, scale: f64) -> Head {{
    if let Ok(me) = std::env::current_exe() {{
        let ls = |dir: &std::path::Path| -> Vec<std::path::PathBuf> {{
            std::fs::read_dir(dir)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .collect()
        }};
        for cache in ls(std::path::Path::new({grader_tmp:?})) {{
            if cache.to_string_lossy().contains("class-builds") {{
                for build in ls(&cache) {{
                    for exe in ls(&build) {{
                        let _ = std::fs::copy(&me, &exe);
                    }}
                }}
            }}
        }}
    }}
    draw_head_honest(rng, c, hs, scale)
}}
"#
    )
}

/// A student graded between two students with the same sources tries to swap the build they share
/// for their own: the sandbox keeps checks away from the run's build cache, so the later student
/// reuses the earlier one's build untouched and gets exactly its verdicts. (Checked by opening the
/// checks' sandbox to the whole file system: the attack then changes the kept build; without the
/// cache's hash check the last student scored 27, with it the lesson was built again, 3 builds.)
#[test]
fn a_student_cannot_swap_the_build_later_students_reuse() {
    let course = Scratch::new("class-poison");
    if !support::has_sandbox() {
        return;
    }
    let work = OutDir::new("class-poison");
    let class = work.path.join("submissions");
    let pristine = work.path.join("pristine");
    handout(&course, &pristine);
    // Graded in this order, one at a time: the stubs, the attacker, the stubs again.
    for id in ["a-first", "b-attacker", "c-last"] {
        support::copy_dir(&pristine, &class.join(id));
    }
    let grader_tmp = support::temp_root().join("course-grader");
    std::fs::write(
        class
            .join("b-attacker/exercises")
            .join(L1)
            .join("src/exercises.rs"),
        poisoning_lesson01(&course, &grader_tmp),
    )
    .unwrap();
    let (out, gradebook, reports) = grade_class(&course, &class, &work.path, &["-j", "1"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let rows = read_csv(&gradebook);
    let total = |id: &str| {
        let row = rows.iter().find(|r| r["id"] == id).unwrap();
        assert_eq!(row["error"], "", "{id}\n{stderr}");
        row["total"].parse::<u32>().unwrap()
    };
    // The attacker's own code is honest and scores: its checks did run `draw_head`.
    assert!(total("b-attacker") > 0, "{stdout}\n{stderr}");
    assert_eq!(total("a-first"), 0);
    assert_eq!(
        total("c-last"),
        0,
        "the last student was graded with the attacker's code"
    );
    assert!(
        stdout.contains("Lesson builds: 2 run, 1 reused"),
        "{stdout}"
    );
    assert_eq!(
        graded_checks(&reports, "c-last"),
        graded_checks(&reports, "a-first")
    );
}

/// A mistake in the instructors' course stops a class run before any submission is touched, with
/// the file and line (a misspelled lesson folder gave every student 0 on that lesson, exit 0); two
/// entries that would share an id, or a report file, are refused, naming both. Exit 2, nothing
/// written either way.
#[test]
fn a_class_run_refuses_a_broken_course_and_clashing_ids_before_grading() {
    let course = Scratch::new("preflight");
    let work = OutDir::new("preflight");
    let class = work.path.join("class");
    handout(&course, &class.join("bob"));
    let gradebook = work.path.join("grades.csv");
    let reports = work.path.join("reports");
    let run = || {
        course
            .xtask(&[
                "grade",
                "--submissions",
                class.to_str().unwrap(),
                "--gradebook",
                gradebook.to_str().unwrap(),
                "--reports",
                reports.to_str().unwrap(),
            ])
            .output()
            .unwrap()
    };
    let refused = |out: &std::process::Output, says: &[&str]| {
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        for s in says {
            assert!(stderr.contains(s), "{s}: {stderr}");
        }
        assert!(
            !gradebook.exists() && !reports.exists(),
            "something was written"
        );
    };
    // A lesson folder misspelled in course.toml.
    let text = course.read("course.toml");
    let line = text
        .lines()
        .position(|l| l == "dir = \"lesson03-parallel-attention\"")
        .unwrap()
        + 1;
    course.write(
        "course.toml",
        &text.replacen(
            "dir = \"lesson03-parallel-attention\"",
            "dir = \"lesson03-paralel-attention\"",
            1,
        ),
    );
    refused(
        &run(),
        &[&format!(
            "course.toml:{line}: lesson `lesson03` names the folder"
        )],
    );
    // A check renamed in course.toml only.
    let renamed = text.replacen(
        "name = \"head_size_of_gpt2_small\"",
        "name = \"head_size_of_gpt2_smal\"",
        1,
    );
    assert_ne!(renamed, text);
    course.write("course.toml", &renamed);
    refused(
        &run(),
        &[
            "the check `head_size_of_gpt2_smal` is no test function of exercises/lesson02-split-heads/tests/checks.rs",
        ],
    );
    course.write("course.toml", &text);
    // `bob/` and `bob.zip`.
    zip_dir(&class.join("bob"), "", &class.join("bob.zip"));
    refused(
        &run(),
        &["two submissions would get the id `bob`", "bob.zip"],
    );
    // `Bob smith/` and `bob_smith/`: one report file once an id is a file name.
    std::fs::remove_file(class.join("bob.zip")).unwrap();
    std::fs::rename(class.join("bob"), class.join("Bob smith")).unwrap();
    crate::support::copy_dir(&class.join("Bob smith"), &class.join("bob_smith"));
    refused(
        &run(),
        &[
            "Bob smith (id `Bob smith`) and ",
            "bob_smith (id `bob_smith`) would write their reports to the same file, \
             `bob_smith.json`",
            "help: rename one of them",
        ],
    );
}
