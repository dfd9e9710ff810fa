//! `cargo xtask grade --submissions DIR`: a whole class, graded officially, one row per student.
//!
//! Every entry of `DIR` is one student: a handout folder, its `exercises/` folder, or a `.zip`,
//! `.tar.gz` or `.tgz` of either, possibly nested one folder deep. The student's id is the entry's
//! name without its archive extension. Each submission is graded by the official single-submission
//! grader ([`crate::submission::grade`]), which only ever reads the student's folder; archives are
//! unpacked into a scratch folder first ([`crate::archive`]). A submission that cannot be graded
//! (not a course, a bad archive, a path out of the archive, a symbolic link in the folder, a
//! grading error) gets a row with its error and zero points, and the batch goes on.
//!
//! Submissions run `jobs` at a time in one target directory. Their builds take turns under the
//! build lock (see `build.rs`: one fixed build folder, rebuilds decided by content, check
//! executables copied out before the lock is released), so the dependencies are compiled once,
//! one student's lesson crates are never taken for another's, and their checks run side by side.
//! The first submission is graded alone, which builds the dependencies.

use crate::archive;
use crate::course::Course;
use crate::grade::Options;
use crate::report::Report;
use crate::student_text;
use crate::verdict::Status;
use anyhow::{Context as _, Result, anyhow, bail};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// How to grade a class.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// The per-submission grading options (lesson filter, timeout, check processes at once).
    pub grade: Options,
    /// Submissions graded at once.
    pub parallel: usize,
    /// Where to write the gradebook CSV.
    pub gradebook: Option<PathBuf>,
    /// Where to write one JSON report per student (`<id>.json`) and `similarity.csv`.
    pub reports: Option<PathBuf>,
    /// What `similarity.csv` compares and reports.
    pub similarity: crate::similarity::Options,
}

/// Submissions graded at once by default: two on a machine with two cores or more (one builds
/// while the other runs its checks), else one.
pub fn default_parallel() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

/// The batch options from the command line: `jobs` submissions at once (default
/// [`default_parallel`]), each running its checks on its share of the cores.
pub fn options(
    grade: Options,
    jobs: Option<usize>,
    gradebook: Option<PathBuf>,
    reports: Option<PathBuf>,
    similarity: crate::similarity::Options,
) -> BatchOptions {
    let parallel = jobs.unwrap_or_else(default_parallel).max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    BatchOptions {
        grade: Options {
            jobs: (cores / parallel).max(1),
            ..grade
        },
        parallel,
        gradebook,
        reports,
        similarity,
    }
}

/// One student's line of the gradebook.
#[derive(Debug, Clone)]
pub struct Row {
    /// The student's id (the entry's name without archive extension).
    pub id: String,
    /// Points earned (0 when the submission could not be graded).
    pub score: u32,
    /// Points available.
    pub max: u32,
    /// Per graded lesson id: points earned.
    pub lessons: BTreeMap<String, u32>,
    /// The grade is official (no instructors' file differs).
    pub official: bool,
    /// Files the student changed outside their sources.
    pub modified: usize,
    /// How student code was isolated (the report's `isolation`, else `none`).
    pub isolation: String,
    /// Why the submission could not be graded.
    pub error: Option<String>,
    /// Wall time of this submission, seconds.
    pub seconds: f64,
    /// The full report, when graded.
    pub report: Option<Report>,
}

/// A graded class.
#[derive(Debug, Clone)]
pub struct Batch {
    /// The graded lessons, in course order: `(id, max points)`.
    pub lessons: Vec<(String, u32)>,
    /// One row per student, sorted by id.
    pub rows: Vec<Row>,
    /// Wall time of the first submission (which also builds the dependencies), seconds.
    pub first_seconds: f64,
    /// Wall time of the whole batch, seconds.
    pub total_seconds: f64,
    /// Submissions graded at once.
    pub parallel: usize,
    /// Lesson builds run, and lesson builds reused from a submission with the same sources
    /// (see [`crate::build_cache`]).
    pub builds: (usize, usize),
}

