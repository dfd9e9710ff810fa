//! Every command and flag of `cargo xtask`, as clap parses them.

use super::values::{parse_deadline, parse_shard, parse_threshold, parse_timeout};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::time::Duration;

/// Grader and tools for the multi-head attention course.
#[derive(Parser)]
#[command(
    name = "cargo xtask",
    bin_name = "cargo xtask",
    version,
    about,
    long_about = None,
    after_help = "The student loop: edit exercises/<lesson>/src/exercises.rs, then\n  \
                  cargo xtask demo 1      the lesson's worked example with your code\n  \
                  cargo xtask grade 1     check by check, what is right and what to do next\n  \
                  cargo xtask grade NAME  only that exercise's checks, e.g. `grade split_heads`\n  \
                  cargo xtask hint NAME   the next hint for an exercise"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Cmd,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    /// A table per lesson, for people.
    Human,
    /// The course's JSON report (schema_version 3).
    Json,
    /// Gradescope's results.json.
    Gradescope,
    /// JUnit XML for CI systems.
    Junit,
}

/// The layout of a class run's gradebook (`--gradebook-format`).
#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq)]
pub enum GradebookFormat {
    /// The course's CSV: every column, with the status and the error of each row.
    #[default]
    Csv,
    /// For Canvas' gradebook import: Student, ID, SIS User ID, SIS Login ID, Section, a Points
    /// Possible line, a column per lesson.
    Canvas,
    /// For Moodle's CSV grade import: the student's email (or username, or ID number), a column
    /// per lesson.
    Moodle,
}

/// The points of a roster's student who handed nothing in (`--missing`).
#[derive(Clone, Copy, Debug, Default, ValueEnum, PartialEq, Eq)]
pub enum MissingPoints {
    /// 0 points.
    #[default]
    Zero,
    /// Empty cells, which Canvas' and Moodle's imports skip (the grade there stays as it is).
    Blank,
}

