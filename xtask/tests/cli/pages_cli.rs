//! Feedback pages: a class run (`grade --submissions DIR 2 --reports RDIR`, lesson 2 only) writes
//! `<id>.html` and `<id>.md` per graded student and the class page `index.html`; `class-page
//! RDIR` writes them again from the JSON reports. A student's hostile name and panic message are
//! escaped (HTML) and fenced (Markdown), and a real browser (headless Chromium) shows the pages
//! with no console message, every student, the planted misconception and drawn plots.

use crate::support::{OutDir, Scratch, copy_dir, course_root, planted, temp_root, which, xtask_in};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const L2: &str = "lesson02-split-heads";
/// What the hostile student's code panics with.
const HOSTILE: &str = "<script>alert(1)</script></style>\"' onload=\"alert(2)";
/// The hostile student's folder (a file name holds no `/`).
const EVE: &str = "eve\"'><script>alert(3)<style>";
/// The file name of EVE's reports and pages: only letters, digits and `-_.@+` (the pages still
/// show EVE).
const EVE_STEM: &str = "eve____script_alert_3__style_";

/// The file stem of the reports and pages of a student of [`GRADED`].
fn stem(id: &str) -> &str {
    if id == EVE { EVE_STEM } else { id }
}

/// `text` percent-encoded as a link's path segment (what the class page links to).
fn encoded(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// `text` HTML-escaped as the pages escape it.
fn escaped(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

/// The class: alice solves lesson 2, bob splits without the transpose (a named misconception),
/// dave's lesson does not compile, the hostile student panics with HTML, and a corrupt archive
/// cannot be graded.
fn plant_class(course: &Scratch, class: &Path, pristine: &Path) {
    xtask_in(&course.root, &["dist", pristine.to_str().unwrap()])
        .assert()
        .success();
    let file = |id: &str| {
        class
            .join(id)
            .join("exercises")
            .join(L2)
            .join("src/exercises.rs")
    };
    for id in ["alice", "bob", "dave", EVE] {
        copy_dir(pristine, &class.join(id));
    }
    let reference = course_root()
        .join("solutions")
        .join(L2)
        .join("src/exercises.rs");
    std::fs::copy(reference, file("alice")).unwrap();
    std::fs::write(
        file("bob"),
        planted(
            L2,
            ".into_shape_with_order((b, t, h, hs))\n        .expect(\"a standard-layout array reshapes\")\n        .permuted_axes([0, 2, 1, 3]);",
            ".into_shape_with_order((b, h, t, hs))\n        .expect(\"a standard-layout array reshapes\");",
        ),
    )
    .unwrap();
    let stub = std::fs::read_to_string(file("dave")).unwrap();
    std::fs::write(
        file("dave"),
        format!("{stub}\npub fn broken() -> u32 {{ \"no\" }}\n"),
    )
    .unwrap();
    let panics = stub.replacen(
        "todo!(\"split_heads: reshape to (B, T, h, hs), then swap the T and h axes\")",
        &format!("panic!({HOSTILE:?})"),
        1,
    );
    assert_ne!(panics, stub, "the stub changed");
    std::fs::write(file(EVE), panics).unwrap();
    std::fs::write(class.join("corrupt.zip"), b"PK\x03\x04 not really a zip").unwrap();
}

/// Every file of `dir` with its text.
fn texts(dir: &Path) -> BTreeMap<String, String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect()
}

/// The lines of a Markdown text that lie inside a fenced code block.
fn fenced_lines(md: &str) -> Vec<&str> {
    let mut fence: Option<&str> = None;
    let mut inside = Vec::new();
    for line in md.lines() {
        let ticks = &line[..line.len() - line.trim_start_matches('`').len()];
        match fence {
            None if ticks.len() >= 3 => fence = Some(ticks),
            Some(open) if line.trim_end() == open => fence = None,
            Some(_) => inside.push(line),
            None => {}
        }
    }
    inside
}

/// The graded students' ids.
const GRADED: [&str; 4] = ["alice", "bob", "dave", EVE];

#[test]
fn a_class_run_writes_feedback_pages_and_the_class_page() {
    let course = Scratch::new("pages");
    let work = OutDir::new("pages");
    let class = work.path.join("submissions");
    plant_class(&course, &class, &work.path.join("pristine"));
    let reports = work.path.join("reports");
    let out = xtask_in(
        &course.root,
        &[
            "grade",
            "--submissions",
            class.to_str().unwrap(),
            "2",
            "--gradebook",
            work.path.join("grades.csv").to_str().unwrap(),
            "--reports",
            reports.to_str().unwrap(),
        ],
    )
    .output()
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "corrupt.zip is not graded\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("feedback pages written: 4 student(s)"),
        "{stdout}"
    );
    let files = texts(&reports);
    for id in GRADED {
        for ext in ["json", "html", "md"] {
            assert!(
                files.contains_key(&format!("{}.{ext}", stem(id))),
                "{id}.{ext}: {:?}",
                files.keys()
            );
        }
    }
    assert_class_page(&files["index.html"]);
    let csv = &files["similarity.csv"];
    assert!(
        csv.lines().nth(1).unwrap().starts_with("alice,bob,"),
        "{csv}"
    );
    assert_student_pages(&files);
    assert_hostile_text_inert(&files);
    assert_gradebook_again(&course, &reports, &work.path.join("grades.csv"));
    assert_late_work(&course, &reports, &work.path);
    assert_written_again(&course, &reports, &files);
    browse_pages(&reports, &format!("{EVE_STEM}.html"), &GRADED);
}