impl Batch {
    /// Wall time per submission after the first: `(total - first) / (n - 1)`.
    pub fn marginal_seconds(&self) -> Option<f64> {
        (self.rows.len() > 1)
            .then(|| (self.total_seconds - self.first_seconds) / (self.rows.len() - 1) as f64)
    }
}

/// One entry of the submissions folder.
#[derive(Debug, Clone)]
pub struct Entry {
    /// The student's id: the entry's name without its archive extension.
    pub id: String,
    /// The entry's path.
    pub path: PathBuf,
}

/// The entries of `dir`, sorted by name; hidden files (`.DS_Store`, …) are skipped.
fn entries(dir: &Path) -> Result<Vec<Entry>> {
    let read = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read the submissions folder {}", dir.display()))?;
    let mut out = Vec::new();
    for entry in read.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "__MACOSX" {
            continue;
        }
        let id = archive::kind(&name).map_or(name.as_str(), |(_, stem)| stem);
        out.push(Entry {
            id: id.to_owned(),
            path: entry.path(),
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id).then(a.path.cmp(&b.path)));
    Ok(out)
}

/// The entries of the submissions folder `dir`, sorted by id; an error when it holds none or
/// when two would get the same id.
pub fn class_entries(dir: &Path) -> Result<Vec<Entry>> {
    let list = entries(dir)?;
    if list.is_empty() {
        bail!("{} holds no submission", dir.display());
    }
    // `bob/`, `bob.zip` and `bob.tgz` would share a gradebook row's id and a report's name.
    if let Some(pair) = list.windows(2).find(|pair| pair[0].id == pair[1].id) {
        bail!(
            "two submissions would get the id `{}`: {} and {}: nothing was graded\n  help: rename \
             one of them",
            student_text::name(&pair[0].id),
            student_text::name(&pair[0].path.display().to_string()),
            student_text::name(&pair[1].path.display().to_string())
        );
    }
    Ok(list)
}

/// True when `dir` holds a course handout or its `exercises/` folder.
fn is_submission(dir: &Path, course: &Course) -> bool {
    let has_lessons = |d: &Path| course.lessons.iter().any(|l| d.join(&l.dir).is_dir());
    has_lessons(&dir.join("exercises")) || has_lessons(dir)
}

/// The folder to grade inside `dir`: `dir` itself, or its only sub-folder (a submission zipped
/// as a folder).
pub fn resolve(dir: &Path, course: &Course) -> Result<PathBuf> {
    // A link out is named as such; any other link is refused too (see `submission::find_link`).
    if let Some(link) = archive::escaping_link(dir).or_else(|| crate::submission::find_link(dir)) {
        return Err(anyhow!(link));
    }
    // A folder holding only `exercises/` (no handout around it) is graded as that folder, so the
    // handout files it never had are not reported as deleted.
    let pick = |d: &Path| {
        if d.join("exercises").is_dir() && !d.join("Cargo.toml").is_file() {
            d.join("exercises")
        } else {
            d.to_path_buf()
        }
    };
    if is_submission(dir, course) {
        return Ok(pick(dir));
    }
    let subdirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("cannot read {}", dir.display()))?
        .flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            !name.starts_with('.') && name != "__MACOSX" && e.path().is_dir()
        })
        .map(|e| e.path())
        .collect();
    if let [only] = subdirs.as_slice()
        && is_submission(only, course)
    {
        return Ok(pick(only));
    }
    let dirs: Vec<&str> = course.lessons.iter().map(|l| l.dir.as_str()).collect();
    Err(anyhow!(
        "not a submission of this course: no exercises/ folder or lesson folder ({}) at its top or one folder down",
        dirs.join(", ")
    ))
}

/// The folder to grade for the submission at `path`, the one way every grading path reads a
/// submission (`--submission`, `--submissions`' entries, the Gradescope bundle): a folder, or a
/// `.zip`/`.tar.gz` unpacked into a scratch folder (returned, to keep until grading ends), then
/// [`resolve`]d: a handout, its `exercises/` folder alone, or either one folder down.
pub fn open(path: &Path, course: &Course) -> Result<(Option<crate::fsutil::TempDir>, PathBuf)> {
    open_only(path, course, None)
}

