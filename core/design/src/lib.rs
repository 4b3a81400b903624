//! The design floor of Tabletop: row-key templates ([`keydesign`]), the
//! scenario document ([`scenario`]), the cluster simulator ([`sim`]) and
//! the Key Visualizer ([`keyviz`]) and A/B comparisons of two designs on
//! one workload ([`compare`]), on a deterministic [`rng`].
//!
//! # Where this crate sits
//!
//! Fourth of the core's six crates (tabletop-store < tabletop-sql <
//! tabletop-wire < **tabletop-design** < tabletop-teach <
//! tabletop-translate); it uses the store and SQL (a key template implies
//! a row-key schema; a scenario's tables materialize into an instance) and
//! nothing of the wire formats. Inside, modules follow the same one-way
//! order: `rng` < `keydesign` < `scenario` < `balance` < `keyviz` < `sim` <
//! `compare`.

#![deny(missing_docs)]

pub mod balance;
pub mod compare;
pub mod keydesign;
pub mod keyviz;
pub mod rng;
pub mod scenario;
pub mod sim;