#[derive(Subcommand)]
pub enum Cmd {
    /// Grade the exercises (or the reference solutions), check by check, each judged by the grader.
    ///
    /// Exits 0 only at full marks. Grading never writes or accepts snapshots. A mistyped lesson or
    /// exercise name is refused (exit status 2) with the closest name: `did you mean ...?`.
    Grade(GradeArgs),
    /// Regenerate snapshots from the reference solutions, delete orphans, update checks.sha256
    /// (instructors).
    ///
    /// Prints every snapshot added, changed (with a short diff) or removed. A lesson whose solution
    /// fails a check for another reason than a snapshot is refused.
    Bless {
        /// Only this lesson: `lesson01`, `1` or its directory name.
        lesson: Option<String>,
        /// Change nothing; exit 1 naming the snapshots that would change.
        #[arg(long)]
        check: bool,
        /// Change nothing; show what bless would write (the same diffs), and exit 0 unless a
        /// lesson is refused.
        #[arg(long, conflicts_with = "check")]
        dry_run: bool,
    },
    /// Everything to verify before publishing, in one report; exits 1 on any problem
    /// (instructors).
    ///
    /// Solutions at full marks, clippy-clean and formatted; stubs compile without warnings and
    /// grade `not_started` everywhere; snapshots fresh and none orphaned; course.toml agrees with
    /// the checks; the manifest matches.
    Check {
        /// Only this lesson (the manifest is then checked for its files only).
        lesson: Option<String>,
        /// Check processes to run at once (default: the number of cores).
        #[arg(
            long,
            short,
            value_parser = clap::value_parser!(u16).range(1..),
            allow_negative_numbers = true
        )]
        jobs: Option<u16>,
    },
    /// Scaffold a new lesson (exercise and solution crates, worked example, course.toml entry,
    /// blessed snapshot) that passes `cargo xtask check` (instructors).
    New {
        /// `lesson10-yarn`, or `yarn` for the next free number.
        slug: String,
        /// The lesson's title.
        #[arg(long)]
        title: String,
    },
    /// Add an exercise to a lesson: stub, reference, re-exports, course.toml entry with a hint and
    /// a check, the check and its blessed snapshot (instructors).
    #[command(name = "new-exercise")]
    NewExercise {
        /// The lesson: `lesson08`, `8` or its directory name.
        lesson: String,
        /// The exercise's function name, a snake_case identifier, e.g. `rotate_pairs`.
        name: String,
    },
    /// Write the student handout to OUT_DIR: no solutions, hidden checks or instructor-only files
    /// (instructors).
    Dist {
        /// A new (or empty) directory.
        out_dir: PathBuf,
    },
    /// Run a lesson's worked example with your code (or the reference) and print it like the text.
    Demo {
        /// The lesson: `lesson01`, `1` or its directory name.
        lesson: String,
        /// Run it with the reference solution.
        #[arg(long)]
        solutions: bool,
        /// Draw each of your heads next to the reference solution's (not in a student handout,
        /// which has no reference).
        #[arg(long, conflicts_with = "solutions")]
        compare: bool,
        /// Also write every figure (per-head weights, head averages, masks) as an SVG file in DIR.
        #[arg(long, value_name = "DIR")]
        svg: Option<PathBuf>,
    },
    /// Autograder set-ups for Gradescope and GitHub Classroom (instructors).
    Autograder {
        #[command(subcommand)]
        platform: Platform,
    },
    /// Show the next hint for an exercise (one level per call).
    Hint {
        /// The exercise (function) name, e.g. `split_heads`.
        exercise: String,
        /// Show every hint level at once.
        #[arg(long)]
        all: bool,
        /// Start again from the first hint.
        #[arg(long)]
        reset: bool,
    },
    /// List the lessons and exercises with their points, and your progress at the last grade
    /// (done, in progress, not started) with the course total.
    List,
    /// Grade a lesson again each time you save one of its files (Ctrl-C to stop).
    ///
    /// One grade at a time; a newer save stops the grade in progress. Without LESSON every lesson
    /// is watched and the one you changed is graded.
    Watch {
        /// Only this lesson: `lesson01`, `1` or its directory name.
        lesson: Option<String>,
        /// Also run the lesson's worked example (`cargo xtask demo`) before its table.
        #[arg(long)]
        demo: bool,
    },
    /// Put one exercise's function (or a whole lesson's src/exercises.rs) back to the handed-out
    /// stub, or (--course-files) the checks, snapshots and other course files; what it replaces
    /// is kept as a backup under target/xtask/backups/.
    Reset {
        /// An exercise (function) name, e.g. `split_heads`, or a lesson: `lesson01`, `1`.
        #[arg(required_unless_present = "course_files")]
        what: Option<String>,
        /// Put back every course file a grade names as changed (checks, snapshots, course.toml,
        /// Cargo.toml files, crates/): the handed-out copies, for an official grade again. Your
        /// exercises are not touched.
        #[arg(long, conflicts_with = "what")]
        course_files: bool,
        /// Do not ask before overwriting.
        #[arg(long)]
        yes: bool,
    },
    /// Rewrite checks.sha256 from the current checks and snapshots (instructors).
    Manifest,
    /// Pairs of submissions whose code looks alike, MOSS-style (instructors): a CSV
    /// `a,b,score,exercises`, highest score first.
    ///
    /// Every entry of DIR is one student, as for `grade --submissions`. Renaming, reformatting and
    /// comments do not hide a copy; the handout's code, code shared by more than 30% of the class
    /// and exercises too short to tell never count. A pair is a lead to read both submissions,
    /// never a verdict.
    #[command(
        after_help = "Example:\n  cargo xtask similarity class/ --threshold 0.6 \
                            --exercises split_heads,lesson03 --output similarity.csv"
    )]
    Similarity {
        /// The submissions folder: one handout, exercises/ folder, .zip or .tar.gz per student.
        dir: PathBuf,
        /// Report pairs scoring at least X (more than 0, at most 1).
        #[arg(long, value_name = "X", value_parser = parse_threshold, default_value = "0.5")]
        threshold: f64,
        /// Compare only these exercises, lessons (all their code) or `<lesson>:other` (the code
        /// around a lesson's exercises), comma-separated.
        #[arg(long, value_name = "NAME,...", value_delimiter = ',')]
        exercises: Option<Vec<String>>,
        /// Write the CSV to FILE (default: standard output).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Write the feedback pages again from the JSON reports in RDIR, without grading
    /// (instructors): `<id>.html` and `<id>.md` per student, and the class page `index.html`.
    ///
    /// `grade --submissions DIR --reports RDIR` writes them too.
    #[command(name = "class-page")]
    ClassPage(ClassPageArgs),
    /// What a regrade changed, from two class runs' JSON reports, without grading
    /// (instructors): whose points changed and by how much, and which checks changed verdict.
    ///
    /// Students with a report in one run only are listed too. Exits 0 whether or not anything
    /// changed; 2 when a folder holds no report.
    #[command(
        name = "regrade-diff",
        after_help = "Example, after fixing a check:\n  cargo xtask grade --submissions class/ \
                      --reports reports-v2/\n  cargo xtask regrade-diff reports/ reports-v2/"
    )]
    RegradeDiff {
        /// The reports folder of the earlier run.
        #[arg(value_name = "OLD_RDIR")]
        old: PathBuf,
        /// The reports folder of the regrade.
        #[arg(value_name = "NEW_RDIR")]
        new: PathBuf,
    },
    /// Write the gradebook of a graded class again from its reports folder, without grading
    /// (instructors): another layout, another roster, blank cells for missing students.
    ///
    /// Reads RDIR's `class-run.json` and `<id>.json` reports, written by `grade --submissions DIR
    /// --reports RDIR`. The file equals the one that run writes with the same flags.
    #[command(
        after_help = "Example:\n  cargo xtask gradebook reports/ --roster roster.csv \
                            --format canvas --output canvas.csv"
    )]
    Gradebook {
        /// The reports folder of `grade --submissions DIR --reports RDIR`.
        #[arg(value_name = "RDIR")]
        dir: PathBuf,
        /// The layout: `csv` (every column), or a file to upload to Canvas or Moodle (see
        /// docs/class-grading.md).
        #[arg(long, value_enum, value_name = "FORMAT", default_value = "csv")]
        format: GradebookFormat,
        /// The class list (needed when the class was graded with one; may be updated since):
        /// students are paired with the reports by `id`.
        #[arg(long, value_name = "FILE.csv")]
        roster: Option<PathBuf>,
        /// The points of a roster's student who handed nothing in: `zero`, or `blank` cells that
        /// leave the platform's grade as it is.
        #[arg(long, value_enum, default_value = "zero")]
        missing: MissingPoints,
        /// A late policy to apply (see docs/class-grading.md, "Late work").
        #[arg(long, value_name = "FILE.toml")]
        late: Option<PathBuf>,
        /// Write the gradebook to FILE (default: standard output).
        #[arg(long, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Create the course secret, `course-secret` (instructors): 32 random bytes from which each
    /// student's variant-check inputs are drawn, mode 600 and ignored by git. Official grading
    /// needs it; keep it safe beside the solutions and never ship it.
    Secret {
        /// Replace an existing secret: every student's variant inputs change.
        #[arg(long)]
        replace: bool,
    },
    /// The sandbox a check process runs in (used by the grader itself).
    #[command(name = "__sandbox", hide = true)]
    Sandbox(grader::run::sandbox::SandboxArgs),
    /// Runs a program as in a container without Landlock or namespaces (the grader's tests).
    #[cfg(all(target_os = "linux", feature = "instructor"))]
    #[command(name = "__container-like", hide = true)]
    ContainerLike {
        /// The program and its arguments.
        #[arg(last = true)]
        command: Vec<String>,
    },
}