/// [`open`], writing out of an archive only the paths `keep` accepts, when given (every entry is
/// checked all the same, see [`archive::extract_only`]): what a reader of a few files needs.
pub fn open_only(
    path: &Path,
    course: &Course,
    keep: Option<&dyn Fn(&Path) -> bool>,
) -> Result<(Option<crate::fsutil::TempDir>, PathBuf)> {
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Ok((None, resolve(path, course)?)),
        Ok(_) => {
            let name = path.file_name().unwrap_or_default().to_string_lossy();
            let (kind, _) = archive::kind(&name).with_context(|| {
                format!(
                    "`{}` is not a folder, a .zip or a .tar.gz: nothing to grade",
                    student_text::name(&name)
                )
            })?;
            let scratch = crate::fsutil::scratch_dir("batch-unpacked")?;
            let limits = archive::Limits::default();
            match keep {
                Some(keep) => archive::extract_only(path, kind, scratch.path(), limits, keep)?,
                None => archive::extract(path, kind, scratch.path(), limits)?,
            }
            let dir = resolve(scratch.path(), course)?;
            Ok((Some(scratch), dir))
        }
        Err(e) => Err(e).with_context(|| format!("cannot read {}", path.display())),
    }
}

/// Unpacks (when needed) and grades one entry with the target directory `target`.
fn grade_entry(
    root: &Path,
    course: &Course,
    entry: &Entry,
    opts: &Options,
    target: &Path,
) -> Result<Report> {
    let (_unpacked, dir) = open(&entry.path, course)?;
    let mut opts = opts.clone();
    opts.target_dir = Some(target.to_path_buf());
    opts.progress = false;
    let mut report = crate::submission::grade(
        root,
        course,
        &dir,
        &opts,
        &crate::submission::SubmissionOptions::default(),
    )?;
    report.student = Some(entry.id.clone());
    Ok(report)
}

fn row(id: &str, result: Result<Report>, max: u32, seconds: f64) -> Row {
    match result {
        Ok(report) => Row {
            id: id.to_owned(),
            score: report.score,
            max: report.max_score,
            lessons: report
                .lessons
                .iter()
                .map(|l| (l.id.clone(), l.score))
                .collect(),
            official: report.official,
            modified: report.modified_files.len(),
            isolation: report.isolation.clone(),
            error: None,
            seconds,
            report: Some(report),
        },
        Err(error) => Row {
            id: id.to_owned(),
            score: 0,
            max,
            lessons: BTreeMap::new(),
            official: false,
            modified: 0,
            isolation: "none".to_owned(),
            // The whole chain on one line, as `{e:#}` prints it in `main`.
            error: Some(format!("{error:#}")),
            seconds,
            report: None,
        },
    }
}

