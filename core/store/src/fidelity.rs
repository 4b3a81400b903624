//! [`Fidelity`]: whether an instance answers as production Bigtable does
//! (the default) or as Google's Bigtable emulator does where the two
//! differ, so a team can find the tests that pass only on the emulator.
//!
//! Each difference is implemented where the behaviour lives, never by
//! rewriting an answer after the fact: the store's write paths (see
//! `instance/emulator.rs`), its reads and conditional writes, and, above
//! the store, the wire layer's admin answers. The differences, as the
//! differential suite records them (`tests/differential`, `diverges`
//! entries), and what [`Fidelity::Emulator`] does about each:
//!
//! - a mutation naming a family the table does not have: `UNKNOWN`
//!   `unknown family "f"` (production `NOT_FOUND`); a negative timestamp:
//!   `UNKNOWN` `invalid timestamp T`; one that is not a multiple of 1000:
//!   `UNKNOWN`; AddToCell on a family that is not an aggregate: `UNKNOWN`;
//! - a row's mutations apply one at a time, up to the failing one (no
//!   atomicity); MutateRow takes any number of mutations;
//! - MutateRows: an entry with no mutations is accepted (and does
//!   nothing); every failed entry reports `INTERNAL`;
//! - `min` and `max` aggregate families keep the last input at a
//!   timestamp instead of aggregating;
//! - CheckAndMutateRow without mutations and ReadModifyWriteRow without
//!   rules are accepted; an increment of a value that is not 8 bytes is
//!   `UNKNOWN` (production `FAILED_PRECONDITION`), and so (wire) is a rule
//!   with no operation (`unknown RMW rule oneof <nil>`);
//! - any table id is accepted; an empty initial split key is ignored;
//! - ModifyColumnFamilies applies its modifications one at a time, up to
//!   the failing one; updating or dropping a family the table does not have
//!   is `UNKNOWN` `no such family "f"`;
//! - DropRowRange with an empty prefix drops every row;
//! - ReadRows with a negative rows limit returns no rows; a filter naming
//!   a family the table does not have selects nothing (production
//!   `NOT_FOUND`); an invalid filter on a read that finds no rows passes;
//!   `sink` acts as `passAllFilter` and a chain applies only its last
//!   label; a `stripValueTransformer` drops the labels applied before it
//!   in its chain (the filter is rewritten as the emulator reads it, in
//!   reads and in CheckAndMutateRow's predicate); a label is any text
//!   holding one character of `[a-z0-9-]`, of any length (the compiler
//!   checks it so);
//! - a filter regex Go's `regexp` refuses is answered in Go's words on the
//!   emulator's anchored pattern, reading bytes as the emulator's
//!   `binaryregexp` does (`filter/go_syntax.rs`);
//! - GC rules that keep nothing (a version count or an age of 0) are
//!   accepted; MutateRow(s), CheckAndMutateRow and ReadModifyWriteRow take
//!   row keys over 4 KiB; an AddToCell to a
//!   HyperLogLog family keeps the raw input as the cell's value (the
//!   emulator does not aggregate it). Such an instance's snapshot is
//!   version 6, which records the fidelity and reads these back. Switching
//!   such an instance back to production makes each raw HyperLogLog input
//!   the sketch of that input (`instance/fidelity_switch.rs`), so
//!   production's AddToCell aggregates into it; `switch_fidelity` refuses
//!   to switch while a long key or a GC rule that keeps nothing remains;
//! - (wire) GetTable leaves out `granularity`; the authorized view and
//!   logical view admin methods answer `UNIMPLEMENTED`, and data requests
//!   sent to an `authorizedViewName` read the empty table name
//!   (`NOT_FOUND`).
//!
//! Not reproduced (the differential suite says so next to each): the
//! emulator's timing (its garbage collection on a background timer), the
//! patterns its regexp takes that Tabletop's RE2 dialect does not (more
//! than 250 nested groups; Unicode classes such as `\pN`, which Tabletop
//! does not support at all), and the emulator crashing on instance admin
//! calls, change stream reads and a negative `cellsPerRowOffsetFilter`.

/// How an instance answers where Google's emulator differs from
/// production Bigtable.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Fidelity {
    /// As production Bigtable does (the default).
    #[default]
    Production,
    /// As Google's Bigtable emulator does, where it differs.
    Emulator,
}

impl Fidelity {
    /// Whether this is [`Fidelity::Emulator`].
    #[must_use]
    pub fn is_emulator(self) -> bool {
        self == Fidelity::Emulator
    }
}
