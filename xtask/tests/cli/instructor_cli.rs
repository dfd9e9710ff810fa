//! The instructor commands on real scratch copies of the course: `bless`, `check`, `new`, `dist`
//! and `grade --submission`.
//!
//! The scratch copies share one target directory and run at the same time: every build there
//! takes its turn under the grader's lock and runs checks through names of its own (see
//! `grade_cli::copies_sharing_a_target_folder_each_run_their_own_checks`).

use crate::support::{self, OutDir, Scratch, json_of, shared_target, statuses, tree_of, xtask_in};

use predicates::prelude::*;
use std::path::Path;

const L2: &str = "exercises/lesson02-split-heads";
const SPLIT_SNAP: &str =
    "exercises/lesson02-split-heads/tests/snapshots/lesson02__checks__split_moves_data.snap";
const HIDDEN_CHECK: &str = "split_heads_three_heads_of_a_new_shape";

fn stdout_of(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn pending_snapshots(
    tree: &std::collections::BTreeMap<std::path::PathBuf, Vec<u8>>,
) -> Vec<String> {
    tree.keys()
        .map(|p| p.to_string_lossy().into_owned())
        .filter(|p| p.ends_with(".snap.new") || p.ends_with(".pending-snap"))
        .collect()
}

/// The manifest's hash of `rel` and the file's actual hash.
fn manifest_entry(root: &Path, rel: &str) -> (Option<String>, String) {
    let manifest = std::fs::read_to_string(root.join("checks.sha256")).unwrap();
    let listed = manifest
        .lines()
        .find_map(|l| l.strip_suffix(&format!("  {rel}")).map(str::to_owned));
    let actual = hmac_sha256::Hash::hash(&std::fs::read(root.join(rel)).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    (listed, actual)
}

#[test]
fn bless_check_catches_a_stale_snapshot_and_bless_fixes_it_reproducibly() {
    let s = Scratch::new("bless");
    let pristine = s.read(SPLIT_SNAP);
    s.write(SPLIT_SNAP, &pristine.replace("10203", "10204"));
    let orphan = format!("{L2}/tests/snapshots/lesson02__checks__no_such_check.snap");
    s.write(&orphan, "---\nsource: x\n---\nshape (1)\n[0] 1\n");
    // A misconception record as another CPU may write it: a number in a message that differs in
    // its last digits only (another summation order). It is not stale, and bless keeps it.
    let records = format!("{L2}/tests/snapshots/misconceptions.jsonl");
    let other_cpu = s
        .read(&records)
        .replace("by 0.20880644901501857", "by 0.2088064490150");
    assert_ne!(other_cpu, s.read(&records), "the record to perturb is gone");
    s.write(&records, &other_cpu);

    // --check names the stale and the orphaned snapshot, with a short diff, and changes nothing.
    let failed_check = || {
        let out = s.xtask(&["bless", "--check", "lesson02"]).assert().code(1);
        stdout_of(out.get_output())
    };
    let before = s.snapshot_tree();
    let text = failed_check();
    assert!(
        text.contains(&format!("would change {SPLIT_SNAP}")),
        "{text}"
    );
    assert!(text.contains("-[1,1,2] 10202 10204"), "{text}");
    assert!(text.contains("+[1,1,2] 10202 10203"), "{text}");
    assert!(text.contains(&format!("would remove {orphan}")), "{text}");
    assert!(!text.contains("misconceptions.jsonl"), "{text}");
    assert!(
        before == s.snapshot_tree(),
        "bless --check changed the course"
    );

    // bless regenerates from the solution, deletes the orphan and updates the manifest.
    s.xtask(&["bless", "lesson02"])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!(
            "changed      {SPLIT_SNAP}"
        )))
        .stdout(predicate::str::contains(format!("removed      {orphan}")));
    assert_eq!(s.read(SPLIT_SNAP), pristine);
    assert_eq!(s.read(&records), other_cpu);
    assert!(!s.root.join(&orphan).exists());
    let (listed, actual) = manifest_entry(&s.root, SPLIT_SNAP);
    assert_eq!(listed.as_deref(), Some(actual.as_str()));
    let blessed = s.snapshot_tree();
    assert!(pending_snapshots(&blessed).is_empty());
    assert!(
        !String::from_utf8_lossy(&blessed[Path::new("checks.sha256")]).contains("no_such_check")
    );

    // A second bless changes nothing, byte for byte, and --check is now happy.
    s.xtask(&["bless", "lesson02"])
        .assert()
        .success()
        .stdout(predicate::str::contains("Nothing to bless"));
    assert!(blessed == s.snapshot_tree(), "a second bless changed files");
    s.xtask(&["bless", "--check", "lesson02"])
        .assert()
        .success()
        .stdout(predicate::str::contains("All snapshots are fresh."));

    // A hidden check that only asserts is refused: an assertion's observation is the check
    // process's own word, which student code in that process could write.
    let hidden = "solutions/lesson02-split-heads/tests/hidden/checks.rs";
    let asserts_only = "use course_check::assert_eq;\nuse lesson02::setup::labelled;\nuse lesson02::*;\n\n\
        #[test]\nfn split_heads_three_heads_of_a_new_shape() {\n    let _proof = course_check::proof();\n    \
        assert_eq!(split_heads(labelled(3, 5, 12).view(), 3).unwrap().shape(), &[3, 3, 5, 4]);\n}\n";
    s.write(hidden, asserts_only);
    let before = s.snapshot_tree();
    let text = failed_check();
    assert!(
        text.contains(&format!(
            "hidden check(s) that compare no snapshot: {HIDDEN_CHECK}."
        )),
        "{text}"
    );
    s.xtask(&["bless", "lesson02"]).assert().code(1);
    assert!(before == s.snapshot_tree(), "a refused bless wrote files");
}