/// Grades every submission in `dir`.
pub fn grade_all(root: &Path, course: &Course, dir: &Path, opts: &BatchOptions) -> Result<Batch> {
    let started = Instant::now();
    crate::bless::require_solutions(root)?;
    let selected = crate::plan::select(course, opts.grade.lesson.as_deref())?;
    let lessons: Vec<(String, u32)> = selected
        .iter()
        .map(|l| (l.id.clone(), l.max_points()))
        .collect();
    let max: u32 = lessons.iter().map(|(_, m)| m).sum();
    crate::preflight::check(root, course)?;
    let list = class_entries(dir)?;
    let base = opts
        .grade
        .target_dir
        .clone()
        .unwrap_or_else(|| crate::submission::target_dir(root));
    let parallel = opts.parallel.clamp(1, list.len());
    let cache = std::sync::Arc::new(crate::build_cache::BuildCache::new()?);
    let grade = &Options {
        build_cache: Some(cache.clone()),
        ..opts.grade.clone()
    };
    let total = list.len();
    let done = AtomicUsize::new(0);
    let announce = |r: &Row| {
        let n = done.fetch_add(1, Ordering::SeqCst) + 1;
        let what = match &r.error {
            Some(e) => format!(
                "not graded: {}",
                student_text::message(e.lines().next().unwrap_or(""))
            ),
            None => format!("{}/{}", r.score, r.max),
        };
        eprintln!(
            "[{n}/{total}] {}: {what} ({:.1} s)",
            student_text::name(&r.id),
            r.seconds
        );
    };
    let mut rows = Vec::with_capacity(total);

    // The first submission alone: it builds the dependencies.
    let t = Instant::now();
    let first = row(
        &list[0].id,
        grade_entry(root, course, &list[0], grade, &base),
        max,
        0.0,
    );
    let first_seconds = t.elapsed().as_secs_f64();
    let first = Row {
        seconds: first_seconds,
        ..first
    };
    announce(&first);
    rows.push(first);

    let next = AtomicUsize::new(1);
    let results = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..parallel {
            let (next, results, list, announce) = (&next, &results, &list, &announce);
            let target = &base;
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(entry) = list.get(i) else { break };
                    let t = Instant::now();
                    let result = grade_entry(root, course, entry, grade, target);
                    let r = row(&entry.id, result, max, t.elapsed().as_secs_f64());
                    announce(&r);
                    results.lock().expect("results").push(r);
                }
            });
        }
    });
    rows.extend(results.into_inner().expect("results"));
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Batch {
        lessons,
        rows,
        first_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        parallel,
        builds: cache.counts(),
    })
}

/// The gradebook: `id,total,max,status,<lesson id>,<lesson id> max…,official,modified_files,
/// isolation,error`; `status` is `ok`, `compile_error (<lesson ids>)` or `error` (then the `error`
/// cell says why). The `id` and `error` cells quote the student's names: they are escaped and cut
/// ([`student_text::message`]), so the file holds no control character but its line ends.
pub fn gradebook_csv(batch: &Batch) -> Result<String> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec![
        "id".to_owned(),
        "total".into(),
        "max".into(),
        "status".into(),
    ];
    for (id, _) in &batch.lessons {
        header.extend([id.clone(), format!("{id} max")]);
    }
    header.extend(["official", "modified_files", "isolation", "error"].map(String::from));
    w.write_record(&header)?;
    for r in &batch.rows {
        let mut rec = vec![
            inert_cell(&student_text::message(&r.id)),
            r.score.to_string(),
            r.max.to_string(),
            status(r),
        ];
        for (id, max) in &batch.lessons {
            rec.extend([
                r.lessons.get(id).copied().unwrap_or(0).to_string(),
                max.to_string(),
            ]);
        }
        rec.push(r.official.to_string());
        rec.push(r.modified.to_string());
        rec.push(r.isolation.clone());
        rec.push(inert_cell(&student_text::message(
            r.error.as_deref().unwrap_or_default(),
        )));
        w.write_record(&rec)?;
    }
    let bytes = w.into_inner()?;
    Ok(String::from_utf8(bytes)?)
}

/// A row's `status` cell: `error` when it could not be graded, `compile_error (<lesson ids>)`
/// when a lesson did not compile, else `ok`.
fn status(row: &Row) -> String {
    let Some(report) = &row.report else {
        return "error".to_owned();
    };
    let broken: Vec<&str> = report
        .lessons
        .iter()
        .filter(|l| l.build == crate::report::Build::CompileError)
        .map(|l| l.id.as_str())
        .collect();
    if broken.is_empty() {
        "ok".to_owned()
    } else {
        format!("compile_error ({})", broken.join(" "))
    }
}

/// A text cell that a spreadsheet shows as text: one that starts like a formula (`=`, `+`, `-`,
/// `@`, a tab or a carriage return; a submission's file name is the student's choice) gets a
/// leading `'`, which spreadsheets hide and read as "this is text" (OWASP's advice against CSV
/// injection). Other text is kept as it is.
pub fn inert_cell(text: &str) -> String {
    if text.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{text}")
    } else {
        text.to_owned()
    }
}