/// The class page lists every student, links each graded one to their page, and names the
/// misconception, the compile error and the submission not graded.
fn assert_class_page(index: &str) {
    for id in GRADED {
        let link = format!("<a href=\"{}.html\">{}</a>", encoded(stem(id)), escaped(id));
        assert!(
            index.contains(&link),
            "no {link} in the class page:\n{index}"
        );
    }
    assert!(index.contains("<td>corrupt</td>"), "{index}");
    // The students table flags what needs an eye and names each student's misconceptions.
    let row = |id: &str| {
        index
            .lines()
            .find(|l| {
                l.starts_with(&format!("<tr><td>{id}</td>"))
                    || l.contains(&format!(">{id}</a></td><td class=\"num\">"))
            })
            .unwrap_or_else(|| panic!("no row of {id}:\n{index}"))
    };
    assert!(
        row("corrupt").contains("<td class=\"flag\">not graded</td>"),
        "{index}"
    );
    assert!(
        row("dave").contains("<td class=\"flag\">does not compile: lesson02</td>"),
        "{index}"
    );
    assert!(
        row("bob").ends_with(">split-without-transpose</code></td></tr>"),
        "{index}"
    );
    assert!(!index.contains("corrupt.html"), "{index}");
    let misconception = index
        .lines()
        .find(|l| l.contains("<code>split-without-transpose</code>"))
        .unwrap_or_else(|| panic!("the misconception is not listed:\n{index}"));
    assert!(
        misconception.contains("href=\"bob.html\""),
        "{misconception}"
    );
    assert!(
        index.contains("<tr><td><a href=\"dave.html\">dave</a></td><td>lesson02</td></tr>"),
        "{index}"
    );
    // alice and bob hand in the reference solution, bob's with one function changed: a pair, on
    // the class page as in similarity.csv, each linked to the student's page.
    let similar = index.split("<h2>Similar submissions</h2>").nth(1).unwrap();
    assert!(
        similar.contains(
            "<tr><td><a href=\"alice.html\">alice</a></td><td><a href=\"bob.html\">bob</a></td>"
        ),
        "{similar}"
    );
    assert_eq!(index.matches("<svg class=\"plot\"").count(), 2, "{index}");
}

/// Bob's page explains the misconception; dave's shows the compiler's error.
fn assert_student_pages(files: &BTreeMap<String, String>) {
    let bob = &files["bob.html"];
    assert!(
        bob.contains("Misconception:") && bob.contains("Reshaped straight to (B, h, T, hs)"),
        "{bob}"
    );
    assert!(bob.contains("split_heads_moves_data"), "{bob}");
    assert!(bob.contains("Next step"), "{bob}");
    assert!(files["bob.md"].contains("**Misconception:** Reshaped straight to \\(B, h, T, hs\\)"));
    assert!(
        files["dave.html"].contains("does not compile"),
        "{}",
        files["dave.html"]
    );
    assert!(files["dave.html"].contains("<pre class=\"compiler\">"));
}