/// `cargo xtask class-page`'s flags.
#[derive(clap::Args)]
pub struct ClassPageArgs {
    /// The reports folder of `grade --submissions DIR --reports RDIR`.
    #[arg(value_name = "RDIR")]
    pub dir: PathBuf,
    /// Show on the class page what changed since the run whose reports are in OLD_RDIR
    /// (as `regrade-diff OLD_RDIR RDIR` lists it).
    #[arg(long, value_name = "OLD_RDIR")]
    pub regrade_from: Option<PathBuf>,
    /// A late policy to show on the students' pages (see docs/class-grading.md, "Late work").
    #[arg(long, value_name = "FILE.toml")]
    pub late: Option<PathBuf>,
    /// The class list (as for `grade --roster`): its students are paired with the reports, and
    /// with --late its `submitted_at` (or `Submission Time`) and `extension` columns are read.
    #[arg(long, value_name = "FILE.csv")]
    pub roster: Option<PathBuf>,
    /// Put together into RDIR a class graded in parts (`grade --submissions --shard K/N
    /// --reports SHARD_RDIR`): every part's reports folder, comma-separated. Refused unless
    /// they are parts 1 to N of one class run.
    #[arg(
        long,
        value_name = "SHARD_RDIR,...",
        value_delimiter = ',',
        conflicts_with = "regrade_from"
    )]
    pub merge: Option<Vec<PathBuf>>,
    /// With --merge: the class folder the parts graded, for similarity.csv over the whole
    /// class.
    #[arg(long, value_name = "DIR", requires = "merge")]
    pub submissions: Option<PathBuf>,
}