/// The bin of a score for the histogram: 0, 1–24 %, 25–49 %, 50–74 %, 75–99 %, 100 %.
fn bin(score: u32, max: u32) -> usize {
    if max == 0 || score >= max {
        5
    } else if score == 0 {
        0
    } else {
        1 + (4 * score / max).min(3) as usize
    }
}

/// The end-of-batch summary: a score histogram per lesson, the most common failing checks and the
/// marginal cost per submission.
pub fn summary(batch: &Batch) -> String {
    const BINS: [&str; 6] = ["0", "1-24%", "25-49%", "50-74%", "75-99%", "100%"];
    let mut out = String::new();
    let graded: Vec<&Row> = batch.rows.iter().filter(|r| r.error.is_none()).collect();
    let failed = batch.rows.len() - graded.len();
    let _ = writeln!(
        out,
        "\n{} submission(s): {} graded, {failed} not graded",
        batch.rows.len(),
        graded.len()
    );
    let _ = writeln!(out, "\nScores per lesson (graded submissions):");
    for (id, max) in &batch.lessons {
        let mut counts = [0usize; 6];
        for r in &graded {
            counts[bin(r.lessons.get(id).copied().unwrap_or(0), *max)] += 1;
        }
        let _ = writeln!(out, "  {id} (max {max})");
        for (label, n) in BINS.iter().zip(counts) {
            let _ = writeln!(out, "    {label:>7} {n:>4} {}", "#".repeat(n.min(60)));
        }
    }
    let mut failing: BTreeMap<String, (usize, BTreeMap<String, usize>)> = BTreeMap::new();
    for r in &graded {
        let Some(report) = &r.report else { continue };
        for l in &report.lessons {
            for e in &l.exercises {
                for c in &e.checks {
                    if matches!(
                        c.status,
                        Status::Passed | Status::NotStarted | Status::CompileError
                    ) {
                        continue;
                    }
                    let slot = failing
                        .entry(format!("{} / {} / {}", l.id, e.name, c.name))
                        .or_default();
                    slot.0 += 1;
                    *slot.1.entry(c.status.to_string()).or_default() += 1;
                }
            }
        }
    }
    let mut top: Vec<_> = failing.into_iter().collect();
    top.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(&b.0)));
    let _ = writeln!(
        out,
        "\nMost common failing checks (not counting not_started and compile_error):"
    );
    if top.is_empty() {
        let _ = writeln!(out, "  none");
    }
    for (name, (n, kinds)) in top.iter().take(3) {
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let _ = writeln!(out, "  {n:>4} × {name} ({})", kinds.join(", "));
    }
    let _ = writeln!(
        out,
        "\nTime: {:.1} s for {} submission(s), {} at once; the first (which builds the dependencies) {:.1} s",
        batch.total_seconds,
        batch.rows.len(),
        batch.parallel,
        batch.first_seconds
    );
    if let Some(m) = batch.marginal_seconds() {
        let _ = writeln!(
            out,
            "Marginal cost: {m:.1} s of wall time per submission after the first"
        );
    }
    // Counted by sandboxed builds only (without a sandbox, nothing is shared).
    let (built, reused) = batch.builds;
    if built + reused > 0 {
        let _ = writeln!(
            out,
            "Lesson builds: {built} run, {reused} reused from a submission with the same sources"
        );
    }
    out
}

