//! The instances every connection shares, and the JSON protocol call each
//! gRPC method makes on the instance its request names.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tabletop_core::{Error, Instance, Instances, api};
use tonic::{Code, Status};

/// How often requests let the engine do its due work (flushes, GC,
/// splits); in between they only move the clock.
const ENGINE_WORK_EVERY: Duration = Duration::from_millis(10);

struct Held {
    db: Instances,
    last_work: Option<Instant>,
}

/// The served instances, behind a lock: each request runs whole under it,
/// as one request of the JSON protocol, in the instance its resource name
/// spells (an instance exists once it is named, as in the emulator).
#[derive(Clone)]
pub struct Shared {
    held: Arc<Mutex<Held>>,
}

impl Shared {
    /// Serves `db`.
    pub fn new(db: Instances) -> Shared {
        let held = Held {
            db,
            last_work: None,
        };
        Shared {
            held: Arc::new(Mutex::new(held)),
        }
    }

    /// Runs `f` on the primary instance (the first one, the one a request
    /// naming none would reach). A panic in an earlier request leaves the
    /// lock poisoned; the instance is still served (each request is
    /// checked whole by the core before it changes anything).
    pub fn with<T>(&self, f: impl FnOnce(&mut Instance) -> T) -> T {
        let mut held = self.lock();
        sync_clock(&mut held);
        f(held.db.primary_mut())
    }

    /// Takes the instances out (leaving an empty set), for saving them
    /// when the server has stopped.
    pub fn take(&self) -> Instances {
        std::mem::take(&mut self.lock().db)
    }

    fn lock(&self) -> MutexGuard<'_, Held> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs one JSON protocol method: `request` is its body, the answer
    /// is the `response` body, and an error becomes the gRPC status with
    /// the same code and message.
    pub fn call(&self, method: &str, request: &Value) -> Result<Value, Status> {
        self.for_request(request, |db| api::handle_value(db, method, request))
    }

    /// Runs `f` as one request on the instance `request` (a JSON protocol
    /// body) names, or on the primary one when it names none.
    pub fn for_request<T>(
        &self,
        request: &Value,
        f: impl FnOnce(&mut Instance) -> Result<T, Error>,
    ) -> Result<T, Status> {
        let mut held = self.lock();
        sync_clock(&mut held);
        let answer = match instance_named(request) {
            Some((project, instance)) => held.db.select(&project, &instance).and_then(f),
            None => f(held.db.primary_mut()),
        };
        held.db.prune();
        held.db.sync_clocks();
        answer.map_err(|e| status(&e))
    }
}

impl Shared {
    /// Runs `f` on the instance `name` spells (`projects/P/instances/I`),
    /// as one request, for the methods that work on the core's types
    /// rather than through the JSON protocol (the SQL queries).
    pub fn on_instance<T>(
        &self,
        name: &str,
        f: impl FnOnce(&mut Instance) -> Result<T, Error>,
    ) -> Result<T, Status> {
        let Some((project, instance)) =
            project_and_instance(name).filter(|_| name.split('/').count() == 4)
        else {
            let shown: String = name.chars().take(100).collect();
            return Err(Status::invalid_argument(format!(
                "\"{shown}\" is not an instance name of the form projects/{{project}}/instances/{{instance}}"
            )));
        };
        let mut held = self.lock();
        sync_clock(&mut held);
        let answer = held.db.select(&project, &instance).and_then(f);
        held.db.prune();
        held.db.sync_clocks();
        answer.map_err(|e| status(&e))
    }
}

/// The project and instance ids of the resource a request names (`parent`,
/// `name`, `tableName`, `authorizedViewName`, `instanceName`), if any.
fn instance_named(request: &Value) -> Option<(String, String)> {
    [
        "authorizedViewName",
        "tableName",
        "parent",
        "name",
        "instanceName",
    ]
    .iter()
    .filter_map(|field| request.get(field).and_then(Value::as_str))
    .find_map(project_and_instance)
}

fn project_and_instance(name: &str) -> Option<(String, String)> {
    let mut parts = name.split('/');
    match (parts.next(), parts.next(), parts.next(), parts.next()) {
        (Some("projects"), Some(project), Some("instances"), Some(instance))
            if !project.is_empty() && !instance.is_empty() =>
        {
            Some((project.to_string(), instance.to_string()))
        }
        _ => None,
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
    } else {
        held.db.follow_wall_clock(wall);
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