/// Also the fairness proof: a variant that can draw T = 1, where merging without the transpose
/// is right, gives that mistake points for some students' ids only.
#[test]
fn check_catches_a_leaked_solution_and_an_unfair_variant() {
    let s = Scratch::new("leak");
    s.write(
        &format!("{L2}/src/exercises.rs"),
        &s.read("solutions/lesson02-split-heads/src/exercises.rs"),
    );
    let variants = "solutions/lesson02-split-heads/tests/hidden/variants.rs";
    let fair = s.read(variants);
    let t_from_two = "        v.between(1, 4),\n        v.between(2, 5),\n";
    assert!(
        fair.contains(t_from_two),
        "the variants changed: update this test"
    );
    s.write(
        variants,
        &fair.replacen(
            t_from_two,
            "        v.between(1, 4),\n        v.between(1, 5),\n",
            1,
        ),
    );
    let out = s
        .xtask(&["check", "lesson02"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let text = stdout_of(&out);
    assert!(
        text.contains("FAIL stubs grade not_started on every check"),
        "{text}"
    );
    for check in [
        "split_heads_moves_data",
        "merge_heads_moves_data",
        HIDDEN_CHECK,
    ] {
        assert!(
            text.contains(&format!(
                "lesson02/{check}: the stub passes this check: a solution of"
            )),
            "{check} not reported as leaked:\n{text}"
        );
    }
    assert!(
        text.contains("ok   reference solutions get full marks"),
        "{text}"
    );
    assert!(
        text.contains("ok   snapshots are fresh and none is orphaned"),
        "{text}"
    );
    assert!(text.contains("FAIL variant checks are fair"), "{text}");
    let unfair = text
        .lines()
        .find(|l| l.contains("misconception `merge-without-transpose` (exercise `merge_heads`) passes the variant check `merge_heads_variant`"))
        .unwrap_or_else(|| panic!("the unfair variant is not named:\n{text}"));
    assert!(
        unfair.contains("of 64 ids, so its points depend on the student: id-")
            && unfair.contains("T=1"),
        "{unfair}"
    );
    assert!(text.contains("Not ready:"), "{text}");
}

#[test]
fn a_scaffolded_lesson_passes_check() {
    let s = Scratch::new("new");
    let out = s
        .xtask(&["new", "rope", "--title", "Rotary \"position\" embeddings"])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = stdout_of(&out);
    let dir = std::fs::read_dir(s.root.join("exercises"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .find(|d| d.ends_with("-rope"))
        .unwrap_or_else(|| panic!("no exercises/lessonNN-rope:\n{text}"));
    let id = dir.trim_end_matches("-rope").to_owned();
    assert!(id.starts_with("lesson") && id.len() == 8, "{id}");
    for file in [
        format!("exercises/{dir}/Cargo.toml"),
        format!("exercises/{dir}/src/exercises.rs"),
        format!("exercises/{dir}/tests/{id}.rs"),
        format!("exercises/{dir}/examples/demo.rs"),
        format!("solutions/{dir}/tests/{id}.rs"),
        format!("solutions/{dir}/examples/demo.rs"),
    ] {
        assert!(s.root.join(&file).is_file(), "{file} missing");
    }
    let snapshot = s.read(&format!(
        "exercises/{dir}/tests/snapshots/{id}__checks__placeholder.snap"
    ));
    assert!(
        snapshot.starts_with(&format!(
            "---\nsource: exercises/{dir}/tests/checks.rs\n---\nshape (3, 3)\n"
        )),
        "{snapshot}"
    );
    assert!(
        s.read("course.toml")
            .contains(&format!("id = \"{id}\"\ndir = \"{dir}\""))
    );
    // Graded alone, it builds the crates it shares with the other lessons as they do.
    let drift = crate::shared_build::built_otherwise_alone(&s.root, std::slice::from_ref(&id));
    assert!(drift.is_empty(), "{}", drift.join("\n"));
    // A slug whose number is taken is refused.
    s.xtask(&["new", &format!("{id}-again"), "--title", "x"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("already exists"));

    let out = s
        .xtask(&["check", &id])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = stdout_of(&out);
    assert!(text.contains("Ready to publish"), "{text}");
    assert!(!text.contains("FAIL"), "{text}");

    // Its worked example runs with the solution (and draws), and with the exercise names the stub
    // to write on the line that needs it.
    let figures = OutDir::new("scaffold-svg");
    s.xtask(&["demo", &id, "--solutions", "--svg", figures.arg()])
        .assert()
        .success()
        .stdout(predicate::str::contains("placeholder(3) = (3, 3) matrix"));
    assert!(figures.path.join(format!("{id}-placeholder.svg")).is_file());
    s.xtask(&["demo", &id])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "placeholder(3) = (not computed: `placeholder` is not implemented yet",
        ))
        .stderr(predicate::str::contains("panicked").not());

    // Another copy of this course, graded once this one is gone, reuses its build of the new
    // lesson. Its kept build aside (see below), cargo recorded the exercises' files the solutions
    // include by this copy's absolute paths, and the grader points those records at the other
    // copy's same files (found the same by content). No other test builds this lesson, so its
    // executables change only if rebuilt.
    let later = s.copy("new-later");
    let kept = support::shared_target().join(format!("xtask/kept/{id}-solution"));
    assert!(kept.is_dir(), "no kept build in {}", kept.display());
    std::fs::remove_dir_all(&kept).unwrap();
    let built = || -> Vec<(String, std::time::SystemTime)> {
        let deps = support::shared_target().join("debug/deps");
        let mut files: Vec<_> = std::fs::read_dir(&deps)
            .unwrap()
            .flatten()
            .filter(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.starts_with(&id) || name.starts_with(&format!("lib{id}"))
            })
            .map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                (name, e.metadata().unwrap().modified().unwrap())
            })
            .collect();
        files.sort();
        files
    };
    let before = built();
    assert!(
        before
            .iter()
            .any(|(name, _)| name.starts_with(&format!("lib{id}_solution"))),
        "{before:?}"
    );
    drop(s);
    later
        .xtask(&["grade", "--solutions", &id])
        .assert()
        .success();
    assert_eq!(built(), before, "the solutions of {id} were built again");

    // An edit undone takes the build kept before the edit, not a third build.
    let lib = format!("solutions/{dir}/src/lib.rs");
    let original = later.read(&lib);
    later.write(&lib, &format!("{original}\n// An edit.\n"));
    let grade = || {
        later
            .xtask(&["grade", "--solutions", &id])
            .assert()
            .success()
            .stdout(predicate::str::contains("placeholder"));
    };
    grade();
    let edited = built();
    assert_ne!(edited, before, "an edited solution was not built");
    later.write(&lib, &original);
    grade();
    assert_eq!(built(), edited, "the undone edit of {id} was built again");
}

