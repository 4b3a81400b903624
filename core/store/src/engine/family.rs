//! The column families of one table as the engine sees them: small integer
//! ids stored in every cell, names, definitions, and the name order cells
//! are sorted by.
//!
//! Ids are never reused: dropping a family retires its id, so cells written
//! under the old id stay invisible even if a family with the same name is
//! created again, until compaction removes them.

use std::collections::BTreeMap;

use crate::error::{Code, Error, Result};
use crate::schema::{ColumnFamily, GcRule};

/// A family id, stored in every cell.
pub(crate) type FamilyId = u16;

#[derive(Clone, Debug)]
struct Slot {
    name: Box<str>,
    def: ColumnFamily,
    alive: bool,
}

/// The family registry of a table.
#[derive(Clone, Debug, Default)]
pub(crate) struct Families {
    /// Indexed by [`FamilyId`]; retired ids keep their slot.
    slots: Vec<Slot>,
    /// Live families only.
    by_name: BTreeMap<String, FamilyId>,
    /// The same, as a list: for the few families a table usually has, a
    /// linear scan beats the tree (writes look a family up per cell).
    list: Vec<(Box<str>, FamilyId)>,
    /// `ranks[id]` is the position of `(name, id)` among all slots sorted by
    /// name then id. Adding a family never changes the relative order of two
    /// existing ids, so data sorted under old ranks stays sorted.
    ranks: Vec<u16>,
}

impl Families {
    /// The id of a live family.
    pub(crate) fn id(&self, name: &str) -> Option<FamilyId> {
        if self.list.len() <= 16 {
            return self
                .list
                .iter()
                .find(|(n, _)| n.len() == name.len() && **n == *name)
                .map(|&(_, id)| id);
        }
        self.by_name.get(name).copied()
    }

    /// The id of a live family, or NOT_FOUND naming it.
    pub(crate) fn require(&self, name: &str) -> Result<FamilyId> {
        self.id(name).ok_or_else(|| {
            Error::not_found(format!(
                "column family \"{name}\" does not exist in this table"
            ))
        })
    }

    pub(crate) fn name(&self, id: FamilyId) -> &str {
        &self.slots[usize::from(id)].name
    }

    pub(crate) fn def(&self, id: FamilyId) -> &ColumnFamily {
        &self.slots[usize::from(id)].def
    }

    pub(crate) fn gc_rule(&self, id: FamilyId) -> Option<&GcRule> {
        self.slots[usize::from(id)].def.gc_rule.as_ref()
    }

    pub(crate) fn is_alive(&self, id: FamilyId) -> bool {
        self.slots[usize::from(id)].alive
    }

    pub(crate) fn ranks(&self) -> &[u16] {
        &self.ranks
    }

    /// Number of ids ever handed out (live and retired).
    pub(crate) fn id_count(&self) -> usize {
        self.slots.len()
    }

    /// Live families in name order.
    pub(crate) fn live(&self) -> impl Iterator<Item = (&str, FamilyId, &ColumnFamily)> {
        self.by_name
            .iter()
            .map(|(n, &id)| (n.as_str(), id, &self.slots[usize::from(id)].def))
    }

    /// Adds a family; the caller has validated name and definition.
    pub(crate) fn create(&mut self, name: &str, def: ColumnFamily) -> Result<FamilyId> {
        if self.by_name.contains_key(name) {
            return Err(Error::family_exists(name));
        }
        let id = FamilyId::try_from(self.slots.len()).map_err(|_| {
            Error::new(
                Code::ResourceExhausted,
                "this table has used up its 65536 column family ids; copy it to a new table",
            )
        })?;
        self.slots.push(Slot {
            name: name.into(),
            def,
            alive: true,
        });
        self.by_name.insert(name.to_string(), id);
        self.list.push((name.into(), id));
        self.rerank();
        Ok(id)
    }

    /// Replaces a live family's definition.
    pub(crate) fn update(&mut self, name: &str, def: ColumnFamily) -> Result<()> {
        let id = self.require(name)?;
        self.slots[usize::from(id)].def = def;
        Ok(())
    }

    /// Retires a live family.
    pub(crate) fn drop_family(&mut self, name: &str) -> Result<FamilyId> {
        let id = self.require(name)?;
        self.by_name.remove(name);
        self.list.retain(|&(_, i)| i != id);
        self.slots[usize::from(id)].alive = false;
        Ok(id)
    }

    fn rerank(&mut self) {
        let mut order: Vec<FamilyId> = (0..self.slots.len())
            .map(|i| FamilyId::try_from(i).unwrap_or(FamilyId::MAX))
            .collect();
        order.sort_by(|&a, &b| {
            self.slots[usize::from(a)]
                .name
                .cmp(&self.slots[usize::from(b)].name)
                .then(a.cmp(&b))
        });
        self.ranks = vec![0; self.slots.len()];
        for (rank, id) in order.into_iter().enumerate() {
            self.ranks[usize::from(id)] = u16::try_from(rank).unwrap_or(u16::MAX);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_follow_names_and_survive_additions() {
        let mut f = Families::default();
        let b = f.create("b", ColumnFamily::default()).unwrap();
        let d = f.create("d", ColumnFamily::default()).unwrap();
        assert!(f.ranks()[usize::from(b)] < f.ranks()[usize::from(d)]);
        let c = f.create("c", ColumnFamily::default()).unwrap();
        let r = f.ranks();
        assert!(r[usize::from(b)] < r[usize::from(c)] && r[usize::from(c)] < r[usize::from(d)]);
        assert_eq!(
            f.create("c", ColumnFamily::default()).unwrap_err().code(),
            Code::AlreadyExists
        );
    }

    #[test]
    fn dropped_ids_are_not_reused() {
        let mut f = Families::default();
        let a = f.create("a", ColumnFamily::default()).unwrap();
        assert_eq!(f.drop_family("a").unwrap(), a);
        assert!(!f.is_alive(a));
        assert_eq!(f.require("a").unwrap_err().code(), Code::NotFound);
        let a2 = f.create("a", ColumnFamily::default()).unwrap();
        assert_ne!(a, a2);
        assert!(f.ranks()[usize::from(a)] < f.ranks()[usize::from(a2)]);
        assert_eq!(f.live().count(), 1);
    }
}