/// `cargo xtask grade`'s flags, as given (see [`crate::commands::grade`] for what they become).
#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("official").args(["submission", "submissions"])))]
pub struct GradeArgs {
    /// Only this lesson (`lesson01`, `1` or its directory name), or only this exercise
    /// (`split_heads`, or a method as the table names it, `KvCache::append`): its lesson is
    /// built and only that exercise's checks run.
    #[arg(value_name = "LESSON|EXERCISE")]
    pub lesson: Option<String>,
    /// Grade the reference solutions in solutions/ instead of exercises/.
    #[arg(long)]
    pub solutions: bool,
    /// Seconds one check may run (overrides course.toml), at most one day.
    #[arg(
        long,
        value_name = "SECS",
        value_parser = parse_timeout,
        allow_negative_numbers = true
    )]
    pub timeout: Option<Duration>,
    /// Seconds a submission's build may take (--submission, --submissions; default 600).
    /// Lessons not built by then fail to compile, with a note that says so.
    #[arg(
        long,
        value_name = "SECS",
        value_parser = parse_timeout,
        allow_negative_numbers = true,
        requires = "official"
    )]
    pub build_timeout: Option<Duration>,
    /// Report format.
    #[arg(long, value_enum, default_value = "human")]
    pub format: Format,
    /// With --solutions: plant the misconception ID (course.toml `[[lessons.misconceptions]]`)
    /// into the reference solution and grade its lesson: what a student with that mistake
    /// sees (instructors).
    #[arg(long, value_name = "ID", requires = "solutions")]
    pub plant: Option<String>,
    /// Human format: one line per exercise and only its first failing check's message
    /// (by default every failing check is shown with its full message).
    #[arg(long)]
    pub brief: bool,
    /// Run every check in a process of its own, as official grading does. By default local
    /// grading runs the checks of a lesson together and reruns alone any it cannot tell
    /// apart, which gives the same verdicts faster.
    #[arg(long)]
    pub isolate: bool,
    /// With --submission: grade even where student code cannot be sandboxed (the report is
    /// then unofficial).
    #[arg(long, requires = "submission")]
    pub allow_unsandboxed: bool,
    /// With --submission: keep a copy of the graded sources and the JSON report in DIR.
    #[arg(long, value_name = "DIR", requires = "submission")]
    pub keep: Option<PathBuf>,
    /// With --submission: whose submission it is, carried into every report (default: the
    /// folder's or archive's name).
    #[arg(long, value_name = "ID", requires = "submission")]
    pub student: Option<String>,
    /// Write the report to FILE; a short summary still goes to the terminal.
    #[arg(long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Check processes to run at once (default: the number of cores).
    #[arg(
        long,
        short,
        value_parser = clap::value_parser!(u16).range(1..),
        allow_negative_numbers = true
    )]
    pub jobs: Option<u16>,
    /// Official grading of a student's handout (or its exercises/ folder) in DIR: only the
    /// student's exercises/*/src is used, with the instructors' checks, snapshots and hidden
    /// checks, and the variant checks, whose inputs are drawn for the student's id (--student)
    /// from course-secret and judged against the reference solution's outputs (local grading
    /// leaves variant checks out). DIR is never modified (instructors).
    #[arg(long, value_name = "DIR", conflicts_with = "solutions")]
    pub submission: Option<PathBuf>,
    /// Grade a whole class officially (instructors): every entry of DIR is one student's
    /// handout, exercises/ folder, .zip or .tar.gz. `-j` is then the number of submissions
    /// graded at once.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["solutions", "submission"])]
    pub submissions: Option<PathBuf>,
    /// With --submissions: write the gradebook (CSV, laid out as --gradebook-format says) to
    /// FILE (default: standard output).
    #[arg(long, value_name = "FILE", requires = "submissions")]
    pub gradebook: Option<PathBuf>,
    /// With --submissions: the gradebook's layout: `csv` (every column), or a file to upload
    /// to Canvas or Moodle (see docs/class-grading.md).
    #[arg(long, value_enum, value_name = "FORMAT", requires = "submissions")]
    pub gradebook_format: Option<GradebookFormat>,
    /// With --submissions: the class list, a CSV file with an `id` column (and optionally
    /// `submission`, the file or folder of DIR that is the student's). Every student gets a
    /// row (`missing` without a submission); its other columns go into the gradebook.
    #[arg(long, value_name = "FILE.csv", requires = "submissions")]
    pub roster: Option<PathBuf>,
    /// With --submissions: the points of a roster's student who handed nothing in: `zero`
    /// (default), or `blank` cells that leave the platform's grade as it is.
    #[arg(long, value_enum, value_name = "POINTS", requires = "submissions")]
    pub missing: Option<MissingPoints>,
    /// With --submissions: a late policy (deadlines, a penalty per day or hour late down to a
    /// floor, extensions, submission times) applied to the gradebook and shown on each
    /// student's page (see docs/class-grading.md, "Late work").
    #[arg(long, value_name = "FILE.toml", requires = "submissions")]
    pub late: Option<PathBuf>,
    /// With --submissions: write one JSON report per student (`<id>.json`) in DIR, with their
    /// feedback pages (`<id>.html`, `<id>.md`), the class page (`index.html`) and
    /// `similarity.csv`, the pairs of students whose code looks alike (see `similarity`).
    #[arg(long, value_name = "DIR", requires = "submissions")]
    pub reports: Option<PathBuf>,
    /// With --reports: the score from which a pair goes into similarity.csv (0 to 1; default
    /// 0.5).
    #[arg(long, value_name = "X", value_parser = parse_threshold, requires = "reports")]
    pub similarity_threshold: Option<f64>,
    /// With --reports: compare only these exercises or lessons in similarity.csv (default:
    /// the graded lessons).
    #[arg(
        long,
        value_name = "NAME,...",
        value_delimiter = ',',
        requires = "reports"
    )]
    pub similarity_exercises: Option<Vec<String>>,
    /// With --submissions: grade only part K of N of the class (1 <= K <= N), for a class
    /// spread over N machines: the students in id order, cut into N runs of nearly equal size.
    /// `class-page RDIR --merge` puts the parts' reports folders together.
    #[arg(long, value_name = "K/N", value_parser = parse_shard, requires = "submissions")]
    pub shard: Option<String>,
}

