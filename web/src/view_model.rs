//! Display data computed from what the core returns: plain, comparable
//! structs and pure functions, no browser types, tested natively.
//!
//! - [`format`]: bytes, counts and timestamps with their units.
//! - [`keys`]: row keys escaped and cut into tinted segments.
//! - [`rows`]: the rows panel's lines and their heights.
//! - [`schema`]: tables, families, GC rule drafts and their validation.
//! - [`tablets`]: the Tablets bar and SampleRowKeys.
//! - [`filter`]: the console's visual filter builder.
//! - [`keydesign`]: the row-key designer's drafts and example keys.
//! - [`learn`]: the advisor's findings and fixes, access patterns, lessons.
//! - [`tools`]: export files, import previews, CSV imports, views.
//! - [`text`]: prose with `code` between backticks, cut into pieces.
//! - [`console`]: the console's suggestions and transcript marks.

pub mod ab;
pub mod change_feed;
pub mod console;
pub mod filter;
pub mod format;
pub mod instance_views;
pub mod keydesign;
pub mod keys;
pub mod keyviz;
pub mod learn;
pub mod rows;
pub mod schema;
pub mod sim;
pub mod tablets;
pub mod text;
pub mod tools;

pub use format::{count_noun, format_count, format_timestamp};
pub use keys::{DisplayKey, KeyPart};
