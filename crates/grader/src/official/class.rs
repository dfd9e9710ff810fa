//! `cargo xtask grade --submissions DIR`: a whole class graded officially, one row per student
//! (each entry of `DIR`, see [`crate::official::entry`]). Submissions share one target folder, the
//! first graded alone so it builds the dependencies once; a submission that cannot be graded gets
//! a row with its error and zero points, and the class goes on.

use crate::course::Course;
use crate::judge::verdict::Status;
use crate::official::archive;
use crate::official::class_run::{Batch, Row};
use crate::official::entry::open;
use crate::official::entry::{Entry, entries};
use crate::official::roster::{Enrolment, Roster};
use crate::report::Report;
use crate::report::student_text;
use crate::request::{Official, Request};
use anyhow::{Context as _, Result, bail};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// How to grade a class.
#[derive(Debug, Clone)]
pub struct BatchOptions {
    /// The per-submission grading request (lesson filter, timeout, check processes at once); each
    /// submission gets its student's id.
    pub grade: Request<Official>,
    /// Submissions graded at once.
    pub parallel: usize,
    /// Where to write the gradebook CSV.
    pub gradebook: Option<PathBuf>,
    /// Where to write one JSON report per student (`<id>.json`).
    pub reports: Option<PathBuf>,
    /// The class list to read.
    pub roster: Option<PathBuf>,
    /// The gradebook's layout and its cells for missing students.
    pub gradebook_options: crate::official::gradebook::Options,
    /// What `similarity.csv` (beside the reports) compares and reports.
    pub similarity: crate::official::similarity::Options,
    /// Only this part of the class (`--shard K/N`); `None` for the whole class.
    pub shard: Option<crate::official::shard::Shard>,
    /// The late policy to apply (`--late FILE.toml`).
    pub late: Option<PathBuf>,
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
    grade: Request<Official>,
    jobs: Option<usize>,
    outputs: (Option<PathBuf>, Option<PathBuf>, Option<PathBuf>),
    gradebook_options: crate::official::gradebook::Options,
    similarity: crate::official::similarity::Options,
) -> BatchOptions {
    let (gradebook, reports, roster) = outputs;
    let parallel = jobs.unwrap_or_else(default_parallel).max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    BatchOptions {
        grade: Request {
            jobs: (cores / parallel).max(1),
            ..grade
        },
        parallel,
        gradebook,
        reports,
        roster,
        gradebook_options,
        similarity,
        shard: None,
        late: None,
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

/// Refuses `graded` when two of its students' reports would share a file
/// ([`crate::official::report_name::clash`]), naming both entries.
fn check_report_names(graded: &[Job], roster: bool) -> Result<()> {
    use crate::official::report_name;
    let Some((a, b)) = report_name::clash(graded.iter().map(|j| j.id.as_str())) else {
        return Ok(());
    };
    let (a, b) = (&graded[a], &graded[b]);
    let entry = |j: &Job| {
        let path = j.entry.as_ref().map(|e| e.path.display().to_string());
        student_text::name(&path.unwrap_or_default())
    };
    let how = if roster {
        "give one of the students another id in the roster"
    } else {
        "give a --roster whose `id` column names each student"
    };
    bail!(
        "the submissions {} (id `{}`) and {} (id `{}`) would write their reports to the same \
         file, `{}.json` (ids are written as file names with only letters, digits and `-_.@+`, \
         cut to {} bytes, case ignored): nothing was graded\n  help: rename one of them, or {how}",
        entry(a),
        student_text::name(&a.id),
        entry(b),
        student_text::name(&b.id),
        report_name::stem(&b.id),
        report_name::MAX_STEM_BYTES
    )
}

/// Unpacks (when needed) and grades one entry as `request` asks, as the student `id` (the
/// variant inputs are drawn for the entry's own id), against the course at `root`, its files
/// compared with the `handout`.
fn grade_entry(
    (root, handout): (&Path, &Path),
    course: &Course,
    entry: &Entry,
    id: &str,
    request: &Request<Official>,
) -> Result<Report> {
    let (_unpacked, dir) = open(&entry.path, course)?;
    let request = request.with_mode(Official {
        student: entry.id.clone(),
        ..request.mode.clone()
    });
    let request = Request {
        progress: false,
        ..request
    };
    let mut report =
        crate::official::submission::grade_against(root, course, &dir, &request, (None, handout))?;
    report.student = Some(id.to_owned());
    Ok(report)
}

/// The row of `job`, from its grading's `result` (`None`: nothing to grade).
fn row(job: &Job, result: Option<Result<Report>>, max: u32, seconds: f64) -> Row {
    // The whole chain on one line, as `{e:#}` prints it in `main`.
    let outcome = result.map(|r| r.map_err(|error| format!("{error:#}")));
    let submission = job.entry.as_ref().map(|e| e.name.clone());
    Row::new((&job.id, job.enrolment, submission), outcome, max, seconds)
}

/// The jobs of the part `shard` of the class ([`crate::official::shard`]), in id order; all of
/// them without one.
fn shard_of(mut jobs: Vec<Job>, shard: Option<crate::official::shard::Shard>) -> Vec<Job> {
    let Some(shard) = shard else {
        return jobs;
    };
    jobs.sort_by(|a, b| a.id.cmp(&b.id));
    let all = jobs.len();
    let part = shard.select(jobs);
    eprintln!(
        "shard {shard}: {} of the class's {all} student(s)",
        part.len()
    );
    part
}

/// Grades every submission in `dir` (and lists the roster's students who handed nothing in).
pub fn grade_all(root: &Path, course: &Course, dir: &Path, opts: &BatchOptions) -> Result<Batch> {
    let started = Instant::now();
    let roster = opts.roster.as_deref().map(Roster::load).transpose()?;
    crate::official::gradebook::check(opts.gradebook_options.format, roster.as_ref())?;
    crate::course::require_solutions(root)?;
    let selected = opts.grade.selection.lessons(course);
    let lessons: Vec<(String, u32)> = selected
        .iter()
        .map(|l| (l.id.clone(), l.max_points()))
        .collect();
    let max: u32 = lessons.iter().map(|(_, m)| m).sum();
    // A class folder that is none is named before the course is checked.
    let all = jobs(dir, roster.as_ref())?;
    let (graded, missing): (Vec<Job>, Vec<Job>) = shard_of(all.clone(), opts.shard)
        .into_iter()
        .partition(|j| j.entry.is_some());
    crate::official::preflight::check(root, course)?;
    // Over the whole class: two parts' reports must not share a file once merged either.
    let submitted: Vec<Job> = all.into_iter().filter(|j| j.entry.is_some()).collect();
    check_report_names(&submitted, roster.is_some())?;
    let mut rows: Vec<Row> = missing.iter().map(|j| row(j, None, max, 0.0)).collect();
    let cache = std::sync::Arc::new(crate::build::reuse::BuildCache::new()?);
    let grade = opts.grade.with_mode(Official {
        build_cache: Some(cache.clone()),
        ..opts.grade.mode.clone()
    });
    let parallel = opts.parallel.clamp(1, graded.len().max(1));
    // In the container mode the class folder is closed to the checks' users too (it may lie
    // outside the course): one student's checks could read the others' sources.
    #[cfg(target_os = "linux")]
    let _closed = (grade.mode.isolation == crate::run::Isolation::ContainerUid)
        .then(|| crate::run::closed::close_to_others(&crate::fsutil::scratch_root(), &[dir]))
        .transpose()
        .with_context(|| format!("cannot close {} to the checks' users", dir.display()))?;
    // What every student should have: the handout as it is when the run starts, made once.
    let expected = crate::fsutil::scratch_dir("expected-handout")?;
    let handout = expected.path().join("handout");
    crate::official::handout::make(root, course, &handout)?;
    let (graded_rows, (first_seconds, first_cpu)) =
        grade_jobs((root, &handout), course, &graded, &grade, parallel, max);
    rows.extend(graded_rows);
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(Batch {
        lessons,
        roster,
        rows,
        first_seconds,
        total_seconds: started.elapsed().as_secs_f64(),
        parallel,
        late: None,
        builds: cache.counts(),
        cpu_seconds: first_cpu.zip(cpu_seconds()),
    })
}

/// CPU time (user and system) of this process and of every process it has waited for, which
/// waited for theirs (builds, sandboxes, checks), seconds.
fn cpu_seconds() -> Option<f64> {
    #[cfg(target_os = "linux")]
    {
        use nix::sys::resource::{UsageWho, getrusage};
        let seconds = |who| {
            getrusage(who).ok().map(|u| {
                let t =
                    |tv: nix::sys::time::TimeVal| tv.tv_sec() as f64 + tv.tv_usec() as f64 / 1e6;
                t(u.user_time()) + t(u.system_time())
            })
        };
        Some(seconds(UsageWho::RUSAGE_SELF)? + seconds(UsageWho::RUSAGE_CHILDREN)?)
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Grades `jobs` against the course at `root.0` (each compared with the handout at `root.1`),
/// `parallel` at once after the first (graded alone: it builds the dependencies): their rows, and
/// the first one's wall time and the CPU time spent when it was graded.
fn grade_jobs(
    root: (&Path, &Path),
    course: &Course,
    jobs: &[Job],
    grade: &Request<Official>,
    parallel: usize,
    max: u32,
) -> (Vec<Row>, (f64, Option<f64>)) {
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
        let result = grade_entry(root, course, entry, &job.id, grade);
        let r = row(job, Some(result), max, t.elapsed().as_secs_f64());
        announce(&r);
        r
    };
    let Some(first) = jobs.first() else {
        return (Vec::new(), (0.0, None));
    };
    let first = grade_one(first);
    let first_seconds = (first.seconds, cpu_seconds());
    let mut results = vec![first];
    results.extend(crate::fsutil::par_map(parallel, &jobs[1..], grade_one));
    (results, first_seconds)
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
            "Marginal cost: {m:.1} s of wall time per submission after the first{}",
            batch
                .marginal_cpu_seconds()
                .map_or_else(String::new, |c| format!(" ({c:.1} s of CPU time)"))
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
    // Before grading: a comment about a check or misconception the course lacks stops the run.
    let comments =
        crate::official::comments::Comments::load(root, course).context("nothing was graded")?;
    let policy = opts
        .late
        .as_deref()
        .map(crate::official::late::Policy::load)
        .transpose()?;
    // A Gradescope export's times, read before grading: a mistake in them is found at once.
    let export = crate::official::late::gradescope::times(dir)?;
    let mut batch = grade_all(root, course, dir, opts)?;
    if let Some(times) = &export {
        crate::official::late::gradescope::record_times(&mut batch, times);
    }
    if let Some(policy) = &policy {
        crate::official::late::apply(&mut batch, policy)?;
    }
    crate::official::gradebook::write(&batch, opts.gradebook_options, opts.gradebook.as_deref())?;
    if let Some(reports) = &opts.reports {
        crate::official::stored::write(reports, &batch, opts.roster.as_deref(), opts.shard)?;
        println!("reports written to {}", reports.display());
        // A part compares no code: the merge compares the whole class's.
        let pairs = match opts.shard {
            Some(_) => Vec::new(),
            None => similarity(&batch, root, course, dir, reports, &opts.similarity)?,
        };
        let rows: Vec<crate::official::pages::ClassRow> = batch
            .rows
            .iter()
            .map(crate::official::pages::ClassRow::of)
            .collect();
        let extras = crate::official::pages::Extras {
            comments,
            ..Default::default()
        };
        let pages = crate::official::pages::write_with(reports, &rows, &pairs, &extras)?;
        println!(
            "feedback pages written: {pages} student(s) (<id>.html, <id>.md) and the class page {}",
            reports.join(crate::official::pages::CLASS_PAGE).display()
        );
    }
    print!("{}", summary(&batch));
    Ok(batch.rows.iter().all(|r| r.error.is_none()))
}

/// Writes `similarity.csv` of the class in `dir` beside the `reports`: the similar pairs.
fn similarity(
    batch: &Batch,
    root: &Path,
    course: &Course,
    dir: &Path,
    reports: &Path,
    opts: &crate::official::similarity::Options,
) -> Result<Vec<crate::official::similarity::Pair>> {
    let pairs = similar_pairs(batch, root, course, dir, opts)?;
    let path = reports.join("similarity.csv");
    crate::fsutil::write(&path, &crate::official::similarity::csv(&pairs)?)?;
    println!(
        "{} pair(s) of similar code at or above {} written to {}",
        pairs.len(),
        opts.threshold,
        path.display()
    );
    Ok(pairs)
}

/// The class's similar pairs, each student named by their gradebook id (a roster's id, where the
/// similarity pass knows the entry by its name).
pub fn similar_pairs(
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

/// Rows and batches for the gradebooks' unit tests.
#[cfg(test)]
pub mod fixture {
    use super::*;
    use anyhow::anyhow;

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

    /// The row of `id` (whose entry is `entry`) graded with `report`, as the class run makes it.
    pub fn reported(id: &str, enrolment: Enrolment, entry: &str, report: Report) -> Row {
        let job = Job {
            id: id.to_owned(),
            enrolment,
            entry: Some(Entry {
                name: entry.to_owned(),
                id: id.to_owned(),
                path: PathBuf::from(entry),
            }),
        };
        let max = report.max_score;
        row(&job, Some(Ok(report)), max, 0.1)
    }

    /// The row of the roster's student `s`, `id`, who handed nothing in.
    pub fn missing(id: &str, s: usize, max: u32) -> Row {
        let job = Job {
            id: id.to_owned(),
            enrolment: Enrolment::Listed(s),
            entry: None,
        };
        row(&job, None, max, 0.0)
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
            late: None,
            builds: (0, 0),
            cpu_seconds: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shard_takes_its_run_of_the_class_in_id_order() {
        use crate::official::shard::Shard;
        let job = |id: &str, entry: bool| Job {
            id: id.to_owned(),
            enrolment: Enrolment::NoRoster,
            entry: entry.then(|| Entry {
                name: id.to_owned(),
                id: id.to_owned(),
                path: PathBuf::from(id),
            }),
        };
        // A roster's missing students come after the entries: a part is cut from all, by id.
        let class = || {
            vec![
                job("d", true),
                job("a", true),
                job("e", false),
                job("b", false),
                job("c", true),
            ]
        };
        let ids = |jobs: Vec<Job>| jobs.into_iter().map(|j| j.id).collect::<Vec<_>>();
        assert_eq!(ids(shard_of(class(), None)), ["d", "a", "e", "b", "c"]);
        let parts: Vec<Vec<String>> = (1..=2)
            .map(|k| ids(shard_of(class(), Some(Shard { k, n: 2 }))))
            .collect();
        assert_eq!(parts, [vec!["a", "b"], vec!["c", "d", "e"]]);
    }

    #[test]
    fn the_summary_gives_the_cpu_time_of_each_submission_after_the_first() {
        let lessons = [("lesson01", 10)];
        let graded = |id: &str| fixture::graded(id, &[("lesson01", 5)], 10);
        let mut batch = fixture::batch(&lessons, vec![graded("a"), graded("b"), graded("c")], None);
        (batch.first_seconds, batch.total_seconds) = (30.0, 50.0);
        assert!(summary(&batch).contains("10.0 s of wall time per submission after the first\n"));
        batch.cpu_seconds = Some((40.0, 55.0));
        assert_eq!(batch.marginal_cpu_seconds(), Some(7.5));
        assert!(
            summary(&batch)
                .contains("10.0 s of wall time per submission after the first (7.5 s of CPU time)")
        );
        batch.rows.truncate(1);
        assert_eq!(batch.marginal_cpu_seconds(), None);
        // The grader's own CPU time so far is read, and only grows.
        #[cfg(target_os = "linux")]
        {
            let before = cpu_seconds().unwrap();
            let mut x = 0u64;
            for i in 0..5_000_000u64 {
                x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
            }
            assert!(cpu_seconds().unwrap() > before, "{x}");
        }
    }

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