/// The platform commands.
#[derive(clap::Subcommand)]
pub enum Platform {
    /// Write the Gradescope autograder bundle (setup.sh, run_autograder and the instructors'
    /// course) to OUT.zip.
    Gradescope {
        /// The zip file to write.
        out: PathBuf,
    },
    /// Print the student id of a Gradescope submission from its `submission_metadata.json`: the
    /// submitters' Gradescope ids (else e-mails), sorted and joined with `+` (`run_autograder`
    /// grades with it as `--student`, from which the variant checks' inputs are drawn).
    #[command(hide = true)]
    GradescopeStudent {
        /// The submission's metadata file.
        metadata: PathBuf,
    },
    /// Write the GitHub Classroom workflows: OUT_DIR/template/ for the students' template
    /// repository (feedback points from the visible checks, nothing secret) and OUT_DIR/grading/
    /// for the instructors' repository (official grading of every student repository).
    Github {
        /// The folder to write `template/` and `grading/` into.
        out_dir: PathBuf,
        /// The assignment's deadline, ISO 8601 (e.g. 2026-12-20T23:59:00+01:00): the default of
        /// the grading workflow's `deadline` input.
        #[arg(long, value_name = "DATE", value_parser = parse_deadline)]
        deadline: Option<String>,
        /// Grade the class in N parts, one runner each (`grade --submissions --shard K/N`), then
        /// merge them (`class-page --merge`) into one gradebook.
        #[arg(
            long,
            value_name = "N",
            default_value_t = 4,
            value_parser = clap::value_parser!(u16).range(1..=256)
        )]
        shards: u16,
    },
    /// Print a JSON report (or, when it is missing or unreadable, a zero-point error) as GitHub
    /// Classroom's runner result: `result=<base64 JSON>`, for `$GITHUB_OUTPUT`.
    ClassroomResult {
        /// The report `grade --format json --output` wrote.
        report: PathBuf,
        /// Text to show when the report is missing (e.g. the grader's error output).
        #[arg(long, value_name = "FILE")]
        log: Option<PathBuf>,
    },
    /// Print a student's feedback from their JSON report as Markdown (for an issue in their
    /// repository): points per lesson and every check that did not pass, hidden checks without
    /// their message.
    ClassroomFeedback {
        /// The student's report (`grade --submissions --reports DIR` wrote DIR/<id>.json).
        report: PathBuf,
    },
}
