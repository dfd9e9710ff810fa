//! The container mode of official grading (`"isolation": "container-uid"`), for a platform's
//! container with neither Landlock nor user namespaces but a grader running as root (Gradescope,
//! GitHub's runners): each check runs as a user of its own in a private folder, the grader's
//! folders are closed to others ([`crate::run::closed`]), and when the check ends its user's
//! processes and files go ([`end_user`]). Builds run as a user of their own
//! ([`crate::run::builder`]).

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

/// The first user id of the checks' users: above the ids systems hand out (`/etc/login.defs`
/// stops at 60000; container runtimes map at most 65536), below `(uid_t) -1`.
pub(crate) const FIRST_UID: u32 = 1 << 30;

/// A user id of its own for the next check of this grader process: the process id keeps two
/// graders on one machine apart, the counter two checks of one grader (checks at once are far
/// fewer than 1024, and a user is emptied when its check ends).
pub fn next_user() -> u32 {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst) % 1024;
    FIRST_UID + (std::process::id() % (1 << 18)) * 1024 + n
}

/// Whether the container mode works here: the grader is root and can start a process as another
/// user (a container without `CAP_SETUID` cannot).
pub fn available() -> bool {
    if !nix::unistd::geteuid().is_root() {
        return false;
    }
    let Ok(me) = crate::run::relaunch::own_exe() else {
        return false;
    };
    let uid = next_user();
    let started = std::process::Command::new(me)
        .args(["__sandbox", "--kill-my-processes"])
        .uid_gid(uid)
        .stdin(std::process::Stdio::null())
        .status();
    started.is_ok_and(|s| s.success())
}

/// `Command::uid` and `gid` in one call, for a check's user.
trait AsUser {
    fn uid_gid(&mut self, id: u32) -> &mut Self;
}

impl AsUser for std::process::Command {
    fn uid_gid(&mut self, id: u32) -> &mut Self {
        use std::os::unix::process::CommandExt as _;
        self.uid(id).gid(id)
    }
}

/// Run as a check's user: sends `SIGKILL` to every process of that user but this one (Linux's
/// `kill(-1)` spares the caller), again until `/proc` shows none left, so that children forked
/// meanwhile go too. Returns the exit code.
pub fn kill_my_processes() -> i32 {
    use nix::sys::signal::{Signal, kill};
    for _ in 0..1000 {
        if others_of(nix::unistd::getuid().as_raw()) == 0 {
            return 0;
        }
        let _ = kill(nix::unistd::Pid::from_raw(-1), Signal::SIGKILL);
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    1
}

/// How many running processes of user `uid` other than this one `/proc` lists (a process's folder
/// there belongs to its user; running: see [`alive`]). Zombies are not counted: they run nothing
/// and hold nothing, and only whoever reaps them (a container's or a machine's init, which may take
/// a second or never come) can remove them, so waiting for them spun this loop a thousand times.
fn others_of(uid: u32) -> usize {
    use std::os::unix::fs::MetadataExt as _;
    let me = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            name != me.as_str()
                && name.bytes().all(|b| b.is_ascii_digit())
                && e.metadata().is_ok_and(|m| m.uid() == uid)
                && alive(&e.path())
        })
        .count()
}

/// Whether the process whose `/proc` folder is `dir` still runs: one of its threads is neither a
/// zombie (`Z`) nor dead (`X`). Its threads, not its first: a process whose main thread ended
/// (`pthread_exit`) shows as a zombie while its other threads run on. A process whose threads
/// cannot be listed for another reason than being gone counts as running.
fn alive(dir: &Path) -> bool {
    let tasks = match std::fs::read_dir(dir.join("task")) {
        Ok(tasks) => tasks,
        Err(e) => return e.kind() != std::io::ErrorKind::NotFound,
    };
    tasks.flatten().any(|task| {
        let stat = std::fs::read_to_string(task.path().join("stat")).unwrap_or_default();
        let fields = crate::run::proc_stat::fields(&stat);
        fields
            .get(crate::run::proc_stat::STATE)
            .is_some_and(|s| *s != "Z" && *s != "X")
    })
}

/// Ends a check's user `uid`: kills its every process (as that user, the one way to reach a
/// process that left the check's process group), removes its System V IPC objects and whatever
/// it owns in the folders every user may write ([`crate::run::leftovers`]), but its private
/// folders `keep` (and the folders that lead to them: the grader reads its observations there
/// afterwards).
pub fn end_user(uid: u32, keep: &[std::path::PathBuf]) {
    // None left (the usual case): none can start again, the inner stage that made them is gone.
    if others_of(uid) > 0
        && let Ok(me) = crate::run::relaunch::own_exe()
    {
        let _ = std::process::Command::new(me)
            .args(["__sandbox", "--kill-my-processes"])
            .uid_gid(uid)
            .stdin(std::process::Stdio::null())
            .status();
    }
    let keep: Vec<std::path::PathBuf> = keep
        .iter()
        .flat_map(|p| [p.clone(), p.canonicalize().unwrap_or_else(|_| p.clone())])
        .collect();
    let kept = |path: &Path| {
        keep.iter()
            .any(|k| k.starts_with(path) || path.starts_with(k))
    };
    for dir in crate::run::leftovers::shared_places() {
        remove_owned_by(&dir, uid, &kept);
    }
    crate::run::leftovers::remove_ipc(uid);
}

