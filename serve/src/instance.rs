//! The instances every connection shares, and the JSON protocol call each
//! gRPC method makes on the instance its request names.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use tabletop_core::{Error, Instance, Instances, api};
use tonic::{Code, Status};

use crate::wording;

/// How often requests let an instance's engine do its due work (flushes,
/// GC, splits); in between they only move its clock.
const ENGINE_WORK_EVERY: Duration = Duration::from_millis(10);

struct Held {
    db: Instances,
    journal: Option<Journal>,
    /// The upkeep of each instance a request reached, by project and
    /// instance id: an instance no request reaches costs nothing.
    upkeep: HashMap<(String, String), Upkeep>,
}

/// When an instance's engine last did its due work, and whether it did
/// any since the instance's last commit.
#[derive(Default)]
struct Upkeep {
    last_work: Option<Instant>,
    worked_since_commit: bool,
}

/// A request that changed an instance, handed to the host as it commits
/// (under the instance's lock, before the answer goes out), so the host
/// can keep it: `tabletop serve --state` appends it to the state file's
/// log. Reads are not handed over.
#[derive(Debug)]
pub struct Commit<'a> {
    /// The JSON protocol method (`mutateRows`, `createTable`, ...).
    pub method: &'a str,
    /// Its request body, as the JSON protocol takes it.
    pub request: &'a Value,
    /// The project and instance it ran in.
    pub project: &'a str,
    /// See `project`.
    pub instance: &'a str,
    /// The instance clock when it ran.
    pub now_micros: i64,
    /// Whether moving the instance's clock did engine work (flushes,
    /// compactions, splits) since the previous commit in that instance.
    pub engine_work: bool,
}

