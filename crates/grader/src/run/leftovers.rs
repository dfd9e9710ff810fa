//! What a check could leave behind for a later one in the container mode (where no namespace ends
//! with it): the places every user may write ([`shared_places`]) and System V IPC objects
//! ([`remove_ipc`]). POSIX message queues cannot be made at all (`RLIMIT_MSGQUEUE` is 0 for a
//! check). The Landlock mode's checks write only their private folder and get an IPC namespace of
//! their own, which the kernel empties when they end.

use std::path::PathBuf;

/// The usual folders every user may write (`/var/lock` is often a link to `/run/lock`).
const USUAL: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/dev/shm",
    "/run/lock",
    "/var/lock",
    "/dev/mqueue",
    "/run/shm",
];

/// The folders every user may write on this machine, where a check's user can leave files: the
/// usual ones and every mount point open to all (`mode o+w`), each once, none beneath another
/// (walking one walks the others beneath it). Found once per process.
pub fn shared_places() -> Vec<PathBuf> {
    static PLACES: std::sync::OnceLock<Vec<PathBuf>> = std::sync::OnceLock::new();
    PLACES
        .get_or_init(|| {
            let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
            let candidates = USUAL.iter().map(PathBuf::from).chain(mount_points(&mounts));
            open_to_all(candidates)
        })
        .clone()
}

/// The mount points `/proc/self/mountinfo`'s text lists (its fifth field, with the kernel's octal
/// escapes of spaces and the like undone), but those of `/proc` and `/sys`.
fn mount_points(mountinfo: &str) -> Vec<PathBuf> {
    mountinfo
        .lines()
        .filter_map(|line| line.split(' ').nth(4))
        .map(unescape)
        .filter(|p| !p.starts_with("/proc") && !p.starts_with("/sys"))
        .map(PathBuf::from)
        .collect()
}

/// `\040` to a space, and so on.
fn unescape(field: &str) -> String {
    let bytes = field.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let octal = bytes
            .get(i + 1..i + 4)
            .filter(|d| bytes[i] == b'\\' && d.iter().all(|b| (b'0'..=b'7').contains(b)));
        match octal {
            Some(d) => {
                out.push((d[0] - b'0') << 6 | (d[1] - b'0') << 3 | (d[2] - b'0'));
                i += 4;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Of `candidates`, the folders (links resolved) every user may write, each once and none
/// beneath another.
fn open_to_all(candidates: impl Iterator<Item = PathBuf>) -> Vec<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let mut places: Vec<PathBuf> = candidates
        .filter_map(|p| p.canonicalize().ok())
        .filter(|p| {
            std::fs::metadata(p).is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o002 != 0)
        })
        .collect();
    places.sort();
    places.dedup();
    let all = places.clone();
    places.retain(|p| !all.iter().any(|q| q != p && p.starts_with(q)));
    places
}

/// The System V IPC objects of one kind, as `/proc/sysvipc/{shm,sem,msg}` lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ipc {
    Shm,
    Sem,
    Msg,
}

impl Ipc {
    const ALL: [Ipc; 3] = [Ipc::Shm, Ipc::Sem, Ipc::Msg];

    fn table(self) -> &'static str {
        match self {
            Ipc::Shm => "/proc/sysvipc/shm",
            Ipc::Sem => "/proc/sysvipc/sem",
            Ipc::Msg => "/proc/sysvipc/msg",
        }
    }
}

/// The ids in a `/proc/sysvipc` table's `text` of the objects that user `uid` owns or made (an
/// owner can give an object away, never its creator's id). The columns are found by their
/// header's names; the id is the second column whatever its name (`shmid`, `semid`, `msqid`).
fn owned_ids(text: &str, uid: u32) -> Vec<i32> {
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split_whitespace().collect();
    let column = |name: &str| header.iter().position(|h| *h == name);
    let (Some(owner), Some(creator)) = (column("uid"), column("cuid")) else {
        return Vec::new();
    };
    lines
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let of = |i: usize| fields.get(i).and_then(|f| f.parse::<u32>().ok());
            let id = fields.get(1)?.parse().ok()?;
            (of(owner) == Some(uid) || of(creator) == Some(uid)).then_some(id)
        })
        .collect()
}

