//! `cargo xtask grade --submissions DIR`: a whole class, graded officially, one row per student.
//!
//! Every entry of `DIR` is one student: a handout folder, its `exercises/` folder, or a `.zip`,
//! `.tar.gz` or `.tgz` of either, possibly nested one folder deep. The student's id is the entry's
//! name without its archive extension. Each submission is graded by the official single-submission
//! grader ([`crate::official::submission::grade`]), which only ever reads the student's folder; archives are
//! unpacked into a scratch folder first ([`crate::official::archive`]). A submission that cannot be graded
//! (not a course, a bad archive, a path out of the archive, a symbolic link in the folder, a
//! grading error) gets a row with its error and zero points, and the batch goes on.
//!
//! Submissions run `jobs` at a time in one target directory. Their builds take turns under the
//! build lock (see `build.rs`: one fixed build folder, rebuilds decided by content, check
//! executables copied out before the lock is released), so the dependencies are compiled once,
//! one student's lesson crates are never taken for another's, and their checks run side by side.
//! The first submission is graded alone, which builds the dependencies.
//!
//! With a roster ([`crate::official::roster`]), every student it lists gets a row, `missing` when they
//! handed nothing in, and a submission it does not list is graded and marked. The gradebook is
//! written by [`crate::official::gradebook`].

use crate::course::Course;
use crate::grade::Options;
use crate::judge::verdict::Status;
use crate::official::archive;
use crate::official::roster::{Enrolment, Roster};
use crate::report::Report;
use crate::report::student_text;
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
    /// Where to write one JSON report per student (`<id>.json`).
    pub reports: Option<PathBuf>,
    /// The class list to read.
    pub roster: Option<PathBuf>,
    /// The gradebook's layout.
    pub format: crate::official::gradebook::Format,
    /// What `similarity.csv` (beside the reports) compares and reports.
    pub similarity: crate::official::similarity::Options,
}

/// Submissions graded at once by default: two on a machine with two cores or more (one builds
/// while the other runs its checks), else one.
pub fn default_parallel() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(2))
}

/// The batch options from the command line: `jobs` submissions at once (default
/// [`default_parallel`]), each running its checks on its share of the cores; `outputs` as
/// [`BatchOptions`] has them, the gradebook, the reports, the roster and the format.
pub fn options(
    grade: Options,
    jobs: Option<usize>,
    outputs: (Option<PathBuf>, Option<PathBuf>, Option<PathBuf>),
    format: crate::official::gradebook::Format,
    similarity: crate::official::similarity::Options,
) -> BatchOptions {
    let (gradebook, reports, roster) = outputs;
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
        roster,
        format,
        similarity,
    }
}

/// One student's line of the gradebook.
#[derive(Debug, Clone)]
pub struct Row {
    /// The student's id: the roster's, else the entry's name without archive extension.
    pub id: String,
    /// Whether the roster lists the student.
    pub enrolment: Enrolment,
    /// The entry graded (its file name); `None` for a roster's student who handed nothing in.
    pub submission: Option<String>,
    /// Points earned (0 when the submission could not be graded or is missing).
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
    /// The class list, when given.
    pub roster: Option<Roster>,
    /// One row per student, sorted by id.
    pub rows: Vec<Row>,
    /// Wall time of the first submission (which also builds the dependencies), seconds.
    pub first_seconds: f64,
    /// Wall time of the whole batch, seconds.
    pub total_seconds: f64,
    /// Submissions graded at once.
    pub parallel: usize,
    /// Lesson builds run, and lesson builds reused from a submission with the same sources
    /// (see [`crate::build::class_cache`]).
    pub builds: (usize, usize),
}

impl Batch {
    /// Wall time per submission after the first: `(total - first) / (n - 1)`.
    pub fn marginal_seconds(&self) -> Option<f64> {
        let n = self.submitted().count();
        (n > 1).then(|| (self.total_seconds - self.first_seconds) / (n - 1) as f64)
    }

    /// The rows of a submission (all but a roster's students who handed nothing in).
    pub fn submitted(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|r| r.submission.is_some())
    }
}

/// One entry of the submissions folder.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Its file name.
    pub name: String,
    /// Its name without archive extension.
    pub id: String,
    /// Its path.
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
            name,
        });
    }
    out.sort_by(|a, b| a.id.cmp(&b.id).then(a.path.cmp(&b.path)));
    Ok(out)
}