#[test]
fn the_handout_builds_grades_and_passes_its_tests() {
    let s = Scratch::new("dist");
    let handout = OutDir::new("handout");
    s.xtask(&["dist", handout.arg()])
        .assert()
        .success()
        .stdout(predicate::str::contains(format!("lesson02/{HIDDEN_CHECK}")));
    let h = &handout.path;

    // Nothing instructor-only is shipped.
    for gone in [
        "solutions",
        ".ci",
        "xtask/tests",
        "target",
        "docs/instructors.md",
        "docs/class-grading.md",
    ] {
        assert!(!h.join(gone).exists(), "{gone} was shipped");
    }
    let tree = tree_of(h);
    for (path, bytes) in &tree {
        let text = String::from_utf8_lossy(bytes);
        assert!(
            !text.contains(HIDDEN_CHECK) && !text.contains("lesson02_hidden"),
            "{} mentions the hidden check",
            path.display()
        );
    }
    let root_manifest = String::from_utf8_lossy(&tree[Path::new("Cargo.toml")]).into_owned();
    assert!(!root_manifest.contains("\"solutions/"), "{root_manifest}");
    let default_members = root_manifest.split("default-members").nth(1).unwrap_or("");
    let default_members = default_members.split(']').next().unwrap();
    assert!(
        default_members.contains("crates/attention")
            && !default_members.contains("xtask")
            && !default_members.contains("crates/grader"),
        "the handout's `cargo test` runs the core's tests, not the grader's: {default_members}"
    );
    if let Some(readme) = tree.get(Path::new("README.md")) {
        assert!(!String::from_utf8_lossy(readme).contains("## Instructor workflow"));
    }
    assert!(!String::from_utf8_lossy(&tree[Path::new("Cargo.lock")]).contains("-solution\""));
    // Nor what only the grader's own tests use.
    let grader = String::from_utf8_lossy(&tree[Path::new("xtask/Cargo.toml")]).into_owned();
    assert!(!grader.contains("dev-dependencies"), "{grader}");
    assert!(!String::from_utf8_lossy(&tree[Path::new("Cargo.lock")]).contains("\"assert_cmd\""));
    let manifest = String::from_utf8_lossy(&tree[Path::new("checks.sha256")]).into_owned();
    assert!(manifest.contains(SPLIT_SNAP));
    assert!(!manifest.contains("solutions/"));

    // The student's grader works there: every check not started, and the grade is official.
    let report = json_of(
        xtask_in(h, &["grade", "--format", "json"])
            .assert()
            .code(1)
            .get_output(),
    );
    assert_eq!(report["official"], true, "{}", report["modified_files"]);
    assert_eq!(report["score"], 0);
    let all = statuses(&report);
    assert!(all.len() > 20);
    assert!(!all.contains_key(HIDDEN_CHECK));
    for (name, (status, message)) in &all {
        assert_eq!(status, "not_started", "{name}: {message}");
    }
    // Instructor commands refuse politely, before anything is built.
    xtask_in(h, &["bless", "--check"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`cargo xtask bless` is an instructors' command",
        ));

    // The README's test command passes, with the instructors' locked versions. In the shared
    // target folder it reuses what `cargo test` built here (cargo keys a workspace member's build
    // by its path inside the workspace, and the handout's files keep their modification times),
    // so only the doc tests are compiled; the tests that read files (the core's fixtures) read
    // them from the handout, the package root they run in. A file missing from the handout still
    // fails: cargo rebuilds a crate whose source is gone, and a fixture is read where it should be.
    let mtime = |path: &Path| std::fs::metadata(path).unwrap().modified().unwrap();
    for (rel, source) in support::files(&s.root.join("crates")) {
        let shipped = h.join("crates").join(&rel);
        if shipped.is_file() {
            assert_eq!(
                mtime(&shipped),
                mtime(&source),
                "dist must ship crates/{rel} as it is, modification time included, or the \
                 handout's `cargo test` rebuilds the crate over the build `cargo test` is running"
            );
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = std::process::Command::new(cargo)
        .current_dir(h)
        .args(["test", "--locked", "--quiet"])
        .env("CARGO_TARGET_DIR", shared_target())
        .env_remove("INSTA_UPDATE")
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo test failed in the handout:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(tree == tree_of(h), "grading or testing changed the handout");
}

#[test]
fn a_submission_is_graded_against_the_pristine_checks_and_left_untouched() {
    let s = Scratch::new("submission");
    let handout = OutDir::new("submission");
    s.xtask(&["dist", handout.arg()]).assert().success();
    let h = &handout.path;

    // The student solved lesson 2, "adjusted" a snapshot and added a note.
    std::fs::write(
        h.join(L2).join("src/exercises.rs"),
        s.read("solutions/lesson02-split-heads/src/exercises.rs"),
    )
    .unwrap();
    let snap = std::fs::read_to_string(h.join(SPLIT_SNAP)).unwrap();
    std::fs::write(h.join(SPLIT_SNAP), snap.replace("10203", "99999")).unwrap();
    std::fs::write(h.join("NOTES.md"), "my notes\n").unwrap();
    let before = tree_of(h);

    // Which files each upload shape lists as changed, how the human report shows them, and a
    // huge file among them listed without being read: `official::entry`'s and
    // `report::human`'s tests.
    let report = json_of(
        s.xtask(&[
            "grade",
            "lesson02",
            "--submission",
            handout.arg(),
            "--format",
            "json",
        ])
        .assert()
        .success()
        .get_output(),
    );
    assert_eq!(report["graded"], "submission");
    assert_eq!(report["official"], true);
    // Without `--student`, the report names the student by the folder's name.
    assert_eq!(report["student"], h.file_name().unwrap().to_str().unwrap());
    let modified: Vec<String> = report["modified_files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        modified,
        [
            "NOTES.md (added)".to_owned(),
            format!("{SPLIT_SNAP} (changed)")
        ]
    );
    // Graded with the pristine snapshot, and with the hidden check.
    assert_eq!(report["score"], report["max_score"]);
    let all = statuses(&report);
    assert_eq!(all["split_heads_moves_data"].0, "passed");
    assert_eq!(all[HIDDEN_CHECK].0, "passed");
    assert!(before == tree_of(h), "grading changed the submission");

    // A huge file (sparse: it costs its author nothing) among the sources is refused without
    // reading it.
    let huge = |path: &std::path::Path| {
        std::fs::File::create(path)
            .unwrap()
            .set_len(64 << 30)
            .unwrap()
    };
    let big = h.join(L2).join("src/table.rs");
    huge(&big);
    s.xtask(&["grade", "2", "--submission", handout.arg()])
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .failure()
        .stderr(predicate::str::contains(format!(
            "{L2}/src/table.rs is larger than 4 MiB, the most a submission's source file may be"
        )));
    std::fs::remove_file(big).unwrap();
    // So are a thousand and one small ones.
    let many = h.join(L2).join("src/many");
    std::fs::create_dir(&many).unwrap();
    for i in 0..1001 {
        std::fs::write(many.join(format!("f{i}.rs")), "").unwrap();
    }
    s.xtask(&["grade", "2", "--submission", handout.arg()])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "the submission's sources (exercises/*/src) hold more than 1000 files",
        ));
    std::fs::remove_dir_all(many).unwrap();

    // A type error inside one exercise costs that exercise only, officially and locally, with
    // the compiler's first error; the stubs are put back in scratch copies, never in the handout.
    std::fs::write(h.join(SPLIT_SNAP), &snap).unwrap();
    let file = h.join(L2).join("src/exercises.rs");
    let solved = std::fs::read_to_string(&file).unwrap();
    let broken = solved.replacen(
        "pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {\n",
        "pub fn merge_heads(x: ArrayView4<f64>) -> Array3<f64> {\n    let heads: u32 = \"two\";\n",
        1,
    );
    assert_ne!(
        broken, solved,
        "the lesson 2 solution changed: update this test"
    );
    std::fs::write(&file, &broken).unwrap();
    let before = tree_of(h);
    let official = s.xtask(&[
        "grade",
        "2",
        "--submission",
        handout.arg(),
        "--format",
        "json",
    ]);
    let local = xtask_in(h, &["grade", "2", "--format", "json"]);
    for (what, mut grade) in [("official", official), ("local", local)] {
        let report = json_of(grade.assert().code(1).get_output());
        let lesson = &report["lessons"][0];
        assert_eq!(lesson["build"], "stubbed", "{what}: {report:#}");
        assert_eq!(
            lesson["stubbed"],
            serde_json::json!(["merge_heads"]),
            "{what}"
        );
        for ex in lesson["exercises"].as_array().unwrap() {
            if ex["name"] != "merge_heads" {
                assert_eq!(ex["score"], ex["max_score"], "{what}: {ex:#}");
                continue;
            }
            assert_eq!(ex["score"], 0, "{what}");
            for check in ex["checks"].as_array().unwrap() {
                assert_eq!(check["status"], "compile_error", "{what}: {check:#}");
                let message = check["message"].as_str().unwrap();
                assert!(
                    message.contains("error[E0308]: mismatched types")
                        && message.contains("let heads: u32 = \"two\";"),
                    "{what}: {message}"
                );
            }
        }
    }
    xtask_in(h, &["grade", "2"])
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "`merge_heads` does not compile: graded as its handed-out stub",
        ))
        .stdout(predicate::str::contains(
            "Next: fix the compile error in `merge_heads` (shown above), then grade again",
        ));
    assert!(before == tree_of(h), "grading changed the submission");
}