/// Removes every System V shared memory segment, semaphore set and message queue that user `uid`
/// owns or made (a segment still attached goes when its last process does, and the check's
/// processes are gone by now). The grader is root in the container mode, so it may.
pub fn remove_ipc(uid: u32) {
    for kind in Ipc::ALL {
        let text = std::fs::read_to_string(kind.table()).unwrap_or_default();
        for id in owned_ids(&text, uid) {
            rmid(kind, id);
        }
    }
}

/// `IPC_RMID` on object `id` of `kind`. nix wraps none of these calls; removing needs no buffer.
#[allow(unsafe_code)]
fn rmid(kind: Ipc, id: i32) {
    use nix::libc::{IPC_RMID, msgctl, semctl, shmctl};
    // SAFETY: with `IPC_RMID` each call reads no buffer (a null pointer is allowed, and `semctl`
    // takes no fourth argument); an id that is gone or reused makes it fail with an error, which
    // changes nothing.
    unsafe {
        match kind {
            Ipc::Shm => shmctl(id, IPC_RMID, std::ptr::null_mut()),
            Ipc::Sem => semctl(id, 0, IPC_RMID),
            Ipc::Msg => msgctl(id, IPC_RMID, std::ptr::null_mut()),
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_are_found_by_owner_or_creator() {
        let shm = "       key      shmid perms                  size  cpid  lpid nattch   uid   gid  cuid  cgid      atime      dtime      ctime                   rss                  swap\n\
                   0   32768   600   65536  10  0  0  1073741824  0  1073741824  0  0 0 0 0 0\n\
                   1   32769   600   65536  10  0  0  0  0  1073741824  0  0 0 0 0 0\n\
                   2   32770   600   65536  10  0  0  5  5  5  5  0 0 0 0 0\n";
        assert_eq!(owned_ids(shm, 1 << 30), vec![32768, 32769]);
        assert_eq!(owned_ids(shm, 5), vec![32770]);
        assert_eq!(owned_ids(shm, 6), Vec::<i32>::new());
        let sem = "       key      semid perms      nsems   uid   gid  cuid  cgid      otime      ctime\n\
                   7        3   600          1     0     0     9     9          0 0\n";
        assert_eq!(owned_ids(sem, 9), vec![3]);
        assert_eq!(owned_ids("", 9), Vec::<i32>::new());
        assert_eq!(owned_ids("key id\n1 2\n", 9), Vec::<i32>::new());
    }

    #[test]
    fn mount_points_are_read_unescaped() {
        let info = "22 1 0:21 / /proc rw - proc proc rw\n\
                    30 1 0:30 / /dev/shm rw - tmpfs tmpfs rw\n\
                    31 1 0:31 / /srv/a\\040b rw - tmpfs tmpfs rw\n\
                    32 1 0:32 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        assert_eq!(
            mount_points(info),
            vec![PathBuf::from("/dev/shm"), PathBuf::from("/srv/a b")]
        );
        assert_eq!(unescape("a\\134b\\0"), "a\\b\\0");
    }

    #[test]
    fn shared_places_are_the_folders_open_to_all_none_beneath_another() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let open = dir.path().join("open");
        let inner = open.join("inner");
        let closed = dir.path().join("closed");
        for d in [&open, &inner, &closed] {
            std::fs::create_dir(d).unwrap();
        }
        for d in [&open, &inner] {
            std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o1777)).unwrap();
        }
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&open, &link).unwrap();
        let found = open_to_all(
            [
                inner.clone(),
                closed,
                link,
                open.clone(),
                dir.path().join("none"),
            ]
            .into_iter(),
        );
        assert_eq!(found, vec![open.canonicalize().unwrap()]);
        assert!(shared_places().iter().all(|p| p.is_absolute()));
    }
}
