//! What the URL targets check of a plan: the driver URL keeps no idmint parameter (reading it
//! again with the plan's options changes nothing), and the driver's own URL parser takes it or
//! refuses it, never panics.
//!
//! The check files reach it as `super::common`: whoever includes them declares it beside them
//! (the two fuzz targets, core/tests/fuzz_corpus.rs).

use idmint_core::fuzzing::{driver_parse, reapply, UrlPlan};

pub fn check_plan(url: &str, plan: &UrlPlan) {
    let again = reapply(plan).expect("the driver URL reads again");
    assert_eq!(
        again,
        (plan.options.clone(), plan.driver_url.clone()),
        "{url:?}"
    );
    let _ = driver_parse(plan);
}
