//! A class graded with a roster (`grade --submissions DIR --roster FILE.csv`) and its gradebook in
//! each layout (`--gradebook-format csv|canvas|moodle`): every student of the roster gets a row,
//! a submission it does not list is graded and named, two entries with one id are told apart by
//! the roster's `submission` column, and no cell of any layout starts like a formula.
//!
//! To keep the suite short, one class is graded on lesson 2 only, once per layout; the runs that
//! only check names grade archives that cannot be opened (no build).

use crate::class_cli::{handout, read_csv, zip_dir};
use crate::support::{self, OutDir, Scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const L2: &str = "lesson02-split-heads";

/// The reference solution's exercise file of lesson 2 copied over a handout's stubs.
fn solve_lesson02(course: &Scratch, exercises: &Path) {
    let file = Path::new("src").join("exercises.rs");
    std::fs::copy(
        course.root.join("solutions").join(L2).join(&file),
        exercises.join(L2).join(&file),
    )
    .unwrap();
}

/// `grade --submissions CLASS 2 --gradebook-format FORMAT` and `extra` arguments, the gradebook
/// and the reports written under `work` (named for the format): the output and the gradebook.
fn grade_as(
    course: &Scratch,
    class: &Path,
    work: &Path,
    format: &str,
    extra: &[&str],
) -> (std::process::Output, PathBuf) {
    let gradebook = work.join(format!("{format}.csv"));
    let reports = work.join(format!("reports-{format}"));
    let mut args = vec![
        "grade",
        "--submissions",
        class.to_str().unwrap(),
        "2",
        "--gradebook-format",
        format,
        "--gradebook",
        gradebook.to_str().unwrap(),
        "--reports",
        reports.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    (course.xtask(&args).output().unwrap(), gradebook)
}

/// Every record of a CSV file, its header first.
fn records(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap();
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_owned).collect())
        .collect()
}

/// No cell of the CSV file at `path` starts like a spreadsheet formula.
fn assert_inert(path: &Path) {
    for rec in records(path) {
        for cell in rec {
            assert!(
                !cell.starts_with(['=', '+', '-', '@', '\t', '\r']),
                "{}: {cell:?}",
                path.display()
            );
        }
    }
}

