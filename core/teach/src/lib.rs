//! The teaching floor of Tabletop: the schema [`advisor`] (findings, rule
//! ids, fixes) and the [`lesson`]s (setup, checks, progress).
//!
//! # Where this crate sits
//!
//! Fifth of the core's six crates (tabletop-store < tabletop-sql <
//! tabletop-wire < tabletop-design < **tabletop-teach** <
//! tabletop-translate); it uses all four below: lessons run cbt and JSON
//! and read their traces, the advisor reads designs and simulation
//! reports. Inside, `advisor` < `lesson`.

#![deny(missing_docs)]

pub mod advisor;
pub mod lesson;