/// The entries of the submissions folder `dir` for reading alone (`similarity`), sorted by id: an
/// error when it holds none; two entries that share an id (a roster may tell them apart) are
/// known by their file names instead.
pub fn class_entries(dir: &Path) -> Result<Vec<Entry>> {
    let mut list = entries(dir)?;
    if list.is_empty() {
        bail!("{} holds no submission", dir.display());
    }
    let shared: std::collections::BTreeSet<String> = list
        .windows(2)
        .filter(|pair| pair[0].id == pair[1].id)
        .map(|pair| pair[0].id.clone())
        .collect();
    for e in &mut list {
        if shared.contains(&e.id) {
            e.id = e.name.clone();
        }
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
    if let Some(link) =
        archive::escaping_link(dir).or_else(|| crate::official::submission::find_link(dir))
    {
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

/// One row to fill: its id, whether the roster lists it, and the entry to grade (`None`: a
/// roster's student who handed nothing in).
#[derive(Debug, Clone)]
struct Job {
    id: String,
    enrolment: Enrolment,
    entry: Option<Entry>,
}

/// The rows of the run: one per entry of `dir`, and with a roster, one per student it lists,
/// paired with their entry ([`Roster::pair`]). A submission the roster does not list is named on
/// the standard error.
fn jobs(dir: &Path, roster: Option<&Roster>) -> Result<Vec<Job>> {
    let list = entries(dir)?;
    if list.is_empty() {
        bail!("{} holds no submission", dir.display());
    }
    let Some(roster) = roster else {
        // `bob/`, `bob.zip` and `bob.tgz` would share a gradebook row's id and a report's name.
        if let Some(pair) = list.windows(2).find(|pair| pair[0].id == pair[1].id) {
            bail!(
                "two submissions would get the id `{}`: {} and {}: nothing was graded\n  help: \
                 rename one of them, or give a --roster with a `submission` column naming each \
                 student's",
                student_text::name(&pair[0].id),
                student_text::name(&pair[0].path.display().to_string()),
                student_text::name(&pair[1].path.display().to_string())
            );
        }
        return Ok(list
            .into_iter()
            .map(|e| Job {
                id: e.id.clone(),
                enrolment: Enrolment::NoRoster,
                entry: Some(e),
            })
            .collect());
    };
    let names: Vec<(String, String)> = list
        .iter()
        .map(|e| (e.name.clone(), e.id.clone()))
        .collect();
    let pairs = roster.pair(&names)?;
    for (s, student) in roster.students.iter().enumerate() {
        if let Some(name) = &student.submission
            && !list.iter().any(|e| &e.name == name)
        {
            eprintln!(
                "warning: {} names the submission `{}`, which is not in {}: `{}` is missing",
                roster.line_of(s),
                student_text::name(name),
                dir.display(),
                student_text::name(&student.id)
            );
        }
    }
    let jobs: Vec<Job> = pairs
        .into_iter()
        .map(|p| Job {
            id: p.id,
            enrolment: p.enrolment,
            entry: p.entry.map(|e| list[e].clone()),
        })
        .collect();
    for job in jobs.iter().filter(|j| j.enrolment == Enrolment::NotListed) {
        let name = job.entry.as_ref().map_or("", |e| e.name.as_str());
        eprintln!(
            "warning: the submission `{}` is not in the roster {}: it is graded as `{}`, marked \
             not_in_roster in a csv gradebook and left out of a canvas or moodle one",
            student_text::name(name),
            roster.path.display(),
            student_text::name(&job.id)
        );
    }
    Ok(jobs)
}

/// Unpacks (when needed) and grades one entry with the target directory `target`, as the
/// student `id`.
fn grade_entry(
    root: &Path,
    course: &Course,
    entry: &Entry,
    id: &str,
    opts: &Options,
    target: &Path,
) -> Result<Report> {
    let (_unpacked, dir) = open(&entry.path, course)?;
    let mut opts = opts.clone();
    opts.target_dir = Some(target.to_path_buf());
    opts.progress = false;
    opts.variants = Some(entry.id.clone());
    let mut report = crate::official::submission::grade(
        root,
        course,
        &dir,
        &opts,
        &crate::official::submission::SubmissionOptions::default(),
    )?;
    report.student = Some(id.to_owned());
    Ok(report)
}

/// The row of `job`, from its grading's `result` (`None`: nothing to grade).
fn row(job: &Job, result: Option<Result<Report>>, max: u32, seconds: f64) -> Row {
    let blank = Row {
        id: job.id.clone(),
        enrolment: job.enrolment,
        submission: job.entry.as_ref().map(|e| e.name.clone()),
        score: 0,
        max,
        lessons: BTreeMap::new(),
        official: false,
        modified: 0,
        isolation: "none".to_owned(),
        error: None,
        seconds,
        report: None,
    };
    match result {
        None => blank,
        Some(Ok(report)) => Row {
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
            report: Some(report),
            ..blank
        },
        Some(Err(error)) => Row {
            // The whole chain on one line, as `{e:#}` prints it in `main`.
            error: Some(format!("{error:#}")),
            ..blank
        },
    }
}

/// Grades every submission in `dir` (and lists the roster's students who handed nothing in).
pub fn grade_all(root: &Path, course: &Course, dir: &Path, opts: &BatchOptions) -> Result<Batch> {
    let started = Instant::now();
    let roster = opts.roster.as_deref().map(Roster::load).transpose()?;
    crate::official::gradebook::check(opts.format, roster.as_ref())?;
    crate::course::require_solutions(root)?;
    let selected = crate::plan::select(course, opts.grade.lesson.as_deref())?;
    let lessons: Vec<(String, u32)> = selected
        .iter()
        .map(|l| (l.id.clone(), l.max_points()))
        .collect();
    let max: u32 = lessons.iter().map(|(_, m)| m).sum();
    crate::official::preflight::check(root, course)?;
    let (graded, missing): (Vec<Job>, Vec<Job>) = jobs(dir, roster.as_ref())?
        .into_iter()
        .partition(|j| j.entry.is_some());
    let mut rows: Vec<Row> = missing.iter().map(|j| row(j, None, max, 0.0)).collect();
    let cache = std::sync::Arc::new(crate::build::reuse::BuildCache::new()?);
    let grade = Options {
        build_cache: Some(cache.clone()),
        ..opts.grade.clone()
    };
    let parallel = opts.parallel.clamp(1, graded.len().max(1));
    let (graded_rows, first_seconds) = grade_jobs(root, course, &graded, &grade, parallel, max);
    rows.extend(graded_rows);
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Batch {
        lessons,
        roster,
        rows,
        first_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        parallel,
        builds: cache.counts(),
    })
}

/// Grades `jobs`, `parallel` at once after the first (graded alone: it builds the dependencies):
/// their rows, and the first one's wall time.
fn grade_jobs(
    root: &Path,
    course: &Course,
    jobs: &[Job],
    grade: &Options,
    parallel: usize,
    max: u32,
) -> (Vec<Row>, f64) {
    let base = grade
        .target_dir
        .clone()
        .unwrap_or_else(|| crate::official::submission::target_dir(root));
    let total = jobs.len();
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
    let grade_one = |job: &Job| {
        let t = Instant::now();
        let entry = job.entry.as_ref().expect("a job to grade has an entry");
        let result = grade_entry(root, course, entry, &job.id, grade, &base);
        let r = row(job, Some(result), max, t.elapsed().as_secs_f64());
        announce(&r);
        r
    };
    let Some(first) = jobs.first() else {
        return (Vec::new(), 0.0);
    };
    let first = grade_one(first);
    let first_seconds = first.seconds;
    let next = AtomicUsize::new(1);
    let results = Mutex::new(vec![first]);
    std::thread::scope(|s| {
        for _ in 0..parallel {
            let (next, results, grade_one) = (&next, &results, &grade_one);
            s.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(job) = jobs.get(i) else { break };
                    let r = grade_one(job);
                    results.lock().expect("results").push(r);
                }
            });
        }
    });
    (results.into_inner().expect("results"), first_seconds)
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
    let graded: Vec<&Row> = batch.submitted().filter(|r| r.error.is_none()).collect();
    let submitted = batch.submitted().count();
    let failed = submitted - graded.len();
    let _ = write!(
        out,
        "\n{submitted} submission(s): {} graded, {failed} not graded",
        graded.len()
    );
    let _ = match &batch.roster {
        Some(roster) => writeln!(
            out,
            "; {} of the roster's {} student(s) handed nothing in",
            batch.rows.len() - submitted,
            roster.students.len()
        ),
        None => writeln!(out),
    };
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
        batch.total_seconds, submitted, batch.parallel, batch.first_seconds
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
    let csv = crate::official::gradebook::render(&batch, opts.format)?;
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
        let pairs = similar_pairs(&batch, root, course, dir, &opts.similarity)?;
        let path = reports.join("similarity.csv");
        crate::fsutil::write(&path, &crate::official::similarity::csv(&pairs)?)?;
        println!(
            "{} pair(s) of similar code at or above {} written to {}",
            pairs.len(),
            opts.similarity.threshold,
            path.display()
        );
        let rows: Vec<crate::official::pages::ClassRow> =
            batch.rows.iter().map(class_row).collect();
        let pages = crate::official::pages::write(reports, &rows, &pairs)?;
        println!(
            "feedback pages written: {pages} student(s) (<id>.html, <id>.md) and the class page {}",
            reports.join(crate::official::pages::CLASS_PAGE).display()
        );
    }
    print!("{}", summary(&batch));
    Ok(batch.rows.iter().all(|r| r.error.is_none()))
}

