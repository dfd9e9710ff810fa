use super::*;
use crate::official::class::fixture::{batch, graded};
use crate::official::roster::Roster;

const DEADLINE: &str = "2026-12-20T23:59:00+01:00";
const DAY: i64 = 86_400;

/// A policy of 10% a day down to 50%, lesson02 due a day later.
fn policy() -> Policy {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("late.toml"),
        format!(
            "deadline = \"{DEADLINE}\"\ndeduction = 10\ninterval = \"day\"\nfloor = 50\n\
             extensions = \"ext.csv\"\nsubmitted_at = \"submissions.csv\"\n\
             [lessons]\nlesson02 = \"2026-12-21T23:59:00+01:00\"\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("ext.csv"),
        "id,extension\nbo,2d\ncy,2026-12-30T00:00:00Z\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("submissions.csv"),
        "repository,commit,committed\nann,abc,2026-12-21T00:00:00+01:00\nzed,,no commit before the deadline\n",
    )
    .unwrap();
    Policy::load(&dir.path().join("late.toml")).unwrap()
}

/// `seconds` after the policy's deadline, in RFC 3339 (UTC).
fn after(seconds: i64) -> String {
    format_epoch(time::instant(DEADLINE).unwrap() + seconds)
}

#[test]
fn a_policy_reads_its_deadlines_extensions_and_times() {
    let p = policy();
    assert_eq!(
        p.deadline.at,
        time::instant("2026-12-20T22:59:00Z").unwrap()
    );
    assert_eq!(p.lessons["lesson02"].at - p.deadline.at, DAY);
    assert_eq!(p.extensions["bo"], Extension::Extra(2 * DAY));
    assert!(matches!(p.extensions["cy"], Extension::Until(_)));
    assert_eq!(p.times["ann"], "2026-12-21T00:00:00+01:00");
    assert!(!p.times.contains_key("zed"));
    assert_eq!(after(0), "2026-12-20T22:59:00Z");
}

#[test]
fn each_lesson_is_late_against_its_own_deadline_and_the_students_extension() {
    let p = policy();
    let earned = [
        ("lesson01".to_owned(), 10, 10),
        ("lesson02".to_owned(), 10, 10),
    ];
    let cost = |at: &str, ext| {
        let late = p.lateness(at, ext, &earned).unwrap();
        (late.of("lesson01"), late.of("lesson02"))
    };
    // Exactly at the deadline, then one second after.
    assert_eq!(cost(&after(0), None), (0.0, 0.0));
    assert_eq!(cost(&after(1), None), (1.0, 0.0));
    // lesson02 is due a day later: at its deadline it costs nothing, a second after, a day.
    assert_eq!(cost(&after(DAY), None), (1.0, 0.0));
    assert_eq!(cost(&after(DAY + 1), None), (2.0, 1.0));
    // At the floor.
    assert_eq!(cost(&after(30 * DAY), None), (5.0, 5.0));
    // Two more days: on time at the new deadline's edge, a day late one second after it.
    let two = Some(Extension::Extra(2 * DAY));
    assert_eq!(cost(&after(2 * DAY), two), (0.0, 0.0));
    assert_eq!(cost(&after(2 * DAY + 1), two), (1.0, 0.0));
    let until = Some(Extension::Until(time::instant(&after(DAY * 5)).unwrap()));
    assert_eq!(cost(&after(DAY * 5), until), (0.0, 0.0));
    assert_eq!(cost(&after(DAY * 5 + 1), until), (1.0, 1.0));
    let late = p.lateness(&after(DAY + 1), None, &earned).unwrap();
    let said = late.sentences().join("\n");
    assert!(
        said.contains(
            "lesson01: 2 day(s) after the deadline 2026-12-20T23:59:00+01:00: −2 point(s)"
        ),
        "{said}"
    );
}

