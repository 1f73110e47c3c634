use std::io::Result as IoResult;
use std::io::{Read, Write};

use std::sync::{Arc, Condvar, Mutex, MutexGuard};

// keyhook patch k: the requests of a connection take turns with its reading half and its
// writing half through one `Turns` per half, made when the connection is, instead of a new
// channel per request and half (upstream: two `mpsc` channels a request, each a 128-byte
// aligned allocation and a block of slots allocated at its first message, the largest
// part of the layer's own work a request and a contended `malloc` arena lock under load).
// A reader or writer is a ticket: it waits until the tickets before it are done, and
// handing the turn on is a lock, a store and, only when a thread waits, a wake-up.

/// keyhook patch k: whose turn it is, among the tickets handed out in order.
struct Turns<T> {
    state: Mutex<TurnState<T>>,
    changed: Condvar,
}

struct TurnState<T> {
    /// The ticket whose turn it is.
    turn: u64,
    /// Tickets done before their turn came (dropped without being used): skipped when it
    /// comes. Rare: it stays empty while the connection's requests are handled in order.
    done_early: Vec<u64>,
    /// Threads blocked in `Turns::take`.
    waiting: usize,
    /// What the ticket before left for the next one (the reading half).
    value: Option<T>,
}

impl<T> Turns<T> {
    fn new() -> Turns<T> {
        Turns {
            state: Mutex::new(TurnState {
                turn: 0,
                done_early: Vec::new(),
                waiting: 0,
                value: None,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, TurnState<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Blocks until it is `ticket`'s turn; returns what the ticket before left.
    fn take(&self, ticket: u64) -> Option<T> {
        let mut state = self.lock();
        while state.turn != ticket {
            state.waiting += 1;
            state = self.changed.wait(state).unwrap_or_else(|e| e.into_inner());
            state.waiting -= 1;
        }
        state.value.take()
    }

    /// Ends `ticket`'s turn, leaving `value` to the next ticket; a ticket whose turn has not
    /// come yet is skipped when it comes. Never blocks.
    fn finish(&self, ticket: u64, value: Option<T>) {
        let mut state = self.lock();
        if state.turn != ticket {
            state.done_early.push(ticket);
            return;
        }
        if value.is_some() {
            state.value = value;
        }
        state.turn += 1;
        while let Some(i) = state.done_early.iter().position(|&t| t == state.turn) {
            state.done_early.swap_remove(i);
            state.turn += 1;
        }
        if state.waiting > 0 {
            self.changed.notify_all();
        }
    }
}

pub struct SequentialReaderBuilder<R>
where
    R: Read + Send,
{
    turns: Arc<Turns<R>>,
    /// The reader itself until the first `SequentialReader` takes it.
    first: Option<R>,
    next_ticket: u64,
}

pub struct SequentialReader<R>
where
    R: Read + Send,
{
    /// The reader, once this one's turn has come.
    reader: Option<R>,
    ticket: u64,
    turns: Arc<Turns<R>>,
}

pub struct SequentialWriterBuilder<W>
where
    W: Write + Send,
{
    shared: Arc<WriterShared<W>>,
    next_ticket: u64,
}

struct WriterShared<W> {
    writer: Mutex<W>,
    turns: Turns<()>,
}

pub struct SequentialWriter<W>
where
    W: Write + Send,
{
    ticket: u64,
    /// This writer's turn has come (it waited for the responses before it).
    my_turn: bool,
    shared: Arc<WriterShared<W>>,
}

impl<R: Read + Send> SequentialReaderBuilder<R> {
    pub fn new(reader: R) -> SequentialReaderBuilder<R> {
        SequentialReaderBuilder {
            turns: Arc::new(Turns::new()),
            first: Some(reader),
            next_ticket: 0,
        }
    }
}

impl<W: Write + Send> SequentialWriterBuilder<W> {
    pub fn new(writer: W) -> SequentialWriterBuilder<W> {
        SequentialWriterBuilder {
            shared: Arc::new(WriterShared {
                writer: Mutex::new(writer),
                turns: Turns::new(),
            }),
            next_ticket: 0,
        }
    }
}

impl<W: Write + Send> SequentialWriterBuilder<W> {
    /// keyhook patch: runs `f` on the writer shared by this connection's responses (to set
    /// socket options through it).
    pub fn with_inner<T>(&self, f: impl FnOnce(&mut W) -> T) -> T {
        f(&mut self.shared.writer.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

impl<R: Read + Send> Iterator for SequentialReaderBuilder<R> {
    type Item = SequentialReader<R>;

    fn next(&mut self) -> Option<SequentialReader<R>> {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        Some(SequentialReader {
            reader: self.first.take(),
            ticket,
            turns: Arc::clone(&self.turns),
        })
    }
}

impl<W: Write + Send> Iterator for SequentialWriterBuilder<W> {
    type Item = SequentialWriter<W>;
    fn next(&mut self) -> Option<SequentialWriter<W>> {
        let ticket = self.next_ticket;
        self.next_ticket += 1;
        Some(SequentialWriter {
            ticket,
            my_turn: false,
            shared: Arc::clone(&self.shared),
        })
    }
}

impl<R: Read + Send> SequentialReader<R> {
    /// keyhook patch: the reader itself (once it is this reader's turn), so that the request
    /// head can be read through `BufRead` with bounded lines instead of a byte at a time.
    pub fn get_mut(&mut self) -> &mut R {
        let (turns, ticket) = (&self.turns, self.ticket);
        // keyhook patch k: every reader before this one returns the reader when it is
        // dropped (or is skipped), so it is there once this one's turn comes.
        self.reader.get_or_insert_with(|| {
            turns
                .take(ticket)
                .expect("the reader is handed on with the turn")
        })
    }
}

impl<R: Read + Send> Read for SequentialReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> IoResult<usize> {
        self.get_mut().read(buf)
    }
}

impl<W: Write + Send> SequentialWriter<W> {
    fn wait_for_turn(&mut self) {
        if !self.my_turn {
            self.shared.turns.take(self.ticket);
            self.my_turn = true;
        }
    }
}

impl<W: Write + Send> Write for SequentialWriter<W> {
    fn write(&mut self, buf: &[u8]) -> IoResult<usize> {
        self.wait_for_turn();
        self.shared.writer.lock().unwrap().write(buf)
    }

    fn flush(&mut self) -> IoResult<()> {
        self.wait_for_turn();
        self.shared.writer.lock().unwrap().flush()
    }
}

impl<R> Drop for SequentialReader<R>
where
    R: Read + Send,
{
    fn drop(&mut self) {
        // keyhook patch k: a reader whose turn has not come is skipped when it comes
        // (upstream blocked here until then, to pass the reader on).
        self.turns.finish(self.ticket, self.reader.take());
    }
}

impl<W> Drop for SequentialWriter<W>
where
    W: Write + Send,
{
    fn drop(&mut self) {
        // keyhook patch k: a writer dropped before its turn is skipped when it comes (upstream
        // let the next response write at once, even while the one before was still writing).
        self.shared.turns.finish(self.ticket, None);
    }
}

#[cfg(test)]
mod test {
    use super::*;
    use std::io::Cursor;
    use std::sync::mpsc;
    use std::thread;
    use std::time::Duration;

    /// A writer that records every write.
    #[derive(Clone, Default)]
    struct Recorded(Arc<Mutex<Vec<u8>>>);

    impl Write for Recorded {
        fn write(&mut self, buf: &[u8]) -> IoResult<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> IoResult<()> {
            Ok(())
        }
    }

    #[test]
    fn readers_take_turns_in_order_and_hand_the_reader_on() {
        let mut builder = SequentialReaderBuilder::new(Cursor::new(b"abcdef".to_vec()));
        let mut first = builder.next().unwrap();
        let mut second = builder.next().unwrap();
        let mut third = builder.next().unwrap();
        let mut buf = [0u8; 2];
        first.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"ab");
        // The third waits for the second, which waits for the first.
        let (tx, rx) = mpsc::channel();
        let waiter = thread::spawn(move || {
            let mut buf = [0u8; 2];
            third.read_exact(&mut buf).unwrap();
            tx.send(buf).unwrap();
        });
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
        drop(first);
        second.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"cd");
        assert!(rx.recv_timeout(Duration::from_millis(50)).is_err());
        drop(second);
        assert_eq!(&rx.recv().unwrap(), b"ef");
        waiter.join().unwrap();
    }

    #[test]
    fn a_reader_dropped_before_its_turn_is_skipped_without_blocking() {
        let mut builder = SequentialReaderBuilder::new(Cursor::new(b"xy".to_vec()));
        let mut first = builder.next().unwrap();
        let second = builder.next().unwrap();
        let mut third = builder.next().unwrap();
        drop(second);
        let mut buf = [0u8; 1];
        first.read_exact(&mut buf).unwrap();
        drop(first);
        third.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"y");
    }

    #[test]
    fn responses_are_written_in_the_order_of_their_requests() {
        let out = Recorded::default();
        let mut builder = SequentialWriterBuilder::new(out.clone());
        let mut first = builder.next().unwrap();
        let mut second = builder.next().unwrap();
        let unused = builder.next().unwrap();
        let mut fourth = builder.next().unwrap();
        // Dropped before its turn: skipped when it comes, and lets nothing after it go first.
        drop(unused);
        let fourth = thread::spawn(move || fourth.write_all(b"4").unwrap());
        let second = thread::spawn(move || second.write_all(b"2").unwrap());
        first.write_all(b"1").unwrap();
        drop(first);
        second.join().unwrap();
        fourth.join().unwrap();
        assert_eq!(&*out.0.lock().unwrap(), b"124");
    }
}
