//! `cargo xtask watch [LESSON] [--demo]`: re-grades a lesson each time one of its files under
//! `exercises/` is saved.
//!
//! * File events come from `notify`: creations, writes, renames and removals (not opening or
//!   reading: cargo and rustc open the sources on every grade, which would start the next one).
//!   They are debounced ([`DEBOUNCE`] of quiet), so an editor's write-rename-chmod burst is one
//!   change.
//! * The grade runs as a child process, `xtask grade LESSON` (this very binary), in its own process
//!   group: one grade at a time, and a newer save stops the grade in progress (its whole group,
//!   with the cargo build, and each check process's own group) and starts again.
//! * Without LESSON every lesson is watched and the lesson whose files changed is graded.
//! * On a terminal it has to itself the screen is cleared before each run; otherwise (output not
//!   a terminal, or the watcher started in the background of a terminal other commands print to)
//!   runs are separated by a line.
//! * `--demo` runs the lesson's worked example before its table (so the table and its "Next:"
//!   step stay at the bottom of the screen).
//! * Ctrl-C stops the grade in progress and exits with status 0.

use anyhow::{Context as _, Result, anyhow};
use grader::course::suggest::{Kind, unknown};
use grader::course::{Course, Lesson};
use grader::report::style::Style;
use notify::event::{AccessKind, AccessMode, EventKind};
use notify::{RecursiveMode, Watcher};
use std::collections::{BTreeSet, VecDeque};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Quiet time after the last file event before a run starts.
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// How often a running step is polled for its end.
const POLL: Duration = Duration::from_millis(20);

/// What to watch and run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Only this lesson (id, number or directory); every lesson when `None`.
    pub lesson: Option<String>,
    /// Also run the lesson's worked example (`cargo xtask demo`) on each change.
    pub demo: bool,
}

enum Msg {
    Changed(Vec<PathBuf>),
    // Text, not `anyhow`: it is only printed, and crosses the channel from notify's callback.
    WatchError(String),
    Quit,
}

/// One child run: a demo of a lesson, or a grade of a lesson (or of every lesson).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Step {
    Demo(String),
    Grade(Option<String>),
}

/// The lesson a changed path belongs to, when the change matters: a source, manifest or snapshot
/// file of an exercise crate, not an editor's scratch file, a build output or a hidden folder
/// (such as the pristine stubs in `.stubs/`).
fn lesson_of<'c>(course: &'c Course, exercises: &Path, path: &Path) -> Option<&'c Lesson> {
    let rel = path.strip_prefix(exercises).ok()?;
    let mut parts = rel.components().map(|c| c.as_os_str().to_string_lossy());
    let dir = parts.next()?;
    let rest: Vec<_> = parts.collect();
    let name = rest.last()?;
    let scratch = rest.iter().any(|p| p == "target" || p.starts_with('.'))
        || name.ends_with('~')
        || name.ends_with(".snap.new")
        || name.starts_with(".#");
    let wanted = [".rs", ".toml", ".snap"].iter().any(|e| name.ends_with(e));
    if scratch || !wanted {
        return None;
    }
    course.lessons.iter().find(|l| l.dir == *dir)
}

/// True for events that change a file, not for opening or reading one.
fn is_change(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) | EventKind::Any | EventKind::Other => false,
    }
}

/// This binary, to run `grade` and `demo` as children.
fn this_exe() -> Result<PathBuf> {
    let exe = grader::run::relaunch::own_exe().context("cannot find the xtask binary")?;
    // Rebuilt while we run: Linux names the old inode "… (deleted)"; the new binary is at the path.
    let text = exe.to_string_lossy();
    Ok(match text.strip_suffix(" (deleted)") {
        Some(live) => PathBuf::from(live),
        None => exe,
    })
}

fn spawn(exe: &Path, root: &Path, step: &Step) -> Result<Child> {
    let mut cmd = Command::new(exe);
    cmd.current_dir(root).stdin(Stdio::null());
    match step {
        Step::Demo(lesson) => {
            cmd.args(["demo", lesson]);
        }
        Step::Grade(lesson) => {
            cmd.arg("grade").args(lesson);
        }
    }
    #[cfg(target_os = "linux")]
    {
        use std::os::unix::process::CommandExt;
        // Its own process group, so a newer save can stop the grade with its cargo build and
        // checks, and the terminal's Ctrl-C reaches only the watcher, which then stops it.
        cmd.process_group(0);
    }
    cmd.spawn()
        .with_context(|| format!("cannot run {}", exe.display()))
}

