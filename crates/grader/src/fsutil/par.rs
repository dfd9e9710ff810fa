//! The grader's one work queue: an ordered parallel map over scoped threads, for listing,
//! running and grading many things at once.
//!
//! Poison policy: a job that panics stops the queue. No job starts after the panic, the jobs
//! already running finish, and the first panic then goes on unwinding on the caller's thread
//! (`resume_unwind`, with the job's own payload). A caller that wants a failing job to cost that
//! job only catches inside `f` and returns an error value instead.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Condvar, Mutex, OnceLock};

/// `f` applied to each of `items`, at most `workers` at once (at least one), the results in the
/// order of `items`. See the module docs for a panicking `f`.
pub fn par_map<T: Sync, R: Send + Sync>(
    workers: usize,
    items: &[T],
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    par_map_with(workers, items, || (), |(), item| f(item))
}

/// [`par_map`] where each worker thread first makes a state of its own with `init` (a cache that
/// is not shared), lent to `f` for every item that thread takes.
pub fn par_map_with<T: Sync, R: Send + Sync, S>(
    workers: usize,
    items: &[T],
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) -> R + Sync,
) -> Vec<R> {
    queue(workers, items, &|_| &[], init, |state, item, _| {
        f(state, item)
    })
}

/// [`par_map`] where an item starts only once the items `after(item)` (indices into `items`, of
/// earlier items only, so one is always ready) have finished; `f` gets their results, in the
/// order `after` names them. A worker takes the first item ready, so a waiting item holds no
/// worker back.
pub fn par_map_after<T: Sync, R: Send + Sync>(
    workers: usize,
    items: &[T],
    after: &(dyn Fn(&T) -> &[usize] + Sync),
    f: impl Fn(&T, &[&R]) -> R + Sync,
) -> Vec<R> {
    debug_assert!(
        items
            .iter()
            .enumerate()
            .all(|(i, item)| after(item).iter().all(|a| *a < i)),
        "an item may only wait for earlier items"
    );
    queue(
        workers,
        items,
        after,
        || (),
        |(), item, before| f(item, before),
    )
}

/// What the workers share, behind one lock: which items started and finished, and the first
/// panic.
struct Board {
    /// Every item before this one has started.
    first: usize,
    started: Vec<bool>,
    finished: Vec<bool>,
    panic: Option<Box<dyn Any + Send>>,
}

/// What a worker does next.
enum Next {
    Take(usize),
    Wait,
    Stop,
}

impl Board {
    /// The first item not started whose prerequisites have finished (marked started).
    fn next<T>(&mut self, items: &[T], after: &(dyn Fn(&T) -> &[usize] + Sync)) -> Next {
        if self.panic.is_some() {
            return Next::Stop;
        }
        while self.first < items.len() && self.started[self.first] {
            self.first += 1;
        }
        let finished = &self.finished;
        let ready = (self.first..items.len())
            .find(|i| !self.started[*i] && after(&items[*i]).iter().all(|a| finished[*a]));
        if let Some(i) = ready {
            self.started[i] = true;
            return Next::Take(i);
        }
        if self.first == items.len() {
            Next::Stop
        } else {
            Next::Wait
        }
    }
}

