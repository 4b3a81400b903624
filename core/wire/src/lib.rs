//! The wire floor of Tabletop: the two languages hosts speak to an
//! instance, Bigtable's REST JSON protocol ([`api`]) and the `cbt` command
//! language ([`cbt`]), with output byte for byte what Bigtable's front end
//! and Google's `cbt` give.
//!
//! # Where this crate sits
//!
//! Third of the core's six crates (tabletop-store < tabletop-sql <
//! **tabletop-wire** < tabletop-design < tabletop-teach <
//! tabletop-translate); it uses the store and SQL (the protocol's `sql`
//! and `explain` methods). Both languages can hand back the store's
//! [`Trace`](tabletop_store::Trace) of every data operation a request made
//! ([`api::handle_traced`], [`cbt::exec_line_traced`]), so hosts report
//! what a read did without parsing what it printed.

#![deny(missing_docs)]

pub mod api;
pub mod cbt;
