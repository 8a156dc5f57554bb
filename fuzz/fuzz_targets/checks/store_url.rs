//! Segment store URLs, the table-mapping options included: a URL that is read gives a driver URL
//! from which every idmint parameter was taken (reading it again changes nothing), and the
//! driver's own parser takes it or refuses it, never panics.

use idmint_core::fuzzing::store_url;
use idmint_core::segment::describe_url;

/// Runs the assertions above on one input: a panic is a finding.
pub fn check(data: &[u8]) {
    let Ok(url) = std::str::from_utf8(data) else {
        return;
    };
    // The description shown in messages never carries the credentials.
    let shown = describe_url(url);
    if let Some((_, rest)) = shown.split_once("://") {
        assert!(!rest.contains('@'), "{url:?} -> {shown:?}");
    }
    if let Ok(plan) = store_url(url) {
        super::common::check_plan(url, &plan);
    }
}