/// The queue behind the three maps.
fn queue<T: Sync, R: Send + Sync, S>(
    workers: usize,
    items: &[T],
    after: &(dyn Fn(&T) -> &[usize] + Sync),
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T, &[&R]) -> R + Sync,
) -> Vec<R> {
    let results: Vec<OnceLock<R>> = items.iter().map(|_| OnceLock::new()).collect();
    let board = Mutex::new(Board {
        first: 0,
        started: vec![false; items.len()],
        finished: vec![false; items.len()],
        panic: None,
    });
    let changed = Condvar::new();
    // No job panics while it holds the lock, so a poisoned lock is only the test harness's.
    let lock = || board.lock().unwrap_or_else(|e| e.into_inner());
    let worker = || {
        let mut state = None;
        loop {
            let i = {
                let mut b = lock();
                loop {
                    match b.next(items, after) {
                        Next::Take(i) => break i,
                        Next::Wait => b = changed.wait(b).unwrap_or_else(|e| e.into_inner()),
                        Next::Stop => return,
                    }
                }
            };
            let done = catch_unwind(AssertUnwindSafe(|| {
                let state = state.get_or_insert_with(&init);
                let before: Vec<&R> = after(&items[i])
                    .iter()
                    .map(|a| results[*a].get().expect("a finished item has its result"))
                    .collect();
                f(state, &items[i], &before)
            }));
            {
                let mut b = lock();
                match done {
                    Ok(r) => {
                        let _ = results[i].set(r);
                        b.finished[i] = true;
                    }
                    Err(payload) => {
                        b.panic.get_or_insert(payload);
                    }
                }
            }
            changed.notify_all();
        }
    };
    std::thread::scope(|s| {
        for _ in 0..workers.clamp(1, items.len().max(1)) {
            s.spawn(worker);
        }
    });
    if let Some(payload) = board.into_inner().unwrap_or_else(|e| e.into_inner()).panic {
        resume_unwind(payload);
    }
    results
        .into_iter()
        .map(|r| r.into_inner().expect("every item ran"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn results_keep_the_items_order_whatever_order_they_finish_in() {
        let items: Vec<u64> = (0..20).collect();
        // Earlier items take longer, so they finish last.
        let out = par_map(4, &items, |n| {
            std::thread::sleep(Duration::from_millis(20 - n));
            n * 10
        });
        assert_eq!(out, items.iter().map(|n| n * 10).collect::<Vec<_>>());
        assert!(par_map(3, &[] as &[u8], |n| *n).is_empty());
    }

    /// The most items `f` ever ran at once.
    fn most_at_once(workers: usize, items: usize) -> usize {
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        par_map(workers, &vec![(); items], |()| {
            let n = now.fetch_add(1, Ordering::SeqCst) + 1;
            most.fetch_max(n, Ordering::SeqCst);
            std::thread::sleep(Duration::from_millis(10));
            now.fetch_sub(1, Ordering::SeqCst);
        });
        most.into_inner()
    }

    #[test]
    fn no_more_than_the_workers_run_at_once() {
        assert_eq!(most_at_once(1, 6), 1);
        assert!(most_at_once(3, 12) <= 3);
        // Zero workers still means one.
        assert_eq!(most_at_once(0, 3), 1);
    }

    #[test]
    fn each_worker_keeps_its_own_state() {
        let made = AtomicUsize::new(0);
        let out = par_map_with(
            2,
            &[1, 2, 3, 4, 5, 6],
            || {
                made.fetch_add(1, Ordering::SeqCst);
                Vec::new()
            },
            |seen: &mut Vec<i32>, n| {
                seen.push(*n);
                seen.len()
            },
        );
        let made = made.into_inner();
        assert!((1..=2).contains(&made));
        // A state's first item sees it empty: one first item per state made.
        assert_eq!(out.iter().filter(|n| **n == 1).count(), made);
        assert_eq!(out.len(), 6);
    }

    #[test]
    fn an_item_starts_after_those_it_waits_for_and_sees_their_results() {
        // (item, the items it waits for): 2 waits for 0 and 1, 3 for 2; 0 is slow, so without
        // the wait 2 and 3 would finish before it.
        let items: Vec<(usize, Vec<usize>)> =
            vec![(0, vec![]), (1, vec![]), (2, vec![0, 1]), (3, vec![2])];
        let finished = Mutex::new(Vec::new());
        fn after(item: &(usize, Vec<usize>)) -> &[usize] {
            &item.1
        }
        let out = par_map_after(4, &items, &after, |(id, _), before| {
            if *id == 0 {
                std::thread::sleep(Duration::from_millis(30));
            }
            finished.lock().unwrap().push(*id);
            before.iter().copied().sum::<usize>() + 1
        });
        assert_eq!(out, vec![1, 1, 3, 4]);
        assert_eq!(&finished.into_inner().unwrap()[2..], &[2, 3]);
    }

    #[test]
    fn a_panicking_job_stops_the_queue_and_its_panic_reaches_the_caller() {
        let items: Vec<usize> = (0..50).collect();
        let run = |workers: usize| {
            let ran = AtomicUsize::new(0);
            let caught = catch_unwind(AssertUnwindSafe(|| {
                par_map(workers, &items, |n| {
                    ran.fetch_add(1, Ordering::SeqCst);
                    if *n == 3 {
                        panic!("job three broke");
                    }
                    std::thread::sleep(Duration::from_millis(2));
                })
            }));
            let payload = caught.expect_err("the panic reaches the caller");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"job three broke"));
            ran.into_inner()
        };
        // One worker: jobs 0 to 3 ran, nothing after.
        assert_eq!(run(1), 4);
        assert!(run(2) < items.len());
    }
}
