//! [`Instances`]: every instance a host keeps, each a separate namespace
//! of tables, as Bigtable's instances are.
//!
//! A table created under `projects/p/instances/other` is not seen under
//! `projects/p/instances/i`. An instance comes into being as soon as it is
//! named, as in Google's emulator (Bigtable itself creates instances
//! through its instance admin API, which the playground does not offer),
//! and only instances holding something (a table) are kept: naming an
//! instance to read from it leaves nothing behind. The first instance, the
//! primary, is the one used when a request names none (a host's default);
//! while it holds nothing it gives way to the first instance that does, so
//! a fresh host whose first table goes to `projects/p/instances/i` uses
//! that instance by default from then on.
//!
//! All instances share one clock: after any of them moves on (a `clock`
//! command, `advanceClock`), [`Instances::sync_clocks`] brings the others
//! to the same time, with their due engine work.
//!
//! Snapshots: one instance is written exactly as [`Instance::snapshot`]
//! writes it (so single-instance files stay as they were); several are
//! bundled as snapshot version 4. [`Instances::restore`] reads both, and
//! every older version as one instance.

use tabletop_store::{EngineEvent, Error, Result, validate_resource_id};

use crate::instance::Instance;

/// Every instance a host keeps; never empty.
#[derive(Clone, Debug)]
pub struct Instances {
    /// The primary first, then the others in the order they were named.
    list: Vec<Instance>,
}

impl Default for Instances {
    fn default() -> Instances {
        Instances::new(Instance::default())
    }
}

impl From<Instance> for Instances {
    fn from(primary: Instance) -> Instances {
        Instances::new(primary)
    }
}

fn names_of(db: &Instance) -> (&str, &str) {
    (&db.config().project, &db.config().instance)
}

impl Instances {
    /// Instances holding only `primary`.
    #[must_use]
    pub fn new(primary: Instance) -> Instances {
        Instances {
            list: vec![primary],
        }
    }

    /// The primary instance.
    #[must_use]
    pub fn primary(&self) -> &Instance {
        &self.list[0]
    }

    /// The primary instance, to change it.
    pub fn primary_mut(&mut self) -> &mut Instance {
        &mut self.list[0]
    }

    /// Every instance, the primary first.
    pub fn iter(&self) -> impl Iterator<Item = &Instance> {
        self.list.iter()
    }

