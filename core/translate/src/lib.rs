//! The top floor of Tabletop: designs from other databases translated to
//! Bigtable (DynamoDB models and tables, Oracle NoSQL DDL) and an
//! instance's tables exported for a real one (cbt, gcloud, Terraform);
//! see [`translate`].
//!
//! # Where this crate sits
//!
//! Last of the core's six crates (tabletop-store < tabletop-sql <
//! tabletop-wire < tabletop-design < tabletop-teach <
//! **tabletop-translate**); it may use every other: a translation runs the
//! advisor on its result, writes its sample rows through cbt and its
//! indexes as materialized views.

#![deny(missing_docs)]

pub mod translate;