#[test]
fn the_gradebook_takes_the_penalty_and_says_when_and_how_much() {
    let p = policy();
    let roster = Roster::parse(
        Path::new("roster.csv"),
        format!(
            "id,submitted_at,extension\nann,,\nbo,{},\ndi,{},1d\n",
            after(DAY + 1),
            after(DAY + 1)
        )
        .as_bytes(),
    )
    .unwrap();
    let mut rows = vec![
        graded("ann", &[("lesson01", 10), ("lesson02", 5)], 20),
        graded("bo", &[("lesson01", 10)], 20),
        graded("di", &[("lesson01", 7)], 20),
    ];
    for (i, r) in rows.iter_mut().enumerate() {
        r.enrolment = Enrolment::Listed(i);
        let mut report = crate::official::pages::fixture::report(crate::report::Build::Ok, vec![]);
        report.lessons = ["lesson01", "lesson02"]
            .iter()
            .map(|id| crate::report::LessonReport {
                id: (*id).to_owned(),
                score: r.lessons.get(*id).copied().unwrap_or(0),
                max_score: 10,
                ..report.lessons[0].clone()
            })
            .collect();
        r.report = Some(report);
    }
    let mut class = batch(&[("lesson01", 10), ("lesson02", 10)], rows, Some(roster));
    apply(&mut class, &p).unwrap();
    let csv = crate::official::gradebook::plain::render(
        &class,
        crate::official::gradebook::Missing::Zero,
    )
    .unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].ends_with(",error,submitted_at,late_penalty"),
        "{}",
        lines[0]
    );
    // ann: the times file, 1 minute after lesson01's deadline (a day), lesson02 on time.
    assert!(
        lines[1].starts_with("ann,,,ann.zip,14,20,ok,listed,9,10,5,10,"),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].ends_with(",2026-12-21T00:00:00+01:00,1"),
        "{}",
        lines[1]
    );
    // bo: the roster's time, a day and a second late, with two days more (the file's): on time.
    assert!(lines[2].ends_with(",0"), "{}", lines[2]);
    // di: the roster's extension of a day; a second past it on lesson01; 7 of 10 loses 1.
    assert!(lines[3].contains(",6,10,0,10,"), "{}", lines[3]);
}

