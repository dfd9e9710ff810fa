//! `grade` run by hand while `watch` grades the same lesson: both take turns on the target folder
//! and the grader's records there, and each prints its whole table, which stays on the screen.

use crate::student_loop::{EXERCISES, KillOnDrop, Lines};
use crate::support::{self, Scratch, xtask_process};
use std::process::Stdio;
use std::time::Duration;

/// Saves, each followed at once by a `grade 1` beside the watcher's.
const ROUNDS: usize = 12;

/// The student's loop with a watcher running: save, then `grade 1` while the watcher grades the
/// same save. Two contents saved in turn, so after one build of each the kept builds serve every
/// grade and the rounds cost the checks' runs only; the pause before the grade varies, so the two
/// grades meet at different stages (the build lock, the records, the checks).
///
/// The watcher writes to a terminal but was started in its background (`cargo xtask watch 1 &`,
/// input from `/dev/null`): clearing that screen before each of its runs would erase the table the
/// `grade` typed in front had just printed, a grade that seemed to print nothing and exit 1.
#[cfg(unix)]
#[test]
fn every_grade_beside_a_running_watch_prints_its_table() {
    let s = Scratch::new("beside-watch");
    let stub = s.read(EXERCISES);
    let versions = [format!("{stub}\n// saved again\n"), stub];
    let pty = support::terminal();
    let mut cmd = xtask_process(&s.root, &["watch", "1"]);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::from(pty.slave))
        .stderr(Stdio::null());
    let child = cmd.spawn().unwrap();
    // Only the watcher (and what it starts) holds the terminal now.
    drop(cmd);
    let mut lines = Lines::new(std::fs::File::from(pty.master));
    let _watch = KillOnDrop(child);
    let cleared = |shown: &[String]| {
        shown
            .iter()
            .any(|l| l.contains("\x1b[2J") || l.contains("\x1b[3J"))
    };
    let idle = |l: &str| l.starts_with("Watching exercises/lesson01-why-heads");
    let first = lines.until("the first table", Duration::from_secs(900), idle);
    assert!(
        !cleared(&first),
        "the watcher cleared a screen it shares:\n{first:?}"
    );
    for round in 0..ROUNDS {
        s.write(EXERCISES, &versions[round % 2]);
        std::thread::sleep(Duration::from_millis((round as u64 * 47) % 250));
        let out = s.xtask(&["grade", "1"]).output().unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        assert!(
            out.status.code() == Some(1)
                && stdout.contains("lesson01 · ")
                && stdout.contains("Total: 0/"),
            "round {round}: {}\n{stdout}\n{stderr}",
            out.status
        );
        let watched = lines.until("the watcher's table", Duration::from_secs(300), idle);
        assert!(
            !cleared(&watched),
            "round {round}: the watcher cleared a screen it shares"
        );
        let table = watched.join("\n");
        assert!(
            table.contains("lesson01 · ") && table.contains("Total: 0/"),
            "round {round}, the watcher:\n{table}"
        );
    }
}

/// How soon a grade held up by another build says so.
const SAYS_SO_WITHIN: Duration = Duration::from_secs(5);

/// A grade that finds another build of the course under way (a watcher's, in another terminal)
/// says so before it waits, where a script or a tool reads its output (no terminal), then prints
/// its table once the other build is done: a caller that gives up after a while must not be left
/// with a grade that printed nothing.
#[test]
fn a_grade_held_up_by_another_build_says_so_at_once_then_prints_its_table() {
    let s = Scratch::new("held-up");
    // The build lock every grade of this target folder takes, held as another grade would.
    let lock = std::fs::File::create(support::shared_target().join(".xtask-build.lock")).unwrap();
    lock.lock().unwrap();
    let started = std::time::Instant::now();
    let mut child = xtask_process(&s.root, &["grade", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let printed = std::thread::spawn(move || std::io::read_to_string(stdout).unwrap());
    let mut errors = Lines::new(child.stderr.take().unwrap());
    let mut child = KillOnDrop(child);
    // Fails, with what the grade wrote, when it never says so.
    errors.until("the wait announced", SAYS_SO_WITHIN * 12, |l| {
        l.contains("Waiting for another build of this course")
    });
    let after = started.elapsed();
    assert!(
        after <= SAYS_SO_WITHIN,
        "said it waits only after {after:?}"
    );
    assert!(
        matches!(child.0.try_wait(), Ok(None)),
        "the grade did not wait for the build it found under way"
    );
    drop(lock);
    let status = child.0.wait().unwrap();
    let table = printed.join().unwrap();
    assert!(
        status.code() == Some(1) && table.contains("lesson01 · ") && table.contains("Total: 0/"),
        "{status}\n{table}"
    );
}