/// The class's similar pairs, each student named by their gradebook id (a roster's id, where the
/// similarity pass knows the entry by its name).
fn similar_pairs(
    batch: &Batch,
    root: &Path,
    course: &Course,
    dir: &Path,
    opts: &crate::official::similarity::Options,
) -> Result<Vec<crate::official::similarity::Pair>> {
    let mut ids = BTreeMap::new();
    for r in &batch.rows {
        if let Some(name) = &r.submission {
            let stem = archive::kind(name).map_or(name.as_str(), |(_, stem)| stem);
            ids.entry(stem.to_owned()).or_insert_with(|| r.id.clone());
            ids.insert(name.clone(), r.id.clone());
        }
    }
    let rename = |id: String| ids.get(&id).cloned().unwrap_or(id);
    Ok(
        crate::official::similarity::for_class(root, course, dir, opts)?
            .into_iter()
            .map(|p| crate::official::similarity::Pair {
                a: rename(p.a),
                b: rename(p.b),
                ..p
            })
            .collect(),
    )
}

/// A gradebook row as the class page shows it.
fn class_row(r: &Row) -> crate::official::pages::ClassRow {
    use crate::official::pages::Standing;
    crate::official::pages::ClassRow {
        id: r.id.clone(),
        standing: match (&r.report, &r.error, &r.submission) {
            (Some(report), _, _) => Standing::Graded(Box::new(report.clone())),
            (None, None, None) => Standing::Missing,
            (None, error, _) => Standing::NotGraded(error.clone().unwrap_or_default()),
        },
    }
}