/// Keeps each commit; an error is a sentence for the client (the write
/// was applied in memory but not kept).
pub type Journal = Arc<dyn Fn(&mut Instances, &Commit<'_>) -> Result<(), String> + Send + Sync>;

/// A change to hand to the journal: its method and, made only when there
/// is a journal, its JSON protocol body.
type Change<'a> = (&'a str, &'a dyn Fn() -> Result<Value, Status>);

/// The served instances, behind a lock: each request runs whole under it,
/// as one request of the JSON protocol, in the instance its resource name
/// spells (an instance exists once it is named, as in the emulator).
///
/// Upkeep is lazy: a request brings only the instance it reaches to the
/// wall clock, with that instance's due engine work (at most every
/// [`ENGINE_WORK_EVERY`]), so the cost of a call does not grow with the
/// number of instances served. An instance no request reaches keeps its
/// clock where it was; the next request to reach it does its work first,
/// so what it answers is what it would have answered had it been kept
/// up all along.
#[derive(Clone)]
pub struct Shared {
    held: Arc<Mutex<Held>>,
}

impl Shared {
    /// Serves `db`.
    pub fn new(db: Instances) -> Shared {
        Shared::with_journal(db, None)
    }

    /// Serves `db`, handing each commit to `journal`.
    pub fn with_journal(db: Instances, journal: Option<Journal>) -> Shared {
        let held = Held {
            db,
            journal,
            upkeep: HashMap::new(),
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
        let key = names_of(held.db.primary());
        let held = &mut *held;
        keep_up(held.db.primary_mut(), held.upkeep.entry(key).or_default());
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
        self.call_and(method, request, |_, answer| Ok(answer))
    }

    /// [`Shared::call`], then `then` on the instance and the answer, in
    /// the same turn under the lock (before a change is handed to the
    /// journal, so what `then` notes in the instance is kept with it).
    pub fn call_and<T>(
        &self,
        method: &str,
        request: &Value,
        then: impl FnOnce(&mut Instance, Value) -> Result<T, Status>,
    ) -> Result<T, Status> {
        let body = || Ok(request.clone());
        let change: Option<Change<'_>> = api::is_bigtable_write(method).then_some((method, &body));
        let mut out = None;
        self.run(instance_named(request), change, |db| {
            let answer = api::handle_value(db, method, request)
                .map_err(|e| wording::reword(method, request, e))?;
            out = Some(then(db, answer));
            Ok(())
        })?;
        out.unwrap_or_else(|| Err(Status::internal(format!("{method} answered nothing"))))
    }

    /// Runs `f`, a change made by `method` without the JSON protocol, on
    /// the instance of the resource `name`; `body` makes its JSON protocol
    /// request for the journal.
    pub fn change<T>(
        &self,
        name: &str,
        method: &str,
        body: &dyn Fn() -> Result<Value, Status>,
        f: impl FnOnce(&mut Instance) -> Result<T, Error>,
    ) -> Result<T, Status> {
        self.run(project_and_instance(name), Some((method, body)), f)
    }

    /// Runs `f` as one request on the instance `request` (a JSON protocol
    /// body) names, or on the primary one when it names none.
    pub fn for_request<T>(
        &self,
        request: &Value,
        f: impl FnOnce(&mut Instance) -> Result<T, Error>,
    ) -> Result<T, Status> {
        self.run(instance_named(request), None, f)
    }

    fn run<T>(
        &self,
        names: Option<(String, String)>,
        change: Option<Change<'_>>,
        f: impl FnOnce(&mut Instance) -> Result<T, Error>,
    ) -> Result<T, Status> {
        let mut guard = self.lock();
        let held = &mut *guard;
        let key = names.unwrap_or_else(|| names_of(held.db.primary()));
        let db = held.db.select(&key.0, &key.1).map_err(|e| status(&e))?;
        let upkeep = held.upkeep.entry(key.clone()).or_default();
        keep_up(db, upkeep);
        let now_micros = db.now_micros();
        let answer = f(db);
        let moved = db.now_micros() != now_micros;
        held.db.prune();
        if held.db.get(&key.0, &key.1).is_none() {
            // Named only to be read, or its last table deleted: gone.
            held.upkeep.remove(&key);
        }
        if moved {
            // The request moved this instance's clock (none of the gRPC
            // methods does, but the core's may): the others follow, as
            // all instances share one clock.
            held.db.sync_clocks();
        }
        let answer = answer.map_err(|e| status(&e))?;
        if let Some((method, body)) = change {
            commit(held, method, body, &key, now_micros)?;
        }
        Ok(answer)
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
        self.run(Some((project, instance)), None, f)
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

/// Hands a change that succeeded to the journal, if there is one.
fn commit(
    held: &mut Held,
    method: &str,
    body: &dyn Fn() -> Result<Value, Status>,
    (project, instance): &(String, String),
    now_micros: i64,
) -> Result<(), Status> {
    let Some(journal) = held.journal.clone() else {
        return Ok(());
    };
    let engine_work = held
        .upkeep
        .get_mut(&(project.clone(), instance.clone()))
        .is_some_and(|u| std::mem::take(&mut u.worked_since_commit));
    let request = body()?;
    let commit = Commit {
        method,
        request: &request,
        project,
        instance,
        now_micros,
        engine_work,
    };
    journal(&mut held.db, &commit).map_err(|e| {
        Status::internal(format!(
            "the change was made but could not be kept: {e}; it will be saved when the server stops"
        ))
    })
}

fn names_of(db: &Instance) -> (String, String) {
    let config = db.config();
    (config.project.clone(), config.instance.clone())
}

/// Brings `db` to the wall clock before a request: with its due engine
/// work when it last worked [`ENGINE_WORK_EVERY`] ago or more (or never),
/// otherwise only moving its clock (a simulated clock stays as it is).
fn keep_up(db: &mut Instance, upkeep: &mut Upkeep) {
    let wall = wall_micros();
    if upkeep
        .last_work
        .is_none_or(|t| t.elapsed() >= ENGINE_WORK_EVERY)
    {
        if !db.sync_wall_clock(wall).is_empty() {
            upkeep.worked_since_commit = true;
        }
        upkeep.last_work = Some(Instant::now());
    } else if !db.clock_is_simulated() {
        db.set_now(wall.max(db.now_micros()));
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