fn text(out: &std::process::Output) -> String {
    format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Alice and bob-a hand in lesson 2 solved (bob-a as `bob.zip`), bob-b the stubs (the folder
/// `bob`), carol nothing; `=SUM(1+1)*cmd.zip` (the stubs) is nobody's in the roster. Canvas' and
/// Moodle's layouts get the same roster and entries of the same names that cannot be opened
/// (graded 0 without a build: their points are the csv layout's, unit-tested in each layout).
#[test]
fn a_roster_run_lists_every_student_and_fills_each_lms_gradebook() {
    let course = Scratch::new("roster");
    let work = OutDir::new("roster");
    let class = work.path.join("class");
    let pristine = work.path.join("pristine");
    handout(&course, &pristine);
    support::copy_dir(&pristine, &class.join("alice"));
    solve_lesson02(&course, &class.join("alice/exercises"));
    zip_dir(&class.join("alice"), "", &class.join("bob.zip"));
    support::copy_dir(&pristine, &class.join("bob"));
    let stray = "=SUM(1+1)*cmd";
    zip_dir(&pristine, "", &class.join(format!("{stray}.zip")));
    // As Excel saves it: a byte order mark and CRLF line ends; ids with spaces around.
    let roster = work.path.join("roster.csv");
    std::fs::write(
        &roster,
        "\u{feff}id,name,email,canvas_id,sis_user_id,sis_login_id,section,submission\r\n \
         alice ,\"Liddell, Alice\",alice@uni.edu,101,S101,aliddell,A,\r\n\
         bob-a,Bob A,boba@uni.edu,102,S102,boba,A,bob.zip\r\n\
         bob-b,\"=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",bobb@uni.edu,103,S103,bobb,@B,bob\r\n\
         carol,Carol,carol@uni.edu,104,S104,carol,B,\r\n",
    )
    .unwrap();
    let with_roster = ["--roster", roster.to_str().unwrap()];

    // The course's CSV.
    let (out, gradebook) = grade_as(&course, &class, &work.path, "csv", &with_roster);
    let all = text(&out);
    assert_eq!(out.status.code(), Some(0), "{all}");
    assert!(
        all.contains(&format!(
            "the submission `{stray}.zip` is not in the roster {}",
            roster.display()
        )),
        "{all}"
    );
    assert_inert(&gradebook);
    let rows = read_csv(&gradebook);
    let by_id: BTreeMap<&str, &BTreeMap<String, String>> =
        rows.iter().map(|r| (r["id"].as_str(), r)).collect();
    let stray_id = format!("'{stray}");
    assert_eq!(
        by_id.keys().copied().collect::<Vec<_>>(),
        ["'=SUM(1+1)*cmd", "alice", "bob-a", "bob-b", "carol"],
        "{all}"
    );
    let max: u32 = by_id["alice"]["max"].parse().unwrap();
    assert!(max > 0);
    let cells = |id: &str, cols: &[&str]| -> Vec<String> {
        cols.iter().map(|c| by_id[id][*c].clone()).collect()
    };
    let cols = ["submission", "status", "roster", "total", "lesson02"];
    let full = max.to_string();
    assert_eq!(
        cells("alice", &cols),
        ["alice", "ok", "listed", &full, &full]
    );
    assert_eq!(
        cells("bob-a", &cols),
        ["bob.zip", "ok", "listed", &full, &full]
    );
    assert_eq!(cells("bob-b", &cols), ["bob", "ok", "listed", "0", "0"]);
    assert_eq!(cells("carol", &cols), ["", "missing", "listed", "0", "0"]);
    assert_eq!(
        cells(&stray_id, &cols),
        [&format!("'{stray}.zip"), "ok", "not_in_roster", "0", "0"]
    );
    // The roster's columns, carried and made inert.
    assert_eq!(by_id["alice"]["name"], "Liddell, Alice");
    assert_eq!(by_id["bob-b"]["name"], "'=HYPERLINK(\"http://evil\",\"x\")");
    assert_eq!(by_id["bob-b"]["section"], "'@B");
    assert_eq!(by_id["carol"]["email"], "carol@uni.edu");
    assert_eq!(by_id[stray_id.as_str()]["email"], "");
    // Each graded student's report is named and marked with the roster's id.
    let reports = work.path.join("reports-csv");
    for id in ["alice", "bob-a", "bob-b"] {
        let v: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(reports.join(format!("{id}.json"))).unwrap(),
        )
        .unwrap();
        support::assert_valid_report(&v, id);
        assert_eq!(v["student"], id);
    }
    assert!(!reports.join("carol.json").exists());
    // The class page names the student who handed nothing in under "Missing students".
    let class = std::fs::read_to_string(reports.join("index.html")).unwrap();
    let missing = class.split("<h2>Missing students</h2>").nth(1).unwrap();
    let missing = missing.split("<h2>").next().unwrap();
    assert!(missing.contains("carol"), "{missing}");
    assert!(!missing.contains("alice"), "{missing}");
    assert!(
        all.contains("1 of the roster's 4 student(s) handed nothing in"),
        "{all}"
    );

    // Entries of the same names that cannot be opened; this time alice hands in nothing and
    // carol an unreadable archive.
    let class = work.path.join("unreadable");
    std::fs::create_dir_all(class.join("bob")).unwrap();
    for name in ["bob.zip", "carol.zip", &format!("{stray}.zip")] {
        std::fs::write(class.join(name), b"not an archive").unwrap();
    }

    // Canvas: its five identity columns, one column per lesson, a Points Possible line, every
    // roster student (the stray submission left out).
    let (out, gradebook) = grade_as(&course, &class, &work.path, "canvas", &with_roster);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_inert(&gradebook);
    let canvas = records(&gradebook);
    assert_eq!(
        canvas[0],
        [
            "Student",
            "ID",
            "SIS User ID",
            "SIS Login ID",
            "Section",
            "lesson02"
        ]
    );
    assert_eq!(canvas[1], ["Points Possible", "", "", "", "", &full]);
    assert_eq!(
        canvas[2..],
        [
            ["Liddell, Alice", "101", "S101", "aliddell", "A", "0"],
            ["Bob A", "102", "S102", "boba", "A", "0"],
            [
                "'=HYPERLINK(\"http://evil\",\"x\")",
                "103",
                "S103",
                "bobb",
                "'@B",
                "0"
            ],
            ["Carol", "104", "S104", "carol", "B", "0"],
        ]
    );

    // Moodle: the email as identifier, one column per lesson.
    let (out, gradebook) = grade_as(&course, &class, &work.path, "moodle", &with_roster);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_inert(&gradebook);
    assert_eq!(
        records(&gradebook),
        [
            ["Email address", &format!("lesson02 (out of {full})")],
            ["alice@uni.edu", "0"],
            ["boba@uni.edu", "0"],
            ["bobb@uni.edu", "0"],
            ["carol@uni.edu", "0"],
        ]
    );
}

/// Without a roster, Canvas' and Moodle's gradebooks name each student by the submission's id,
/// which is the student's choice: a name that starts like a formula is made text.
#[test]
fn lms_gradebooks_without_a_roster_keep_a_submissions_name_inert() {
    let course = Scratch::new("roster-names");
    let work = OutDir::new("roster-names");
    let class = work.path.join("class");
    std::fs::create_dir_all(&class).unwrap();
    // Archives that cannot be opened: rows of 0 points without a build.
    for name in ["=SUM(1+1).zip", "-2+3.zip", "@cmd.tgz", "plain.zip"] {
        std::fs::write(class.join(name), b"not an archive").unwrap();
    }
    let (out, gradebook) = grade_as(&course, &class, &work.path, "canvas", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_inert(&gradebook);
    let canvas = records(&gradebook);
    assert_eq!(canvas[1][0], "Points Possible");
    let students: Vec<&str> = canvas[2..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(students, ["'-2+3", "'=SUM(1+1)", "'@cmd", "plain"]);
    assert!(canvas[2..].iter().all(|r| r[1..] == ["", "", "", "", "0"]));

    let (out, gradebook) = grade_as(&course, &class, &work.path, "moodle", &[]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert_inert(&gradebook);
    let moodle = records(&gradebook);
    assert_eq!(moodle[0][0], "Username");
    assert!(
        moodle[0][1].starts_with("lesson02 (out of "),
        "{:?}",
        moodle[0]
    );
    let users: Vec<&str> = moodle[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(users, ["'-2+3", "'=SUM(1+1)", "'@cmd", "plain"]);
}

/// A mistake in the roster is the instructor's: exit 2 before anything is graded, naming the
/// file and the line, nothing written.
#[test]
fn roster_mistakes_stop_a_class_run_before_grading() {
    let course = Scratch::new("roster-refused");
    let work = OutDir::new("roster-refused");
    let class = work.path.join("class");
    handout(&course, &class.join("bob"));
    let roster = work.path.join("roster.csv");
    let at = |line: u32| format!("{}:{line}: ", roster.display());
    let refused = |text: &str, format: &str, says: &str| {
        std::fs::write(&roster, text).unwrap();
        let (out, gradebook) = grade_as(
            &course,
            &class,
            &work.path,
            format,
            &["--roster", roster.to_str().unwrap()],
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(says), "{text}: {says}\n{stderr}");
        assert!(stderr.contains("help: "), "{stderr}");
        assert!(
            !gradebook.exists() && !work.path.join(format!("reports-{format}")).exists(),
            "{text}: something was written"
        );
    };
    refused(
        "email,name\nbob@x,Bob\n",
        "csv",
        &format!("{}the roster has no `id` column", at(1)),
    );
    refused(
        "id,email\nbob,b@x\nann,a@x\nbob,c@x\n",
        "csv",
        &format!("{}the id `bob` appears twice (first at line 2)", at(4)),
    );
    refused(
        "id\nann\nev\x1b[2Je\n",
        "csv",
        &format!(
            "{}the id `ev\\u{{1b}}[2Je` holds a control character",
            at(3)
        ),
    );
    refused(
        "id,email\nbob,b@x\nann,\n",
        "moodle",
        &format!("{}the student `ann` has no `email`", at(3)),
    );
    // `bob/` and `bob.zip`: the roster must say which is bob's.
    zip_dir(&class.join("bob"), "", &class.join("bob.zip"));
    refused(
        "id\nbob\n",
        "canvas",
        &format!("{}two submissions would be `bob`'s", at(2)),
    );
    // --gradebook-format belongs to a class run.
    let out = course
        .xtask(&["grade", "--gradebook-format", "canvas"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--submissions"));
}