/// Stops a running step and everything it started: its process group, and the groups of its own
/// that each check process gets (which outlive the grade, spinning past their time limit, when only
/// the grade's group is killed).
fn stop(child: &mut Child) {
    if matches!(child.try_wait(), Ok(Some(_))) {
        return;
    }
    #[cfg(target_os = "linux")]
    {
        use nix::sys::signal::{Signal, killpg};
        use nix::unistd::Pid;
        let group = Pid::from_raw(child.id() as i32);
        // Stopped first, so that the grade starts no check while its checks are looked for.
        let _ = killpg(group, Signal::SIGSTOP);
        for other in descendant_groups(child.id() as i32) {
            let _ = killpg(Pid::from_raw(other), Signal::SIGKILL);
        }
        let _ = killpg(group, Signal::SIGTERM);
        let _ = killpg(group, Signal::SIGCONT);
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if matches!(child.try_wait(), Ok(Some(_))) {
                // Anything left in the group (a check process mid-exit) goes too.
                let _ = killpg(group, Signal::SIGKILL);
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = killpg(group, Signal::SIGKILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// The process groups but `pid`'s own of the processes descending from `pid` (read from `/proc`).
#[cfg(target_os = "linux")]
fn descendant_groups(pid: i32) -> Vec<i32> {
    use grader::run::proc_stat::{PGRP, PPID, fields};
    let stat = |p: i32| -> Option<(i32, i32, i32)> {
        let text = std::fs::read_to_string(format!("/proc/{p}/stat")).ok()?;
        let fields = fields(&text);
        let ppid = fields.get(PPID)?.parse().ok()?;
        Some((p, ppid, fields.get(PGRP)?.parse().ok()?))
    };
    let all: Vec<(i32, i32, i32)> = std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter_map(stat)
        .collect();
    let mut family = vec![pid];
    let mut next = 0;
    while let Some(&parent) = family.get(next) {
        for &(p, ppid, _) in &all {
            if ppid == parent && !family.contains(&p) {
                family.push(p);
            }
        }
        next += 1;
    }
    // Never the watcher's own group, which a process of the session may join.
    let own = nix::unistd::getpgrp().as_raw();
    let mut groups: Vec<i32> = all
        .iter()
        .filter(|(p, _, group)| family.contains(p) && *group != pid && *group != own)
        .map(|&(_, _, group)| group)
        .collect();
    groups.sort_unstable();
    groups.dedup();
    groups
}

/// The steps for a run over `lessons` (ids), or over every lesson when `all`.
fn plan(lessons: &BTreeSet<String>, all: bool, demo: bool) -> VecDeque<Step> {
    let mut steps = VecDeque::new();
    let one = (!all && lessons.len() == 1)
        .then(|| lessons.iter().next().cloned())
        .flatten();
    if demo && let Some(id) = &one {
        steps.push_back(Step::Demo(id.clone()));
    }
    steps.push_back(Step::Grade(one));
    steps
}

/// Whether the watcher has its terminal to itself, so that clearing the screen (and its
/// scroll-back) erases only its own runs: its output and input are a terminal, and its process
/// group is the one in front. Started in the background (`cargo xtask watch 1 &`: input from
/// `/dev/null` without job control, the group behind with it), it would erase what the commands
/// typed in front print, a `grade`'s table among them, which then looks like a grade that printed
/// nothing.
fn owns_terminal() -> bool {
    let terminal = std::io::stdout().is_terminal() && std::io::stdin().is_terminal();
    terminal && in_front()
}

/// Whether this process's group is its terminal's foreground group (`/proc/self/stat`'s `pgrp`
/// and `tpgid`).
#[cfg(target_os = "linux")]
fn in_front() -> bool {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return false;
    };
    use grader::run::proc_stat::{PGRP, TPGID, fields};
    let fields = fields(&stat);
    matches!((fields.get(PGRP), fields.get(TPGID)), (Some(group), Some(front)) if group == front)
}

#[cfg(not(target_os = "linux"))]
fn in_front() -> bool {
    true
}

struct Screen {
    /// A terminal of the watcher's own: cleared before each run.
    terminal: bool,
    style: Style,
}

impl Screen {
    fn begin(&self, why: &str) {
        let mut out = std::io::stdout().lock();
        if self.terminal {
            // Clear the screen and its scroll-back, cursor home.
            let _ = write!(out, "\x1b[2J\x1b[3J\x1b[H");
        } else {
            let _ = writeln!(out, "\n────────────────────────────────────────");
        }
        let _ = writeln!(out, "{}", self.style.dim(why));
        let _ = out.flush();
    }

    fn idle(&self, watched: &str) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(
            out,
            "\n{}",
            self.style.dim(&format!(
                "Watching {watched} · save a file to grade again · Ctrl-C to stop"
            ))
        );
        let _ = out.flush();
    }
}

/// Watches `dir` (`shown` as the messages name it) for changes, and Ctrl-C: the messages arrive
/// on the receiver while the watcher is kept.
fn watch(dir: &Path, shown: &str) -> Result<(mpsc::Receiver<Msg>, notify::RecommendedWatcher)> {
    let (tx, rx) = mpsc::channel::<Msg>();
    let quit = tx.clone();
    ctrlc::set_handler(move || {
        let _ = quit.send(Msg::Quit);
    })
    .context("cannot catch Ctrl-C")?;
    let events = tx.clone();
    let mut watcher = notify::recommended_watcher(move |res: notify::Result<notify::Event>| {
        let msg = match res {
            Ok(ev) if is_change(&ev.kind) => Msg::Changed(ev.paths),
            Ok(_) => return,
            Err(e) => Msg::WatchError(e.to_string()),
        };
        let _ = events.send(msg);
    })
    .context("cannot watch files")?;
    watcher
        .watch(dir, RecursiveMode::Recursive)
        .with_context(|| format!("cannot watch {shown}"))?;
    drop(tx);
    Ok((rx, watcher))
}

/// The changed `paths` in a lesson watched (`only` that one, else any), with its id.
fn watched_changes(
    course: &Course,
    exercises: &Path,
    only: Option<&Lesson>,
    paths: Vec<PathBuf>,
) -> Vec<(PathBuf, String)> {
    paths
        .into_iter()
        .filter_map(|p| {
            let id = lesson_of(course, exercises, &p)
                .filter(|l| only.is_none_or(|o| o.id == l.id))?
                .id
                .clone();
            Some((p, id))
        })
        .collect()
}

/// Runs the watcher until Ctrl-C; returns the exit code.
pub fn run(root: &Path, course: &Course, opts: &Options) -> Result<u8> {
    let only = opts
        .lesson
        .as_deref()
        .map(|key| {
            course
                .find_lesson(key)
                .ok_or_else(|| anyhow!(unknown(course, Kind::Lesson, key)))
        })
        .transpose()?;
    let exercises = root.join("exercises");
    let watched_dir = match only {
        Some(l) => l.crate_dir(root, grader::course::Side::Exercises),
        None => exercises.clone(),
    };
    let watched = grader::fsutil::relative(root, &watched_dir);
    let exe = this_exe()?;
    let screen = Screen {
        terminal: owns_terminal(),
        style: Style::stdout(),
    };

    let (rx, _watcher) = watch(&watched_dir, &watched)?;

    // What the current run covers: `all` lessons, or the ids in `scope`.
    let mut all = only.is_none();
    let mut scope: BTreeSet<String> = only.iter().map(|l| l.id.clone()).collect();
    let mut queue = plan(&scope, all, opts.demo);
    screen.begin(&match only {
        Some(l) => format!("Grading {} …", l.id),
        None => "Grading every lesson …".to_owned(),
    });
    let mut running: Option<Child> = None;
    let mut idle = false;
    // Changed files not acted on yet, and when the burst they belong to is over.
    let mut batch: Vec<(PathBuf, String)> = Vec::new();
    let mut due: Option<Instant> = None;
    loop {
        if running.is_none() {
            if let Some(step) = queue.pop_front() {
                running = Some(spawn(&exe, root, &step)?);
            } else if !idle {
                screen.idle(&watched);
                idle = true;
            }
        }
        let mut wait = if running.is_some() {
            POLL
        } else {
            Duration::from_secs(3600)
        };
        if let Some(d) = due {
            wait = wait.min(d.saturating_duration_since(Instant::now()));
        }
        match rx.recv_timeout(wait) {
            Ok(Msg::Changed(paths)) => {
                let before = batch.len();
                batch.extend(watched_changes(course, &exercises, only, paths));
                if batch.len() > before {
                    due = Some(Instant::now() + DEBOUNCE);
                }
            }
            Ok(Msg::WatchError(e)) => eprintln!("watch: {e}"),
            Ok(Msg::Quit) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                if let Some(mut child) = running.take() {
                    stop(&mut child);
                }
                println!("\nStopped watching.");
                return Ok(0);
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if let Some(child) = running.as_mut()
            && !matches!(child.try_wait(), Ok(None))
        {
            running = None;
        }
        if due.is_none_or(|d| Instant::now() < d) {
            continue;
        }
        due = None;
        // A run in progress is superseded; what it covered is covered by the new run.
        if let Some(mut child) = running.take() {
            stop(&mut child);
        } else {
            all = false;
            scope.clear();
        }
        let mut names: Vec<String> = batch
            .iter()
            .map(|(p, _)| grader::fsutil::relative(root, p))
            .collect();
        names.sort();
        names.dedup();
        scope.extend(batch.drain(..).map(|(_, id)| id));
        screen.begin(&format!("Changed: {} · grading …", names.join(", ")));
        queue = plan(&scope, all, opts.demo);
        idle = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn course() -> Course {
        toml::from_str(
            "[course]\ntitle = \"t\"\n[[lessons]]\nid = \"lesson01\"\ndir = \"lesson01-a\"\ntitle = \"A\"\n",
        )
        .unwrap()
    }

    #[test]
    fn only_source_files_of_a_lesson_count() {
        let c = course();
        let ex = Path::new("/c/exercises");
        let hit = |p: &str| lesson_of(&c, ex, Path::new(p)).map(|l| l.id.clone());
        assert_eq!(
            hit("/c/exercises/lesson01-a/src/exercises.rs").as_deref(),
            Some("lesson01")
        );
        assert_eq!(
            hit("/c/exercises/lesson01-a/Cargo.toml").as_deref(),
            Some("lesson01")
        );
        for p in [
            "/c/exercises/lesson01-a/src/exercises.rs~",
            "/c/exercises/lesson01-a/src/.exercises.rs.swp",
            "/c/exercises/lesson01-a/src/4913",
            "/c/exercises/lesson01-a/.stubs/exercises.rs",
            "/c/exercises/lesson01-a/target/debug/x.rs",
            "/c/exercises/lesson01-a/tests/snapshots/a.snap.new",
            "/c/exercises/other/src/lib.rs",
            "/c/elsewhere/lesson01-a/src/lib.rs",
        ] {
            assert_eq!(hit(p), None, "{p}");
        }
    }

    /// The state letter of process `pid` (`Z` for a zombie), `None` once it is gone.
    #[cfg(target_os = "linux")]
    fn state(pid: i32) -> Option<char> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        let fields = grader::run::proc_stat::fields(&text);
        fields.get(grader::run::proc_stat::STATE)?.chars().next()
    }

    /// A grade runs each check in a process group of its own: stopping the grade stops them too,
    /// else they outlive it (and its time limits) when a save supersedes it.
    #[cfg(target_os = "linux")]
    #[test]
    fn stopping_a_step_stops_what_it_started_in_groups_of_their_own() {
        use std::io::BufRead as _;
        use std::os::unix::process::CommandExt as _;
        let mut cmd = Command::new("sh");
        cmd.args(["-c", "setsid sleep 300 & echo $!; wait"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .process_group(0);
        let mut child = cmd.spawn().unwrap();
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let check: i32 = line.trim().parse().unwrap();
        // In a group of its own, as a check is, before the step is stopped.
        let deadline = Instant::now() + Duration::from_secs(10);
        while descendant_groups(child.id() as i32) != [check] {
            assert!(Instant::now() < deadline, "setsid did not run");
            std::thread::sleep(Duration::from_millis(10));
        }
        stop(&mut child);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !matches!(state(check), None | Some('Z')) {
            assert!(Instant::now() < deadline, "the check outlived its step");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn one_lesson_gets_its_demo_then_its_grade() {
        let one: BTreeSet<String> = ["lesson01".to_owned()].into();
        assert_eq!(
            Vec::from(plan(&one, false, true)),
            [
                Step::Demo("lesson01".into()),
                Step::Grade(Some("lesson01".into()))
            ]
        );
        assert_eq!(
            Vec::from(plan(&one, false, false)),
            [Step::Grade(Some("lesson01".into()))]
        );
        assert_eq!(Vec::from(plan(&one, true, true)), [Step::Grade(None)]);
        let two: BTreeSet<String> = ["lesson01".to_owned(), "lesson02".to_owned()].into();
        assert_eq!(Vec::from(plan(&two, false, true)), [Step::Grade(None)]);
    }
}
