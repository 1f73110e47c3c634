use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::Duration;

/// Manages a collection of threads.
///
/// A new thread is created every time all the existing threads are full.
/// Any idle thread will automatically die after a few seconds.
pub struct TaskPool {
    sharing: Arc<Sharing>,
}

struct Sharing {
    // list of the tasks to be done by worker threads
    // keyhook patch j: with the number of threads waiting for one, under the same lock.
    todo: Mutex<Todo>,

    // condvar that will be notified whenever a task is added to `todo`
    condvar: Condvar,

    // number of total worker threads running
    active_tasks: AtomicUsize,
}

// keyhook patch j: the tasks waiting for a thread, and how many threads are waiting for a
// task (blocked on the condvar; a thread counts itself before it waits and uncounts itself
// when it wakes, both under the lock). A task is queued only while fewer tasks are queued
// than threads wait, so each queued task has a waiting thread of its own; otherwise it gets
// a new thread. (Upstream counted waiting threads apart from the queue and uncounted one
// only after it had taken a task: a task spawned between a thread's wake-up and its taking
// the task it was woken for was queued for that same thread, and waited, unserved, until
// some thread finished a task: with kept-alive connections, until some connection ended.)
struct Todo {
    tasks: VecDeque<Box<dyn FnMut() + Send>>,
    waiting: usize,
}

/// Minimum number of active threads.
static MIN_THREADS: usize = 4;

struct Registration<'a> {
    nb: &'a AtomicUsize,
}

impl<'a> Registration<'a> {
    fn new(nb: &'a AtomicUsize) -> Registration<'a> {
        nb.fetch_add(1, Ordering::Release);
        Registration { nb }
    }
}

impl<'a> Drop for Registration<'a> {
    fn drop(&mut self) {
        self.nb.fetch_sub(1, Ordering::Release);
    }
}

impl TaskPool {
    pub fn new() -> TaskPool {
        let pool = TaskPool {
            sharing: Arc::new(Sharing {
                todo: Mutex::new(Todo {
                    tasks: VecDeque::new(),
                    waiting: 0,
                }),
                condvar: Condvar::new(),
                active_tasks: AtomicUsize::new(0),
            }),
        };

        for _ in 0..MIN_THREADS {
            pool.add_thread(None)
        }

        pool
    }

    /// Executes a function in a thread.
    /// If no thread is available, spawns a new one.
    pub fn spawn(&self, code: Box<dyn FnMut() + Send>) {
        let mut todo = self.sharing.todo.lock().unwrap();

        // keyhook patch j: queued only for a waiting thread no other queued task has.
        if todo.tasks.len() < todo.waiting {
            todo.tasks.push_back(code);
            self.sharing.condvar.notify_one();
        } else {
            drop(todo);
            self.add_thread(Some(code));
        }
    }

    fn add_thread(&self, initial_fn: Option<Box<dyn FnMut() + Send>>) {
        let sharing = self.sharing.clone();

        thread::spawn(move || {
            let sharing = sharing;
            let _active_guard = Registration::new(&sharing.active_tasks);

            if let Some(mut f) = initial_fn {
                f();
            }

            loop {
                let mut task: Box<dyn FnMut() + Send> = {
                    let mut todo = sharing.todo.lock().unwrap();

                    let task;
                    loop {
                        if let Some(poped_task) = todo.tasks.pop_front() {
                            task = poped_task;
                            break;
                        }
                        // keyhook patch j: counted while blocked on the condvar, and no
                        // longer from the moment it wakes (under the lock, both).
                        todo.waiting += 1;

                        let received =
                            if sharing.active_tasks.load(Ordering::Acquire) <= MIN_THREADS {
                                todo = sharing.condvar.wait(todo).unwrap();
                                true
                            } else {
                                let (new_lock, waitres) = sharing
                                    .condvar
                                    .wait_timeout(todo, Duration::from_millis(5000))
                                    .unwrap();
                                todo = new_lock;
                                !waitres.timed_out()
                            };
                        todo.waiting -= 1;

                        if !received && todo.tasks.is_empty() {
                            return;
                        }
                    }

                    task
                };

                task();
            }
        });
    }
}

impl Drop for TaskPool {
    fn drop(&mut self) {
        self.sharing
            .active_tasks
            .store(999_999_999, Ordering::Release);
        self.sharing.condvar.notify_all();
    }
}

// keyhook patch j: a burst of tasks that never end (as kept-alive connections) each get a
// thread of their own at once.
#[cfg(test)]
mod test {
    use super::TaskPool;
    use std::sync::mpsc;
    use std::sync::{Arc, Barrier};
    use std::time::Duration;

    #[test]
    fn a_burst_of_endless_tasks_all_start() {
        let pool = TaskPool::new();
        for round in 0..20 {
            let (started, seen) = mpsc::channel();
            let release = Arc::new(Barrier::new(65));
            for i in 0..64 {
                let (started, release) = (started.clone(), Arc::clone(&release));
                let mut once = Some(());
                pool.spawn(Box::new(move || {
                    if once.take().is_some() {
                        started.send(i).unwrap();
                        release.wait();
                    }
                }));
            }
            for n in 0..64 {
                if seen.recv_timeout(Duration::from_secs(10)).is_err() {
                    panic!(
                        "round {}: {} of 64 tasks started, the rest wait for a thread",
                        round, n
                    );
                }
            }
            release.wait();
        }
    }
}