/// `bless` shows what it would write, old and new lines together even when a long block changed,
/// with a summary, and `--dry-run` writes nothing; a misconception that no longer trips a listed
/// check is refused with the course file's line to edit and the command to run.
#[test]
fn bless_shows_old_and_new_lines_and_says_how_to_fix_a_refusal() {
    let s = Scratch::new("bless-diff");
    let snap = format!("{L2}/tests/snapshots/lesson02__checks__split_batch_and_heads_differ.snap");
    let pristine = s.read(&snap);
    let perturbed: String = pristine
        .lines()
        .map(|l| {
            if l.starts_with('[') {
                format!("{l} 9")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let changed = perturbed.lines().filter(|l| l.ends_with(" 9")).count();
    assert!(
        changed > 16,
        "the snapshot has too few value lines to cut: {changed}"
    );
    s.write(&snap, &format!("{perturbed}\n"));
    let before = s.snapshot_tree();
    let out = s
        .xtask(&["bless", "--dry-run", "lesson02"])
        .assert()
        .success();
    let text = stdout_of(out.get_output());
    assert!(before == s.snapshot_tree(), "--dry-run wrote files");
    assert!(text.contains(&format!("would change {snap}")), "{text}");
    let shown: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.contains(&snap))
        .skip(1)
        .take_while(|l| l.starts_with("      "))
        .map(str::trim)
        .collect();
    // The first changed line, old then new, and the rest counted.
    let first = pristine.lines().find(|l| l.starts_with('[')).unwrap();
    assert_eq!(shown[0], format!("-{first} 9"), "{text}");
    assert_eq!(shown[1], format!("+{first}"), "{text}");
    assert!(
        shown.last().unwrap().ends_with("more changed line(s)"),
        "{text}"
    );
    assert!(
        text.contains(
            "Summary: 0 snapshot(s) to add, 1 to change, 0 to remove; 0 lesson(s) refused."
        ),
        "{text}"
    );

    // A check the misconception passes, listed as one that catches it.
    s.write(&snap, &pristine);
    let course = s.read("course.toml");
    let id = "id = \"merge-without-transpose\"";
    let line = course.lines().position(|l| l == id).unwrap() + 1;
    let listed = "checks = [\"merge_heads_batch_and_heads_differ\",";
    assert!(
        course.contains(listed),
        "course.toml changed: update this test"
    );
    s.write(
        "course.toml",
        &course.replacen(
            listed,
            "checks = [\"head_size_divides_width\", \"merge_heads_batch_and_heads_differ\",",
            1,
        ),
    );
    let out = s.xtask(&["bless", "lesson02"]).assert().code(1);
    let text = stdout_of(out.get_output());
    assert!(
        text.contains(&format!(
            "help: take `head_size_divides_width` out of its `checks` (course.toml:{line})"
        )),
        "{text}"
    );
    assert!(text.contains("then `cargo xtask bless lesson02`"), "{text}");
}

/// `check` runs the solutions' own tests: a reference that no longer reproduces its text's numbers
/// is not "ready to publish", and the failing test and the command that shows it are named. The
/// same run holds README's lesson table to course.toml: a lesson without its row fails, naming the
/// lesson and the row to add (one `check` for both: neither problem hides the other). And clippy
/// lints the solution's check target, which `--all-targets` leaves out (`test = false`).
#[test]
fn check_runs_the_solutions_own_tests_and_holds_the_readme_table() {
    let s = Scratch::new("check-own-tests");
    let target = "solutions/lesson01-why-heads/tests/lesson01.rs";
    let lint = "\n#[allow(dead_code)]\nfn planted_lint() -> u32 {\n    return 1;\n}\n";
    s.write(target, &format!("{}{lint}", s.read(target)));
    let test = "solutions/lesson01-why-heads/tests/reproduces_text.rs";
    let text = s.read(test);
    let changed = text.replacen("[[0.12 0.07 0.28", "[[0.13 0.07 0.28", 1);
    assert_ne!(
        changed, text,
        "lesson 1's text test changed: update this test"
    );
    s.write(test, &changed);
    with_readme(&s);
    let readme = s.read("README.md");
    let row = readme
        .lines()
        .find(|l| l.starts_with("| 1 | `exercises/lesson01-why-heads` |"))
        .expect("README has no row for lesson 1: update this test")
        .to_owned();
    s.write("README.md", &readme.replacen(&format!("{row}\n"), "", 1));
    let out = s.xtask(&["check", "lesson01"]).assert().code(1);
    let report = stdout_of(out.get_output());
    assert!(
        report.contains("FAIL the solutions' own tests pass (reproduces_text and the like)"),
        "{report}"
    );
    assert!(report.contains("lesson01-solution: failed: "), "{report}");
    assert!(
        report.contains(
            "see it with `cargo test -p lesson01-solution --test reproduces_text --test variant_seeds`"
        ),
        "{report}"
    );
    assert!(report.contains("Not ready"), "{report}");
    assert!(
        report.contains("FAIL reference solutions are clippy-clean")
            && report.contains("tests/lesson01.rs:")
            && report.contains("unneeded `return` statement"),
        "{report}"
    );
    assert!(
        report.contains("FAIL README.md's lesson table lists course.toml's lessons (1 problem(s))"),
        "{report}"
    );
    assert!(
        report.contains(
            "README.md's lesson table has no row for lesson01 (lesson01-why-heads): add this row"
        ),
        "{report}"
    );
    assert!(
        report.contains("| 1 | `exercises/lesson01-why-heads` | Why one head isn't enough |"),
        "{report}"
    );
}

/// The handout made from the real course (its docs and README included, which scratch copies
/// leave out) names no hidden check and no hidden target anywhere.
#[test]
fn the_real_handout_names_no_hidden_check() {
    let root = crate::support::course_root();
    let course = std::fs::read_to_string(root.join("course.toml")).unwrap();
    // Each hidden check's name, and its lesson's hidden test target (`<lesson id>_hidden`).
    let mut names = std::collections::BTreeSet::new();
    let mut lesson = "";
    for line in course.lines() {
        if let Some(id) = line
            .strip_prefix("id = \"")
            .and_then(|r| r.strip_suffix('"'))
        {
            lesson = id;
        }
        if line.contains("hidden = true")
            && let Some(name) = line
                .split("name = \"")
                .nth(1)
                .and_then(|r| r.split('"').next())
        {
            names.insert(name.to_owned());
            names.insert(format!("{lesson}_hidden"));
        }
    }
    assert!(
        !names.is_empty(),
        "course.toml lists no hidden check: nothing to look for"
    );
    let out = OutDir::new("real-handout");
    xtask_in(&root, &["dist", out.arg()]).assert().success();
    for (path, bytes) in tree_of(&out.path) {
        let text = String::from_utf8_lossy(&bytes);
        for name in &names {
            assert!(
                !text.contains(name.as_str()),
                "{} names `{name}`",
                path.display()
            );
        }
    }
}

/// The handout made from the real course carries only what a student uses: no benchmark, no
/// instructors' notes, nothing that names `solutions/` outside the grader's own source (which the
/// handout builds) and course.toml's comments (the file's format, shared with the instructors);
/// and every relative link of its README and docs leads to a file it holds.
#[test]
fn the_real_handout_readme_links_resolve_and_only_student_files_ship() {
    let out = OutDir::new("real-handout-files");
    xtask_in(&support::course_root(), &["dist", out.arg()])
        .assert()
        .success();
    let h = &out.path;
    let tree = tree_of(h);
    for gone in [
        "scripts",
        "docs/bench-core.md",
        "docs/bench-grade.md",
        "docs/bench-class.md",
        "docs/instructors.md",
        "docs/class-grading.md",
        "docs/feedback.md",
        "docs/architecture.md",
        "docs/threat-model.md",
    ] {
        assert!(!h.join(gone).exists(), "{gone} was shipped");
    }
    assert!(h.join("docs/report.schema.json").is_file());
    // The README is the student's page: short, no machine's figures, no benchmark.
    let readme = String::from_utf8_lossy(&tree[Path::new("README.md")]).into_owned();
    assert!(
        readme.lines().count() <= 150,
        "README: {} lines",
        readme.lines().count()
    );
    for maintainers in [
        "bench",
        "python3",
        "NumPy limited",
        "Xeon",
        "EPYC",
        "--solutions",
    ] {
        assert!(
            !readme.contains(maintainers),
            "the README says `{maintainers}`"
        );
    }
    for gone in [
        "crates/attention/benches",
        "crates/attention/examples/bench_mha.rs",
    ] {
        assert!(!h.join(gone).exists(), "{gone} was shipped");
    }
    // The student's help lists the student's commands only, and the instructors' are refused
    // at once (the instructors' own build of the grader, here, included).
    let help = xtask_in(h, &["--help"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let help = String::from_utf8(help).unwrap();
    for command in [
        "bless",
        "check",
        "new",
        "dist",
        "manifest",
        "secret",
        "similarity",
        "class-page",
    ] {
        assert!(
            !help
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{command} "))),
            "`{command}` in the handout's help:\n{help}"
        );
    }
    assert!(help.contains("reset"), "{help}");
    xtask_in(h, &["demo", "1", "--solutions"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("not in a student handout"));
    let mut checked = 0;
    for (path, bytes) in &tree {
        let rel = path.to_string_lossy().replace('\\', "/");
        let text = String::from_utf8_lossy(bytes);
        if !rel.starts_with("xtask/src/") && !rel.starts_with("crates/grader/src/") {
            for line in text.lines().filter(|l| l.contains("solutions/")) {
                assert!(
                    (rel == "course.toml" || rel == ".pristine/course.toml")
                        && line.trim_start().starts_with('#'),
                    "{rel} names solutions/, which the handout does not have: {line}"
                );
            }
        }
        if rel.ends_with(".md") {
            let dir = path.parent().unwrap_or(Path::new(""));
            for link in relative_links(&text) {
                checked += 1;
                assert!(
                    h.join(dir).join(&link).exists(),
                    "{rel} links to {link}, which the handout does not hold"
                );
            }
        }
    }
    assert!(
        checked > 0,
        "the handout's README and docs link to nothing: update this test"
    );
}

/// The relative targets of a Markdown text's links (`[text](target)`, `[label]: target`), without
/// their `#fragment`; web addresses and links within the page left out.
fn relative_links(text: &str) -> Vec<String> {
    let inline = text
        .split("](")
        .skip(1)
        .filter_map(|rest| rest.split(')').next());
    let reference = text
        .lines()
        .filter(|l| l.trim_start().starts_with('['))
        .filter_map(|l| l.split_once("]: ").map(|(_, target)| target));
    inline
        .chain(reference)
        .filter_map(|target| {
            let target = target.split_whitespace().next()?;
            let target = target.trim_matches(['<', '>']).split('#').next()?;
            let web = target.contains("://") || target.starts_with("mailto:");
            (!target.is_empty() && !web).then(|| target.to_owned())
        })
        .collect()
}

/// The course's README, which scratch copies leave out: the lesson table `new` adds to and
/// `check` holds to course.toml.
fn with_readme(s: &Scratch) {
    let readme = std::fs::read_to_string(support::course_root().join("README.md")).unwrap();
    s.write("README.md", &readme);
}

/// `new`, then `new-exercise`, then exactly what new-exercise's "Next:" says, step by step (each
/// step's wording checked, each edit the least it asks for, each command run as printed): the
/// lesson is ready to publish and grades the new exercise `not_started`. Bad requests are refused
/// with one `error:` line and change nothing.
#[test]
fn a_new_exercise_is_ready_once_its_next_steps_are_followed() {
    let s = Scratch::new("new-exercise");
    with_readme(&s);
    // Numbered 29, not the next free number: the copies share one target folder, and
    // `a_scaffolded_lesson_passes_check` needs the next free number's builds to be its own.
    let last_row = s
        .read("README.md")
        .lines()
        .rfind(|l| l.starts_with("| ") && l.contains("`exercises/lesson"))
        .expect("README.md's lesson table")
        .to_owned();
    s.xtask(&["new", "lesson29-rope", "--title", "Rotary embeddings"])
        .assert()
        .success();
    let course = s.read("course.toml");
    let dir = course
        .lines()
        .filter_map(|l| l.strip_prefix("dir = \"")?.strip_suffix("-rope\""))
        .next()
        .map(|d| format!("{d}-rope"))
        .unwrap_or_else(|| panic!("no lesson ...-rope in course.toml:\n{course}"));
    let id = dir.trim_end_matches("-rope").to_owned();
    let number: u32 = id.trim_start_matches("lesson").parse().unwrap();
    assert!(
        s.read("README.md").contains(&format!(
            "{last_row}\n| {number} | `exercises/{dir}` | Rotary embeddings |\n"
        )),
        "new did not add the lesson's row after the last one"
    );

    let before = s.snapshot_tree();
    for (lesson, name, says) in [
        ("lesson99", "rotate_pairs", "no lesson named `lesson99`"),
        (
            id.as_str(),
            "RotatePairs",
            "`RotatePairs` is not a Rust function name",
        ),
        (
            id.as_str(),
            "2pairs",
            "`2pairs` is not a Rust function name",
        ),
        (id.as_str(), "match", "`match` is not a Rust function name"),
        (
            id.as_str(),
            "placeholder",
            "exercise `placeholder` already exists",
        ),
        (
            id.as_str(),
            "split_heads",
            "exercise `split_heads` already exists (in lesson02",
        ),
    ] {
        let out = s.xtask(&["new-exercise", lesson, name]).assert().code(2);
        let err = String::from_utf8_lossy(&out.get_output().stderr).into_owned();
        assert!(err.starts_with("error: ") && err.contains(says), "{err}");
        assert_eq!(err.matches("error:").count(), 1, "{err}");
    }
    assert!(
        before == s.snapshot_tree(),
        "a refused new-exercise changed files"
    );

    let out = s
        .xtask(&["new-exercise", &id, "rotate_pairs"])
        .assert()
        .success();
    let text = stdout_of(out.get_output());
    let next: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "Next:")
        .skip(1)
        .map(str::trim)
        .collect();
    let (ex, so) = (format!("exercises/{dir}"), format!("solutions/{dir}"));
    assert_eq!(
        next,
        [
            format!(
                "1. In {ex}/src/exercises.rs, replace `rotate_pairs`'s placeholder contract (its \
                 doc comment and signature) with the exercise's own; keep its `todo!()` body."
            ),
            format!(
                "2. In {so}/src/exercises.rs, give `rotate_pairs` the same signature and a \
                 working body."
            ),
            format!(
                "3. In {ex}/tests/checks.rs, make `rotate_pairs_matches_snapshot` call it with \
                 the lesson's inputs; in course.toml, rewrite its hint."
            ),
            format!("4. Run `cargo xtask bless {id}`, then `cargo xtask check {id}`."),
        ],
        "{text}"
    );
    // The generated stub, reference and check, each the last item of its file.
    let replace_tail = |rel: &str, from: &str, with: &str| {
        let text = s.read(rel);
        let at = text
            .rfind(from)
            .unwrap_or_else(|| panic!("no `{from}` in {rel}:\n{text}"));
        s.write(rel, &format!("{}{with}", &text[..at]));
    };
    // Step 1: the contract (doc comment and signature) is the exercise's own; the body stays.
    replace_tail(
        &format!("{ex}/src/exercises.rs"),
        "/// `rotate_pairs(n)`",
        "/// Swaps the columns of each pair `(0, 1)`, `(2, 3)`, ... of `x`, shape `(r, c)` with `c`\n\
         /// even, into a new `(r, c)` matrix.\n\
         pub fn rotate_pairs(x: ndarray::ArrayView2<f64>) -> ndarray::Array2<f64> {\n    \
         todo!(\"rotate_pairs: build the (n, n) matrix of i * n + j\")\n}\n",
    );
    // Step 2: the same signature, a working body.
    replace_tail(
        &format!("{so}/src/exercises.rs"),
        "/// `rotate_pairs(n)`",
        "/// Swaps the columns of each pair `(0, 1)`, `(2, 3)`, ... of `x`, shape `(r, c)`.\n\
         pub fn rotate_pairs(x: ndarray::ArrayView2<f64>) -> ndarray::Array2<f64> {\n    \
         ndarray::Array2::from_shape_fn(x.dim(), |(i, j)| x[[i, j ^ 1]])\n}\n",
    );
    // Step 3: the check calls it with the lesson's inputs; the hint says how.
    replace_tail(
        &format!("{ex}/tests/checks.rs"),
        "#[test]\nfn rotate_pairs_matches_snapshot",
        "#[test]\nfn rotate_pairs_matches_snapshot() {\n    let _proof = course_check::proof();\n    \
         let x = ndarray::Array2::from_shape_fn((2, 4), |(i, j)| (10 * i + j) as f64);\n    \
         assert_exact_snapshot!(\"rotate_pairs\", rotate_pairs(x.view()));\n}\n",
    );
    let course = s.read("course.toml");
    let hint = "\"`ndarray::Array2::from_shape_fn((n, n), |(i, j)| (i * n + j) as f64)` builds it in one go.\"";
    assert!(course.contains(hint), "{course}");
    s.write(
        "course.toml",
        &course.replacen(
            hint,
            "\"Column `j` of the result is column `j ^ 1` of `x`.\"",
            1,
        ),
    );
    // Step 4: its commands, as printed.
    let commands: Vec<&str> = next[3].split('`').skip(1).step_by(2).collect();
    assert_eq!(commands.len(), 2, "{}", next[3]);
    let mut last = String::new();
    for command in commands {
        let args: Vec<&str> = command
            .strip_prefix("cargo xtask ")
            .unwrap_or_else(|| panic!("not a cargo xtask command: {command}"))
            .split_whitespace()
            .collect();
        let out = s.xtask(&args).output().unwrap();
        last = stdout_of(&out);
        assert!(
            out.status.success(),
            "`{command}` failed:\n{last}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert!(last.contains("Ready to publish"), "{last}");
    let snapshot = s.read(&format!(
        "{ex}/tests/snapshots/{id}__checks__rotate_pairs.snap"
    ));
    assert!(
        snapshot.ends_with("shape (2, 4)\n[0] 1 0 3 2\n[1] 11 10 13 12\n"),
        "bless did not take the new reference:\n{snapshot}"
    );

    // The student's grade: both exercises not started, and official (the manifest is current).
    let report = json_of(
        s.xtask(&["grade", &id, "--format", "json"])
            .assert()
            .code(1)
            .get_output(),
    );
    assert_eq!(report["official"], true, "{}", report["modified_files"]);
    let exercises: Vec<&str> = report["lessons"][0]["exercises"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(exercises, ["placeholder", "rotate_pairs"]);
    let all = statuses(&report);
    assert_eq!(
        all["rotate_pairs_matches_snapshot"].0, "not_started",
        "{all:?}"
    );
    assert_eq!(
        all["placeholder_matches_snapshot"].0, "not_started",
        "{all:?}"
    );
}
