//! The one instance every connection shares, and the JSON protocol call
//! each gRPC method makes on it.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tabletop_core::{Error, Instance, api};
use tonic::{Code, Status};

/// How often requests let the engine do its due work (flushes, GC,
/// splits); in between they only move the clock.
const ENGINE_WORK_EVERY: Duration = Duration::from_millis(10);

struct Held {
    db: Instance,
    last_work: Option<Instant>,
}

/// The served instance, behind a lock: each request runs whole under it,
/// as one request of the JSON protocol.
#[derive(Clone)]
pub struct Shared {
    held: Arc<Mutex<Held>>,
}

impl Shared {
    /// Serves `db`.
    pub fn new(db: Instance) -> Shared {
        let held = Held {
            db,
            last_work: None,
        };
        Shared {
            held: Arc::new(Mutex::new(held)),
        }
    }

    /// Runs `f` on the instance. A panic in an earlier request leaves the
    /// lock poisoned; the instance is still served (each request is
    /// checked whole by the core before it changes anything).
    pub fn with<T>(&self, f: impl FnOnce(&mut Instance) -> T) -> T {
        let mut held = self.lock();
        sync_clock(&mut held);
        f(&mut held.db)
    }

    /// Takes the instance out (leaving an empty one), for saving it when
    /// the server has stopped.
    pub fn take(&self) -> Instance {
        std::mem::take(&mut self.lock().db)
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs one JSON protocol method: `request` is its body, the answer
    /// is the `response` body, and an error becomes the gRPC status with
    /// the same code and message.
    pub fn call(&self, method: &str, request: &Value) -> Result<Value, Status> {
        self.with(|db| api::handle_value(db, method, request))
            .map_err(|e| status(&e))
    }
}

fn sync_clock(held: &mut Held) {
    let wall = wall_micros();
    if held
        .last_work
        .is_none_or(|t| t.elapsed() >= ENGINE_WORK_EVERY)
    {
        held.db.sync_wall_clock(wall);
        held.last_work = Some(Instant::now());
    } else if !held.db.clock_is_simulated() {
        let now = wall.max(held.db.now_micros());
        held.db.set_now(now);
    }
}

fn wall_micros() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
}

/// The gRPC status of a core error: same code, same message.
pub fn status(e: &Error) -> Status {
    Status::new(Code::from_i32(e.code().number()), e.message())
}