/// `grade --submissions`: grades, writes the gradebook and the reports, prints the summary.
/// Returns true when every submission could be graded.
pub fn run(root: &Path, course: &Course, dir: &Path, opts: &BatchOptions) -> Result<bool> {
    let batch = grade_all(root, course, dir, opts)?;
    let csv = gradebook_csv(&batch)?;
    match &opts.gradebook {
        Some(path) => {
            crate::fsutil::write(path, &csv)?;
            println!("gradebook written to {}", path.display());
        }
        None => print!("{csv}"),
    }
    if let Some(reports) = &opts.reports {
        for r in &batch.rows {
            if let Some(report) = &r.report {
                crate::fsutil::write(&reports.join(format!("{}.json", r.id)), &report.to_json())?;
            }
        }
        println!("reports written to {}", reports.display());
        let pairs = crate::similarity::for_class(root, course, dir, &opts.similarity)?;
        let path = reports.join("similarity.csv");
        crate::fsutil::write(&path, &crate::similarity::csv(&pairs)?)?;
        println!(
            "{} pair(s) of similar code at or above {} written to {}",
            pairs.len(),
            opts.similarity.threshold,
            path.display()
        );
    }
    print!("{}", summary(&batch));
    Ok(batch.rows.iter().all(|r| r.error.is_none()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_fall_in_their_bins() {
        assert_eq!(bin(0, 20), 0);
        assert_eq!(bin(1, 20), 1);
        assert_eq!(bin(5, 20), 2);
        assert_eq!(bin(19, 20), 4);
        assert_eq!(bin(20, 20), 5);
        assert_eq!(bin(0, 0), 5);
    }

    #[test]
    fn cells_that_start_like_a_formula_stay_text() {
        let batch = Batch {
            lessons: vec![("lesson01".into(), 10)],
            rows: vec![
                row("=HYPERLINK(\"http://x\")", Err(anyhow!("+1")), 10, 0.1),
                row("@sum", Err(anyhow!("-2, \t")), 10, 0.1),
                row("a=b", Err(anyhow!("ok-ish")), 10, 0.1),
            ],
            first_seconds: 0.1,
            total_seconds: 0.1,
            parallel: 1,
            builds: (0, 0),
        };
        let csv = gradebook_csv(&batch).unwrap();
        let lines: Vec<&str> = csv.lines().skip(1).collect();
        assert_eq!(
            lines,
            [
                "\"'=HYPERLINK(\"\"http://x\"\")\",0,10,error,0,10,false,0,none,'+1",
                "'@sum,0,10,error,0,10,false,0,none,\"'-2, \\t\"",
                "a=b,0,10,error,0,10,false,0,none,ok-ish",
            ]
        );
    }

    #[test]
    fn the_gradebook_holds_no_control_character_and_no_huge_cell() {
        let forged = "\x1b[2J\x1b[HTotal: 26/26\u{7}\r\u{9b}\u{7f}";
        let batch = Batch {
            lessons: vec![("lesson01".into(), 10)],
            rows: vec![
                row(
                    &format!("eve{forged}"),
                    Err(anyhow!("archive entry `{forged}\nforged` is bad")),
                    10,
                    0.1,
                ),
                row("mallory", Err(anyhow!("{}", "n".repeat(1 << 20))), 10, 0.1),
            ],
            first_seconds: 0.1,
            total_seconds: 0.1,
            parallel: 1,
            builds: (0, 0),
        };
        let csv = gradebook_csv(&batch).unwrap();
        assert!(
            !csv.bytes().any(|b| (b < 0x20 && b != b'\n') || b == 0x7f),
            "{csv:?}"
        );
        assert!(!csv.contains('\u{9b}'));
        assert!(csv.contains("eve\\u{1b}[2J\\u{1b}[HTotal: 26/26\\u{7}\\r\\u{9b}\\u{7f}"));
        assert!(csv.contains("\\nforged` is bad"));
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[2].len() < 2100, "{}", lines[2].len());
        assert!(lines[2].ends_with(&format!("… ({} more characters)", (1 << 20) - 2000)));
    }

    #[test]
    fn the_gradebook_quotes_errors_and_zeroes_missing_lessons() {
        let batch = Batch {
            lessons: vec![("lesson01".into(), 10), ("lesson02".into(), 5)],
            rows: vec![row("bob", Err(anyhow!("bad, \"zip\"")), 15, 0.1)],
            first_seconds: 0.1,
            total_seconds: 0.1,
            parallel: 1,
            builds: (0, 0),
        };
        let csv = gradebook_csv(&batch).unwrap();
        assert_eq!(
            csv,
            "id,total,max,status,lesson01,lesson01 max,lesson02,lesson02 max,official,\
             modified_files,isolation,error\n\
             bob,0,15,error,0,10,0,5,false,0,none,\"bad, \"\"zip\"\"\"\n"
        );
    }
}