#[test]
fn a_gradescope_submission_tells_its_time() {
    let dir = tempfile::tempdir().unwrap();
    let meta = dir.path().join("submission_metadata.json");
    assert_eq!(gradescope_time(&meta), None);
    std::fs::write(
        &meta,
        r#"{"id": 1, "created_at": "2026-12-21T00:00:00.123456+01:00", "users": []}"#,
    )
    .unwrap();
    assert_eq!(
        gradescope_time(&meta).as_deref(),
        Some("2026-12-21T00:00:00.123456+01:00")
    );
    // A policy's Gradescope folder: one metadata file per student, `<id>.json`.
    let folder = dir.path().join("gradescope");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(&meta, folder.join("ann.json")).unwrap();
    std::fs::write(
        dir.path().join("late.toml"),
        format!("deadline = \"{DEADLINE}\"\ndeduction = 10\ninterval = \"hour\"\ngradescope = \"gradescope\"\n"),
    )
    .unwrap();
    let p = Policy::load(&dir.path().join("late.toml")).unwrap();
    assert_eq!(p.times["ann"], "2026-12-21T00:00:00.123456+01:00");
    std::fs::write(&meta, r#"{"created_at": "yesterday"}"#).unwrap();
    assert_eq!(gradescope_time(&meta), None);
    std::fs::copy(&meta, folder.join("bo.json")).unwrap();
    let e = Policy::load(&dir.path().join("late.toml")).unwrap_err();
    assert!(
        format!("{e:#}").contains("bo.json: no `created_at`"),
        "{e:#}"
    );
}

/// A Gradescope bulk export's `submission_metadata.yml` as Gradescope writes it (Ruby symbol
/// keys): a group of two handing in exactly at the deadline, a student a second after it (an
/// earlier submission in the history, and an autograder output that looks like the file), and a
/// submission without a time.
const EXPORT: &str = "\
---
submission_1001:
  :submitters:
  - :name: Ann Example
    :sid: '100'
    :email: ann@example.edu
  - :name: Bo Example
    :sid: '101'
    :email: bo@example.edu
  :created_at: 2026-12-20 23:59:00.000000000 +01:00
  :score: 10.0
  :history: []
submission_1002:
  :submitters:
  - :name: Di Example
    :sid: \"102\"
    :email: di@example.edu
  :created_at: 2026-12-20 23:59:01.250000000 +01:00
  :history:
  - :created_at: 2026-12-19 10:00:00.000000000 +01:00
    :score: 4.0
    :email: not-a-submitter@example.edu
  :results:
    tests:
    - name: lesson01
      output: |-
        submission_9999:
          :created_at: 2020-01-01 00:00:00 +00:00
submission_1003:
  :submitters:
  - :name: Ed Example
    :sid: ''
    :email: ed@example.edu
";

#[test]
fn a_gradescope_export_is_read_as_yaml_whatever_its_layout_and_a_broken_one_stops() {
    // The same submissions indented by four, a flow list, the time quoted and an id unquoted.
    let other = "\
submission_1001:
    ':created_at': '2026-12-20 23:59:00.000000000 +01:00'
    :submitters: [{:sid: 100, :email: ann@example.edu}, {:sid: '101', :email: bo@example.edu}]
";
    let parsed = gradescope::parse(other).unwrap();
    let first = &gradescope::parse(EXPORT).unwrap()[0];
    assert_eq!(parsed[0], *first);
    for broken in ["submission_1001: [unclosed", "- a list\n- of things\n"] {
        assert!(gradescope::parse(broken).is_err(), "{broken}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(gradescope::EXPORT_METADATA), broken).unwrap();
        let e = gradescope::times(dir.path()).unwrap_err();
        assert!(
            format!("{e:#}").contains("submission_metadata.yml"),
            "{e:#}"
        );
    }
}

#[test]
fn a_gradescope_export_gives_each_submission_its_own_time_and_submitters() {
    let parsed = gradescope::parse(EXPORT).unwrap();
    let folders: Vec<&str> = parsed.iter().map(|s| s.folder.as_str()).collect();
    assert_eq!(
        folders,
        ["submission_1001", "submission_1002", "submission_1003"]
    );
    assert_eq!(
        parsed[0].submitters,
        ["100", "ann@example.edu", "101", "bo@example.edu"]
    );
    // The history's time and fields are not the submission's.
    assert_eq!(
        parsed[1].created_at.as_deref(),
        Some("2026-12-20 23:59:01.250000000 +01:00")
    );
    assert_eq!(parsed[1].submitters, ["102", "di@example.edu"]);
    assert_eq!(parsed[2].created_at, None);
    assert_eq!(parsed[2].submitters, ["ed@example.edu"]);

    let dir = tempfile::tempdir().unwrap();
    assert_eq!(gradescope::times(dir.path()).unwrap(), None);
    std::fs::write(dir.path().join(gradescope::EXPORT_METADATA), EXPORT).unwrap();
    let times = gradescope::times(dir.path()).unwrap().unwrap();
    for key in ["submission_1001", "100", "bo@example.edu"] {
        assert_eq!(times[key], "2026-12-20T23:59:00+01:00", "{key}");
    }
    assert_eq!(times["di@example.edu"], "2026-12-20T23:59:01+01:00");
    assert!(!times.contains_key("ed@example.edu"));
    assert!(!times.contains_key("submission_9999"));
    // A time Gradescope would not write is the instructor's to fix, named with its submission.
    std::fs::write(
        dir.path().join(gradescope::EXPORT_METADATA),
        EXPORT.replace("2026-12-20 23:59:01.250000000 +01:00", "yesterday"),
    )
    .unwrap();
    let e = gradescope::times(dir.path()).unwrap_err();
    assert!(format!("{e:#}").contains("of submission_1002"), "{e:#}");
}

/// Each row's penalty on lesson 1 (none: on time, or no time known).
fn lesson01_costs(class: &crate::official::class_run::Batch) -> Vec<Option<f64>> {
    (class.rows.iter())
        .map(|r| r.late.as_ref().map(|l| l.of("lesson01")))
        .collect()
}

/// The graded rows `(id, entry)` with 10 of 10 points in lesson01, as a class run makes them.
fn graded_rows(who: &[(&str, &str)]) -> Vec<crate::official::class_run::Row> {
    who.iter()
        .map(|(id, entry)| {
            let mut row = graded(id, &[("lesson01", 10)], 10);
            row.submission = Some((*entry).to_owned());
            let mut report =
                crate::official::pages::fixture::report(crate::report::Build::Ok, vec![]);
            report.lessons.truncate(1);
            report.lessons[0].id = "lesson01".to_owned();
            report.lessons[0].score = 10;
            report.lessons[0].max_score = 10;
            row.report = Some(report);
            row
        })
        .collect()
}

#[test]
fn a_class_graded_from_a_gradescope_export_is_late_by_the_exports_times() {
    let dir = tempfile::tempdir().unwrap();
    let export = dir.path().join("export");
    std::fs::create_dir(&export).unwrap();
    std::fs::write(export.join(gradescope::EXPORT_METADATA), EXPORT).unwrap();
    std::fs::write(
        dir.path().join("late.toml"),
        format!(
            "deadline = \"{DEADLINE}\"\ndeduction = 10\ninterval = \"day\"\ngradescope = \"export\"\n"
        ),
    )
    .unwrap();
    let p = Policy::load(&dir.path().join("late.toml")).unwrap();
    // Without a roster the ids are the export's folders; with one, the students' ids or e-mails.
    let rows = graded_rows(&[
        ("submission_1001", "submission_1001"),
        ("di@example.edu", "di.zip"),
        ("101", "elsewhere"),
        ("ed@example.edu", "submission_1003"),
    ]);
    let mut class = batch(&[("lesson01", 10)], rows, None);
    apply(&mut class, &p).unwrap();
    let cost = lesson01_costs(&class);
    // Exactly at the deadline; a second after it (a started day); the group's second member, by
    // student id; no time at all (named on the standard error, no penalty).
    assert_eq!(cost, [Some(0.0), Some(1.0), Some(0.0), None]);
    let ids: Vec<&str> = class.rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids[2], "101");

    // Graded from the export itself: the run keeps each time for a policy applied later.
    let mut class = batch(
        &[("lesson01", 10)],
        graded_rows(&[("x", "submission_1002"), ("100", "x.zip"), ("y", "y.zip")]),
        None,
    );
    let times = gradescope::times(&export).unwrap().unwrap();
    gradescope::record_times(&mut class, &times);
    let at: Vec<Option<&str>> = class
        .rows
        .iter()
        .map(|r| r.submitted_at.as_deref())
        .collect();
    assert_eq!(
        at,
        [
            Some("2026-12-20T23:59:01+01:00"),
            Some("2026-12-20T23:59:00+01:00"),
            None
        ]
    );
    let policy = Policy {
        times: BTreeMap::new(),
        ..p
    };
    apply(&mut class, &policy).unwrap();
    let cost = lesson01_costs(&class);
    assert_eq!(cost, [Some(1.0), Some(0.0), None]);
}

#[test]
fn a_roster_from_a_gradescope_grades_export_gives_its_submission_times() {
    let p = Policy {
        times: BTreeMap::new(),
        ..policy()
    };
    // Gradescope's grades CSV: `Submission Time` with an offset written `-0800`.
    let roster = Roster::parse(
        Path::new("scores.csv"),
        b"id,Email,Submission Time\nann,a@x,2026-12-20 23:59:00 +0100\ndee,d@x,2026-12-20 14:59:01 -0800\neve,e@x,\n",
    )
    .unwrap();
    let mut rows = graded_rows(&[("ann", "ann.zip"), ("dee", "dee.zip"), ("eve", "eve.zip")]);
    for (i, r) in rows.iter_mut().enumerate() {
        r.enrolment = Enrolment::Listed(i);
    }
    let mut class = batch(&[("lesson01", 10)], rows, Some(roster));
    apply(&mut class, &p).unwrap();
    let cost = lesson01_costs(&class);
    // At the deadline; a second after it (at another offset); no time, so no penalty.
    assert_eq!(cost, [Some(0.0), Some(1.0), None]);
}