/// Rows and batches for the gradebooks' unit tests.
#[cfg(test)]
pub mod fixture {
    use super::*;

    /// The row of a submission `id` (the entry `id.zip`) that could not be graded: `error`.
    pub fn failed(id: &str, error: &str, max: u32) -> Row {
        let job = Job {
            id: id.to_owned(),
            enrolment: Enrolment::NoRoster,
            entry: Some(Entry {
                name: format!("{id}.zip"),
                id: id.to_owned(),
                path: PathBuf::from(format!("{id}.zip")),
            }),
        };
        row(&job, Some(Err(anyhow!("{error}"))), max, 0.1)
    }

    /// The row of `id`, graded with these points per lesson.
    pub fn graded(id: &str, lessons: &[(&str, u32)], max: u32) -> Row {
        let lessons: BTreeMap<String, u32> =
            lessons.iter().map(|(l, p)| ((*l).to_owned(), *p)).collect();
        Row {
            score: lessons.values().sum(),
            lessons,
            error: None,
            official: true,
            ..failed(id, "", max)
        }
    }

    /// A class of `rows` graded on `lessons`.
    pub fn batch(lessons: &[(&str, u32)], rows: Vec<Row>, roster: Option<Roster>) -> Batch {
        Batch {
            lessons: lessons.iter().map(|(l, m)| ((*l).to_owned(), *m)).collect(),
            roster,
            rows,
            first_seconds: 0.1,
            total_seconds: 0.1,
            parallel: 1,
            builds: (0, 0),
        }
    }
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
}