/// Removes everything beneath `dir` that `uid` owns (a folder of its with all it holds), without
/// following links. Only folders every user may write are looked into: `uid` (no one's group)
/// can have made nothing anywhere else, and the grader's own folders beneath `/tmp` hold many
/// files.
fn remove_owned_by(dir: &Path, uid: u32, kept: &dyn Fn(&Path) -> bool) {
    use std::os::unix::fs::MetadataExt as _;
    let mut walk = walkdir::WalkDir::new(dir).min_depth(1).into_iter();
    while let Some(Ok(entry)) = walk.next() {
        let Ok(meta) = entry.path().symlink_metadata() else {
            continue;
        };
        if meta.uid() != uid || kept(entry.path()) {
            if meta.is_dir() && meta.mode() & 0o002 == 0 {
                walk.skip_current_dir();
            }
            continue;
        }
        if meta.is_dir() {
            walk.skip_current_dir();
            let _ = std::fs::remove_dir_all(entry.path());
        } else {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Makes `dir` a check's private folder in the container mode: owned by its user `uid` and
/// closed to everyone else.
pub fn give_to(dir: &Path, uid: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::os::unix::fs::chown(dir, Some(uid), Some(uid))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
}

/// Opens `dir`, the grader's, to the check's user `uid` alone, for passing through (mode `0710`,
/// its group that user's own, which no other user has): another check cannot reach what it
/// holds (the check's executable, linked in) even knowing its path, nor can its own user rename
/// or replace anything in it.
pub fn enter_only_as(dir: &Path, uid: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::os::unix::fs::chown(dir, None, Some(uid))?;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o710))
}

/// Opens `dir` for passing through to everyone, without listing (mode `0711`): the folder of
/// the checks' private folders, whose names are random.
pub fn pass_through_only(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o711))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn users_are_unused_ids_apart_per_check() {
        let (a, b) = (next_user(), next_user());
        assert_ne!(a, b);
        assert!(a >= FIRST_UID && b >= FIRST_UID && a < u32::MAX);
    }

    /// A check's user whose processes were killed is empty once they are zombies: ending it waits
    /// for no reaper.
    #[test]
    fn a_users_zombies_are_not_its_processes() {
        use std::process::{Child, Command};
        let state = |child: &Child| {
            let stat = std::fs::read_to_string(format!("/proc/{}/stat", child.id()));
            let stat = stat.unwrap_or_default();
            let fields = crate::run::proc_stat::fields(&stat);
            fields.get(crate::run::proc_stat::STATE)?.chars().next()
        };
        // As a user of its own when the tests can start one (as the container mode's grader does:
        // root, with the right to change user).
        let uid = next_user();
        let root = nix::unistd::geteuid().is_root()
            && Command::new("true")
                .uid_gid(uid)
                .status()
                .is_ok_and(|s| s.success());
        let uid = if root {
            uid
        } else {
            nix::unistd::getuid().as_raw()
        };
        let as_user = |program: &str| {
            let mut cmd = Command::new(program);
            if root {
                cmd.uid_gid(uid);
            }
            cmd.arg("30").spawn().unwrap()
        };
        let mut running = as_user("sleep");
        // Exits at once and stays a zombie until it is waited for.
        let mut exited = as_user("true");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while state(&exited) != Some('Z') && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(state(&exited), Some('Z'), "`true` did not become a zombie");
        if root {
            assert_eq!(
                others_of(uid),
                1,
                "the zombie was counted, or the sleeper not"
            );
        }
        let proc_dir = |child: &Child| Path::new("/proc").join(child.id().to_string());
        assert!(alive(&proc_dir(&running)) && !alive(&proc_dir(&exited)));
        // A process whose main thread ended while another thread runs on: a zombie by its first
        // thread's state, alive by its others'.
        let script = "import threading, ctypes, time\n\
                      threading.Thread(target=time.sleep, args=(30,)).start()\n\
                      ctypes.CDLL(None).pthread_exit(None)\n";
        if let Ok(mut headless) = Command::new("python3").args(["-c", script]).spawn() {
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            while state(&headless) != Some('Z') && std::time::Instant::now() < deadline {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            assert_eq!(
                state(&headless),
                Some('Z'),
                "python3's main thread did not end"
            );
            assert!(
                alive(&proc_dir(&headless)),
                "a process with a running thread is alive"
            );
            headless.kill().unwrap();
            headless.wait().unwrap();
        }
        running.kill().unwrap();
        running.wait().unwrap();
        exited.wait().unwrap();
        if root {
            assert_eq!(others_of(uid), 0);
        }
    }

    #[test]
    fn only_what_the_user_owns_is_removed() {
        use std::os::unix::fs::MetadataExt as _;
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let mine = std::fs::metadata(dir.path()).unwrap().uid();
        // Like `/tmp`: others' files can only be in a folder everyone may write.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o1777)).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/file"), "x").unwrap();
        std::fs::write(dir.path().join("top"), "x").unwrap();
        remove_owned_by(dir.path(), mine + 1, &|_| false);
        assert!(dir.path().join("sub/file").exists() && dir.path().join("top").exists());
        let sub = dir.path().join("sub");
        remove_owned_by(dir.path(), mine, &|p| {
            sub.starts_with(p) || p.starts_with(&sub)
        });
        assert!(dir.path().join("sub/file").exists() && !dir.path().join("top").exists());
        remove_owned_by(dir.path(), mine, &|_| false);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
        // Nothing of `uid`'s can be in a folder only its owner may write: not looked into.
        std::fs::create_dir(dir.path().join("closed")).unwrap();
        std::fs::write(dir.path().join("closed/file"), "x").unwrap();
        std::fs::set_permissions(
            dir.path().join("closed"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let closed = dir.path().join("closed");
        remove_owned_by(dir.path(), mine, &|p| p == closed);
        assert!(dir.path().join("closed/file").exists());
    }
}
