//! `tabletop serve`: Bigtable's gRPC data API (`google.bigtable.v2.Bigtable`),
//! table admin API (`google.bigtable.admin.v2.BigtableTableAdmin`) and the
//! logical view methods of the instance admin API
//! (`google.bigtable.admin.v2.BigtableInstanceAdmin`) over
//! a Tabletop instance, so `cbt` and the official client libraries work
//! against it with `BIGTABLE_EMULATOR_HOST`, as with Google's emulator.
//!
//! Every method is the core's JSON protocol method of the same name
//! (`tabletop_core::api`): the request message is transcoded to its proto3
//! JSON, run, and the answer transcoded back, so the semantics, checks,
//! status codes and messages are the JSON protocol's, with no second
//! implementation here. ReadRows reads a page at a time
//! ([`tabletop_core::api::ReadPages`]) and streams each as cell chunks;
//! ReadChangeStream stays open and sends changes as they commit.
//! PrepareQuery and ExecuteQuery run the core's SQL (`tabletop_core::sql`)
//! directly, since their answers are typed values the JSON protocol does
//! not carry. Plain MutateRow and MutateRows hand the request's bytes to
//! the same core call the JSON protocol makes (`writes`), declining
//! anything unusual to it. A missing or existing table is worded as the
//! emulator words it (`wording`), and a family's GC rule and value type
//! come back as the client spelled them (`spelling`). Each change is handed to the host's
//! [`Journal`] as it commits (`tabletop serve --state` logs it).
//!
//! The protocol types are generated at build time from Google's `.proto`
//! files vendored under `proto/` (see its README).

#![deny(missing_docs)]

mod admin;
mod change_stream;
mod chunks;
mod data;
mod instance;
mod instance_admin;
mod materialized_views;
mod operations;
mod proto;
mod query;
mod server;
mod spelling;
mod transcode;
mod wording;
mod writes;

pub use self::instance::{Commit, Journal, Shared};
pub use self::server::{Options, Report, run, serve};