    /// How many instances there are (at least one).
    #[must_use]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Always false: there is at least the primary.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        false
    }

    fn position(&self, project: &str, instance: &str) -> Option<usize> {
        self.list
            .iter()
            .position(|db| names_of(db) == (project, instance))
    }

    /// The instance with these ids, if it exists.
    #[must_use]
    pub fn get(&self, project: &str, instance: &str) -> Option<&Instance> {
        self.position(project, instance).map(|i| &self.list[i])
    }

    /// The instance with these ids, made (empty, with the primary's
    /// settings and clock) if there is none yet. Ids no resource name
    /// could hold are refused.
    pub fn select(&mut self, project: &str, instance: &str) -> Result<&mut Instance> {
        if let Some(i) = self.position(project, instance) {
            return Ok(&mut self.list[i]);
        }
        validate_resource_id("project", project)?;
        validate_resource_id("instance", instance)?;
        let primary = self.primary();
        let mut config = primary.config().clone();
        config.project = project.to_string();
        config.instance = instance.to_string();
        let now = primary.now_micros();
        let fidelity = primary.fidelity();
        let mut db = Instance::new(config);
        db.set_now(now);
        // An empty instance: no switch is refused.
        db.switch_fidelity(fidelity)?;
        self.list.push(db);
        let last = self.list.len() - 1;
        Ok(&mut self.list[last])
    }

    /// Forgets the instances that hold nothing (no table), so naming an
    /// instance leaves no trace; the primary stays unless another instance
    /// holds something and it does not (then that one becomes the primary).
    pub fn prune(&mut self) {
        fn holds(db: &Instance) -> bool {
            db.table_count() > 0 || !db.catalog().is_empty()
        }
        if !holds(&self.list[0]) && self.list.iter().any(holds) {
            self.list.remove(0);
        }
        let mut first = true;
        self.list.retain(|db| {
            let keep = first || holds(db);
            first = false;
            keep
        });
    }

    /// Switches every instance's fidelity (production's answers or the
    /// emulator's), and so that of the instances named later; returns how
    /// many HyperLogLog cells holding the emulator's raw input became
    /// sketches. Every instance is checked first, so while one holds what
    /// production refuses, leaving the emulator's answers is refused
    /// (`FAILED_PRECONDITION`, naming it) and none changes
    /// (see [`Instance::switch_fidelity`]).
    pub fn switch_fidelity(&mut self, fidelity: tabletop_store::Fidelity) -> Result<usize> {
        for db in &mut self.list {
            db.check_fidelity_switch(fidelity)?;
        }
        let mut sketched = 0;
        for db in &mut self.list {
            sketched += db.switch_fidelity(fidelity)?;
        }
        Ok(sketched)
    }

    /// Brings every instance's clock to the latest of them, doing their
    /// due work; returns what the engines did.
    pub fn sync_clocks(&mut self) -> Vec<EngineEvent> {
        let latest = self.list.iter().map(|db| db.now_micros()).max();
        let mut events = Vec::new();
        if let Some(now) = latest {
            for db in &mut self.list {
                if db.now_micros() < now {
                    events.extend(db.tick(now));
                }
            }
        }
        events
    }

    /// Sets every instance's clock to the wall clock (those that follow
    /// it) and does the due work.
    pub fn sync_wall_clock(&mut self, wall_micros: i64) -> Vec<EngineEvent> {
        let mut events = Vec::new();
        for db in &mut self.list {
            events.extend(db.sync_wall_clock(wall_micros));
        }
        events
    }

    /// Moves the clocks that follow the wall to `wall_micros` (never back)
    /// without doing any work (see [`Instance::set_now`]).
    pub fn follow_wall_clock(&mut self, wall_micros: i64) {
        for db in &mut self.list {
            if !db.clock_is_simulated() {
                let now = wall_micros.max(db.now_micros());
                db.set_now(now);
            }
        }
    }

    /// Every instance as snapshot bytes: one instance as its own snapshot,
    /// several bundled (version 4).
    pub fn snapshot(&mut self) -> Vec<u8> {
        self.snapshot_choosing(true)
    }

    /// [`Instances::snapshot`] without the tables' traffic.
    pub fn snapshot_without_traffic(&mut self) -> Vec<u8> {
        self.snapshot_choosing(false)
    }

    fn snapshot_choosing(&mut self, traffic: bool) -> Vec<u8> {
        let mut parts: Vec<Vec<u8>> = self
            .list
            .iter_mut()
            .map(|db| {
                if traffic {
                    db.snapshot()
                } else {
                    db.snapshot_without_traffic()
                }
            })
            .collect();
        if parts.len() == 1 {
            return parts.remove(0);
        }
        tabletop_store::Instance::bundle_snapshots(&parts)
    }

    /// Rebuilds every instance from snapshot bytes of any version: a
    /// bundle (version 4) gives all its instances, an older snapshot one.
    pub fn restore(bytes: &[u8]) -> Result<Instances> {
        let parts = tabletop_store::Instance::unbundle_snapshot(bytes)?;
        let mut list: Vec<Instance> = Vec::with_capacity(parts.len());
        for (n, part) in parts.iter().enumerate() {
            let db = Instance::restore(part).map_err(|e| {
                if parts.len() == 1 {
                    e
                } else {
                    e.context(format!("instance {} of the snapshot", n + 1))
                }
            })?;
            if list.iter().any(|o| names_of(o) == names_of(&db)) {
                let (p, i) = names_of(&db);
                return Err(Error::invalid(format!(
                    "the snapshot holds instance projects/{p}/instances/{i} twice"
                )));
            }
            list.push(db);
        }
        Ok(Instances { list })
    }
}
