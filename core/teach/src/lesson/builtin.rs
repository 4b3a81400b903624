//! The lessons and scenario files shipped in `static/`, compiled in so
//! that the web app and the CLI need no file access.

use super::Catalog;
use tabletop_store::Result;

/// Scenario files lessons may name, by file name.
const SCENARIOS: &[(&str, &str)] = &[
    (
        "filtered_full_scan.toml",
        include_str!("../../../../static/scenarios/filtered_full_scan.toml"),
    ),
    (
        "forward_domains.toml",
        include_str!("../../../../static/scenarios/forward_domains.toml"),
    ),
    (
        "hot_row_counter.toml",
        include_str!("../../../../static/scenarios/hot_row_counter.toml"),
    ),
    (
        "mobile_device_first.toml",
        include_str!("../../../../static/scenarios/mobile_device_first.toml"),
    ),
    (
        "mobile_timestamp_first.toml",
        include_str!("../../../../static/scenarios/mobile_timestamp_first.toml"),
    ),
    (
        "multi_tenant.toml",
        include_str!("../../../../static/scenarios/multi_tenant.toml"),
    ),
    (
        "periodic_batch.toml",
        include_str!("../../../../static/scenarios/periodic_batch.toml"),
    ),
    (
        "reverse_domains.toml",
        include_str!("../../../../static/scenarios/reverse_domains.toml"),
    ),
    (
        "salted_timestamps.toml",
        include_str!("../../../../static/scenarios/salted_timestamps.toml"),
    ),
    (
        "spike_event.toml",
        include_str!("../../../../static/scenarios/spike_event.toml"),
    ),
    (
        "user_ids_reversed.toml",
        include_str!("../../../../static/scenarios/user_ids_reversed.toml"),
    ),
    (
        "user_ids_sequential.toml",
        include_str!("../../../../static/scenarios/user_ids_sequential.toml"),
    ),
    (
        "lesson_device_only.toml",
        include_str!("../../../../static/scenarios/lesson_device_only.toml"),
    ),
    (
        "lesson_scores_unpadded.toml",
        include_str!("../../../../static/scenarios/lesson_scores_unpadded.toml"),
    ),
    (
        "lesson_machine_readings.toml",
        include_str!("../../../../static/scenarios/lesson_machine_readings.toml"),
    ),
    (
        "lesson_timestamp_first.toml",
        include_str!("../../../../static/scenarios/lesson_timestamp_first.toml"),
    ),
    (
        "lesson_user_ids.toml",
        include_str!("../../../../static/scenarios/lesson_user_ids.toml"),
    ),
    (
        "lesson_hot_counter.toml",
        include_str!("../../../../static/scenarios/lesson_hot_counter.toml"),
    ),
    (
        "lesson_hashed_devices.toml",
        include_str!("../../../../static/scenarios/lesson_hashed_devices.toml"),
    ),
    (
        "lesson_event_log.toml",
        include_str!("../../../../static/scenarios/lesson_event_log.toml"),
    ),
    (
        "lesson_forward_domains.toml",
        include_str!("../../../../static/scenarios/lesson_forward_domains.toml"),
    ),
    (
        "lesson_metric_families.toml",
        include_str!("../../../../static/scenarios/lesson_metric_families.toml"),
    ),
    (
        "lesson_sensor_rows.toml",
        include_str!("../../../../static/scenarios/lesson_sensor_rows.toml"),
    ),
    (
        "lesson_profile_attributes.toml",
        include_str!("../../../../static/scenarios/lesson_profile_attributes.toml"),
    ),
    (
        "lesson_oracle_products.toml",
        include_str!("../../../../static/scenarios/lesson_oracle_products.toml"),
    ),
    (
        "lesson_user_sessions.toml",
        include_str!("../../../../static/scenarios/lesson_user_sessions.toml"),
    ),
];

/// The lesson files, in any order (each says its `order`).
const LESSONS: &[&str] = &[
    include_str!("../../../../static/lessons/01_row_ranges.toml"),
    include_str!("../../../../static/lessons/02_delimited_keys.toml"),
    include_str!("../../../../static/lessons/03_zero_padding.toml"),
    include_str!("../../../../static/lessons/04_general_to_specific.toml"),
    include_str!("../../../../static/lessons/05_reverse_timestamps.toml"),
    include_str!("../../../../static/lessons/06_timestamp_first.toml"),
    include_str!("../../../../static/lessons/07_sequential_ids.toml"),
    include_str!("../../../../static/lessons/08_new_rows_not_updates.toml"),
    include_str!("../../../../static/lessons/09_hashed_keys.toml"),
    include_str!("../../../../static/lessons/10_salting.toml"),
    include_str!("../../../../static/lessons/11_multi_tenant.toml"),
    include_str!("../../../../static/lessons/12_reverse_domains.toml"),
    include_str!("../../../../static/lessons/13_gc_versions_age.toml"),
    include_str!("../../../../static/lessons/14_family_grouping.toml"),
    include_str!("../../../../static/lessons/15_qualifiers_as_data.toml"),
    include_str!("../../../../static/lessons/16_wide_rows.toml"),
    include_str!("../../../../static/lessons/17_one_row_atomic.toml"),
    include_str!("../../../../static/lessons/18_aggregate_counters.toml"),
    include_str!("../../../../static/lessons/19_serialized_cell.toml"),
    include_str!("../../../../static/lessons/20_dynamo_catalog.toml"),
    include_str!("../../../../static/lessons/21_dynamo_video.toml"),
    include_str!("../../../../static/lessons/22_dynamo_invoices.toml"),
    include_str!("../../../../static/lessons/23_oracle_ttl.toml"),
    include_str!("../../../../static/lessons/24_key_hygiene.toml"),
    include_str!("../../../../static/lessons/25_sql_secondary_index.toml"),
];

/// The built-in catalog: every lesson in `static/lessons/` with the
/// scenario files of `static/scenarios/`. Fails only if a shipped file is
/// broken (a test makes sure none is).
pub fn builtin() -> Result<Catalog> {
    let mut c = Catalog::new();
    for (name, text) in SCENARIOS {
        c.add_scenario(name, text);
    }
    for text in LESSONS {
        c.add_lesson_toml(text)?;
    }
    Ok(c)
}

/// The shipped lesson files' texts (for tests and tools).
#[must_use]
pub fn lesson_files() -> &'static [&'static str] {
    LESSONS
}

/// The shipped scenario files, by name.
#[must_use]
pub fn scenario_files() -> &'static [(&'static str, &'static str)] {
    SCENARIOS
}
