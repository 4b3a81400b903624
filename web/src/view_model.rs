//! Display data computed from what the core returns: plain, comparable
//! structs and pure functions, no browser types, tested natively.
//!
//! - [`format`]: bytes, counts and timestamps with their units.
//! - [`keys`]: row keys escaped and cut into tinted segments.
//! - [`rows`]: the rows panel's lines and their heights.
//! - [`schema`]: tables, families, GC rule drafts and their validation.
//! - [`tablets`]: the Tablets bar and SampleRowKeys.
//! - [`filter`]: the console's visual filter builder.

pub mod filter;
pub mod format;
pub mod keys;
pub mod rows;
pub mod schema;
pub mod tablets;

pub use format::{count_noun, format_bytes, format_count, format_timestamp};
pub use keys::{DisplayKey, KeyPart};
