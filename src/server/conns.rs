//! The table of open HTTP connections: a cap on how many are served at once that slow clients
//! cannot fill. When the table is full, a new connection takes the place of the oldest one that
//! is still talking with its client (reading its request or writing its answer), which is shut
//! down; only connections whose complete message waits for the handler are safe from that. So
//! however many clients stall or drip, `GET /health` and a well-behaved client are still served
//! at once, and the cap still bounds threads and memory.

use std::net::{Shutdown, TcpStream};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

/// The open connections; shared by the accepting thread and the connection threads.
pub struct Conns {
    max: usize,
    table: Mutex<Table>,
}

#[derive(Default)]
struct Table {
    next_id: u64,
    open: Vec<Slot>,
}

struct Slot {
    id: u64,
    since: Instant,
    stream: Arc<TcpStream>,
    /// Its message is with the handler: evicting it would waste the work done for it.
    handling: bool,
}

/// A connection's place in the table, given up on drop.
pub struct Ticket {
    conns: Arc<Conns>,
    id: u64,
}

impl Conns {
    pub fn new(max: usize) -> Arc<Conns> {
        Arc::new(Conns { max, table: Mutex::new(Table::default()) })
    }

    /// Admits a connection, shutting down the oldest one still talking to its client when the
    /// table is full. `None` when every open connection waits for the handler.
    pub fn admit(self: &Arc<Conns>, stream: &Arc<TcpStream>) -> Option<Ticket> {
        let mut table = self.lock();
        if table.open.len() >= self.max {
            let oldest =
                table.open.iter().enumerate().filter(|(_, s)| !s.handling).min_by_key(|(_, s)| s.since);
            let at = oldest.map(|(at, _)| at)?;
            let evicted = table.open.swap_remove(at);
            // Its thread sees the end of the stream (or a failed write) and finishes.
            let _ = evicted.stream.shutdown(Shutdown::Both);
        }
        let id = table.next_id;
        table.next_id += 1;
        table.open.push(Slot { id, since: Instant::now(), stream: Arc::clone(stream), handling: false });
        Some(Ticket { conns: Arc::clone(self), id })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        // A connection thread never panics while holding the lock; if one did, the table is
        // still consistent (every change is a single push, remove or flag).
        self.table.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Ticket {
    /// Marks the connection as waiting for the handler (or, with false, as talking again).
    pub fn handling(&self, yes: bool) {
        if let Some(slot) = self.conns.lock().open.iter_mut().find(|s| s.id == self.id) {
            slot.handling = yes;
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.conns.lock().open.retain(|s| s.id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use std::io::Read;
    use std::net::TcpListener;

    use super::*;

    /// `n` connected pairs on loopback: the server's ends and the clients'.
    fn pairs(n: usize) -> (Vec<Arc<TcpStream>>, Vec<TcpStream>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let clients: Vec<_> =
            (0..n).map(|_| TcpStream::connect(listener.local_addr().unwrap()).unwrap()).collect();
        let servers = (0..n).map(|_| Arc::new(listener.accept().unwrap().0)).collect();
        (servers, clients)
    }

    fn closed(client: &mut TcpStream) -> bool {
        client.set_read_timeout(Some(std::time::Duration::from_millis(50))).unwrap();
        matches!(client.read(&mut [0u8; 1]), Ok(0))
    }

    #[test]
    fn a_full_table_evicts_the_oldest_talker_never_one_being_handled() {
        let conns = Conns::new(3);
        let (servers, mut clients) = pairs(6);
        let tickets: Vec<_> = servers[..3].iter().map(|s| conns.admit(s).unwrap()).collect();
        tickets[0].handling(true);
        // Full: the fourth takes the place of the oldest talker, the second.
        let fourth = conns.admit(&servers[3]).unwrap();
        assert!(!closed(&mut clients[0]), "being handled: kept");
        assert!(closed(&mut clients[1]), "oldest talker: shut down");
        assert!(!closed(&mut clients[2]));
        // A finished connection frees its place without evicting anyone.
        drop(fourth);
        let fifth = conns.admit(&servers[4]).unwrap();
        assert!(!closed(&mut clients[2]));
        // When every connection is being handled, there is no room: the caller answers 503.
        for t in [&tickets[2], &fifth] {
            t.handling(true);
        }
        assert!(conns.admit(&servers[5]).is_none());
        assert!(!closed(&mut clients[0]) && !closed(&mut clients[2]) && !closed(&mut clients[4]));
    }
}