/// No page holds a raw tag from a student; the panic message is escaped in HTML and fenced in
/// Markdown.
fn assert_hostile_text_inert(files: &BTreeMap<String, String>) {
    for (name, text) in files.iter().filter(|(n, _)| n.ends_with(".html")) {
        assert!(
            !text.contains("<script") && !text.contains("alert(1)</"),
            "{name}:\n{text}"
        );
        assert_eq!(
            text.matches("</style>").count(),
            1,
            "{name}: the page's own only"
        );
    }
    let eve = &files[&format!("{EVE_STEM}.html")];
    assert!(
        eve.contains(&escaped(HOSTILE)),
        "the panic message is not shown:\n{eve}"
    );
    assert!(
        eve.contains(&format!(
            "<strong class=\"student\">{}</strong>",
            escaped(EVE)
        )),
        "{eve}"
    );
    let eve_md = &files[&format!("{EVE_STEM}.md")];
    let fenced = fenced_lines(eve_md);
    assert!(
        fenced.iter().any(|l| l.contains(HOSTILE)),
        "not fenced:\n{eve_md}"
    );
    for line in eve_md
        .lines()
        .filter(|l| l.contains('<') && !l.contains("\\<"))
    {
        assert!(
            fenced.contains(&line),
            "unfenced student text: {line}\n{eve_md}"
        );
    }
}

/// `gradebook RDIR` writes, without grading, the very gradebook the class run wrote (the
/// submission not graded included).
fn assert_gradebook_again(course: &Scratch, reports: &Path, written: &Path) {
    let out = xtask_in(&course.root, &["gradebook", reports.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let written = std::fs::read_to_string(written).unwrap();
    assert!(written.contains("\ncorrupt,0,"), "{written}");
    assert_eq!(String::from_utf8(out.stdout).unwrap(), written);
}

/// A late policy applied to the stored class, without grading: alice, at full marks, hands in
/// two days and a second late on a 10%-a-day policy and loses 30% of lesson 2's points in the
/// gradebook, and her page says so; bob, exactly at the deadline, loses nothing. (`class-page`
/// then writes the pages again without it.)
fn assert_late_work(course: &Scratch, reports: &Path, work: &Path) {
    let policy = work.join("late.toml");
    std::fs::write(
        &policy,
        "deadline = \"2026-12-20T23:59:00+01:00\"\ndeduction = 10\ninterval = \"day\"\n\
         submitted_at = \"times.csv\"\n",
    )
    .unwrap();
    std::fs::write(
        work.join("times.csv"),
        "id,submitted_at\nalice,2026-12-22T23:59:01+01:00\nbob,2026-12-20T23:59:00+01:00\n",
    )
    .unwrap();
    let late = ["--late", policy.to_str().unwrap()];
    let out = xtask_in(
        &course.root,
        &[&["gradebook", reports.to_str().unwrap()][..], &late].concat(),
    )
    .output()
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let csv = String::from_utf8(out.stdout).unwrap();
    let cells = |id: &str| -> Vec<String> {
        let line = csv
            .lines()
            .find(|l| l.starts_with(&format!("{id},")))
            .unwrap();
        line.split(',').map(str::to_owned).collect()
    };
    let (alice, bob) = (cells("alice"), cells("bob"));
    let max: f64 = alice[2].parse().unwrap();
    let penalty = (max * 0.3 * 100.0).round() / 100.0;
    assert_eq!(
        alice[alice.len() - 1].parse::<f64>().unwrap(),
        penalty,
        "{csv}"
    );
    assert_eq!(alice[1].parse::<f64>().unwrap(), max - penalty, "{csv}");
    assert_eq!(
        bob[bob.len() - 2..],
        ["2026-12-20T23:59:00+01:00", "0"],
        "{csv}"
    );
    xtask_in(
        &course.root,
        &[&["class-page", reports.to_str().unwrap()][..], &late].concat(),
    )
    .assert()
    .success();
    let page = std::fs::read_to_string(reports.join("alice.html")).unwrap();
    assert!(
        page.contains("lesson02: 3 day(s) after the deadline"),
        "{page}"
    );
    assert!(page.contains("Total after the late penalty"), "{page}");
}

/// `class-page` writes the same student pages again from the reports alone, and a class page
/// linking each of them.
fn assert_written_again(course: &Scratch, reports: &Path, files: &BTreeMap<String, String>) {
    // The reports and similarity.csv stay; every page goes and is written again from them.
    for (name, _) in files
        .iter()
        .filter(|(n, _)| !n.ends_with(".json") && *n != "similarity.csv")
    {
        std::fs::remove_file(reports.join(name)).unwrap();
    }
    xtask_in(&course.root, &["class-page", reports.to_str().unwrap()])
        .assert()
        .success()
        .stdout(predicates::str::contains("wrote 4 student page(s)"));
    let again = texts(reports);
    for (name, text) in files.iter().filter(|(n, _)| *n != "index.html") {
        assert_eq!(&again[name], text, "{name} differs when written again");
    }
    for id in GRADED {
        assert!(again["index.html"].contains(&format!("href=\"{}.html\"", encoded(stem(id)))));
    }
    assert!(again["index.html"].contains(
        "<tr><td><a href=\"alice.html\">alice</a></td><td><a href=\"bob.html\">bob</a></td>"
    ));
}

/// `class-page` on a folder without reports (or no folder) exits 2 and says what to run.
#[test]
fn class_page_without_reports_exits_2_with_help() {
    let empty = OutDir::new("no-reports");
    std::fs::create_dir_all(&empty.path).unwrap();
    std::fs::write(empty.path.join("notes.json"), "{\"not\": \"a report\"}").unwrap();
    for dir in [empty.path.clone(), empty.path.join("missing")] {
        let out = xtask_in(&course_root(), &["class-page", dir.to_str().unwrap()])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("\n  help: "), "{stderr}");
        assert!(stderr.contains("--reports"), "{stderr}");
    }
    assert!(!empty.path.join("index.html").exists());
}

/// Chromium, when installed.
fn chromium() -> Option<PathBuf> {
    ["chromium", "chromium-browser"]
        .iter()
        .find_map(|n| which(n))
}

/// `page` loaded in headless Chromium with a fresh profile and the network features off: its DOM
/// after load and Chromium's log (console messages are `CONSOLE` lines).
fn browse(chromium: &Path, page: &Path) -> (String, String) {
    let profile = tempfile::tempdir_in(temp_root()).unwrap();
    let url = format!(
        "file://{}",
        page.to_str()
            .unwrap()
            .split('/')
            .map(encoded)
            .collect::<Vec<_>>()
            .join("/")
    );
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
            "--dump-dom",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(90) {
            child.kill().unwrap();
            panic!("chromium did not finish loading {url} in 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// What a script measures of the class page's plots, written into the DOM: per `svg.plot`, its
/// width and height on screen and how many of its shapes have an area.
const MEASURE: &str = "<script>document.body.insertAdjacentHTML('beforeend', '<pre id=\"measure\">' + \
    Array.from(document.querySelectorAll('svg.plot')).map(function (s) { var r = \
    s.getBoundingClientRect(); var drawn = Array.from(s.querySelectorAll('rect')).filter(function \
    (e) { var b = e.getBBox(); return b.width * b.height > 0; }).length; return \
    Math.round(r.width) + 'x' + Math.round(r.height) + ':' + drawn; }).join(' ') + \
    '</pre>');</script>";

/// The class page and a student's `page` of `reports` in a real browser: no console message,
/// every student and the misconception shown, and the plots drawn.
fn browse_pages(reports: &Path, page: &str, students: &[&str]) {
    let Some(chromium) = chromium() else {
        eprintln!("\n!!!!!! SKIPPED: chromium not found (apt-get install chromium) !!!!!!\n");
        // `.ci/run` sets COURSE_NO_BROWSER when it tried to install chromium and could not.
        assert!(
            std::env::var_os("CI").is_none() || std::env::var_os("COURSE_NO_BROWSER").is_some(),
            "CI must run the browser test: install chromium"
        );
        return;
    };
    for page in ["index.html", page] {
        let (dom, log) = browse(&chromium, &reports.join(page));
        let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(
            console.is_empty(),
            "{page}: console messages:\n{}",
            console.join("\n")
        );
        assert!(
            dom.contains("</body>"),
            "{page} did not load:\n{dom}\n{log}"
        );
        if page == "index.html" {
            for id in students {
                // A DOM serialises text with `&`, `<` and `>` escaped, quotes as they are.
                let text = id
                    .replace('&', "&amp;")
                    .replace('<', "&lt;")
                    .replace('>', "&gt;");
                assert!(dom.contains(&text), "{page} does not show {id}:\n{dom}");
            }
            assert!(dom.contains("split-without-transpose"), "{dom}");
        }
    }
    // The plots, measured by a script in a copy of the class page without its policy (which
    // lets no script run).
    let index = std::fs::read_to_string(reports.join("index.html")).unwrap();
    let policy = index
        .find("<meta http-equiv=\"Content-Security-Policy\"")
        .unwrap();
    let end = policy + index[policy..].find('>').unwrap() + 1;
    let measured = format!("{}{}", &index[..policy], &index[end..])
        .replace("</body>", &format!("{MEASURE}</body>"));
    let copy = reports.join("measured.html");
    std::fs::write(&copy, measured).unwrap();
    let (dom, log) = browse(&chromium, &copy);
    std::fs::remove_file(&copy).unwrap();
    // The last `<pre id="measure">`: the first is in the script's own text.
    let (_, measured) = dom
        .rsplit_once("<pre id=\"measure\">")
        .unwrap_or_else(|| panic!("no measure:\n{dom}\n{log}"));
    let line = measured.split("</pre>").next().unwrap();
    let plots: Vec<&str> = line.split(' ').collect();
    assert_eq!(plots.len(), 2, "{line}");
    for plot in plots {
        let (size, drawn) = plot.split_once(':').unwrap();
        let (w, h) = size.split_once('x').unwrap();
        let (w, h, drawn): (u32, u32, u32) = (
            w.parse().unwrap(),
            h.parse().unwrap(),
            drawn.parse().unwrap(),
        );
        // The background and at least one bar.
        assert!(
            w > 100 && h > 50 && drawn >= 2,
            "a plot is not drawn: {plot}"
        );
    }
}

/// A stored report of `student` whose one exercise has the checks `(name, status)`, 2 points
/// each when passed.
fn stored_report(student: &str, checks: &[(&str, &str)]) -> String {
    let checks: Vec<serde_json::Value> = checks
        .iter()
        .map(|(name, status)| {
            serde_json::json!({ "name": name, "status": status,
                "points": if *status == "passed" { 2 } else { 0 }, "max_points": 2, "message": "",
                "duration_ms": 1, "hidden": false, "blocked_by": null, "diagnosis": null,
                "variant": null })
        })
        .collect();
    let score: u64 = checks.iter().map(|c| c["points"].as_u64().unwrap()).sum();
    let max = 2 * checks.len();
    serde_json::json!({ "schema_version": 3, "course": "C", "graded": "submission",
        "official": true, "isolation": "none", "student": student, "modified_files": [],
        "score": score, "max_score": max, "execution_time": 1.0,
        "lessons": [{ "id": "lesson01", "title": "One", "build": "ok", "compiler_output": null,
            "stubbed": [], "score": score, "max_score": max, "exercises": [{ "name": "draw_head",
            "score": score, "max_score": max, "checks": checks }] }] })
    .to_string()
}

/// `regrade-diff` on two stored reports folders (nothing graded): whose points changed, by how
/// much, which checks changed verdict; a folder without reports, or a shard that is no K/N,
/// exits 2.
#[test]
fn regrade_diff_lists_the_changes_between_two_stored_runs() {
    let old = OutDir::new("regrade-old");
    let new = OutDir::new("regrade-new");
    for dir in [&old.path, &new.path] {
        std::fs::create_dir_all(dir).unwrap();
    }
    let write = |dir: &Path, id: &str, b: &str| {
        let text = stored_report(id, &[("a", "passed"), ("b", b)]);
        std::fs::write(dir.join(format!("{id}.json")), text).unwrap();
    };
    write(&old.path, "alice", "wrong");
    write(&new.path, "alice", "passed");
    write(&old.path, "bob", "wrong");
    write(&new.path, "bob", "wrong");
    let out = xtask_in(&course_root(), &["regrade-diff", old.arg(), new.arg()])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains("1 student(s) changed, 1 unchanged."),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "\nalice: 2/4 -> 4/4 (+2)\n  lesson01 / draw_head / b: wrong -> passed (+2)\n"
        ),
        "{stdout}"
    );
    assert!(!stdout.contains("bob"), "{stdout}");
    let empty = OutDir::new("regrade-empty");
    std::fs::create_dir_all(&empty.path).unwrap();
    for args in [
        vec!["regrade-diff", old.arg(), empty.arg()],
        vec!["grade", "--submissions", old.arg(), "--shard", "3/2"],
    ] {
        let out = xtask_in(&course_root(), &args).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains("help") || stderr.contains("1 <= K <= N"),
            "{stderr}"
        );
    }
}
